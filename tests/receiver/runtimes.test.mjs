// The receiver in each runtime, loaded by name from the installed package:
//   - Node ESM and CommonJS: the receiver loads the package's own entry for that mode, so the
//     process holds ONE WebAssembly instance (and one CryptoPayError class), not two;
//   - a Worker bundle (wrangler): the receiver pulls in the workerd entry, never Node's;
//   - the same in Node 18 and the oldest and newest Node LTS (tests/runtimes/node-versions, from
//     `make setup`), in Bun, and in Deno (ES modules);
//   - sqliteStore on bun:sqlite (Bun) and node:sqlite (Deno, the Node LTS lines, and the
//     machine's Node when it has it); postgresStore on npm's pg in Deno.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { NODE_VERSIONS, run } from '../runtimes/lib.mjs';
import { bundleWorker, workerFolder } from './lib/d1.mjs';
import { startPostgres } from './lib/postgres.mjs';
import { CONSUMER_DIR, ROOT, SECRET, SIG_HEADER, TS_HEADER, tempDir } from './lib/helpers.mjs';

const RESULT = 'RECEIVER_RESULT ';
const scratch = join(CONSUMER_DIR, 'receiver-runtimes');
rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });
writeFileSync(join(scratch, 'deno.json'), `${JSON.stringify({ nodeModulesDir: 'manual', lock: false })}\n`);
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);

