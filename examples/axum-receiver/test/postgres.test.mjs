// The axum receiver on PostgreSQL (DATABASE_URL set), on a throwaway server of this run
// (tests/receiver/lib/postgres.mjs: a unix socket only). The same as receiver.test.mjs on
// SQLite (the conformance kit, decisions across a restart, the other answers), with the rows
// read back; the limits the npm receiver puts on ids and versions; PostgreSQL stopped (503,
// nothing acknowledged, then 200 again without a restart) and a connection string never
// printed; a role that may not write and a read-only database (no start, or 503, with the fix);
// serialization failures retried; a unique-violation race answered duplicate;
// PgBouncer in transaction mode; and TWO receiver processes on one database, a few
// hundred deliveries at once, a third of them to both: every answer 200, each event recorded
// once, every payment at its highest version.
//
// tokio-postgres reads a unix socket's folder as the host, in key=value form
// (`host=/dir user=... dbname=...`) or percent-encoded in a URL's host
// (`postgresql://user@%2Fdir/db`). The helper's node-postgres `url` puts it in `?host=` instead,
// which tokio-postgres adds after the URL's host (localhost:5432 over TCP, tried first): not used.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { postgresRows, random } from '../../../tests/receiver/lib/helpers.mjs';
import { startStandin } from '../../../tests/loop/lib/standin.mjs';
import { openPool, startPgBouncer, startPostgres } from '../../../tests/receiver/lib/postgres.mjs';
import { PENDING, SECRET, deliver, event, logged, request, runKit, start, TS_HEADER, SIG_HEADER, now } from './lib.mjs';

const SEED = Number(process.env.RECEIVER_SEED ?? 20261130);
const keyValue = (server, dbname) => `host=${server.socketDir} user=postgres dbname=${dbname}`;
const urlOf = (server, dbname, password = '') => `postgresql://postgres${password ? `:${password}` : ''}@${encodeURIComponent(server.socketDir)}/${dbname}?sslmode=disable`;

/** A database of its own on `pool`'s server; resolves its name. */
async function createDatabase(pool, name) {
  await pool.query(`CREATE DATABASE ${name} ENCODING 'UTF8' TEMPLATE template0`);
  return name;
}

/** The rows of a database, through a pool of its own. */
async function rowsOf(server, dbname) {
  const pool = openPool({ ...server.connection, database: dbname, max: 1 });
  try {
    return await postgresRows(pool);
  } finally {
    await pool.end();
  }
}

/** Asserts a receiver's output holds no secret, no connection string nor password. */
function assertQuiet(output, ...secrets) {
  for (const secret of [SECRET, PENDING, ...secrets]) assert.ok(!output.includes(secret), `the output holds ${secret}:\n${output}`);
}

