// Store failures: every one is answered 503 store_unavailable (never a 2xx for anything not
// committed), nothing acknowledged is lost, and the receiver recovers.
//   - PostgreSQL stopped mid-burst as by a crash (pg_ctl stop -m immediate), then restarted;
//   - PostgreSQL with synchronous_commit = off (a server setting some hosts use): every
//     acknowledged delivery survives a crash all the same;
//   - SQLite on a full disk: PRAGMA max_page_count (no root needed) and a small tmpfs (needs
//     root to mount; runs when root, as on CI);
//   - lock timeouts: SQLite's busy timeout, PostgreSQL's lock_timeout.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  Database, PACKAGE_DIR, captureLog, eventBody, pg, postgresRows, receiverOptions, rx, signedHeaders, sqliteRows, tempDir,
} from './lib/helpers.mjs';
import { burst, closeAgents, send, startExample } from './lib/example.mjs';
import { openPool, startPostgres } from './lib/postgres.mjs';

const isRoot = process.getuid?.() === 0;

// Deliveries of `events` events over `payments` payments, ~2 KiB bodies, versions shuffled.
function workload(tag, count, payments = 10) {
  return Array.from({ length: count }, (_, i) => {
    const eventId = `evt_${tag}_${i}`;
    const paymentId = `pay_${tag}_${i % payments}`;
    const version = String(((i * 7919) % count) + 1);
    return { eventId, paymentId, version, body: eventBody({ eventId, paymentId, statusVersion: version, note: 'x'.repeat(2000) }) };
  });
}

// Checks a store's rows against what was acknowledged: each acknowledged event stored with
// the decision answered; every payment at the highest version of its stored events.
function checkAcknowledged(rows, acknowledged) {
  const stored = new Map(rows.events.map((e) => [e.event_id, e]));
  for (const [eventId, decision] of acknowledged) {
    const row = stored.get(eventId);
    assert.ok(row, `${eventId} was acknowledged (${decision}) but is not stored`);
    if (decision !== 'duplicate') assert.equal(row.decision, decision, eventId);
  }
  const highest = new Map();
  for (const e of rows.events) {
    const v = BigInt(e.status_version);
    if (!highest.has(e.payment_id) || v > highest.get(e.payment_id)) highest.set(e.payment_id, v);
  }
  for (const p of rows.payments) assert.equal(String(p.status_version), String(highest.get(p.payment_id)), p.payment_id);
}

describe('PostgreSQL stopped mid-burst (as by a crash), then restarted', { timeout: 120_000 }, () => {
  let server;
  let pool;
  let receiver;
  before(async () => {
    server = startPostgres();
    pool = openPool({ connectionString: server.url, max: 2 });
    receiver = await startExample({ env: { DATABASE_URL: server.url } });
  });
  after(async () => {
    closeAgents();
    await receiver?.stop();
    await pool?.end().catch(() => {});
    server?.destroy();
  });

  test('503 while it is down, never a 2xx for what was not committed; recovery after the restart', async () => {
    const deliveries = workload('pgdown', 900, 30);
    const acknowledged = new Map();
    const refused = [];
    let stopping = null;
    let restarting = null;
    await burst(deliveries.length, (i) => send(receiver.webhookUrl, deliveries[i].body), {
      concurrency: 16,
      onResult: (i, result, done) => {
        if (result.status === 200) acknowledged.set(deliveries[i].eventId, result.json.decision);
        else {
          assert.deepEqual([result.status, result.json], [503, { error: 'store_unavailable' }], result.text ?? String(result.error));
          refused.push(deliveries[i]);
        }
        if (done === 250) stopping = server.stopAsync('immediate');
        if (done === 600) restarting = stopping.then(() => server.startAsync());
      },
    });
    await restarting;
    assert.ok(refused.length > 0, 'some deliveries were answered 503 while the server was down');
    assert.ok(acknowledged.size > 250, 'deliveries before the stop were acknowledged');
    // Everything acknowledged before the crash survived it (committed means on disk).
    const afterCrash = await postgresRows(pool);
    checkAcknowledged(afterCrash, acknowledged);
    // The service retries the refused ones: the receiver answers again without a restart.
    for (const delivery of refused) {
      const result = await send(receiver.webhookUrl, delivery.body);
      assert.equal(result.status, 200, result.text ?? String(result.error));
      acknowledged.set(delivery.eventId, result.json.decision);
    }
    const rows = await postgresRows(pool);
    assert.equal(rows.events.length, deliveries.length);
    checkAcknowledged(rows, acknowledged);
    assert.ok(receiver.output.includes('store_unavailable'), 'the failures were logged');
    assert.ok(!/evt_pgdown|xxxxxxxx/.test(receiver.output), 'no event id or body in the log');
    console.log(`# ${acknowledged.size} acknowledged, ${refused.length} answered 503 while PostgreSQL was down (then delivered again)`);
  });
});

