// The axum receiver (examples/axum-receiver) on its SQLite file, built by `make axum-test`,
// started as a process on 127.0.0.1 and driven by the conformance kit of the installed npm
// package (target/consumer/node_modules/.bin/cryptopay-verify): every rule the kit has must
// hold. Then the store: decisions survive a restart (the SQLite file), stale and duplicate
// deliveries are acknowledged and not applied, and the HTTP answers of the other paths.
// (postgres.test.mjs: the same on PostgreSQL, and two instances at once.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import net from 'node:net';
import { join } from 'node:path';
import { PENDING, ROOT, SECRET, SIG_HEADER, TS_HEADER, deliver, event, logged, now, pkg, request, runKit, start as startReceiver } from './lib.mjs';

const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
const dataDir = mkdtempSync(join(tmpdir(), 'cryptopay-axum-'));
const database = join(dataDir, 'receiver.db');
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));

/** Starts the receiver on the SQLite file; resolves { url, stop() }. */
const start = () => startReceiver({ DATABASE: database });

test('the README\'s axum handler is this example\'s handler, to the byte', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /```rust,ignore\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'the README has the rust,ignore block of the handler');
  assert.equal(block[1], readFileSync(join(ROOT, 'examples', 'axum-receiver', 'src', 'handler.rs'), 'utf8'));
});

test('the conformance kit of the installed package: every rule holds', async () => {
  const receiver = await start();
  try {
    runKit(receiver.url);
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

test('tables shared with an npm receiver naming its integrations: an event of a payment one of them wrote is 503, nothing recorded', async () => {
  const payment = `pay_${randomBytes(6).toString('hex')}`;
  const receiver = await start();
  try {
    assert.deepStrictEqual((await deliver(receiver.url, event('evt_int_1', payment, '2'))).json, { received: true, decision: 'apply' });
    // As the npm receiver records a payment of its integration "shop-a".
    const db = new Database(database);
    db.prepare("UPDATE cryptopay_payments SET integration = 'shop-a' WHERE payment_id = ?").run(payment);
    db.close();
    const refused = await deliver(receiver.url, event('evt_int_2', payment, '3'));
    assert.deepStrictEqual([refused.status, refused.json], [503, { error: 'store_unavailable' }]);
    await logged(receiver, /integration_mismatch: the payment's stored facts came through a named integration's secret/);
  } finally {
    await receiver.stop();
  }
  const db = new Database(database, { readonly: true });
  assert.deepStrictEqual(db.prepare('SELECT event_id, secret_kind FROM cryptopay_events WHERE payment_id = ? ORDER BY event_id').all(payment)
    .map((r) => [r.event_id, r.secret_kind]), [['evt_int_1', 'active']], 'with the kind of secret that verified it');
  db.close();
});

test('the other answers: quarantine, 400 with the code only, 413, 405', async () => {
  const receiver = await start();
  try {
    const unknown = await deliver(receiver.url, { ...event('evt_q', 'pay_q', '1'), event_type: 'payment.created' });
    assert.deepStrictEqual([unknown.status, unknown.json], [200, { received: true, quarantined: 'event_type_unknown' }]);
    // The npm receiver's bytes, keys in its order.
    assert.equal(unknown.text, '{"received":true,"quarantined":"event_type_unknown"}');
    const applied = await deliver(receiver.url, event('evt_order_of_keys', 'pay_order_of_keys', '1'));
    assert.equal(applied.text, '{"received":true,"decision":"apply"}');
    const notJson = await deliver(receiver.url, null, { body: Buffer.from('not json') });
    assert.deepStrictEqual(notJson.json, { received: true, quarantined: 'event_not_json' });
    const unsigned = await request(receiver.url, { method: 'POST', body: '{}', headers: { [TS_HEADER]: String(now()) } });
    assert.deepStrictEqual([unsigned.status, unsigned.json], [400, { error: 'signature_missing' }]);
    const twice = await request(receiver.url, { method: 'POST', body: '{}', headers: [TS_HEADER, String(now()), TS_HEADER, String(now()), SIG_HEADER, 'v1=00'] });
    assert.deepStrictEqual([twice.status, twice.json], [400, { error: 'header_duplicated' }]);
    const huge = await deliver(receiver.url, null, { body: Buffer.alloc(4 * 1024 * 1024 + 1, 0x20) });
    assert.deepStrictEqual([huge.status, huge.json], [413, { error: 'body_too_large' }]);
    for (const method of ['GET', 'PUT']) {
      const other = await request(receiver.url, { method });
      assert.deepStrictEqual([other.status, other.json, other.headers.allow], [405, { error: 'method_not_allowed' }, 'POST'], method);
    }
  } finally {
    await receiver.stop();
  }
});

test('every refusal is logged by its code, never the secret or signature; a skew says to check the clock', async () => {
  const receiver = await start();
  try {
    const body = Buffer.from(JSON.stringify(event('evt_logged', 'pay_logged', '1')));
    const old = String(now() - 3600);
    const signature = `v1=${pkg.signWebhook({ secret: SECRET, timestamp: old, body })}`;
    const stale = await request(receiver.url, { method: 'POST', body, headers: { [TS_HEADER]: old, [SIG_HEADER]: signature } });
    assert.deepStrictEqual([stale.status, stale.json], [400, { error: 'timestamp_too_old' }]);
    await logged(receiver, /refused a delivery \(400\): timestamp_too_old: .*its signature verified: check this host's clock/);
    const forged = await deliver(receiver.url, event('evt_forged', 'pay_logged', '1'), { secret: 'whsec_not_ours_0123456789' });
    assert.deepStrictEqual([forged.status, forged.json], [400, { error: 'signature_mismatch' }]);
    // The core's Display: the code, then what failed and the fix.
    await logged(receiver, /refused a delivery \(400\): signature_mismatch: no signature matches: check that the secret is the signing Secret/);
    // The header names swapped (in the service's settings or here): this receiver's fault, 500,
    // retried once fixed; a 400 would lose every event.
    const swapped = await deliver(receiver.url, event('evt_swapped', 'pay_logged', '1'), { swapped: true });
    assert.deepStrictEqual([swapped.status, swapped.json], [500, { error: 'timestamp_malformed' }]);
    await logged(receiver, /refused a delivery \(500\): timestamp_malformed: .*the delivery verifies with the two headers read the other way round: when every delivery is refused so, the timestamp and signature header names are swapped/);
    // A timestamp that only reads as a signature, from a sender without the secret: 400.
    const made = await request(receiver.url, { method: 'POST', body: Buffer.from('{}'), headers: { [TS_HEADER]: `v1=${'0'.repeat(64)}`, [SIG_HEADER]: String(now()) } });
    assert.deepStrictEqual([made.status, made.json], [400, { error: 'timestamp_malformed' }]);
    assert.ok(!receiver.output().includes(SECRET) && !receiver.output().includes(signature.slice(3)), 'no secret, no signature');
  } finally {
    await receiver.stop();
  }
});

test('a flood of forgeries writes five lines a minute, the fifth saying the rest are counted; a quarantine is said', async () => {
  const receiver = await start();
  try {
    for (let i = 0; i < 12; i += 1) {
      const forged = await deliver(receiver.url, event(`evt_flood_${i}`, 'pay_flood', '1'), { secret: 'whsec_not_ours_0123456789' });
      assert.equal(forged.status, 400);
    }
    await logged(receiver, /signature_mismatch: .*; more like it in the next 60 s are counted, not said\n/);
    const lines = receiver.output().split('\n').filter((line) => line.startsWith('refused a delivery (400): signature_mismatch'));
    assert.equal(lines.length, 5, receiver.output());
    // Another kind has lines of its own.
    const unsigned = await request(receiver.url, { method: 'POST', body: '{}', headers: { [TS_HEADER]: String(now()) } });
    assert.equal(unsigned.status, 400);
    await logged(receiver, /refused a delivery \(400\): signature_missing/);
    const unknown = await deliver(receiver.url, { ...event('evt_q_said', 'pay_q_said', '1'), event_type: 'payment.created' });
    assert.deepStrictEqual(unknown.json, { received: true, quarantined: 'event_type_unknown' });
    await logged(receiver, /quarantined an authentic delivery: event_type_unknown; kept in cryptopay_quarantine, never applied, answered 200/);
  } finally {
    await receiver.stop();
  }
});

test('header names set wrong: a delivery that verifies with the headers it carried is a 500 naming what to set; a forgery a 400', async () => {
  // TIMESTAMP_HEADER right, SIGNATURE_HEADER a typo; then both copied from another guide.
  for (const [env, says, code] of [
    [{ SIGNATURE_HEADER: 'X-Signature' }, 'its signature read from x-webhook-signature: set SIGNATURE_HEADER to x-webhook-signature', 'signature_missing'],
    [{ TIMESTAMP_HEADER: 'Webhook-Timestamp', SIGNATURE_HEADER: 'Webhook-Signature' },
      'its timestamp read from x-webhook-timestamp and signature read from x-webhook-signature: set TIMESTAMP_HEADER to '
      + 'x-webhook-timestamp and SIGNATURE_HEADER to x-webhook-signature', 'timestamp_missing'],
  ]) {
    const receiver = await startReceiver({ DATABASE: database, ...env });
    try {
      const sent = await deliver(receiver.url, event('evt_misnamed', 'pay_misnamed', '1'));
      assert.deepStrictEqual([sent.status, sent.json], [500, { error: code }], says);
      await logged(receiver, /refused a delivery \(500\)/);
      const line = receiver.output().split('\n').find((l) => l.startsWith('refused a delivery (500)'));
      assert.ok(line.startsWith(`refused a delivery (500): ${code}: `) && line.endsWith(`; the delivery verifies with ${says}; the service retries it`), line);
      const forged = await deliver(receiver.url, event('evt_misnamed', 'pay_misnamed', '1'), { secret: 'whsec_not_ours_0123456789' });
      assert.deepStrictEqual([forged.status, forged.json], [400, { error: code }], says);
      // A 400 for a header missing names the headers the delivery carried, never a value.
      await logged(receiver, /refused a delivery \(400\): (timestamp|signature)_missing: .*; the delivery carried the headers [a-z-, ]*x-webhook-signature[a-z-, ]* \(expected /);
      assert.ok(!receiver.output().includes(SECRET), 'no secret');
    } finally {
      await receiver.stop();
    }
  }
  // Never recorded: it was refused.
  const db = new Database(database, { readonly: true });
  assert.deepStrictEqual(db.prepare("SELECT event_id FROM cryptopay_events WHERE event_id = 'evt_misnamed'").all(), []);
  db.close();
});

test('a secret with white space or quotes around it, or header names that cannot work: no start, the variable named, never the value', async () => {
  for (const [env, says] of [
    [{ CRYPTOPAY_WEBHOOK_SECRET: `${SECRET}\n` }, /CRYPTOPAY_WEBHOOK_SECRET starts or ends with white space \(a pasted space or newline\): remove it/],
    [{ CRYPTOPAY_WEBHOOK_SECRET_PENDING: ` ${PENDING}` }, /CRYPTOPAY_WEBHOOK_SECRET_PENDING starts or ends with white space/],
    [{ CRYPTOPAY_WEBHOOK_SECRET: `"${SECRET}"` }, /CRYPTOPAY_WEBHOOK_SECRET is wrapped in quotes \(an env file or a YAML value kept them\): remove them/],
    [{ CRYPTOPAY_WEBHOOK_SECRET_PENDING: `'${PENDING}'` }, /CRYPTOPAY_WEBHOOK_SECRET_PENDING is wrapped in quotes/],
    [{ CRYPTOPAY_WEBHOOK_SECRET_PENDING: '' }, /CRYPTOPAY_WEBHOOK_SECRET_PENDING is set but empty \(a blank line of an env file\?\): give the secret, or unset it/],
    [{ SIGNATURE_HEADER: TS_HEADER.toLowerCase() }, /TIMESTAMP_HEADER and SIGNATURE_HEADER name the same header/],
    [{ TIMESTAMP_HEADER: '' }, /TIMESTAMP_HEADER is not a header name/],
    [{ SIGNATURE_HEADER: 'X Signature' }, /SIGNATURE_HEADER is not a header name/],
    [{ BODY_TIMEOUT_SECS: '0' }, /BODY_TIMEOUT_SECS is a whole number of seconds from 1 to 600 \(default 30\)/],
    [{ BODY_TIMEOUT_SECS: '30000' }, /BODY_TIMEOUT_SECS is a whole number of seconds/],
  ]) {
    const error = await startReceiver({ DATABASE: database, ...env }).then(async (receiver) => {
      await receiver.stop();
      return null;
    }, (failure) => failure);
    assert.ok(error !== null, `started with ${JSON.stringify(Object.keys(env))}`);
    assert.match(String(error.message), says);
    assert.ok(!String(error.message).includes(SECRET) && !String(error.message).includes(PENDING));
  }
});

// Neither axum nor hyper bounds how long a body takes: BODY_TIMEOUT_SECS does.
test('a sender that stops mid-body is answered 408 body_timeout at BODY_TIMEOUT_SECS; a delivery beside it is recorded', async () => {
  const receiver = await startReceiver({ DATABASE: database, BODY_TIMEOUT_SECS: '1' });
  const { port } = new URL(receiver.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  const answer = { text: '' };
  socket.on('data', (chunk) => { answer.text += chunk; });
  socket.on('error', () => {});
  try {
    socket.write(`POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n${' '.repeat(10)}`);
    const id = randomBytes(6).toString('hex');
    const recorded = await deliver(receiver.url, event(`evt_slow_${id}`, `pay_slow_${id}`, 1));
    assert.equal(recorded.status, 200, recorded.text);
    for (let i = 0; i < 100 && !/body_timeout/.test(answer.text); i += 1) await new Promise((resolve) => { setTimeout(resolve, 50); });
    assert.match(answer.text, /^HTTP\/1\.1 408 /, answer.text);
    assert.match(answer.text, /\{"error":"body_timeout"\}$/);
    await logged(receiver, /refused a delivery \(408 body_timeout\): its body did not arrive within 1 s; the service retries it/);
  } finally {
    socket.destroy();
    await receiver.stop();
  }
});

// The skew is judged from when the delivery arrived: a body that takes a few seconds to come
// is not refused as stale for them (a 400 the service never retries).
test('a delivery signed 298 s ago whose body takes 4 s to arrive is recorded, not refused as stale', async () => {
  const receiver = await startReceiver({ DATABASE: database, BODY_TIMEOUT_SECS: '10' });
  const { port } = new URL(receiver.url);
  const id = randomBytes(6).toString('hex');
  const body = Buffer.from(JSON.stringify(event(`evt_late_${id}`, `pay_late_${id}`, 1)));
  const timestamp = String(now() - 298);
  const signature = `v1=${pkg.signWebhook({ secret: SECRET, timestamp, body })}`;
  const socket = net.connect(Number(port), '127.0.0.1');
  const answer = { text: '' };
  socket.on('data', (chunk) => { answer.text += chunk; });
  socket.on('error', () => {});
  try {
    socket.write(`POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${TS_HEADER}: ${timestamp}\r\n`
      + `${SIG_HEADER}: ${signature}\r\nContent-Length: ${body.length}\r\n\r\n`);
    socket.write(body.subarray(0, 10));
    await new Promise((resolve) => { setTimeout(resolve, 4000); });
    socket.write(body.subarray(10));
    for (let i = 0; i < 100 && !/\r\n\r\n\{/.test(answer.text); i += 1) await new Promise((resolve) => { setTimeout(resolve, 50); });
    assert.match(answer.text, /^HTTP\/1\.1 200 /, answer.text);
  } finally {
    socket.destroy();
    await receiver.stop();
  }
});

// axum::serve sets hyper no timer: a client that sends half a header, or nothing, held its
// connection for ever. The headers and an idle connection are bounded by BODY_TIMEOUT_SECS.
test('a client that stops mid-header, or sends nothing, is closed at BODY_TIMEOUT_SECS; a delivery beside it is recorded', async () => {
  const receiver = await startReceiver({ DATABASE: database, BODY_TIMEOUT_SECS: '1' });
  const { port } = new URL(receiver.url);
  const closed = (socket) => new Promise((resolve) => { socket.on('close', () => resolve(Date.now())); });
  const half = net.connect(Number(port), '127.0.0.1');
  const silent = net.connect(Number(port), '127.0.0.1');
  for (const socket of [half, silent]) socket.on('error', () => {});
  const ends = [closed(half), closed(silent)];
  try {
    const began = Date.now();
    half.write('POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Le');
    const id = randomBytes(6).toString('hex');
    const recorded = await deliver(receiver.url, event(`evt_hdr_${id}`, `pay_hdr_${id}`, 1));
    assert.equal(recorded.status, 200, recorded.text);
    const limit = new Promise((resolve) => { setTimeout(() => resolve('open'), 10_000); });
    for (const end of ends) {
      const at = await Promise.race([end, limit]);
      assert.notEqual(at, 'open', 'the receiver closed the connection');
      assert.ok(at - began >= 900, `closed after ${at - began} ms, not before the timeout`);
    }
  } finally {
    half.destroy();
    silent.destroy();
    await receiver.stop();
  }
});

test('DATABASE: a URL or an in-memory database refused at start, the value never printed; set but empty is the default file', async () => {
  const password = `Pw_${randomBytes(8).toString('hex')}`;
  for (const [value, says] of [
    [`postgres://shop:${password}@db.internal/shop`, /DATABASE is the path of a SQLite file; a PostgreSQL URL goes in DATABASE_URL \(the value is not printed\)/],
    [':memory:', /DATABASE names an in-memory SQLite database, which loses every event acknowledged when the process stops: give a file's path/],
    ['file::memory:?cache=shared', /DATABASE names an in-memory SQLite database/],
    [`file:${password}?mode=memory`, /DATABASE names an in-memory SQLite database/],
    [`file:/${password}?vfs=memdb`, /DATABASE names an in-memory SQLite database/],
  ]) {
    const error = await startReceiver({ DATABASE: value }).then(async (receiver) => {
      await receiver.stop();
      return null;
    }, (failure) => failure);
    assert.ok(error !== null, `started with DATABASE=${value.replace(password, '...')}`);
    assert.match(String(error.message), says);
    assert.ok(!String(error.message).includes(password), 'the value is not printed');
  }
  // A SQLite URI is a file's path.
  const uriFolder = mkdtempSync(join(dataDir, 'uri-'));
  const byUri = await startReceiver({ DATABASE: `file://${join(uriFolder, 'by-uri.db')}` });
  await byUri.stop();
  assert.ok(existsSync(join(uriFolder, 'by-uri.db')));
  // Set but empty (a blank line of an env file): receiver.db in the working folder, as unset.
  const cwd = mkdtempSync(join(dataDir, 'empty-'));
  const receiver = await startReceiver({ DATABASE: '' }, { cwd });
  try {
    assert.match(receiver.output(), /recording in SQLite file receiver\.db/);
    assert.ok(existsSync(join(cwd, 'receiver.db')));
  } finally {
    await receiver.stop();
  }
});