async function runScript(name, source, cmd, args, env = {}) {
  writeFileSync(join(scratch, name), source);
  const outcome = await run(cmd, [...args, name], { cwd: scratch, env: { ...process.env, ...env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', DENO_DIR: join(scratch, 'deno-cache') }, timeoutMs: 60_000 });
  const line = outcome.stdout.split('\n').find((l) => l.startsWith(RESULT));
  assert.ok(line, `${cmd} ${name} printed no result (exit ${outcome.code}):\n${outcome.stdout}${outcome.stderr}`);
  return JSON.parse(line.slice(RESULT.length));
}

// Counts WebAssembly instances made from here on; then loads the receiver and the package.
const COUNTING = `let instances = 0;
const Instance = WebAssembly.Instance;
WebAssembly.Instance = new Proxy(Instance, { construct(target, args) { instances += 1; return Reflect.construct(target, args); } });
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = (...args) => { instances += 1; return instantiate(...args); };`;
const USE_BOTH = `const body = JSON.stringify({ schema_version: '1', event_id: 'evt_rt', event_type: 'payment.updated', occurred_at: 'x', data: { payment_id: 'pay_rt', status_version: 1 } });
  const ts = String(Math.floor(Date.now() / 1000));
  const receiver = rx.createReceiver({ secrets: 's', maxSkewSecs: 300, timestampHeader: 't', signatureHeader: 'v', store: rx.memoryStore(), log: false });
  const answer = await receiver.handle({ body, headers: { t: ts, v: cv.signWebhook({ secret: 's', timestamp: ts, body }) } });
  let sameErrorClass = false;
  try { rx.createReceiver({}); } catch (error) { sameErrorClass = error instanceof cv.CryptoPayError; }
  console.log(${JSON.stringify(RESULT)} + JSON.stringify({ instances, status: answer.status, sameErrorClass }));`;

// The machine's Node, Node 18, and the oldest and newest LTS (where require() can also load ES
// modules); Bun; Deno (ES modules).
const NODES = [{ label: `Node ${process.versions.node.split('.')[0]}`, bin: process.execPath }, ...NODE_VERSIONS];
const BUN = { label: 'Bun', bin: bin('bun'), args: ['--no-install'] };
const DENO = { label: 'Deno', bin: bin('deno'), args: ['run'] };

for (const { label, bin: cmd, args = [] } of [...NODES, BUN, DENO]) {
  test(`${label} ESM: import of the receiver and of the package share one WebAssembly instance`, async () => {
    const result = await runScript('instances.mjs', `${COUNTING}
const rx = await import('cryptopay-verify/receiver');
const cv = await import('cryptopay-verify');
{ ${USE_BOTH} }
`, cmd, args);
    assert.deepEqual(result, { instances: 1, status: 200, sameErrorClass: true });
  });
}

for (const { label, bin: cmd, args = [] } of [...NODES, BUN]) {
  test(`${label} CommonJS: require of the receiver and of the package share one WebAssembly instance`, async () => {
    const result = await runScript('instances.cjs', `${COUNTING}
const rx = require('cryptopay-verify/receiver');
const cv = require('cryptopay-verify');
(async () => { ${USE_BOTH} })();
`, cmd, args);
    assert.deepEqual(result, { instances: 1, status: 200, sameErrorClass: true });
  });
}

test('the receiver\'s CommonJS build requires the package by its name (so both share its entry)', () => {
  assert.match(readFileSync(join(CONSUMER_DIR, 'node_modules', 'cryptopay-verify', 'dist', 'receiver', 'index.cjs'), 'utf8'), /require\("cryptopay-verify"\)/);
});

test('a Worker bundle (wrangler) of the receiver holds the workerd entry, one .wasm module, no Node entry', async () => {
  const dir = workerFolder('runtimes-worker', `import { createReceiver, d1Store } from 'cryptopay-verify/receiver';
export default { fetch: (request, env) => createReceiver({ secrets: env.S, maxSkewSecs: 300, timestampHeader: 't', signatureHeader: 'v', store: d1Store(env.DB) }).fetch(request) };
`);
  const meta = join(dir, 'meta.json');
  const out = await bundleWorker(dir, { metafile: meta });
  const used = Object.values(JSON.parse(readFileSync(meta, 'utf8')).outputs)
    .flatMap((output) => Object.entries(output.inputs ?? {})).filter(([, info]) => info.bytesInOutput > 0).map(([input]) => input);
  assert.ok(used.some((i) => i.endsWith('cryptopay-verify/dist/entry/workerd.mjs')), used.join('\n'));
  assert.ok(used.some((i) => i.endsWith('cryptopay-verify/dist/receiver/stores/d1.mjs')), used.join('\n'));
  assert.ok(!used.some((i) => /dist\/entry\/(node|browser)\./.test(i)), used.join('\n'));
  assert.equal(readdirSync(out).filter((f) => f.endsWith('.wasm')).length, 1);
});

// The deliveries every store script sends through receiver.fetch (`receiver` in scope), and
// `event`, which builds their bodies.
const DELIVER_ALL = `const event = (id, version, type = 'payment.updated') => JSON.stringify({ schema_version: '1', event_id: id, event_type: type,
  occurred_at: 'x', data: { payment_id: 'pay_rt', status_version: version, note: 'Müller – 5 €' } });
const decisions = [];
for (const body of [event('e1', 5), event('e1', 5), event('e2', 4), event('e3', '18446744073709551617'), event('e4', '9999999999999999999'), event('q', 1, 'other')]) {
  const ts = String(Math.floor(Date.now() / 1000));
  const response = await receiver.fetch(new Request('http://receiver.test/webhook', { method: 'POST', body,
    headers: { ${JSON.stringify(TS_HEADER)}: ts, ${JSON.stringify(SIG_HEADER)}: signWebhook({ secret: ${JSON.stringify(SECRET)}, timestamp: ts, body }) } }));
  decisions.push(await response.json());
}`;

// sqliteStore through a driver of another runtime, behind receiver.fetch.
const SQLITE_SCRIPT = (open, file) => `import { createReceiver, sqliteStore } from 'cryptopay-verify/receiver';
import { signWebhook } from 'cryptopay-verify';
${open}
const db = openDb(${JSON.stringify(file)});
const receiver = createReceiver({ secrets: ${JSON.stringify(SECRET)}, maxSkewSecs: 300, timestampHeader: ${JSON.stringify(TS_HEADER)},
  signatureHeader: ${JSON.stringify(SIG_HEADER)}, store: sqliteStore(db), log: false });
await receiver.ready();
${DELIVER_ALL}
const events = db.prepare('SELECT event_id, decision, status_version, body FROM cryptopay_events ORDER BY event_id').all();
const payment = db.prepare('SELECT status_version, event_id FROM cryptopay_payments').get();
const quarantine = db.prepare('SELECT code FROM cryptopay_quarantine').all().map((q) => q.code);
const journal = Object.values(db.prepare('PRAGMA journal_mode').get())[0];
const synchronous = Object.values(db.prepare('PRAGMA synchronous').get())[0];
const bodyKept = new TextDecoder().decode(events[0].body) === event('e1', 5);
console.log(${JSON.stringify(RESULT)} + JSON.stringify({ decisions, events: events.map((e) => [e.event_id, e.decision, e.status_version]),
  payment: { ...payment }, quarantine, journal, synchronous, bodyKept }));
`;

const EXPECTED = {
  decisions: [
    { received: true, decision: 'apply' }, { received: true, decision: 'duplicate' }, { received: true, decision: 'stale' },
    { received: true, decision: 'apply' }, { received: true, decision: 'stale' }, { received: true, quarantined: 'event_type_unknown' },
  ],
  events: [['e1', 'apply', '5'], ['e2', 'stale', '4'], ['e3', 'apply', '18446744073709551617'], ['e4', 'stale', '9999999999999999999']],
  payment: { status_version: '18446744073709551617', event_id: 'e3' },
  quarantine: ['event_type_unknown'],
  journal: 'wal',
  synchronous: 2,
  bodyKept: true,
};

test('sqliteStore on bun:sqlite (Bun), through receiver.fetch', async () => {
  const file = join(tempDir(), 'bun.sqlite');
  const result = await runScript('bun-sqlite.mjs', SQLITE_SCRIPT(`import { Database } from 'bun:sqlite';
const openDb = (file) => new Database(file);`, file), bin('bun'), ['--no-install']);
  assert.deepEqual(result, EXPECTED);
});

test('sqliteStore on node:sqlite (Deno\'s), through receiver.fetch', async () => {
  const dir = tempDir();
  const result = await runScript('deno-sqlite.mjs', SQLITE_SCRIPT(`import { DatabaseSync } from 'node:sqlite';
const openDb = (file) => new DatabaseSync(file);`, join(dir, 'deno.sqlite')), bin('deno'), ['run', `--allow-read=${dir}`, `--allow-write=${dir}`]);
  assert.deepEqual(result, EXPECTED);
});

// receiverOptionsFromEnv in Deno run with --allow-env scoped to some names (what Deno advises):
// reading another name, or listing the environment, throws NotCapable. The names refused are a
// configuration error naming the flag (a lazy receiver's 500 not_configured, retried), not a
// store outage; with every name it reads allowed, the options are read.
test('receiverOptionsFromEnv in Deno with --allow-env scoped: the names to allow, 500 not_configured; all allowed, read', async () => {
  const script = `import { createReceiver, lazyReceiver, memoryStore, receiverOptionsFromEnv } from 'cryptopay-verify/receiver';
let said = null;
try { receiverOptionsFromEnv(process.env); } catch (error) { said = { code: error.code, message: error.message }; }
const lines = [];
const receiver = lazyReceiver(() => createReceiver({ ...receiverOptionsFromEnv(process.env), store: memoryStore(), log: false }),
  { log: { error: (line) => lines.push(line) } });
const answer = await receiver.handle({ body: '{}', headers: {} });
console.log(${JSON.stringify(RESULT)} + JSON.stringify({ said, status: answer.status, body: answer.body, notConfigured: lines.some((l) => l.includes('not_configured')) }));`;
  const three = 'CRYPTOPAY_WEBHOOK_SECRET,TIMESTAMP_HEADER,SIGNATURE_HEADER';
  const all = `${three},CRYPTOPAY_WEBHOOK_SECRET_PENDING,CRYPTOPAY_WEBHOOK_SECRET_RETIRING,CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL,MAX_SKEW_SECS`;
  const env = { CRYPTOPAY_WEBHOOK_SECRET: SECRET, TIMESTAMP_HEADER: TS_HEADER, SIGNATURE_HEADER: SIG_HEADER };
  const scoped = await runScript('deno-env-scoped.mjs', script, bin('deno'), ['run', `--allow-env=${three}`], env);
  assert.equal(scoped.said?.code, 'invalid_argument', JSON.stringify(scoped));
  assert.match(scoped.said.message, /reading CRYPTOPAY_WEBHOOK_SECRET_PENDING, CRYPTOPAY_WEBHOOK_SECRET_RETIRING, CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL and MAX_SKEW_SECS from the environment was refused .*--allow-env=CRYPTOPAY_WEBHOOK_SECRET,CRYPTOPAY_WEBHOOK_SECRET_PENDING,/);
  assert.ok(!scoped.said.message.includes(SECRET), 'no value is named');
  assert.deepEqual([scoped.status, scoped.body, scoped.notConfigured], [500, '{"error":"not_configured"}', true]);
  const allowed = await runScript('deno-env-all.mjs', script, bin('deno'), ['run', `--allow-env=${all}`], env);
  // Read: the lazy receiver was made, and refuses the unsigned request itself.
  assert.deepEqual([allowed.said, allowed.status, allowed.body], [null, 400, '{"error":"timestamp_missing"}']);
  // The whole environment listed first (Deno.env.toObject(), as the Supabase recipe reads it):
  // Deno's refusal is the configuration's, named, not a store outage (503).
  const listing = script.replaceAll('receiverOptionsFromEnv(process.env)', 'receiverOptionsFromEnv(Deno.env.toObject())')
    .replace('notConfigured: lines.some', 'line: lines[0], notConfigured: lines.some');
  const whole = await runScript('deno-env-listed.mjs', listing, bin('deno'), ['run', `--allow-env=${all}`], env);
  assert.deepEqual([whole.status, whole.body, whole.notConfigured], [500, '{"error":"not_configured"}', true], JSON.stringify(whole));
  assert.match(whole.line, /not_configured \(answered 500, .*\): invalid_argument: Deno refused what creating the receiver asked \(NotCapable: .*Deno\.env\.toObject\(\) needs --allow-env unscoped/);
});

// The API client in Deno run without --allow-net for the service: the runtime refuses the
// request before it leaves, which no retry gets past. Said once, not retryable.
test('the client in Deno without --allow-net for the service: network_error, not retried, naming the flag', async () => {
  const script = `import { createClient } from 'cryptopay-verify/client';
const api = createClient({ baseUrl: 'http://127.0.0.1:59999', apiKey: 'sk_test_unused' });
let said = null;
try { await api.getStore(); } catch (error) { said = { code: error.code, retryable: error.retryable, message: error.message }; }
console.log(${JSON.stringify(RESULT)} + JSON.stringify(said));`;
  const said = await runScript('deno-client-net.mjs', script, bin('deno'), ['run', '--allow-net=127.0.0.1:8787']);
  assert.deepEqual([said?.code, said?.retryable], ['network_error', false], JSON.stringify(said));
  assert.match(said.message, /^network_error: the request to the service failed \(GET http:\/\/127\.0\.0\.1:59999\/v1\/store: .*\): the runtime does not let this process reach the service \(Deno: add its host and port to --allow-net\); not retried$/);
});

// postgresStore on node-postgres under Deno (npm's pg, as a Deno user imports it), behind
// receiver.fetch, with the permissions it needs: --allow-net and --allow-env (and, for the
// test server's unix socket, reading and writing its folder).
test('postgresStore on node-postgres (npm pg) in Deno, through receiver.fetch', async () => {
  const server = startPostgres();
  try {
    const result = await runScript('deno-pg.mjs', `import pg from 'pg';
import { createReceiver, postgresStore } from 'cryptopay-verify/receiver';
import { signWebhook } from 'cryptopay-verify';
const pool = new pg.Pool({ connectionString: ${JSON.stringify(server.url)}, max: 2 });
const receiver = createReceiver({ secrets: ${JSON.stringify(SECRET)}, maxSkewSecs: 300, timestampHeader: ${JSON.stringify(TS_HEADER)},
  signatureHeader: ${JSON.stringify(SIG_HEADER)}, store: postgresStore(pool), log: false });
await receiver.ready();
${DELIVER_ALL}
const rows = async (sql) => (await pool.query(sql)).rows;
const events = await rows('SELECT event_id, decision, status_version::text AS status_version, body FROM cryptopay_events ORDER BY event_id');
const [payment] = await rows('SELECT status_version::text AS status_version, event_id FROM cryptopay_payments');
const quarantine = (await rows('SELECT code FROM cryptopay_quarantine')).map((q) => q.code);
const bodyKept = new TextDecoder().decode(events[0].body) === event('e1', 5);
await pool.end();
console.log(${JSON.stringify(RESULT)} + JSON.stringify({ decisions, events: events.map((e) => [e.event_id, e.decision, e.status_version]),
  payment, quarantine, bodyKept }));
`, bin('deno'), ['run', '--allow-net', '--allow-env', `--allow-read=${server.socketDir}`, `--allow-write=${server.socketDir}`]);
    const { journal, synchronous, ...expected } = EXPECTED;
    assert.deepEqual(result, expected);
  } finally {
    server.destroy();
  }
});

// Node has node:sqlite from 22.5 (unflagged from 22.13): the LTS lines run it; the machine's
// Node too when it has it.
const nodeHasSqlite = await import('node:sqlite').then(() => true, () => false);
for (const { label, bin: node } of [...(nodeHasSqlite ? NODES.slice(0, 1) : []), ...NODE_VERSIONS.filter((v) => v.hasSqlite)]) {
  test(`sqliteStore on node:sqlite (${label}), through receiver.fetch`, async () => {
    const file = join(tempDir(), 'node.sqlite');
    const result = await runScript('node-sqlite.mjs', SQLITE_SCRIPT(`import { DatabaseSync } from 'node:sqlite';
const openDb = (file) => new DatabaseSync(file);`, file), node, ['--no-warnings']);
    assert.deepEqual(result, EXPECTED);
  });
}

// The typings of the subpath, as a TypeScript user compiles against them (node16 resolution,
// ESM and CommonJS, strict). The @ts-expect-error lines fail the compile if a type were `any`.
test('the receiver typings compile under node16 resolution, ESM and CommonJS (tsc --strict)', async () => {
  const dir = join(scratch, 'types');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'use.mts'), `import { createReceiver, postgresStore, sqliteStore, d1Store, memoryStore } from 'cryptopay-verify/receiver';
import type { ReceiverStore, ReceiverAnswer } from 'cryptopay-verify/receiver';
declare const pool: { query(text: string, values?: unknown[]): Promise<{ rows: any[] }> };
declare const db: { prepare(sql: string): { run(...p: any[]): unknown; get(...p: any[]): unknown; all(...p: any[]): unknown[] }; exec(sql: string): unknown };
declare const binding: { prepare(sql: string): { bind(...v: unknown[]): any; all(): Promise<unknown>; run(): Promise<unknown> }; batch(s: any[]): Promise<Array<{ results?: any[] }>> };
const stores: ReceiverStore[] = [postgresStore(pool, { prefix: 'x_' }), sqliteStore(db, { synchronous: 'FULL', maxBatch: 10 }), d1Store(binding)];
const receiver = createReceiver({ secrets: 's', maxSkewSecs: 300, timestampHeader: 't', signatureHeader: 'v', store: stores[0], log: false });
await receiver.ready();
const answer: ReceiverAnswer = await receiver.handle({ body: new Uint8Array(1), headers: { t: '1' } });
// @ts-expect-error the body is JSON text
const wrong: number = answer.body;
const response: Response = await receiver.fetch(new Request('http://x'));
const mem = memoryStore();
const version: string | undefined = mem.payments.get('p')?.status_version;
// @ts-expect-error synchronous OFF is not offered
sqliteStore(db, { synchronous: 'OFF' });
export { response, version, wrong };
`);
  writeFileSync(join(dir, 'use.cts'), `import receiverModule = require('cryptopay-verify/receiver');
const store = receiverModule.memoryStore();
const receiver = receiverModule.createReceiver({ secrets: [{ secret: 's', kind: 'active' }], maxSkewSecs: 300, timestampHeader: 't', signatureHeader: 'v', store });
export const answer: Promise<receiverModule.ReceiverAnswer> = receiver.handle({ body: 'x', headers: [] });
`);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'node16',
    moduleResolution: 'node16', target: 'es2022', lib: ['es2022', 'dom'], types: [] }, files: ['use.mts', 'use.cts'] }));
  const outcome = await run(bin('tsc'), ['-p', dir], { cwd: dir, timeoutMs: 60_000 });
  assert.equal(outcome.code, 0, outcome.stdout + outcome.stderr);
});
