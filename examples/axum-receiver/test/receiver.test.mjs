// The axum receiver (examples/axum-receiver), built by `make axum-test`, started as a process
// on 127.0.0.1 and driven by the conformance kit of the installed npm package
// (target/consumer/node_modules/.bin/cryptopay-verify): every rule the kit has must hold.
// Then the store: decisions survive a restart (the SQLite file), stale and duplicate
// deliveries are acknowledged and not applied, and the HTTP answers of the other paths.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CONSUMER = resolve(process.env.CONSUMER_DIR ?? join(ROOT, 'target', 'consumer'));
const CLI = join(CONSUMER, 'node_modules', '.bin', 'cryptopay-verify');
const BIN = process.env.AXUM_RECEIVER_BIN ?? join(ROOT, 'target', 'axum-receiver', 'release', 'cryptopay-verify-axum-receiver');
for (const [what, path] of [['the installed package (make consumer)', CLI], ['the receiver (make axum-test builds it)', BIN]]) {
  if (!existsSync(path)) throw new Error(`${path} is missing: ${what}`);
}
const pkg = createRequire(join(CONSUMER, 'package.json'))('cryptopay-verify');

const SECRET = `whsec_axum_${randomBytes(12).toString('hex')}`;
const PENDING = `whsec_axum_next_${randomBytes(12).toString('hex')}`;
const TS_HEADER = 'X-Webhook-Timestamp';
const SIG_HEADER = 'X-Webhook-Signature';
const dataDir = mkdtempSync(join(tmpdir(), 'cryptopay-axum-'));
const database = join(dataDir, 'receiver.db');
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));

/** Starts the receiver; resolves { url, stop() }. */
function start() {
  const child = spawn(BIN, [], {
    env: {
      ...process.env,
      CRYPTOPAY_WEBHOOK_SECRET: SECRET,
      CRYPTOPAY_PENDING_SECRET: PENDING,
      TIMESTAMP_HEADER: TS_HEADER,
      SIGNATURE_HEADER: SIG_HEADER,
      DATABASE: database,
      PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  const exited = new Promise((r) => child.on('exit', r));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`the receiver did not start:\n${output}`)), 15_000);
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise({ url: match[1], stop: () => { child.kill('SIGINT'); return exited; } });
      }
    });
    exited.then((code) => { clearTimeout(timer); reject(new Error(`the receiver exited (${code}):\n${output}`)); });
  });
}

