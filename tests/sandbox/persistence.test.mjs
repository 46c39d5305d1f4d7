// The state in a SQLite file (data): a restart on the same file keeps payments, keys (and
// their revocations), idempotency records, events and the webhook, and resumes the deliveries
// still pending (a retry due during the stop is made at the start). Without better-sqlite3
// the start says what to install.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import vm from 'node:vm';
import {
  PACKAGE_DIR, api, createPayment, endpoint, newKey, settled, startSandbox, tempDir, verifyRecorded, waitFor,
} from './lib.mjs';
import { installUnbuiltBetterSqlite } from '../lib/unbuilt-sqlite.mjs';

const closing = [];
after(async () => {
  for (const close of closing.reverse()) await close();
});

test('a restart on the data file resumes pending retries and keeps every record', async () => {
  const dir = tempDir();
  const data = join(dir, 'state', 'sandbox.sqlite');
  let down = true;
  const hook = await endpoint(() => ({ status: down ? 503 : 200 }));
  closing.push(() => hook.close());
  const options = { port: 0, data, webhookUrl: hook.url, retryDelaysMs: [400, 400, 400], seed: 5 };

  const first = await startSandbox(options);
  assert.equal(first.durable, true);
  const key = newKey();
  const body = { order_ref: 'kept', source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '2500' } };
  const created = (await api(first, 'POST', '/v1/payments', { idem: key, body })).json;
  await first.pay(created.payment_id, '2500');
  const reader = await first.issueKey(['payment:read']);
  const revoked = await first.issueKey(['payment:read']);
  await first.revokeKey(revoked);
  const { secret: pending } = await first.rotate();
  await waitFor(async () => (await first.deliveries()).length >= 1, { what: 'the first attempt' });
  await first.close();
  const attemptsBefore = await first.deliveries();
  assert.deepEqual(attemptsBefore.map((a) => [a.attempt, a.status, a.outcome]), [[1, 503, 'retrying']]);

  down = false;
  const second = await startSandbox(options);
  closing.push(() => second.close());
  assert.equal(second.apiKey, first.apiKey, 'the API key');
  assert.deepEqual(second.webhook, first.webhook, 'the webhook and its secret');
  assert.equal((await api(second, 'GET', `/v1/payments/${created.payment_id}`, { key: reader })).json.status, 'paid', 'issued keys and payments');
  assert.equal((await api(second, 'GET', '/v1/store', { key: revoked })).status, 401, 'a revoked key stays revoked');
  const replay = await api(second, 'POST', '/v1/payments', { idem: key, body });
  assert.equal(replay.json.payment_id, created.payment_id, 'idempotency records');
  assert.deepEqual((await second.events(created.payment_id)).map((e) => e.status), ['confirming', 'paid'], 'events');
  const verified = await api(second, 'POST', `/v1/webhook-endpoints/${first.webhook.resourceId}/verify`, { body: { secret: pending } });
  assert.equal(verified.json.secret_kind, 'pending', 'the rotation in progress');

  await settled(second);
  const attempts = await second.deliveries();
  assert.deepEqual(attempts.map((a) => [a.delivery_id, a.attempt, a.outcome]),
    [['dlv_1', 1, 'retrying'], ['dlv_1', 2, 'acknowledged'], ['dlv_2', 1, 'acknowledged']]);
  // The same event, the same bytes, before and after the restart; in order.
  const [confirming] = await second.events(created.payment_id);
  const copies = hook.requests.filter((r) => r.event.event_id === confirming.event_id);
  assert.equal(copies.length, 2);
  assert.ok(copies[0].body.equals(copies[1].body));
  for (const copy of copies) verifyRecorded(copy, first.webhook.secret);
  assert.deepEqual(hook.requests.map((r) => r.event.data.status_version), [2, 2, 3]);
  // New payments go on from there.
  const more = await createPayment(second, '10');
  assert.equal((await second.pay(more.payment_id, '10')).status, 'paid');
  assert.equal((await second.events()).at(-1).number, 4);
});