describe('PostgreSQL with synchronous_commit = off, crashed right after its answers', { timeout: 120_000 }, () => {
  let server;
  before(() => {
    // The WAL writer flushes at most every 10 s: an asynchronous commit stays in memory.
    server = startPostgres({ settings: { synchronous_commit: 'off', wal_writer_delay: "'10s'", wal_writer_flush_after: "'1GB'" } });
  });
  after(() => server?.destroy());

  test('every delivery answered 200 (recorded or quarantined) is there after the restart', async () => {
    let pool = openPool({ connectionString: server.url, max: 4 });
    assert.equal((await pool.query('SHOW synchronous_commit')).rows[0].synchronous_commit, 'off');
    const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(pool), { log: false }));
    await receiver.ready();
    await pool.query('CHECKPOINT'); // the tables themselves are on disk
    const deliveries = workload('async', 40, 8);
    const acknowledged = new Map();
    for (const { eventId, body } of deliveries) {
      const answer = await receiver.handle({ body, headers: signedHeaders(body) });
      assert.equal(answer.status, 200, answer.body);
      acknowledged.set(eventId, JSON.parse(answer.body).decision);
    }
    const notEvents = ['not json 1', 'not json 2', 'not json 3'];
    for (const body of notEvents) {
      assert.equal((await receiver.handle({ body, headers: signedHeaders(body) })).body, '{"received":true,"quarantined":"event_not_json"}');
    }
    await pool.end();
    server.stop('immediate'); // as by a crash, right after the last answer
    server.start();
    pool = openPool({ connectionString: server.url, max: 1 });
    try {
      const rows = await postgresRows(pool);
      checkAcknowledged(rows, acknowledged);
      assert.equal(rows.events.length, deliveries.length);
      assert.deepEqual(rows.quarantine.map((q) => Buffer.from(q.body).toString()), notEvents);
    } finally {
      await pool.end();
    }
  });

  test('an order recordCreated resolved, and a version a fulfilment pass completed, are there after the restart', async () => {
    const prefix = 'loop_';
    let pool = openPool({ connectionString: server.url, max: 2 });
    const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(pool, { prefix }), { log: false }));
    await receiver.ready();
    const paid = ['pay_async_order_1', 'pay_async_order_2', 'pay_async_order_3'];
    for (const [i, paymentId] of paid.entries()) {
      const body = eventBody({ eventId: `evt_async_order_${i}`, paymentId, statusVersion: 3, status: 'paid' });
      assert.equal((await receiver.handle({ body, headers: signedHeaders(body) })).status, 200);
    }
    await pool.query('CHECKPOINT');
    // Then only asynchronous commits would follow: the orders, the pass that handles the
    // three paid ones, and last an order with no event yet.
    const orders = [...paid, 'pay_async_order_4'];
    const recordOrder = (paymentId) =>
      receiver.recordCreated({ payment_id: paymentId, order_ref: `order-${orders.indexOf(paymentId)}`, source_amount: ORDER_AMOUNT });
    for (const paymentId of paid) await recordOrder(paymentId);
    const view = (paymentId) => JSON.stringify({
      payment_id: paymentId, order_ref: `order-${orders.indexOf(paymentId)}`, source_amount: ORDER_AMOUNT,
      status: 'paid', status_version: 3, amount_received_raw: ORDER_AMOUNT.amount_raw,
    });
    const handled = [];
    const pass = await receiver.fulfil({ confirm: async (paymentId) => view(paymentId), handle: async ({ idempotencyKey }) => { handled.push(idempotencyKey); } });
    assert.deepEqual(pass.outcomes, { fulfil: 3 });
    assert.deepEqual(handled.sort(), paid.map((id) => `${id}:3`));
    await recordOrder('pay_async_order_4');
    await pool.end();
    server.stop('immediate');
    server.start();
    pool = openPool({ connectionString: server.url, max: 1 });
    try {
      const { rows: stored } = await pool.query(`SELECT payment_id, order_ref FROM ${prefix}orders ORDER BY payment_id`);
      assert.deepEqual(stored.map((o) => [o.payment_id, o.order_ref]), orders.map((id, i) => [id, `order-${i}`]));
      const { rows: done } = await pool.query(`SELECT payment_id, handled_version::text AS v, outcome FROM ${prefix}fulfilment
        WHERE handled_version IS NOT NULL ORDER BY payment_id`);
      assert.deepEqual(done.map((f) => [f.payment_id, f.v, f.outcome]), paid.map((id) => [id, '3', 'fulfil']));
    } finally {
      await pool.end();
    }
  });
});

