// Verifies and signs Standard Webhooks messages with the npm `standardwebhooks` library, the
// receiver library docs/webhooks.md recommends, for the Go tests of webhooks/
// (webhooks/node_test.go): what starkgraph signs, a real receiver library must accept, and
// must refuse once tampered with.
//
//   node webhooks.mjs < cases.json
//
// cases.json: [{name, op: "verify", secret, payload, headers}] or
//             [{name, op: "sign", secret, id, timestamp, payload}]
// One JSON line per case: {name, event: "verified" | "refused" | "signed", reason, signature}.
import fs from 'node:fs';
import standardwebhooks from 'standardwebhooks';

const { Webhook } = standardwebhooks;
const out = (line) => process.stdout.write(JSON.stringify(line) + '\n');

const cases = JSON.parse(fs.readFileSync(0, 'utf8'));
for (const c of cases) {
  try {
    const wh = new Webhook(c.secret);
    if (c.op === 'sign') {
      out({ name: c.name, event: 'signed', signature: wh.sign(c.id, new Date(c.timestamp * 1000), c.payload) });
      continue;
    }
    // The payload as a receiver gets it: the raw body, a Buffer of its bytes.
    wh.verify(Buffer.from(c.payload, 'utf8'), c.headers);
    out({ name: c.name, event: 'verified' });
  } catch (e) {
    out({ name: c.name, event: 'refused', reason: `${e.name}: ${e.message}` });
  }
}