test('ids the npm receiver refuses on every store are quarantined here too: over 1024 bytes, or holding a NUL', async () => {
  const receiver = await start();
  try {
    const id = (n) => `evt_${'é'.repeat((n - 4) / 2)}`; // n bytes in UTF-8
    assert.deepStrictEqual((await deliver(receiver.url, event(id(1024), 'pay_ids', '1'))).json, { received: true, decision: 'apply' });
    for (const [eventId, paymentId] of [[`${id(1024)}x`, 'pay_ids'], ['evt_ids', `pay_${'x'.repeat(1021)}`], ['evt_\u0000', 'pay_ids']]) {
      const answer = await deliver(receiver.url, event(eventId, paymentId, '2'));
      assert.deepStrictEqual([answer.status, answer.json], [200, { received: true, quarantined: 'event_malformed' }]);
    }
    assert.deepStrictEqual((await deliver(receiver.url, event('evt_ids_ok', 'pay_ids', '2'))).json, { received: true, decision: 'apply' });
  } finally {
    await receiver.stop();
  }
});

test('a rotation\'s retiring secret: accepted until CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL, refused after (500 for one in flight); milliseconds refused at start', async () => {
  const payment = `pay_${randomBytes(6).toString('hex')}`;
  const retiring = `whsec_axum_old_${randomBytes(8).toString('hex')}`;
  // After the overlap: signed after it (a forgery with the old secret: 400), or signed inside
  // it and arrived after it ended, in flight at the switch (500: the service's retry is
  // signed with the active secret).
  for (const [until, signedAgo, status] of [[now() + 3600, 0, 200], [now() - 3600, 0, 400], [now() - 10, 20, 500]]) {
    const receiver = await startReceiver({
      DATABASE: database, CRYPTOPAY_WEBHOOK_SECRET_RETIRING: retiring, CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: String(until),
    });
    try {
      const answer = await deliver(receiver.url, event(`evt_retiring_${status}`, payment, String(status)), { secret: retiring, at: now() - signedAgo });
      assert.equal(answer.status, status, JSON.stringify(answer.json));
      if (status !== 200) assert.deepStrictEqual(answer.json, { error: 'signature_mismatch' });
      assert.ok(!receiver.output().includes(retiring), 'the secret is never printed');
    } finally {
      await receiver.stop();
    }
  }
  await assert.rejects(startReceiver({
    DATABASE: database, CRYPTOPAY_WEBHOOK_SECRET_RETIRING: retiring, CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: String(Date.now() + 3_600_000),
  }), /RETIRING_UNTIL is a Unix time in seconds/);
});

// Tables set back to version 4 by hand (docs/merchant-loop.md's rollback), the recheck_at
// column left standing: the next start leaves out the ALTER that adds it (SQLite has no ADD
// COLUMN IF NOT EXISTS), as the npm stores do, and migrates to 5 again.
test('a file set back to schema version 4 with its recheck_at column kept starts, back at version 5', async () => {
  const file = join(dataDir, 'rolled-back.db');
  let receiver = await startReceiver({ DATABASE: file });
  await receiver.stop();
  const db = new Database(file);
  db.prepare("UPDATE cryptopay_schema SET version = 4 WHERE name = 'receiver'").run();
  db.close();
  receiver = await startReceiver({ DATABASE: file });
  try {
    assert.equal((await deliver(receiver.url, event('evt_rb', 'pay_rb', '1'))).status, 200);
  } finally {
    await receiver.stop();
  }
  const after = new Database(file, { readonly: true });
  try {
    assert.equal(after.prepare("SELECT version FROM cryptopay_schema WHERE name = 'receiver'").get().version, 5);
  } finally {
    after.close();
  }
});