const ORDER_AMOUNT = { kind: 'fiat', currency: 'USD', amount_raw: '12800' };

// Delivers one at a time and in small concurrent groups until the store refuses; returns
// { acknowledged: Map, refused: [] }.
async function fillUntilFull(receiver, deliveries) {
  const acknowledged = new Map();
  const refused = [];
  for (let i = 0; i < deliveries.length; i += 4) {
    const group = deliveries.slice(i, i + 4);
    const answers = await Promise.all(group.map(({ body }) => receiver.handle({ body, headers: signedHeaders(body) })));
    answers.forEach((answer, k) => {
      if (answer.status === 200) acknowledged.set(group[k].eventId, JSON.parse(answer.body).decision);
      else {
        assert.deepEqual([answer.status, answer.body], [503, '{"error":"store_unavailable"}']);
        refused.push(group[k]);
      }
    });
    if (refused.length >= 12) break;
  }
  return { acknowledged, refused };
}

async function redeliver(receiver, deliveries, acknowledged) {
  for (const { eventId, body } of deliveries) {
    const answer = await receiver.handle({ body, headers: signedHeaders(body) });
    assert.equal(answer.status, 200, answer.body);
    acknowledged.set(eventId, JSON.parse(answer.body).decision);
  }
}

describe('SQLite on a full disk', () => {
  test('PRAGMA max_page_count (no root needed): 503s, nothing acknowledged lost, a clean restart', async () => {
    const file = join(tempDir(), 'full.sqlite');
    let db = new Database(file);
    const log = captureLog();
    let receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log }));
    await receiver.ready();
    // The database may grow by a few pages only (for this connection): then SQLITE_FULL.
    const pages = db.pragma('page_count', { simple: true });
    db.pragma(`max_page_count = ${pages + 40}`);
    const deliveries = workload('pagefull', 400);
    const { acknowledged, refused } = await fillUntilFull(receiver, deliveries);
    assert.ok(acknowledged.size > 4 && refused.length > 0, `${acknowledged.size} acknowledged, ${refused.length} refused`);
    assert.ok(log.lines.some((l) => /store_unavailable.*SQLITE_FULL.*; a write below SQLite failed: the disk full \(df\)/.test(l)), log.lines.join('\n'));
    checkAcknowledged(sqliteRows(db), acknowledged);
    db.close();

    // Restarted (the limit was this connection's): clean, and the refused ones go in.
    db = new Database(file);
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log: false }));
    await receiver.ready();
    checkAcknowledged(sqliteRows(db), acknowledged);
    await redeliver(receiver, refused, acknowledged);
    const rows = sqliteRows(db);
    checkAcknowledged(rows, acknowledged);
    assert.equal(rows.events.length, acknowledged.size);
    db.close();
  });

  test('a 256 KiB tmpfs (needs root to mount): 503s, nothing acknowledged lost, recovery once space returns',
    { skip: !isRoot && 'needs root to mount a tmpfs; the max_page_count variant above runs without it' }, async (t) => {
      const dir = join(tempDir(), 'tmpfs');
      mkdirSync(dir);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'cpv-full-test', dir]);
      t.after(() => execFileSync('umount', ['-l', dir]));
      const file = join(dir, 'full.sqlite');
      let db = new Database(file);
      const log = captureLog();
      let receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log }));
      await receiver.ready();
      const deliveries = workload('diskfull', 400);
      const { acknowledged, refused } = await fillUntilFull(receiver, deliveries);
      assert.ok(acknowledged.size > 4 && refused.length > 0, `${acknowledged.size} acknowledged, ${refused.length} refused`);
      assert.ok(log.lines.some((l) => /store_unavailable.*(SQLITE_FULL|SQLITE_IOERR).*; a write below SQLite failed: the disk full/.test(l)), log.lines.join('\n'));
      checkAcknowledged(sqliteRows(db), acknowledged);

      // Space returns: the same receiver goes on, without a restart.
      execFileSync('mount', ['-o', 'remount,size=16m', dir]);
      await redeliver(receiver, refused.splice(0, 4), acknowledged);
      db.close();
      // And a restart is clean.
      db = new Database(file);
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log: false }));
      await receiver.ready();
      await redeliver(receiver, refused, acknowledged);
      checkAcknowledged(sqliteRows(db), acknowledged);
      assert.equal(sqliteRows(db).events.length, acknowledged.size);
      db.close();
    });
});

