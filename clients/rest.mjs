// Generates a REST client from a starkgraph server's OpenAPI document and calls every
// operation with it, as a client written against the document would; reports, per
// operation, the status and whether the answer decodes as the document says.
//
//   node rest.mjs <calls.json>      with STARKGRAPH_URL (http://host:port)
//
// calls.json: [{opId, method, path, pathParams, query, body}], one call per operation, its
// path as the document has it (relative to the document's server).
// The client: types from openapi-typescript, checked by tsc against the calls; requests by
// openapi-fetch; each answer validated by ajv against the document's schema of its status.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import createClient from 'openapi-fetch';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const here = path.dirname(fileURLToPath(import.meta.url));
const base = process.env.STARKGRAPH_URL;
const calls = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const started = Date.now();
const out = (line) => process.stdout.write(JSON.stringify(line) + '\n');

const docResponse = await fetch(base + '/beta/openapi.json');
const doc = await docResponse.json();

// 1. The generated types, and a typed call of every operation that tsc must accept.
const work = fs.mkdtempSync(path.join(here, 'gen-'));
try {
  fs.writeFileSync(path.join(work, 'schema.d.ts'), astToString(await openapiTS(doc)));
  out({ generated: 'schema.d.ts', ms: Date.now() - started });
  const typed = (v, schema) => {
    const t = schema && (Array.isArray(schema.type) ? schema.type.find((x) => x !== 'null') : schema.type);
    if (t === 'integer' || t === 'number') return Number(v);
    if (t === 'boolean') return v === 'true';
    return v;
  };
  const paramSchema = (call, where, name) => {
    const op = doc.paths[call.path]?.[call.method.toLowerCase()];
    const p = [...(doc.paths[call.path]?.parameters ?? []), ...(op?.parameters ?? [])].find((p) => p.in === where && p.name === name);
    return p?.schema;
  };
  const lines = calls.map((c) => {
    const params = {};
    for (const [where, values] of [['path', c.pathParams], ['query', c.query]]) {
      if (values && Object.keys(values).length) {
        params[where] = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typed(v, paramSchema(c, where, k))]));
      }
    }
    const init = { params };
    if (c.body !== undefined) init.body = c.body;
    return `  ${JSON.stringify(c.opId)}: () => client.${c.method}(${JSON.stringify(c.path)}, ${JSON.stringify(init)}),`;
  });
  fs.writeFileSync(path.join(work, 'calls.ts'), [
    'import createClient from "openapi-fetch";',
    'import type { paths } from "./schema.js";',
    'const client = createClient<paths>({ baseUrl: "" });',
    'export const calls = {', ...lines, '};', ''].join('\n'));
  try {
    execFileSync(process.execPath, [path.join(here, 'node_modules/typescript/bin/tsc'), '--noEmit', '--strict',
      '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', path.join(work, 'calls.ts')],
    { cwd: here, stdio: 'pipe' });
    out({ typecheck: 'ok', operations: calls.length, ms: Date.now() - started });
  } catch (err) {
    out({ typecheck: 'failed', output: String(err.stdout || err.message) });
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}

// 2. Every operation, called and its answer validated.
const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: true });
addFormats(ajv);
ajv.addSchema(doc, 'doc');
const pointer = (...parts) => parts.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
// The base URL a generated client takes: the document's server, against the document's URL.
const client = createClient({ baseUrl: new URL(doc.servers[0].url, base + '/beta/openapi.json').href });
for (const c of calls) {
  const line = { opId: c.opId };
  try {
    const init = { params: { path: c.pathParams ?? {}, query: c.query ?? {} } };
    if (c.body !== undefined) init.body = c.body;
    const { response, data, error } = await client[c.method](c.path, init);
    line.status = response.status;
    const body = data ?? error;
    const responses = doc.paths[c.path][c.method.toLowerCase()].responses;
    const documented = responses[String(response.status)];
    if (!documented) {
      line.errors = [`status ${response.status} is not documented (documented: ${Object.keys(responses).join(', ')})`];
    } else {
      const type = response.headers.get('content-type')?.split(';')[0];
      const schema = documented.content?.[type]?.schema;
      if (!schema) {
        line.errors = [`content type ${type} of status ${response.status} is not documented`];
      } else {
        const validate = ajv.getSchema('doc#/' + pointer('paths', c.path, c.method.toLowerCase(), 'responses', response.status, 'content', type, 'schema'));
        if (!validate(body)) {
          line.errors = validate.errors.slice(0, 10).map((e) => `${e.instancePath || '/'} ${e.message} (${e.schemaPath})`);
        }
      }
    }
  } catch (err) {
    line.errors = [`the client failed: ${err.message}`];
  }
  out(line);
}
out({ done: calls.length, ms: Date.now() - started });