test('started again with another webhookUrl (Edit Webhook): the kept webhook moves there, secret kept, and the queued deliveries follow', async () => {
  const data = join(tempDir(), 'moved.sqlite');
  const wrong = await endpoint(() => ({ status: 503 }));
  const right = await endpoint(() => ({ status: 200 }));
  closing.push(() => wrong.close(), () => right.close());
  const first = await startSandbox({ port: 0, data, webhookUrl: wrong.url, retryDelaysMs: [400, 400, 400] });
  const p = await createPayment(first, '100');
  await first.pay(p.payment_id, '100');
  await waitFor(async () => (await first.deliveries()).length >= 1, { what: 'the first attempt' });
  await first.close();
  const entries = [];
  const second = await startSandbox({ port: 0, data, webhookUrl: right.url, retryDelaysMs: [400, 400, 400], log: (line, entry) => entries.push(entry) });
  closing.push(() => second.close());
  assert.ok(entries.some((entry) => entry.type === 'webhook_url_changed'), JSON.stringify(entries));
  assert.deepEqual({ url: second.webhook.url, secret: second.webhook.secret }, { url: right.url, secret: first.webhook.secret });
  await settled(second);
  const statuses = right.requests.map((r) => r.event.data.status_version);
  assert.deepEqual(statuses, [2, 3], 'both events delivered to the webhook\'s new URL');
  for (const request of right.requests) verifyRecorded(request, first.webhook.secret);
});

test('a start on a data file says whether it resumed it, and with what, or starts empty, never naming the file', async () => {
  const dir = tempDir();
  const data = join(dir, 'made', 'here', 'sandbox.sqlite');
  const lines = [];
  const log = (line, entry) => { if (entry.type === 'data_file') lines.push({ line, entry }); };
  const hook = await endpoint(() => ({ status: 200 }));
  closing.push(() => hook.close());
  const first = await startSandbox({ port: 0, data, log, webhookUrl: hook.url });
  closing.push(() => first.close());
  assert.deepEqual(lines.map((l) => l.entry), [{
    type: 'data_file', resumed: false, folder_created: true, payments: 0, events: 0, deliveries_pending: 0,
  }]);
  assert.match(lines[0].line, /^data file new \(its folder created too\): the state starts empty/);
  const made = await createPayment(first, '25');
  await first.pay(made.payment_id, '25');
  await settled(first);
  await first.close();

  lines.length = 0;
  const second = await startSandbox({ port: 0, data, log });
  closing.push(() => second.close());
  assert.deepEqual(lines.map((l) => l.entry), [{
    type: 'data_file', resumed: true, folder_created: false, payments: 1, events: 2, deliveries_pending: 0,
  }]);
  assert.equal(lines[0].line, 'data file resumed: 1 payment, 2 events, 0 deliveries still to make');
  await second.close();

  // An empty file (touched, or left by a crash before the first write) is new, in a folder that stood.
  const touched = join(dir, 'touched.sqlite');
  writeFileSync(touched, '');
  lines.length = 0;
  const third = await startSandbox({ port: 0, data: touched, log });
  closing.push(() => third.close());
  assert.equal(lines[0].line, 'data file new: the state starts empty (meant to resume? check the path given)');
  for (const { line } of lines) assert.ok(!line.includes(dir), 'the path is not in the line');

  // In memory, nothing is said.
  lines.length = 0;
  const memory = await startSandbox({ port: 0, log });
  closing.push(() => memory.close());
  assert.deepEqual(lines, []);
});

test('started again on the data file without webhookUrl, the handle shows the kept webhook, and its secret as rotations leave it', async () => {
  const data = join(tempDir(), 'sandbox.sqlite');
  const hook = await endpoint(() => ({ status: 200 }));
  closing.push(() => hook.close());
  const first = await startSandbox({ port: 0, data, webhookUrl: hook.url });
  const configured = first.webhook;
  await first.close();
  const second = await startSandbox({ port: 0, data });
  closing.push(() => second.close());
  assert.deepEqual(second.webhook, configured, 'kept: resource id, URL and secret');
  const { secret: pending } = await second.rotate();
  assert.equal(second.webhook.secret, configured.secret, 'the active secret signs until activated');
  await second.activate();
  assert.equal(second.webhook.secret, pending, 'the secret now signing');
  const bare = await startSandbox({ port: 0 });
  closing.push(() => bare.close());
  assert.equal(bare.webhook, undefined);
});