describe('the example receiver on SQLite, SIGKILLed mid-burst (group commits in flight)', { timeout: 120_000 }, () => {
  test('every acknowledged event is in the file after the restart, none applied twice', async () => {
    const dataDir = tempDir();
    let receiver = await startExample({ env: { DATA_DIR: dataDir } });
    const deliveries = workload('sqlkill', 1500, 40);
    const answers = new Map(deliveries.map((d) => [d.eventId, []]));
    const unacknowledged = [];
    let killed = false;
    try {
      await burst(deliveries.length, (i) => send(receiver.webhookUrl, deliveries[i].body), {
        concurrency: 32,
        onResult: (i, result, done) => {
          if (result.status === 200) answers.get(deliveries[i].eventId).push(result.json.decision);
          else unacknowledged.push(deliveries[i]);
          if (!killed && done >= 600) {
            killed = true;
            receiver.kill();
          }
        },
      });
      await receiver.exited;
      assert.ok(unacknowledged.length > 0, 'the SIGKILL cut deliveries off');
      receiver = await startExample({ env: { DATA_DIR: dataDir } });
      for (const delivery of unacknowledged) {
        const result = await send(receiver.webhookUrl, delivery.body);
        assert.equal(result.status, 200, result.text ?? String(result.error));
        answers.get(delivery.eventId).push(result.json.decision);
      }
    } finally {
      await receiver.stop();
      closeAgents();
    }
    const db = new Database(join(dataDir, 'receiver.sqlite'), { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      const rows = sqliteRows(db);
      assert.equal(rows.events.length, deliveries.length);
      const acknowledged = new Map();
      for (const [eventId, said] of answers) {
        const deciding = said.filter((d) => d !== 'duplicate');
        assert.ok(deciding.length <= 1, `${eventId} answered ${said}`);
        if (said.length) acknowledged.set(eventId, deciding[0] ?? 'duplicate');
      }
      checkAcknowledged(rows, acknowledged);
    } finally {
      db.close();
    }
  });
});

describe('PostgreSQL restarted under a receiver (a clean stop, as for maintenance or a failover)', { timeout: 120_000 }, () => {
  let server;
  before(() => {
    server = startPostgres();
  });
  after(() => server?.destroy());

  test('a pg.Pool recovers at the next delivery; a pg.Client never does, and the log says to pass a Pool', async () => {
    const pool = openPool({ connectionString: server.url, max: 2 });
    const client = new pg.Client({ connectionString: server.url });
    client.on('error', () => {}); // as the store does for a pool: the broken connection is reported at the next query
    await client.connect();
    const logs = { pool: captureLog(), client: captureLog() };
    const receivers = {
      pool: rx.createReceiver(receiverOptions(rx.postgresStore(pool, { prefix: 'viapool_' }), { log: logs.pool })),
      client: rx.createReceiver(receiverOptions(rx.postgresStore(client, { prefix: 'viaclient_' }), { log: logs.client })),
    };
    const deliver = async (receiver, n) => {
      const body = eventBody({ eventId: `evt_rs${n}`, paymentId: 'pay_rs', statusVersion: n });
      return (await receiver.handle({ body, headers: signedHeaders(body) })).status;
    };
    try {
      for (const receiver of Object.values(receivers)) {
        await receiver.ready();
        assert.equal(await deliver(receiver, 1), 200);
      }
      server.stop('fast');
      server.start();
      const statuses = {};
      for (const [name, receiver] of Object.entries(receivers)) {
        statuses[name] = [];
        for (let n = 2; n <= 4; n += 1) statuses[name].push(await deliver(receiver, n));
      }
      // The pool's first query after the restart may meet the connection the stop broke
      // (503); the pool then replaces it.
      assert.equal(statuses.pool.at(-1), 200, `pool: ${statuses.pool}`);
      assert.deepEqual(statuses.client, [503, 503, 503]);
      const stuck = logs.client.lines.filter((l) => l.includes('every retry will fail the same way: a node-postgres Client does not reconnect'));
      assert.ok(stuck.length >= 2, logs.client.lines.join('\n'));
      assert.ok(stuck.every((l) => l.includes('pass a pg.Pool, which replaces broken connections')));
      assert.ok(!logs.pool.lines.some((l) => l.includes('every retry will fail')), logs.pool.lines.join('\n'));
    } finally {
      await client.end().catch(() => {});
      await pool.end();
    }
  });
});

describe('lock timeouts answer 503', () => {
  test('SQLite: another connection holds the write lock past busyTimeoutMs', async () => {
    const file = join(tempDir(), 'locked.sqlite');
    const db = new Database(file);
    const receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db, { busyTimeoutMs: 150 }), { log: false }));
    await receiver.ready();
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const body = eventBody({ eventId: 'evt_lock', paymentId: 'pay_lock', statusVersion: 1 });
    const started = Date.now();
    const blocked = await receiver.handle({ body, headers: signedHeaders(body) });
    assert.deepEqual([blocked.status, blocked.body], [503, '{"error":"store_unavailable"}']);
    assert.ok(Date.now() - started >= 140, 'it waited for the busy timeout first');
    assert.equal(sqliteRows(db).events.length, 0);
    other.exec('COMMIT');
    const ok = await receiver.handle({ body, headers: signedHeaders(body) });
    assert.deepEqual(JSON.parse(ok.body), { received: true, decision: 'apply' });
    other.close();
    db.close();
  });

  test('SQLite: two connections on one file (as two processes would) never apply an event twice', async () => {
    const file = join(tempDir(), 'shared.sqlite');
    const [a, b] = [new Database(file), new Database(file)];
    const receivers = [a, b].map((db) => rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log: false })));
    for (const r of receivers) await r.ready();
    const body = eventBody({ eventId: 'evt_shared', paymentId: 'pay_shared', statusVersion: 2 });
    const answers = await Promise.all([0, 1, 0, 1].map((k) => receivers[k].handle({ body, headers: signedHeaders(body) })));
    assert.deepEqual(answers.map((x) => JSON.parse(x.body).decision).sort(), ['apply', 'duplicate', 'duplicate', 'duplicate']);
    a.close();
    b.close();
  });

  // The driver's flag (better-sqlite3's inTransaction), and a driver that has none (node:sqlite
  // before isTransaction, shown by hiding the flag): SQLite's refusal of the BEGIN tells then.
  const withoutFlag = (db) => new Proxy(db, {
    get: (target, name) => (name === 'inTransaction' ? undefined : typeof target[name] === 'function' ? target[name].bind(target) : target[name]),
  });
  for (const [driver, given] of [['its driver saying so', (db) => db], ['a driver that cannot say', withoutFlag]]) {
  test(`SQLite: a Database object your code holds a transaction open on (${driver}): 503, and your transaction left alone`, async () => {
    const db = new Database(join(tempDir(), 'shared-object.sqlite'));
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(given(db)), { log }));
    await receiver.ready();
    db.exec('CREATE TABLE app_orders (id TEXT)');
    const body = eventBody({ eventId: 'evt_shared_obj', paymentId: 'pay_shared_obj', statusVersion: 1 });
    try {
      db.exec('BEGIN');
      db.prepare("INSERT INTO app_orders VALUES ('o1')").run();
      const meanwhile = await receiver.handle({ body, headers: signedHeaders(body) });
      assert.deepEqual([meanwhile.status, meanwhile.body], [503, '{"error":"store_unavailable"}']);
      assert.ok(log.lines.some((l) => l.includes('inside a transaction the store did not open') && l.includes('a Database object of its own')), log.lines.join('\n'));
      assert.equal(db.inTransaction, true, 'the application\'s transaction is still open');
      db.exec('ROLLBACK');
      assert.equal(db.prepare('SELECT count(*) AS n FROM app_orders').get().n, 0, 'and rolled back as the application asked');
      const after = await receiver.handle({ body, headers: signedHeaders(body) });
      assert.deepEqual(JSON.parse(after.body), { received: true, decision: 'apply' });
    } finally {
      db.close();
    }
  });
  }

  // A ready receiver on `store` whose log is captured, and deliver(eventId, statusVersion): a
  // signed event of `paymentId`, handled.
  async function loggedReceiver(store, paymentId) {
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(store, { log }));
    await receiver.ready();
    const deliver = async (eventId, statusVersion) => {
      const body = eventBody({ eventId, paymentId, statusVersion });
      return receiver.handle({ body, headers: signedHeaders(body) });
    };
    return { log, deliver };
  }

  test('PostgreSQL: a pg.Client your code runs BEGIN on: nothing acknowledged until it commits', async () => {
    const server = startPostgres();
    const client = new pg.Client({ connectionString: server.url });
    const pool = openPool({ connectionString: server.url });
    try {
      await client.connect();
      const { log, deliver } = await loggedReceiver(rx.postgresStore(client), 'pay_tx');
      // Rolled back: the 503 was right, and the service's retry records it.
      await client.query('BEGIN');
      const first = await deliver('evt_tx1', 1);
      assert.deepEqual([first.status, first.body], [503, '{"error":"store_unavailable"}']);
      assert.ok(log.lines.some((l) => l.includes('inside a transaction of your code') && l.includes('Give the store a pg.Pool')), log.lines.join('\n'));
      await client.query('ROLLBACK');
      assert.deepEqual((await postgresRows(pool)).events.map((e) => e.event_id), []);
      assert.deepEqual(JSON.parse((await deliver('evt_tx1', 1)).body), { received: true, decision: 'apply' });
      // Committed: the retry finds it recorded.
      await client.query('BEGIN');
      assert.equal((await deliver('evt_tx2', 2)).status, 503);
      await client.query('COMMIT');
      assert.deepEqual(JSON.parse((await deliver('evt_tx2', 2)).body), { received: true, decision: 'duplicate' });
      assert.deepEqual((await postgresRows(pool)).events.map((e) => e.event_id).sort(), ['evt_tx1', 'evt_tx2']);
    } finally {
      await client.end().catch(() => {});
      await pool.end();
      server.destroy();
    }
  });

  test('PostgreSQL: a pg.Pool connection your code released inside a transaction: not acknowledged, closed', async () => {
    const server = startPostgres();
    // One connection, so that the receiver's statement gets the one left in a transaction.
    const pool = openPool({ connectionString: server.url, max: 1 });
    const reader = openPool({ connectionString: server.url });
    try {
      const { log, deliver } = await loggedReceiver(rx.postgresStore(pool), 'pay_pooltx');
      assert.deepEqual(JSON.parse((await deliver('evt_pooltx1', 1)).body), { received: true, decision: 'apply' });
      // Your code's bug: a BEGIN, then release() with neither COMMIT nor ROLLBACK run.
      const leaked = await pool.connect();
      await leaked.query('BEGIN');
      leaked.release();
      const second = await deliver('evt_pooltx2', 2);
      assert.deepEqual([second.status, second.body], [503, '{"error":"store_unavailable"}']);
      assert.ok(log.lines.some((l) => l.includes('released by your code after a BEGIN')), log.lines.join('\n'));
      // That connection was closed, its transaction rolled back with the statement: nothing
      // recorded; the service's retry records it on a connection of its own.
      assert.deepEqual((await postgresRows(reader)).events.map((e) => e.event_id), ['evt_pooltx1']);
      assert.deepEqual(JSON.parse((await deliver('evt_pooltx2', 2)).body), { received: true, decision: 'apply' });
      assert.deepEqual((await postgresRows(reader)).events.map((e) => e.event_id).sort(), ['evt_pooltx1', 'evt_pooltx2']);
    } finally {
      await pool.end();
      await reader.end();
      server.destroy();
    }
  });

  test('PostgreSQL: a payment row locked by another transaction past lock_timeout', async () => {
    const server = startPostgres();
    const pool = openPool({ connectionString: server.url, options: '-c lock_timeout=200' });
    const holder = new pg.Client({ connectionString: server.url });
    try {
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(pool), { log: false }));
      await receiver.ready();
      const v1 = eventBody({ eventId: 'evt_pl1', paymentId: 'pay_pl', statusVersion: 1 });
      assert.equal((await receiver.handle({ body: v1, headers: signedHeaders(v1) })).status, 200);
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query("SELECT * FROM cryptopay_payments WHERE payment_id = 'pay_pl' FOR UPDATE");
      const v2 = eventBody({ eventId: 'evt_pl2', paymentId: 'pay_pl', statusVersion: 2 });
      const blocked = await receiver.handle({ body: v2, headers: signedHeaders(v2) });
      assert.deepEqual([blocked.status, blocked.body], [503, '{"error":"store_unavailable"}']);
      assert.deepEqual((await postgresRows(pool)).events.map((e) => e.event_id), ['evt_pl1']);
      await holder.query('COMMIT');
      const ok = await receiver.handle({ body: v2, headers: signedHeaders(v2) });
      assert.deepEqual(JSON.parse(ok.body), { received: true, decision: 'apply' });
    } finally {
      await holder.end().catch(() => {});
      await pool.end();
      server.destroy();
    }
  });
});