function request(url, { method = 'POST', body, headers = {} } = {}) {
  return new Promise((resolvePromise, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolvePromise({ status: res.statusCode, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const now = () => Math.floor(Date.now() / 1000);

function deliver(url, event, { secret = SECRET, body } = {}) {
  const bytes = body ?? Buffer.from(JSON.stringify(event));
  const timestamp = String(now());
  const signature = pkg.signWebhook({ secret, timestamp, body: bytes });
  return request(url, { body: bytes, headers: { 'content-type': 'application/json', [TS_HEADER]: timestamp, [SIG_HEADER]: `v1=${signature}` } });
}

const event = (eventId, paymentId, statusVersion, extra = {}) => ({
  schema_version: '1',
  event_id: eventId,
  event_type: 'payment.updated',
  occurred_at: new Date().toISOString(),
  data: { payment_id: paymentId, status_version: statusVersion, status: 'open', ...extra },
});

test('the README\'s axum handler is this example\'s handler, to the byte', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /```rust,ignore\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'the README has the rust,ignore block of the handler');
  assert.equal(block[1], readFileSync(join(ROOT, 'examples', 'axum-receiver', 'src', 'handler.rs'), 'utf8'));
});

test('the conformance kit of the installed package: every rule holds', async () => {
  const receiver = await start();
  try {
    // Every rule, the two sides of a rotation included.
    const args = ['conformance', '--url', receiver.url, '--secret-env', 'AXUM_SECRET',
      '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER, '--json',
      '--pending-secret-env', 'AXUM_PENDING', '--retired-secret-env', 'AXUM_RETIRED'];
    const env = { ...process.env, AXUM_SECRET: SECRET, AXUM_PENDING: PENDING, AXUM_RETIRED: `whsec_gone_${randomBytes(8).toString('hex')}` };
    const run = spawnSync(CLI, args, { env, encoding: 'utf8', timeout: 120_000 });
    let results;
    try {
      results = JSON.parse(run.stdout);
    } catch {
      assert.fail(`the kit printed no JSON (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
    }
    assert.ok(Array.isArray(results), 'an array of verdicts');
    const rules = results.map((r) => r.rule);
    for (const rule of ['valid_delivery', 'older_version', 'non_ascii_body', 'bad_signature', 'pending_secret', 'retired_secret']) {
      assert.ok(rules.includes(rule), `the kit judged ${rule}`);
    }
    const broken = results.filter((r) => r.verdict !== 'pass');
    assert.deepStrictEqual(broken, [], 'every rule holds');
    assert.equal(run.status, 0, run.stderr);
  } finally {
    await receiver.stop();
  }
});

test('decisions are durable across a restart: duplicates and stale versions acknowledged, not applied', async () => {
  const payment = `pay_${randomBytes(6).toString('hex')}`;
  // Versions beyond 2^53: compared exactly.
  const v = (n) => (9007199254740993n + BigInt(n)).toString();
  let receiver = await start();
  try {
    assert.deepStrictEqual((await deliver(receiver.url, event('evt_a', payment, v(5)))).json, { received: true, decision: 'apply' });
    assert.deepStrictEqual((await deliver(receiver.url, event('evt_b', payment, v(4)))).json, { received: true, decision: 'stale' });
  } finally {
    await receiver.stop();
  }
  receiver = await start();
  try {
    const again = await deliver(receiver.url, event('evt_a', payment, v(5)));
    assert.deepStrictEqual([again.status, again.json], [200, { received: true, decision: 'duplicate' }]);
    assert.deepStrictEqual((await deliver(receiver.url, event('evt_c', payment, v(4)))).json, { received: true, decision: 'stale' });
    assert.deepStrictEqual((await deliver(receiver.url, event('evt_d', payment, v(6)))).json, { received: true, decision: 'apply' });
    // A pending secret is accepted; a secret the receiver does not hold is not.
    assert.equal((await deliver(receiver.url, event('evt_e', payment, v(7)), { secret: PENDING })).status, 200);
    const other = await deliver(receiver.url, event('evt_f', payment, v(8)), { secret: 'whsec_other' });
    assert.deepStrictEqual([other.status, other.json], [400, { error: 'signature_mismatch' }]);
  } finally {
    await receiver.stop();
  }
});

test('the other answers: quarantine, 400 with the code only, 413, 405', async () => {
  const receiver = await start();
  try {
    const unknown = await deliver(receiver.url, { ...event('evt_q', 'pay_q', '1'), event_type: 'payment.created' });
    assert.deepStrictEqual([unknown.status, unknown.json], [200, { received: true, quarantined: 'event_type_unknown' }]);
    const notJson = await deliver(receiver.url, null, { body: Buffer.from('not json') });
    assert.deepStrictEqual(notJson.json, { received: true, quarantined: 'event_not_json' });
    const unsigned = await request(receiver.url, { body: '{}', headers: { [TS_HEADER]: String(now()) } });
    assert.deepStrictEqual([unsigned.status, unsigned.json], [400, { error: 'signature_missing' }]);
    const twice = await request(receiver.url, { body: '{}', headers: [TS_HEADER, String(now()), TS_HEADER, String(now()), SIG_HEADER, 'v1=00'] });
    assert.deepStrictEqual([twice.status, twice.json], [400, { error: 'header_duplicated' }]);
    const huge = await deliver(receiver.url, null, { body: Buffer.alloc(4 * 1024 * 1024 + 1, 0x20) });
    assert.equal(huge.status, 413);
    assert.equal((await request(receiver.url, { method: 'GET' })).status, 405);
  } finally {
    await receiver.stop();
  }
});
