// Runs one scenario of the real GraphQL client libraries against a starkgraph server and
// reports what the libraries report, as JSON lines on stdout, for clients_test.go to judge.
//
//   node graphql.mjs <scenario>     with STARKGRAPH_URL (http://host:port) and STARKGRAPH_KEY
//
// Scenarios: ws-blocks, sse-blocks (print each newBlocks message until stdin closes),
// ws-query, ws-bad-key, ws-bad-key-retry, ws-no-key, sse-bad-key, ws-slow (stops reading
// until stdin says "resume").
import { createClient as createWSClient } from 'graphql-ws';
import { createClient as createSSEClient } from 'graphql-sse';
import WebSocket from 'ws';
import readline from 'node:readline';

const base = process.env.STARKGRAPH_URL;
const key = process.env.STARKGRAPH_KEY;
const scenario = process.argv[2];
const started = Date.now();

function report(event, fields = {}) {
  process.stdout.write(JSON.stringify({ event, ms: Date.now() - started, ...fields }) + '\n');
}

// The close event or error a library hands to a subscriber, as JSON.
function describe(err) {
  if (err && typeof err === 'object' && 'code' in err && 'reason' in err) {
    return { code: err.code, reason: err.reason };
  }
  if (err && err.response) {
    return { status: err.response.status, message: String(err.message) };
  }
  if (Array.isArray(err)) return { graphqlErrors: err };
  return { message: String(err && err.message ? err.message : err) };
}

const blocksQuery = 'subscription { newBlocks { kind block { number hash } } }';

// Counts the sockets the client opens, and their closes.
function wsClient(options) {
  const counts = { connecting: 0, opened: 0, connected: 0, closed: 0 };
  const client = createWSClient({
    url: base.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    ...options,
    on: {
      connecting: () => { counts.connecting++; report('connecting', { n: counts.connecting }); },
      opened: () => { counts.opened++; },
      connected: () => { counts.connected++; report('connected', { n: counts.connected }); },
      closed: (e) => { counts.closed++; report('closed', describe(e)); },
    },
  });
  return { client, counts };
}

// subscribe reports every message of one subscription, then its end.
function subscribe(client, query, onNext = (r) => report('next', { result: r })) {
  return new Promise((resolve) => {
    client.subscribe({ query }, {
      next: onNext,
      error: (err) => { report('error', describe(err)); resolve(); },
      complete: () => { report('complete'); resolve(); },
    });
  });
}

// untilStdinCloses resolves when the test closes our stdin (its way to say "stop").
function stdinLines(onLine) {
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input: process.stdin });
    rl.on('line', onLine);
    rl.on('close', resolve);
  });
}

const scenarios = {
  // Every newBlocks message over graphql-transport-ws, across server restarts.
  async 'ws-blocks'() {
    const { client } = wsClient({ connectionParams: { 'x-api-key': key }, retryAttempts: 10 });
    subscribe(client, blocksQuery);
    await stdinLines(() => {});
    await client.dispose();
  },
  // The same over Server-Sent Events (graphql-sse, distinct connections mode).
  async 'sse-blocks'() {
    let connecting = 0;
    const client = createSSEClient({
      url: base + '/graphql',
      headers: { 'x-api-key': key },
      retryAttempts: 10,
      on: {
        connecting: () => { connecting++; report('connecting', { n: connecting }); },
        connected: () => report('connected', { n: connecting }),
      },
    });
    subscribe(client, blocksQuery);
    await stdinLines(() => {});
    client.dispose();
  },
  // A query over the WebSocket: one next, then complete.
  async 'ws-query'() {
    const { client } = wsClient({ connectionParams: { 'x-api-key': key }, retryAttempts: 0 });
    await subscribe(client, '{ blocks(first: 2) { edges { node { number hash } } } }');
    await client.dispose();
  },
  // A wrong key, no retries: the subscriber gets the close, and nothing reconnects.
  async 'ws-bad-key'() {
    const { client, counts } = wsClient({ connectionParams: { 'x-api-key': 'sg_not_a_key' }, retryAttempts: 0 });
    await subscribe(client, blocksQuery);
    await new Promise((r) => setTimeout(r, 2000)); // would any reconnect come?
    report('done', counts);
    await client.dispose();
  },
  // A wrong key with retries: the library's backoff between attempts, then the close.
  async 'ws-bad-key-retry'() {
    const { client, counts } = wsClient({ connectionParams: { 'x-api-key': 'sg_not_a_key' }, retryAttempts: 1 });
    await subscribe(client, blocksQuery);
    await new Promise((r) => setTimeout(r, 2000));
    report('done', counts);
    await client.dispose();
  },
  // No key at all.
  async 'ws-no-key'() {
    const { client, counts } = wsClient({ retryAttempts: 0 });
    await subscribe(client, blocksQuery);
    await new Promise((r) => setTimeout(r, 1000));
    report('done', counts);
    await client.dispose();
  },
  // A wrong key over SSE: the answer's status before any stream.
  async 'sse-bad-key'() {
    let connecting = 0;
    const client = createSSEClient({
      url: base + '/graphql',
      headers: { 'x-api-key': 'sg_not_a_key' },
      retryAttempts: 0,
      on: { connecting: () => { connecting++; } },
    });
    await subscribe(client, blocksQuery);
    await new Promise((r) => setTimeout(r, 1000));
    report('done', { connecting });
    client.dispose();
  },
  // A consumer that stops reading its socket after its first message, until told to
  // resume: what does the library report once it reads again?
  async 'ws-slow'() {
    let socket;
    class PausingWebSocket extends WebSocket {
      constructor(...args) { super(...args); socket = this; }
    }
    const { client, counts } = wsClient({
      connectionParams: { 'x-api-key': key }, retryAttempts: 0, webSocketImpl: PausingWebSocket,
    });
    let messages = 0;
    let paused = false;
    const ended = subscribe(client, 'subscription { transactions { hash calldata signature senderAddress } }', (r) => {
      messages++;
      if (r.errors) report('next', { result: r, messages });
      if (!paused) {
        paused = true;
        socket._socket.pause(); // stop reading: the server's writes pile up, then block
        report('paused');
      }
    });
    stdinLines((line) => {
      if (line === 'resume') { socket._socket.resume(); report('resumed', { messages }); }
    });
    await ended;
    report('done', { messages, ...counts });
    await client.dispose();
    process.exit(0);
  },
};

if (!base || !scenarios[scenario]) {
  console.error('usage: STARKGRAPH_URL=... STARKGRAPH_KEY=... node graphql.mjs ' + Object.keys(scenarios).join('|'));
  process.exit(2);
}
scenarios[scenario]().then(() => process.exit(0), (err) => {
  report('crashed', describe(err));
  process.exit(1);
});