describe('the axum receiver on PostgreSQL', { timeout: 300_000 }, () => {
  let server;
  let pool;
  before(() => {
    server = startPostgres();
    pool = openPool({ ...server.connection, max: 2 });
  });
  after(async () => {
    await pool?.end();
    server?.destroy();
  });

  test('the conformance kit of the installed package: every rule holds', async () => {
    const db = await createDatabase(pool, 'axum_kit');
    const receiver = await start({ DATABASE_URL: keyValue(server, db) });
    try {
      assert.match(receiver.output(), /recording in PostgreSQL \(DATABASE_URL\)/);
      runKit(receiver.url);
    } finally {
      await receiver.stop();
    }
    assertQuiet(receiver.output(), server.socketDir);
  });

  test('decisions are durable across a restart: duplicates and stale versions acknowledged, not applied', async () => {
    const db = await createDatabase(pool, 'axum_restart');
    // A password in the URL (trust authentication ignores it): never printed.
    const password = `pw_${randomBytes(8).toString('hex')}`;
    // A DATABASE left beside DATABASE_URL (here one refused for SQLite) is not read.
    const env = { DATABASE_URL: urlOf(server, db, password), DATABASE: ':memory:' };
    const payment = `pay_${randomBytes(6).toString('hex')}`;
    const v = (n) => (9007199254740993n + BigInt(n)).toString();
    const sent = {};
    const send = async (url, id, version, options) => {
      const body = Buffer.from(JSON.stringify(event(id, payment, version)));
      sent[id] = body;
      return deliver(url, null, { body, ...options });
    };
    let receiver = await start(env);
    const outputs = [];
    try {
      assert.deepStrictEqual((await send(receiver.url, 'evt_a', v(5))).json, { received: true, decision: 'apply' });
      assert.deepStrictEqual((await send(receiver.url, 'evt_b', v(4))).json, { received: true, decision: 'stale' });
    } finally {
      await receiver.stop();
      outputs.push(receiver.output());
    }
    receiver = await start(env);
    try {
      const again = await deliver(receiver.url, null, { body: sent.evt_a });
      assert.deepStrictEqual([again.status, again.json], [200, { received: true, decision: 'duplicate' }]);
      assert.deepStrictEqual((await send(receiver.url, 'evt_c', v(4))).json, { received: true, decision: 'stale' });
      assert.deepStrictEqual((await send(receiver.url, 'evt_d', v(6))).json, { received: true, decision: 'apply' });
      assert.equal((await send(receiver.url, 'evt_e', v(7), { secret: PENDING })).status, 200);
      const other = await send(receiver.url, 'evt_f', v(8), { secret: 'whsec_other' });
      assert.deepStrictEqual([other.status, other.json], [400, { error: 'signature_mismatch' }]);
    } finally {
      await receiver.stop();
      outputs.push(receiver.output());
    }
    const rows = await rowsOf(server, db);
    assert.deepStrictEqual(rows.events.map((e) => [e.event_id, e.status_version, e.decision]), [
      ['evt_a', v(5), 'apply'], ['evt_b', v(4), 'stale'], ['evt_c', v(4), 'stale'], ['evt_d', v(6), 'apply'], ['evt_e', v(7), 'apply'],
    ]);
    for (const row of rows.events) assert.deepStrictEqual(Buffer.from(row.body), sent[row.event_id], 'the verified body, byte for byte');
    // Each event with the kind of secret that verified it, as the npm receiver records it.
    const reader = openPool({ ...server.connection, database: db, max: 1 });
    try {
      const kinds = (await reader.query('SELECT event_id, secret_kind FROM cryptopay_events ORDER BY event_id')).rows;
      assert.deepStrictEqual(kinds.map((r) => [r.event_id, r.secret_kind]),
        [['evt_a', 'active'], ['evt_b', 'active'], ['evt_c', 'active'], ['evt_d', 'active'], ['evt_e', 'pending']]);
    } finally {
      await reader.end();
    }
    assert.deepStrictEqual(rows.payments.map((p) => [p.payment_id, p.status_version, p.event_id]), [[payment, v(7), 'evt_e']]);
    assert.deepStrictEqual(JSON.parse(rows.payments[0].data), JSON.parse(sent.evt_e).data);
    assert.deepStrictEqual(rows.quarantine, []);
    assertQuiet(outputs.join(''), password, server.socketDir);
  });

  test('tables shared with an npm receiver naming its integrations: an event of a payment one of them wrote is 503, nothing recorded', async () => {
    const db = await createDatabase(pool, 'axum_integration');
    const receiver = await start({ DATABASE_URL: urlOf(server, db) });
    const payment = `pay_${randomBytes(6).toString('hex')}`;
    try {
      assert.deepStrictEqual((await deliver(receiver.url, event('evt_int_1', payment, '2'))).json, { received: true, decision: 'apply' });
      const other = openPool({ ...server.connection, database: db, max: 1 });
      await other.query("UPDATE cryptopay_payments SET integration = 'shop-a' WHERE payment_id = $1", [payment]);
      await other.end();
      const refused = await deliver(receiver.url, event('evt_int_2', payment, '3'));
      assert.deepStrictEqual([refused.status, refused.json], [503, { error: 'store_unavailable' }]);
      await logged(receiver, /integration_mismatch: the payment's stored facts came through a named integration's secret/);
    } finally {
      await receiver.stop();
    }
    assert.deepStrictEqual((await rowsOf(server, db)).events.map((e) => e.event_id), ['evt_int_1']);
  });

  test('the other answers, and what the store cannot hold quarantined as the npm receiver does', async () => {
    const db = await createDatabase(pool, 'axum_answers');
    const receiver = await start({ DATABASE_URL: keyValue(server, db) });
    const kept = [];
    const long = (n) => `evt_${'é'.repeat((n - 4) / 2)}`; // n bytes in UTF-8
    const digits = (n) => `9${'0'.repeat(n - 1)}`;
    const quarantined = async (body, code) => {
      const answer = await deliver(receiver.url, null, { body });
      assert.deepStrictEqual([answer.status, answer.json], [200, { received: true, quarantined: code }]);
      kept.push([code, body]);
    };
    try {
      await quarantined(Buffer.from(JSON.stringify({ ...event('evt_q', 'pay_q', '1'), event_type: 'payment.created' })), 'event_type_unknown');
      await quarantined(Buffer.from([0x6e, 0x6f, 0xff, 0xfe]), 'event_not_json'); // not UTF-8: kept as bytes
      const unsigned = await request(receiver.url, { method: 'POST', body: '{}', headers: { [TS_HEADER]: String(now()) } });
      assert.deepStrictEqual([unsigned.status, unsigned.json], [400, { error: 'signature_missing' }]);
      const twice = await request(receiver.url, { method: 'POST', body: '{}', headers: [TS_HEADER, String(now()), TS_HEADER, String(now()), SIG_HEADER, 'v1=00'] });
      assert.deepStrictEqual([twice.status, twice.json], [400, { error: 'header_duplicated' }]);
      assert.equal((await deliver(receiver.url, null, { body: Buffer.alloc(4 * 1024 * 1024 + 1, 0x20) })).status, 413);
      assert.equal((await request(receiver.url, { method: 'GET' })).status, 405);
      // Ids: 1024 bytes in UTF-8 recorded; 1025 bytes (a 2-byte character), or a NUL, quarantined.
      assert.equal(Buffer.byteLength(long(1024)), 1024);
      assert.deepStrictEqual((await deliver(receiver.url, event(long(1024), 'pay_id', '1'))).json, { received: true, decision: 'apply' });
      await quarantined(Buffer.from(JSON.stringify(event(`${long(1024)}x`, 'pay_id', '2'))), 'event_malformed');
      await quarantined(Buffer.from(JSON.stringify(event('evt_ok', `pay_${'x'.repeat(1021)}`, '1'))), 'event_malformed');
      await quarantined(Buffer.from(JSON.stringify(event('evt_\u0000nul', 'pay_id', '3'))), 'event_malformed');
      // Versions: 131072 digits (numeric's most) recorded exactly, as a JSON number; one more quarantined.
      const big = (id, n) => Buffer.from(`{"schema_version":1,"event_id":"${id}","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_big","status_version":${digits(n)}}}`);
      assert.deepStrictEqual((await deliver(receiver.url, null, { body: big('evt_big', 131072) })).json, { received: true, decision: 'apply' });
      await quarantined(big('evt_bigger', 131073), 'status_version_invalid');
    } finally {
      await receiver.stop();
    }
    const rows = await rowsOf(server, db);
    assert.deepStrictEqual(rows.events.map((e) => e.event_id).sort(), ['evt_big', long(1024)].sort());
    assert.equal(rows.payments.find((p) => p.payment_id === 'pay_big').status_version, digits(131072));
    assert.deepStrictEqual(rows.quarantine.map((q) => [q.code, Buffer.from(q.body)]), kept, 'each kept byte for byte, in order');
    assertQuiet(receiver.output());
  });

  test('SERIALIZABLE as the default isolation: serialization failures retried, every delivery 200, the loop\'s statements too', async () => {
    const db = await createDatabase(pool, 'axum_serializable');
    await pool.query(`ALTER DATABASE ${db} SET default_transaction_isolation = 'serializable'`);
    // The merchant loop runs beside the deliveries: a payment's view is at the highest version
    // acknowledged so far (paid at 8), no order is recorded, so the passes write its payments
    // row (`complete`) again and again while deliveries write the same rows. (Without the
    // loop's retries, this run met a serialization failure in two runs of three.)
    const highest = new Map();
    const standin = await startStandin((req) => {
      const id = decodeURIComponent(req.path.replace('/v1/payments/', ''));
      const version = highest.get(id) ?? 1;
      return { json: { payment_id: id, order_ref: null, source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' }, status: version === 8 ? 'paid' : 'confirming', status_version: version, amount_received_raw: version === 8 ? '100' : '0' } };
    });
    const receiver = await start({ DATABASE_URL: keyValue(server, db), CRYPTOPAY_BASE_URL: standin.baseUrl, CRYPTOPAY_API_KEY: 'sk_serializable', FULFIL_INTERVAL_MS: '5' });
    const logged = () => (readFileSync(server.logFile, 'utf8').match(/could not serialize access/g) ?? []).length;
    const before = logged();
    const rng = random(SEED);
    try {
      for (let round = 0; round < 10; round += 1) {
        const deliveries = [];
        for (let v = 1; v <= 8; v += 1) {
          for (let copy = 0; copy < 3; copy += 1) deliveries.push({ id: `evt_s${round}_${v}`, v, body: Buffer.from(JSON.stringify(event(`evt_s${round}_${v}`, `pay_s${round}`, String(v)))) });
        }
        rng.shuffle(deliveries);
        const answers = await Promise.all(deliveries.map((d) => deliver(receiver.url, null, { body: d.body }).then((answer) => {
          highest.set(`pay_s${round}`, Math.max(highest.get(`pay_s${round}`) ?? 1, d.v));
          return answer;
        })));
        assert.deepStrictEqual(answers.filter((a) => a.status !== 200), [], `round ${round}`);
        for (let v = 1; v <= 8; v += 1) {
          const deciding = answers.filter((_, i) => deliveries[i].id === `evt_s${round}_${v}`).map((a) => a.json.decision).filter((d) => d !== 'duplicate');
          assert.equal(deciding.length, 1, `evt_s${round}_${v} recorded once`);
        }
      }
      // Every payment handled by the loop at version 8, none of its statements failed.
      const held = () => new Set([...receiver.output().matchAll(/would hold a payment no order of ours holds for review \(payment_unknown; payment (pay_s\d+), paid at version 8;/g)].map((m) => m[1]));
      for (let i = 0; held().size < 10; i += 1) {
        assert.ok(i < 400, receiver.output());
        await new Promise((resolve) => { setTimeout(resolve, 25); });
      }
      assert.doesNotMatch(receiver.output(), /40001|40P01|a pass failed|pass_failed/);
    } finally {
      await receiver.stop();
      await standin.close();
    }
    const rows = await rowsOf(server, db);
    assert.equal(rows.events.length, 80);
    for (let round = 0; round < 10; round += 1) {
      assert.deepStrictEqual(rows.payments.find((p) => p.payment_id === `pay_s${round}`).event_id, `evt_s${round}_8`);
    }
    const failures = logged() - before;
    assert.ok(failures > 0, 'the deliveries met serialization failures (and the store retried them)');
    console.log(`# SERIALIZABLE: 240 deliveries, all 200; ${failures} serialization failures retried`);
  });
  test('through PgBouncer in transaction mode (statements unnamed): the tables created, a burst of deliveries all 200', async () => {
    const bouncer = await startPgBouncer(server, { poolSize: 4 });
    const dir = new URL(bouncer.url).searchParams.get('host');
    let receiver;
    try {
      receiver = await start({ DATABASE_URL: `host=${dir} port=6432 user=postgres dbname=postgres` });
      const deliveries = [];
      for (let v = 1; v <= 40; v += 1) {
        const body = Buffer.from(JSON.stringify(event(`evt_b${v}`, `pay_b${v % 4}`, String(v))));
        deliveries.push(body, body);
      }
      random(SEED).shuffle(deliveries);
      const answers = await Promise.all(deliveries.map((body) => deliver(receiver.url, null, { body })));
      assert.deepStrictEqual(answers.filter((a) => a.status !== 200), []);
    } finally {
      await receiver?.stop();
      await bouncer.stop();
    }
    const rows = await rowsOf(server, 'postgres');
    assert.equal(rows.events.length, 40);
    assert.deepStrictEqual(rows.payments.map((p) => [p.payment_id, p.event_id]), [['pay_b0', 'evt_b40'], ['pay_b1', 'evt_b37'], ['pay_b2', 'evt_b38'], ['pay_b3', 'evt_b39']]);
  });

  test('a unique-violation race on the event id, staged across two instances: the loser rolled back whole and answered duplicate', async () => {
    // One event_id sent for two payments (no real service does; it is the way to make the
    // race certain): B is held on a lock of its payment row while A records the event; then
    // B's payment update goes through and its event insert meets A's row (23505).
    const db = await createDatabase(pool, 'axum_race');
    const instances = await Promise.all([start({ DATABASE_URL: keyValue(server, db) }), start({ DATABASE_URL: keyValue(server, db) })]);
    const direct = openPool({ ...server.connection, database: db, max: 2 });
    const holder = await direct.connect();
    try {
      assert.deepStrictEqual((await deliver(instances[1].url, event('evt_r0', 'pay_rb', '1'))).json, { received: true, decision: 'apply' });
      await holder.query('BEGIN');
      await holder.query("SELECT 1 FROM cryptopay_payments WHERE payment_id = 'pay_rb' FOR UPDATE");
      const loser = deliver(instances[1].url, event('evt_race', 'pay_rb', '2'));
      for (let waited = 0; ; waited += 1) {
        const { rows } = await direct.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = $1", [db]);
        if (rows[0].n > 0) break;
        assert.ok(waited < 500, 'the delivery to B never waited on the row lock');
        await new Promise((r) => { setTimeout(r, 10); });
      }
      assert.deepStrictEqual((await deliver(instances[0].url, event('evt_race', 'pay_ra', '1'))).json, { received: true, decision: 'apply' });
      await holder.query('COMMIT');
      const answer = await loser;
      assert.deepStrictEqual([answer.status, answer.json], [200, { received: true, decision: 'duplicate' }]);
    } finally {
      holder.release();
      await direct.end();
      await Promise.all(instances.map((i) => i.stop()));
    }
    const rows = await rowsOf(server, db);
    assert.deepStrictEqual(rows.events.map((e) => [e.event_id, e.payment_id, e.decision]), [['evt_r0', 'pay_rb', 'apply'], ['evt_race', 'pay_ra', 'apply']]);
    assert.deepStrictEqual(rows.payments.map((p) => [p.payment_id, p.status_version, p.event_id]), [['pay_ra', '1', 'evt_race'], ['pay_rb', '1', 'evt_r0']], 'B\'s payment update rolled back with its statement');
    assert.match(readFileSync(server.logFile, 'utf8'), /duplicate key value violates unique constraint "cryptopay_events_pkey"/);
  });

  test('two receiver processes on one database, deliveries all at once, a third to both: every answer 200, each event recorded once, every payment at its highest version', async () => {
    const db = await createDatabase(pool, 'axum_two');
    // Started together on an empty database: the schema is created once, under an advisory lock.
    const instances = await Promise.all([start({ DATABASE_URL: keyValue(server, db) }), start({ DATABASE_URL: urlOf(server, db) })]);
    const rng = random(SEED);
    const events = [];
    for (let p = 0; p < 10; p += 1) {
      const base = p % 3 === 0 ? 2n ** 53n : 0n; // some payments beyond 2^53
      for (let v = 1; v <= 30; v += 1) {
        // A few versions repeated (6, 13, 20, 27): the second event of a version is stale.
        const version = String(base + BigInt(v % 7 === 0 ? v - 1 : v));
        const eventId = `evt_t${p}_${v}`;
        const paymentId = `pay_t${p}`;
        events.push({ eventId, paymentId, version, body: Buffer.from(JSON.stringify(event(eventId, paymentId, version, { status: `v${version}` }))) });
      }
    }
    const deliveries = [];
    for (const e of events) {
      const first = rng.int(2);
      deliveries.push({ event: e, instance: first });
      if (rng.next() < 1 / 3) deliveries.push({ event: e, instance: 1 - first });
    }
    rng.shuffle(deliveries);
    let answers;
    try {
      answers = await Promise.all(deliveries.map((d) => deliver(instances[d.instance].url, null, { body: d.event.body })));
    } finally {
      await Promise.all(instances.map((i) => i.stop()));
    }
    const refused = answers.map((a, i) => [deliveries[i].event.eventId, a.status, a.json]).filter(([, status]) => status !== 200);
    assert.deepStrictEqual(refused, [], 'every delivery answered 200');
    for (const instance of instances) assertQuiet(instance.output(), server.socketDir);

    const rows = await rowsOf(server, db);
    const stored = new Map(rows.events.map((e) => [e.event_id, e]));
    assert.equal(rows.events.length, events.length, 'each event recorded once (event_id is the key)');
    for (const e of events) {
      const row = stored.get(e.eventId);
      assert.ok(row, `${e.eventId} acknowledged but not recorded`);
      assert.deepStrictEqual([row.payment_id, row.status_version], [e.paymentId, e.version]);
      assert.deepStrictEqual(Buffer.from(row.body), e.body);
      // One answer decided (apply or stale), as the row says; any other answer is duplicate.
      const said = answers.filter((_, i) => deliveries[i].event === e).map((a) => a.json.decision);
      const deciding = said.filter((d) => d !== 'duplicate');
      assert.deepStrictEqual(deciding, [row.decision], `${e.eventId} answered ${said}`);
    }
    for (let p = 0; p < 10; p += 1) {
      const mine = events.filter((e) => e.paymentId === `pay_t${p}`);
      const highest = mine.map((e) => BigInt(e.version)).reduce((a, b) => (a > b ? a : b)).toString();
      const payment = rows.payments.find((r) => r.payment_id === `pay_t${p}`);
      assert.equal(payment.status_version, highest, `pay_t${p} at its highest version`);
      assert.deepStrictEqual([stored.get(payment.event_id).decision, stored.get(payment.event_id).status_version], ['apply', highest]);
      assert.equal(JSON.parse(payment.data).status, `v${highest}`);
      // As if one after the other: no version applied twice (a repeated version applies once at most).
      const applied = mine.filter((e) => stored.get(e.eventId).decision === 'apply').map((e) => e.version);
      assert.equal(new Set(applied).size, applied.length, `pay_t${p}: a version applied twice (${applied})`);
    }
    const duplicates = answers.filter((a) => a.json.decision === 'duplicate').length;
    console.log(`# two instances: ${deliveries.length} deliveries of ${events.length} events at once, all 200; ${duplicates} answered duplicate`);
  });

  test('a role that may not write, or a read-only database: no start, or 503 while it lasts, with the fix named', async () => {
    const db = await createDatabase(pool, 'axum_stuck');
    await (await start({ DATABASE_URL: keyValue(server, db) })).stop(); // the tables, made by their owner
    const admin = openPool({ ...server.connection, database: db, max: 1 });
    const role = `axum_writer_${randomBytes(4).toString('hex')}`;
    const asRole = `host=${server.socketDir} user=${role} dbname=${db}`;
    const refused = (env) => start(env).then(
      async (receiver) => { await receiver.stop(); assert.fail('started'); },
      (error) => error,
    );
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`);
      const reader = await refused({ DATABASE_URL: asRole });
      assert.notEqual(reader.exitCode, 0);
      assert.match(reader.output, /PostgreSQL: no delivery could be recorded \(42501 ERROR: [^)]+\): this role may not write the receiver's tables: GRANT SELECT, INSERT, UPDATE/);

      await admin.query(`GRANT INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO ${role}`);
      await admin.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
      const receiver = await start({ DATABASE_URL: asRole });
      const body = (id, version) => Buffer.from(JSON.stringify(event(id, 'pay_stuck', version)));
      try {
        assert.deepStrictEqual((await deliver(receiver.url, null, { body: body('evt_s1', '1') })).json, { received: true, decision: 'apply' });
        await admin.query(`REVOKE INSERT ON cryptopay_events FROM ${role}`);
        const denied = await deliver(receiver.url, null, { body: body('evt_s2', '2') });
        assert.deepStrictEqual([denied.status, denied.json], [503, { error: 'store_unavailable' }]);
        await logged(receiver, /could not record an event \(42501 ERROR: [^)]+; every retry will fail the same way: this role may not write the receiver's tables: GRANT/);
        await admin.query(`GRANT INSERT ON cryptopay_events TO ${role}`);
        const granted = await deliver(receiver.url, null, { body: body('evt_s2', '2') });
        assert.deepStrictEqual([granted.status, granted.json], [200, { received: true, decision: 'apply' }], 'not recorded before: applied now');
      } finally {
        await receiver.stop();
      }
      assertQuiet(receiver.output(), server.socketDir, 'evt_s2', 'pay_stuck');

      // As a standby after a failover reads: every write refused, the owner's included.
      await admin.query(`ALTER DATABASE ${db} SET default_transaction_read_only = on`);
      const standby = await refused({ DATABASE_URL: keyValue(server, db) });
      assert.match(standby.output, /PostgreSQL: no delivery could be recorded \(25006 ERROR: [^)]+\): the database is read-only \(a standby[^)]*\): connect to the primary/);
      assertQuiet(standby.output, server.socketDir);
    } finally {
      await admin.query(`ALTER DATABASE ${db} RESET default_transaction_read_only`);
      await admin.end();
    }
    const rows = await rowsOf(server, db);
    assert.deepStrictEqual(rows.events.map((e) => [e.event_id, e.decision]), [['evt_s1', 'apply'], ['evt_s2', 'apply']]);
  });

  // Another instance migrating a large table (its advisory lock held past the 5 s the schema
  // waits for it): the start waits and tries again, said on stderr, instead of exiting.
  test('a migration that gives up waiting for a lock is tried again: the receiver starts once it is free', async () => {
    const db = await createDatabase(pool, 'axum_locked');
    const other = openPool({ ...server.connection, database: db, max: 1 });
    const held = await other.connect();
    try {
      await held.query('BEGIN');
      await held.query('SELECT pg_advisory_xact_lock(4150767016395183)');
      const starting = start({ DATABASE_URL: keyValue(server, db) }, { timeoutMs: 40_000 });
      await new Promise((resolve) => { setTimeout(resolve, 7_000); });
      await held.query('COMMIT');
      const receiver = await starting;
      try {
        assert.match(receiver.output(), /the schema migration gave up waiting for a lock \(55P03.*trying again in 5 s/);
        const e = event('evt_locked', 'pay_locked', '1');
        assert.equal((await deliver(receiver.url, e)).status, 200);
      } finally {
        await receiver.stop();
      }
    } finally {
      held.release();
      await other.end();
    }
  });
});

describe('PostgreSQL stopped under the receiver, and connection strings never printed', { timeout: 120_000 }, () => {
  let server;
  before(() => {
    server = startPostgres();
  });
  after(() => server?.destroy());

  test('503 store_unavailable while it is down, nothing acknowledged; 200 once it is back, without a restart', async () => {
    const receiver = await start({ DATABASE_URL: keyValue(server, 'postgres') });
    const body = (id) => Buffer.from(JSON.stringify(event(id, 'pay_down', id === 'evt_up' ? '1' : '2')));
    try {
      assert.deepStrictEqual((await deliver(receiver.url, null, { body: body('evt_up') })).json, { received: true, decision: 'apply' });
      await server.stopAsync('fast');
      const down = await deliver(receiver.url, null, { body: body('evt_down') });
      assert.deepStrictEqual([down.status, down.json], [503, { error: 'store_unavailable' }]);
      const unreadable = await deliver(receiver.url, null, { body: Buffer.from('not json') });
      assert.deepStrictEqual([unreadable.status, unreadable.json], [503, { error: 'store_unavailable' }]);
      await server.startAsync();
      const back = await deliver(receiver.url, null, { body: body('evt_down') });
      assert.deepStrictEqual([back.status, back.json], [200, { received: true, decision: 'apply' }], 'not recorded before: applied now');
    } finally {
      await receiver.stop();
    }
    const rows = await rowsOf(server, 'postgres');
    assert.deepStrictEqual(rows.events.map((e) => e.event_id), ['evt_down', 'evt_up']);
    assert.deepStrictEqual(rows.quarantine, []);
    const output = receiver.output();
    assert.match(output, /store_unavailable: could not record an event \(.+\); answered 503/);
    assert.match(output, /store_unavailable: could not record a event_not_json delivery in quarantine/);
    assertQuiet(output, server.socketDir, 'evt_down', 'pay_down');
  });

  test('a statement past its 10 s bound (a lock held elsewhere): 503, the server asked to cancel it, its connection not reused', async () => {
    const db = 'postgres';
    const receiver = await start({ DATABASE_URL: keyValue(server, db) });
    const locker = openPool({ ...server.connection, database: db, max: 2 });
    const held = await locker.connect();
    const waiting = async () => (await locker.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'", [db])).rows[0].n;
    try {
      assert.deepStrictEqual((await deliver(receiver.url, event('evt_lock_a', 'pay_lock', '1'))).json, { received: true, decision: 'apply' });
      await held.query('BEGIN');
      await held.query('LOCK TABLE cryptopay_events IN ACCESS EXCLUSIVE MODE');
      const blocked = await deliver(receiver.url, event('evt_lock_b', 'pay_lock', '2'));
      assert.deepStrictEqual([blocked.status, blocked.json], [503, { error: 'store_unavailable' }]);
      // Cancelled on the server: nothing of the receiver's waits on the lock any more.
      for (let i = 0; (await waiting()) > 0; i += 1) {
        assert.ok(i < 100, 'the timed-out statement still waits on the lock');
        await new Promise((resolve) => { setTimeout(resolve, 50); });
      }
      await held.query('COMMIT');
      // Not recorded by the abandoned statement once the lock went: the retry applies it.
      const retried = await deliver(receiver.url, event('evt_lock_b', 'pay_lock', '2'));
      assert.deepStrictEqual([retried.status, retried.json], [200, { received: true, decision: 'apply' }]);
    } finally {
      await held.query('ROLLBACK').catch(() => {});
      held.release();
      await locker.end();
      await receiver.stop();
    }
    assert.match(receiver.output(), /store_unavailable: could not record an event \(no answer in 10 s\); answered 503/);
  });

  test('a connection string that does not parse, or a server it cannot reach: no start, the reason without the string', async () => {
    const password = `pw_${randomBytes(8).toString('hex')}`;
    const missing = `/nonexistent-${randomBytes(4).toString('hex')}`;
    const cases = [
      [`postgresql://postgres:${password}@${encodeURIComponent(missing)}/postgres`, /PostgreSQL: cannot connect \(DATABASE_URL\)/],
      [`host=${missing} user=postgres password=${password} dbname=postgres`, /PostgreSQL: cannot connect/],
      [`postgres://postgres:${password}@localhost:port${password}/postgres`, /invalid value for option `port`/],
      [`mysql://root:${password}@localhost/db`, /DATABASE_URL is not a PostgreSQL connection string .*: it does not parse/],
      // A space in an unquoted password: the rest of it reads as a key, whose name is not printed.
      [`host=${missing} user=postgres password=${password} ${password.slice(3)}=tail dbname=postgres`, /: a key tokio-postgres does not read \(its name is not printed/],
      [`postgresql://postgres@localhost/postgres?password=${password}&${password.slice(3)}=x`, /: a key tokio-postgres does not read/],
    ];
    for (const [url, reason] of cases) {
      const failed = await start({ DATABASE_URL: url }).then(
        async (receiver) => { await receiver.stop(); assert.fail(`started with ${reason}`); },
        (error) => error,
      );
      assert.notEqual(failed.exitCode, 0);
      assert.match(failed.output, reason);
      assertQuiet(failed.output, password.slice(3), missing, url);
    }
  });
});