test('an attempt cut by a stop is made again after a quick restart with a newer timestamp, never a repeat of its signature', async () => {
  const data = join(tempDir(), 'sandbox.sqlite');
  // Two quick refusals (signed a second apart, ahead of the clock), then an attempt that hangs.
  const hook = await endpoint((request) => (request.n <= 2 ? { status: 503 } : request.n === 3 ? 'hang' : { status: 200 }));
  closing.push(() => hook.close());
  const options = { port: 0, data, webhookUrl: hook.url, retryDelaysMs: [0, 0, 0] };
  const first = await startSandbox(options);
  const created = await createPayment(first, '10');
  await first.review(created.payment_id);
  await waitFor(() => hook.requests.length === 3, { what: 'the third attempt' });
  await first.close(); // the attempt is cut: queued again, never logged
  const second = await startSandbox(options);
  closing.push(() => second.close());
  await settled(second);
  assert.equal(hook.requests.length, 4);
  const stamps = hook.requests.map((r) => Number(r.headers['x-webhook-timestamp']));
  for (let i = 1; i < stamps.length; i += 1) assert.ok(stamps[i] > stamps[i - 1], `timestamps ${stamps}`);
  assert.equal(new Set(hook.requests.map((r) => r.headers['x-webhook-signature'])).size, 4);
  assert.ok(hook.requests.every((r) => r.body.equals(hook.requests[0].body)), 'the same event bytes');
});