// A store call that never settles (postgres.js 4 through PgBouncer in transaction mode wedged
// so, with no client-side timeout) held every delivery open, with no line, and the fulfilment
// loop with it. The receiver gives each store call but ready() STORE_CALL_MS (30 s); here the
// same wrapper, from the installed package, with 200 ms.
describe('a store that never answers', () => {
  test('each call but ready() fails past the deadline: the delivery answered 503 and logged, the next one recorded once it answers again', async () => {
    const { deadlined } = await import(pathToFileURL(join(PACKAGE_DIR, 'dist', 'receiver', 'deadline.mjs')).href);
    const inner = rx.memoryStore();
    let hang = true;
    const hanging = new Proxy(inner, {
      get: (target, name) => (name === 'record' && hang ? () => new Promise(() => {}) : Reflect.get(target, name)),
    });
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(deadlined(hanging, 200), { log }));
    await receiver.ready();
    const body = eventBody({ eventId: 'evt_hang', paymentId: 'pay_hang', statusVersion: 1 });
    const started = Date.now();
    // The deadline's timer keeps no process alive (a server does): this test's interval does.
    const alive = setInterval(() => {}, 1000);
    const answer = await receiver.handle({ body, headers: signedHeaders(body) }).finally(() => clearInterval(alive));
    assert.deepEqual([answer.status, answer.body], [503, '{"error":"store_unavailable"}']);
    assert.ok(Date.now() - started < 5000, 'answered at the deadline');
    assert.match(log.lines.join('\n'), /store_unavailable: could not record .*the store's record\(\) did not answer within 0\.2 s: a connection or driver that hangs \(postgres\.js 4 through a pooler in transaction mode/);
    hang = false;
    const again = await receiver.handle({ body, headers: signedHeaders(body) });
    assert.deepEqual([again.status, again.body], [200, '{"received":true,"decision":"apply"}']);
    assert.equal(inner.events.size, 1);
  });
});