test('webhookSecret: the webhook set up through the API signs with it; a data file\'s webhook that signs with another is refused at start, never echoed', async () => {
  const data = join(tempDir(), 'sandbox.sqlite');
  const mine = 'whsec_receivers_own_0123456789';
  const hook = await endpoint(() => ({ status: 200 }));
  closing.push(() => hook.close());
  const first = await startSandbox({ port: 0, data, webhookSecret: mine });
  const setup = await api(first, 'POST', '/v1/webhook-endpoints', { idem: newKey(), body: { url: hook.url } });
  assert.equal(setup.json.secret, mine);
  await first.close();
  // The same secret again: kept; another one: the kept webhook would sign with the first.
  const again = await startSandbox({ port: 0, data, webhookSecret: mine });
  assert.deepEqual([again.webhook.secret, again.webhook.secretGiven], [mine, true]);
  await again.close();
  // Started without it, the webhook still signs with it, and still says it was given; a
  // rotation made active replaces it with the sandbox's own.
  const without = await startSandbox({ port: 0, data });
  assert.deepEqual([without.webhook.secret, without.webhook.secretGiven], [mine, true]);
  await without.rotate();
  await without.activate();
  assert.equal(without.webhook.secretGiven, false);
  assert.notEqual(without.webhook.secret, mine);
  await without.close();
  await assert.rejects(startSandbox({ port: 0, data, webhookSecret: mine }), /signs with another secret .*: give the receiver and the sandbox that active secret/);
  const other = 'whsec_another_receivers_secret';
  for (const options of [{ webhookSecret: other }, { webhookSecret: other, webhookUrl: hook.url }]) {
    await assert.rejects(startSandbox({ port: 0, data, ...options }), (error) => {
      assert.equal(error.code, 'invalid_argument');
      assert.match(error.message, /webhookSecret: the data file's webhook we_\w+ signs with another secret/);
      assert.ok(!error.message.includes(other) && !error.message.includes(mine));
      return true;
    });
  }
  for (const bad of ['short', `${'x'.repeat(20)} y`, 'é'.repeat(20), 42]) {
    await assert.rejects(startSandbox({ port: 0, webhookSecret: bad }), (error) => error.code === 'invalid_argument'
      && /webhookSecret must be 16 to 256 visible ASCII characters/.test(error.message) && !error.message.includes(String(bad)));
  }
});

test('the request in flight at an activation, cut by a stop, is not sent after a restart, however soon', async () => {
  const data = join(tempDir(), 'sandbox.sqlite');
  const hook = await endpoint((request) => (request.n === 2 ? 'hang' : { status: 200 }));
  closing.push(() => hook.close());
  const entries = [];
  const options = { port: 0, data, webhookUrl: hook.url, timeoutMs: 500, log: (line, entry) => entries.push(entry) };
  const first = await startSandbox(options);
  const created = await createPayment(first, '10');
  await first.review(created.payment_id);
  await settled(first);
  const old = first.webhook.secret;
  await first.rotate();
  await first.activate();
  await waitFor(() => hook.requests.length === 2, { what: 'the request in flight' });
  assert.equal(verifyRecorded(hook.requests[1], old).matchedSecret, 'active', 'signed with the old secret');
  await first.close(); // cut: still queued in the data file
  // Started again at once, well within the sender's timeout (0.5 s, and its second of grace):
  // the process that had the request in flight is gone.
  const second = await startSandbox(options);
  closing.push(() => second.close());
  await settled(second);
  assert.equal(hook.requests.length, 2, 'not sent again: nothing signed before the switch is in flight after a restart');
  assert.ok(entries.some((e) => e.type === 'overlap_dropped'), JSON.stringify(entries.map((e) => e.type)));
  assert.deepEqual((await second.deliveries()).map((a) => a.kind), ['event'], 'the cut attempt was never logged');
});

test('started again on the data file without header flags, the kept webhook keeps its header names, and says them', async () => {
  const data = join(tempDir(), 'sandbox.sqlite');
  const hook = await endpoint(() => ({ status: 200 }));
  closing.push(() => hook.close());
  const first = await startSandbox({ port: 0, data, webhookUrl: hook.url, timestampHeader: 'X-A', signatureHeader: 'X-B' });
  assert.deepEqual([first.webhook.timestampHeader, first.webhook.signatureHeader], ['X-A', 'X-B']);
  await first.close();
  const second = await startSandbox({ port: 0, data });
  closing.push(() => second.close());
  assert.deepEqual([second.webhook.timestampHeader, second.webhook.signatureHeader], ['X-A', 'X-B']);
  await createPayment(second, '10').then((p) => second.review(p.payment_id));
  await settled(second);
  assert.ok(hook.requests.length === 1 && hook.requests[0].headers['x-a'] !== undefined && hook.requests[0].headers['x-b'] !== undefined);
  await second.close();
  // A name given without the URL replaces its own, as with the URL (it was ignored).
  const third = await startSandbox({ port: 0, data, signatureHeader: 'X-C' });
  closing.push(() => third.close());
  assert.deepEqual([third.webhook.timestampHeader, third.webhook.signatureHeader], ['X-A', 'X-C']);
  await createPayment(third, '10').then((p) => third.review(p.payment_id));
  await settled(third);
  assert.ok(hook.requests.length === 2 && hook.requests[1].headers['x-c'] !== undefined && hook.requests[1].headers['x-b'] === undefined);
  await third.close();
  await assert.rejects(startSandbox({ port: 0, data, timestampHeader: 'x-c' }),
    (error) => error.code === 'invalid_argument' && /timestampHeader and signatureHeader must differ/.test(error.message));
});

test('started again with the webhook URL but no header flags, the kept names stay; a name given replaces its own', async () => {
  const data = join(tempDir(), 'sandbox.sqlite');
  const hook = await endpoint(() => ({ status: 200 }));
  closing.push(() => hook.close());
  const first = await startSandbox({ port: 0, data, webhookUrl: hook.url, timestampHeader: 'X-A', signatureHeader: 'X-B' });
  await first.close();
  const second = await startSandbox({ port: 0, data, webhookUrl: hook.url });
  assert.deepEqual([second.webhook.timestampHeader, second.webhook.signatureHeader], ['X-A', 'X-B']);
  await createPayment(second, '10').then((p) => second.review(p.payment_id));
  await settled(second);
  assert.ok(hook.requests.length === 1 && hook.requests[0].headers['x-a'] !== undefined && hook.requests[0].headers['x-b'] !== undefined);
  await second.close();
  const third = await startSandbox({ port: 0, data, webhookUrl: hook.url, signatureHeader: 'X-C' });
  assert.deepEqual([third.webhook.timestampHeader, third.webhook.signatureHeader], ['X-A', 'X-C']);
  await third.close();
  // A name given alone is compared with the kept one, not with the other's default.
  const fourth = await startSandbox({ port: 0, data, webhookUrl: hook.url, signatureHeader: 'X-Webhook-Timestamp' });
  assert.deepEqual([fourth.webhook.timestampHeader, fourth.webhook.signatureHeader], ['X-A', 'X-Webhook-Timestamp']);
  await fourth.close();
  await assert.rejects(startSandbox({ port: 0, data, webhookUrl: hook.url, signatureHeader: 'x-a' }),
    (error) => error.code === 'invalid_argument' && /timestampHeader and signatureHeader must differ .*give both, two different names/.test(error.message));
  // A header HTTP itself uses: the sender would drop it (Content-Length) or send it as the Host.
  for (const [option, name] of [['signatureHeader', 'Content-Length'], ['timestampHeader', 'host']]) {
    const refused = await startSandbox({ port: 0, webhookUrl: hook.url, [option]: name }).then(async (started) => started.close(), (error) => error);
    assert.ok(refused?.code === 'invalid_argument' && refused.message.includes(`${option} names a header HTTP itself uses (${name})`), String(refused));
  }
});

test('without better-sqlite3, a data file is refused naming what to install', async () => {
  // The installed package copied where no node_modules above it holds better-sqlite3.
  const dir = tempDir('cpv-sandbox-nodriver-');
  const copy = join(dir, 'node_modules', 'cryptopay-verify');
  mkdirSync(copy, { recursive: true });
  cpSync(PACKAGE_DIR, copy, { recursive: true, dereference: true });
  assert.ok(!existsSync(join(dir, 'node_modules', 'better-sqlite3')));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  writeFileSync(join(dir, 'start.mjs'), `import { startSandbox } from 'cryptopay-verify/sandbox';
try { await startSandbox({ port: 0, data: 'x.sqlite' }); console.log('started'); }
catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }
const memory = await startSandbox({ port: 0 }); console.log('memory', memory.durable); await memory.close();`);
  const run = spawnSync(process.execPath, ['start.mjs'], { cwd: dir, encoding: 'utf8' });
  const [line, memory] = run.stdout.trim().split('\n');
  const refused = JSON.parse(line);
  assert.equal(refused.code, 'driver_missing', run.stdout + run.stderr);
  assert.match(refused.message, /npm install better-sqlite3/);
  assert.equal(memory, 'memory false', 'the state in memory needs no driver');
});

// npm 12 and later skip better-sqlite3's install script (which builds its native addon) unless
// the project's package.json approves it: the package installed without its build.
test('with a better-sqlite3 installed without its build, a data file is refused naming what to run', async () => {
  const dir = tempDir('cpv-sandbox-unbuilt-');
  const copy = join(dir, 'node_modules', 'cryptopay-verify');
  mkdirSync(copy, { recursive: true });
  cpSync(PACKAGE_DIR, copy, { recursive: true, dereference: true });
  installUnbuiltBetterSqlite(join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  const cli = join(copy, 'dist', 'cli', 'cli.mjs');
  const run = spawnSync(process.execPath, [cli, 'sandbox', '--port', '0', '--data', 'x.sqlite'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
  assert.equal(run.status, 2, run.stdout + run.stderr);
  assert.match(run.stderr, /better-sqlite3, whose native addon is not built \(.*allowScripts.*\): run npm install-scripts approve better-sqlite3, then npm rebuild better-sqlite3/);
  assert.doesNotMatch(run.stderr, /Tried:|\n\s+at /, 'one message, not the paths tried nor a stack');
  assert.ok(!existsSync(join(dir, 'x.sqlite')), 'no file made');
});

test('a package installed as a link opens its data file with the project\'s better-sqlite3', async () => {
  // `npm install <folder>` links the package: Node resolves from its real folder (here a copy
  // with no node_modules above it), not from the project that installed the driver.
  const outside = join(tempDir('cpv-sandbox-linked-'), 'cryptopay-verify');
  cpSync(PACKAGE_DIR, outside, { recursive: true, dereference: true });
  const project = tempDir('cpv-sandbox-project-');
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(outside, join(project, 'node_modules', 'cryptopay-verify'), 'dir');
  const driver = dirname(createRequire(join(PACKAGE_DIR, 'package.json')).resolve('better-sqlite3/package.json'));
  symlinkSync(driver, join(project, 'node_modules', 'better-sqlite3'), 'dir');
  writeFileSync(join(project, 'package.json'), '{"type":"module"}');
  const script = (specifier) => `const { startSandbox } = await import(${JSON.stringify(specifier)});
const sandbox = await startSandbox({ port: 0, data: 'state/x.sqlite' }); console.log('durable', sandbox.durable); await sandbox.close();`;
  writeFileSync(join(project, 'start.mjs'), script('cryptopay-verify/sandbox'));
  writeFileSync(join(project, 'start.cjs'), `(async () => { ${script('cryptopay-verify/sandbox').replace('await import(', 'require(')} })();`);
  for (const file of ['start.mjs', 'start.cjs']) {
    const run = spawnSync(process.execPath, [file], { cwd: project, encoding: 'utf8' });
    assert.equal(run.stdout.trim(), 'durable true', `${file}: ${run.stdout}${run.stderr}`);
  }
  // (`npx cryptopay-verify sandbox --data` opens its file through the same store, from the
  // folder it is run in.)
});

test('the CommonJS build opens its data file where import() is refused (CommonJS run in a vm, as Jest runs it)', async () => {
  const file = join(PACKAGE_DIR, 'dist', 'sandbox', 'index.cjs');
  const module = { exports: {} };
  // A script compiled by vm with no dynamic import callback: import() inside it rejects.
  const wrapped = vm.runInThisContext(`(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`, { filename: file });
  wrapped(module.exports, createRequire(file), module, file, dirname(file));
  const sandbox = await module.exports.startSandbox({ port: 0, data: join(tempDir(), 'cjs.sqlite') });
  closing.push(() => sandbox.close());
  assert.equal(sandbox.durable, true);
});

test('a second sandbox on a data file in use is refused (data_in_use), and starts once the first closed', async () => {
  const data = join(tempDir(), 'shared.sqlite');
  const first = await startSandbox({ port: 0, data });
  await assert.rejects(startSandbox({ port: 0, data }), (error) => {
    assert.equal(error.code, 'data_in_use');
    assert.equal(error.message, `another sandbox (process ${process.pid} of this machine) is using the data file ${data}: give each sandbox its own file (one per test file: a temporary folder), or stop the other first`);
    return true;
  });
  const key = first.apiKey;
  await first.close();
  const second = await startSandbox({ port: 0, data });
  assert.equal(second.apiKey, key, 'the same state');
  // A mark, not a lock: the file stays readable while a sandbox runs.
  const Database = createRequire(join(PACKAGE_DIR, 'package.json'))('better-sqlite3');
  const reader = new Database(data, { readonly: true });
  assert.equal(reader.prepare("SELECT count(*) AS n FROM sandbox_records WHERE kind = 'key'").get().n > 0, true);
  reader.close();
  // A sandbox that died (its process no longer runs) leaves a mark the next one takes over.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  await second.close();
  const writer = new Database(data);
  writer.prepare("INSERT INTO sandbox_meta (name, value) VALUES ('owner', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value")
    .run(JSON.stringify(`${hostname()} ${dead} 1`));
  writer.close();
  const third = await startSandbox({ port: 0, data });
  assert.equal(third.apiKey, key);
  await third.close();
  // A mark of this very process id that this process does not hold: a container restarted after
  // a crash (the same host name, pid 1 again). Taken over, not refused.
  const mark = (value) => {
    const db = new Database(data);
    db.prepare("INSERT INTO sandbox_meta (name, value) VALUES ('owner', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value")
      .run(JSON.stringify(value));
    db.close();
  };
  mark(`${hostname()} ${process.pid} 999`);
  const fourth = await startSandbox({ port: 0, data });
  assert.equal(fourth.apiKey, key);
  await fourth.close();
  // A start that fails after marking the file (another version's file) leaves no mark behind:
  // the next start says the same, not data_in_use.
  const other = new Database(data);
  other.prepare("UPDATE sandbox_meta SET value = '0' WHERE name = 'schema'").run();
  other.close();
  for (let attempt = 0; attempt < 2; attempt += 1) {
    await assert.rejects(startSandbox({ port: 0, data }), /written by another version of the sandbox/);
  }
});

test('an expiry that meets a locked data file is said and tried again, never the end of the process', async () => {
  const data = join(tempDir(), 'sandbox.sqlite');
  const lines = [];
  const sandbox = await startSandbox({ port: 0, data, log: (line, entry) => lines.push(entry) });
  closing.push(() => sandbox.close());
  const first = await createPayment(sandbox, '100');
  const second = await createPayment(sandbox, '100');
  const realNow = Date.now;
  const Database = createRequire(join(PACKAGE_DIR, 'package.json'))('better-sqlite3');
  const other = new Database(data);
  try {
    // The test's clock, an hour on less a second: the first payment expires a second from now.
    Date.now = () => realNow() + 60 * 60 * 1000 - 1000;
    await sandbox.pay(second.payment_id, '100'); // a request: the expiry timer is set again
    other.prepare('BEGIN IMMEDIATE').run(); // another connection holds the write lock
    await waitFor(() => lines.some((e) => e.type === 'internal_error'), { what: 'the failed expiry said', timeoutMs: 10_000 });
    assert.ok(!lines.some((e) => e.type === 'expired'));
    other.prepare('ROLLBACK').run();
    await waitFor(() => lines.some((e) => e.type === 'expired' && e.payment_id === first.payment_id), { what: 'the expiry, tried again', timeoutMs: 10_000 });
    assert.equal((await api(sandbox, 'GET', `/v1/payments/${first.payment_id}`)).json.status, 'expired');
  } finally {
    Date.now = realNow;
    if (other.inTransaction) other.prepare('ROLLBACK').run();
    other.close();
  }
});
