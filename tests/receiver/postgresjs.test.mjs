// postgresStore on postgres.js (npm `postgres`, porsager), the client many Node apps (Drizzle
// among them) use instead of node-postgres, through the adapter docs/receiver.md gives:
//   postgresStore({ query: async (text, values) => ({ rows: await sql.unsafe(text, values) }) })
// and the same with { prepare: true } (postgres.js's own named statements, per connection).
// A real throwaway PostgreSQL; postgres.js connects over its unix socket (host: the folder).
// The rows are read back through node-postgres, independently of the client under test.
// Also: both adapters through PgBouncer in transaction mode, and a server restart (503, then
// 200 on the same postgres.js instance).
//
// Found here: postgres.js sends a parameter the server describes as json through its own json
// serializer (JSON.stringify), so the data text was stored as a JSON string, not the object
// (answered 200 apply all the same); and its errors name the constraint `constraint_name`, not
// `constraint`, so the unique-violation race of the record statement was answered 503.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import postgres from 'postgres';
import { checkOneByOne, eventBody, oneByOne, poolerBurst, postgresRows, random, receiverOptions, rx, signedHeaders } from './lib/helpers.mjs';
import { openPool, pgBouncerForSuite, startPostgres } from './lib/postgres.mjs';

const SEED = Number(process.env.RECEIVER_SEED ?? 20261127);

const ADAPTERS = {
  'sql.unsafe (unnamed statements)': (sql) => ({ query: async (text, values) => ({ rows: await sql.unsafe(text, values) }) }),
  'sql.unsafe with prepare: true (named per connection)': (sql) => ({
    query: async (text, values) => ({ rows: await sql.unsafe(text, values, { prepare: true }) }),
  }),
};

const decisionOf = (answer) => JSON.parse(answer.body).decision ?? JSON.parse(answer.body).quarantined;

describe('postgresStore on postgres.js', { timeout: 180_000 }, () => {
  let server;
  let direct; // node-postgres, to read what was stored and to hold locks
  const clients = [];
  // A postgres.js instance on the test server's socket, ended (awaited) before the server stops.
  const connect = (options = {}) => {
    const sql = postgres({ host: server.socketDir, user: 'postgres', database: 'postgres', ssl: false, onnotice: () => {}, ...options });
    clients.push(sql);
    return sql;
  };
  before(() => {
    server = startPostgres();
    direct = openPool({ connectionString: server.url, max: 2 });
  });
  after(async () => {
    // sql.end() resolves once each connection's socket has closed (an idle one) or it has
    // been told to end: nothing is still talking to the server when it is stopped.
    await Promise.all(clients.map((sql) => sql.end()));
    await direct?.end();
    server?.destroy();
  });

  test('the unix socket: host is the socket folder (a URL\'s ?host= is not read by postgres.js)', async () => {
    const sql = connect({ max: 1 });
    const [row] = await sql`SELECT current_setting('unix_socket_directories') AS dir, inet_server_addr() AS addr`;
    assert.deepEqual([row.dir, row.addr], [server.socketDir, null]);
    // libpq's ?host=<folder> (node-postgres reads it) is not read by postgres.js: it goes to
    // localhost:5432 over TCP instead (where nothing listens here; on a machine where a
    // server does, that one answers or refuses), never to this server's socket.
    const url = postgres(server.url, { max: 1, connect_timeout: 5, onnotice: () => {} });
    const reached = await url`SELECT current_setting('unix_socket_directories') AS dir`.then((rows) => rows[0].dir, (error) => error);
    if (reached instanceof Error) assert.ok(/5432|ECONNREFUSED|password|authentication/.test(`${reached.code} ${reached.message}`), reached.message);
    else assert.notEqual(reached, server.socketDir);
    await url.end();
  });

  test('ready(): the schema as one simple query, then the encoding and columns; again, no DDL; createTables: false only checks', async () => {
    const notices = [];
    const sql = connect({ max: 2, onnotice: (notice) => notices.push(notice.message) });
    const store = (options) => rx.postgresStore(ADAPTERS['sql.unsafe (unnamed statements)'](sql), options);
    const ready = (options) => rx.createReceiver(receiverOptions(store(options), { log: false })).ready();
    await assert.rejects(ready({ prefix: 'later_', createTables: false }), /no such table: later_events/);
    await ready({ prefix: 'later_' });
    await ready({ prefix: 'later_' }); // the tables stand: no DDL runs (CREATE ... IF NOT EXISTS would say "already exists, skipping")
    assert.deepEqual(notices, []);
    const { rows: made } = await direct.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'later\\_%'");
    assert.equal(made[0].n, 6); // events, payments, quarantine, orders, fulfilment, schema
    await ready({ prefix: 'later_', createTables: false });
    await direct.query('ALTER TABLE later_payments ALTER COLUMN data TYPE jsonb');
    await assert.rejects(ready({ prefix: 'later_', createTables: false }), /later_payments.data.*jsonb/);
  });

  for (const [name, adapter] of Object.entries(ADAPTERS)) {
    describe(name, () => {
      const prefix = name.startsWith('sql.unsafe with') ? 'named_' : 'unnamed_';

      test('one delivery at a time: apply, duplicate, stale, apply, quarantine; the rows exact, bodies byte for byte, data the event\'s object', async () => {
        const sql = connect({ max: 2 });
        const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(adapter(sql), { prefix: `one_${prefix}` }), { log: false }));
        await receiver.ready();
        for (const [body, bytes, expected] of oneByOne().deliveries) {
          const answer = await receiver.handle({ body, headers: signedHeaders(bytes) });
          assert.equal(answer.status, 200, answer.body);
          assert.equal(decisionOf(answer), expected);
        }
        await checkOneByOne(direct, `one_${prefix}`);
      });

      test('24 concurrent deliveries of one payment (8 events, 3 copies each), 20 times: all 200, one record per event, the highest version', async () => {
        const sql = connect({ max: 8 });
        const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(adapter(sql), { prefix: `conc_${prefix}` }), { log: false }));
        await receiver.ready();
        const rng = random(SEED);
        for (let round = 0; round < 20; round += 1) {
          const paymentId = `pay_c${round}`;
          const deliveries = [];
          for (let v = 1; v <= 8; v += 1) {
            const body = eventBody({ eventId: `evt_c${round}_${v}`, paymentId, statusVersion: v, status: `v${v}` });
            for (let copy = 0; copy < 3; copy += 1) deliveries.push({ eventId: `evt_c${round}_${v}`, body });
          }
          rng.shuffle(deliveries);
          const answers = await Promise.all(deliveries.map(({ body }) => receiver.handle({ body, headers: signedHeaders(body) })));
          assert.deepEqual(answers.filter((a) => a.status !== 200).map((a) => a.body), [], `round ${round}`);
          const rows = await postgresRows(direct, `conc_${prefix}`);
          const mine = rows.events.filter((e) => e.payment_id === paymentId);
          assert.equal(mine.length, 8);
          for (let v = 1; v <= 8; v += 1) {
            const eventId = `evt_c${round}_${v}`;
            const deciding = answers.filter((_, i) => deliveries[i].eventId === eventId).map(decisionOf).filter((d) => d !== 'duplicate');
            assert.equal(deciding.length, 1, `${eventId} answered ${deciding}`);
            assert.equal(mine.find((e) => e.event_id === eventId).decision, deciding[0], eventId);
          }
          const payment = rows.payments.find((p) => p.payment_id === paymentId);
          assert.deepEqual([payment.status_version, payment.event_id, JSON.parse(payment.data).status], ['8', `evt_c${round}_8`, 'v8']);
        }
      });

      test('a duplicate that loses the race to the events row (unique violation 23505) is answered duplicate, not 503', async () => {
        // The same event_id in two deliveries for two payments (so neither waits for the other
        // on a payment row): B takes its snapshot, then waits on pay_b, locked by another
        // transaction; A records the event and commits; B, released, applies pay_b and meets
        // A's events row: 23505 on <prefix>events_pkey, the whole statement rolled back.
        const sql = connect({ max: 4 });
        const raced = `race_${prefix}`;
        let violations = 0;
        const client = adapter(sql);
        const counting = {
          query: (text, values) => client.query(text, values).catch((error) => {
            if (error.code === '23505') violations += 1;
            throw error;
          }),
        };
        const logged = [];
        const log = { warn: (line) => logged.push(line), error: (line) => logged.push(line) };
        const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(counting, { prefix: raced }), { log }));
        await receiver.ready();
        const send = (body) => receiver.handle({ body, headers: signedHeaders(body) });
        const seed = eventBody({ eventId: 'evt_seed', paymentId: 'pay_b', statusVersion: 1 });
        assert.equal(decisionOf(await send(seed)), 'apply');
        const holder = await direct.connect();
        try {
          await holder.query('BEGIN');
          await holder.query(`SELECT 1 FROM ${raced}payments WHERE payment_id = 'pay_b' FOR UPDATE`);
          const bodyB = eventBody({ eventId: 'evt_race', paymentId: 'pay_b', statusVersion: 2 });
          const answerB = send(bodyB);
          // Until B waits for the lock (its statement's snapshot taken, the event not seen).
          // (pg_stat_activity keeps a query's first 1024 bytes: matched by the record statement's
          // events table, near its start.)
          for (let waited = 0; ; waited += 1) {
            const { rows } = await direct.query(`SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query LIKE '%FROM ${raced}events AS seen%'`);
            if (rows[0].n === 1) break;
            assert.ok(waited < 500, 'B never waited for the lock');
            await new Promise((resolve) => { setTimeout(resolve, 10); });
          }
          const bodyA = eventBody({ eventId: 'evt_race', paymentId: 'pay_a', statusVersion: 2 });
          const answerA = await send(bodyA);
          assert.deepEqual([answerA.status, decisionOf(answerA)], [200, 'apply']);
          await holder.query('COMMIT');
          const answer = await answerB;
          assert.deepEqual([answer.status, answer.body], [200, '{"received":true,"decision":"duplicate"}'], logged.join('\n'));
        } finally {
          holder.release();
        }
        assert.equal(violations, 1, 'the record statement met the unique violation');
        assert.deepEqual(logged, []);
        const rows = await postgresRows(direct, raced);
        // Nothing of B's statement stayed: pay_b still at evt_seed, evt_race A's (pay_a).
        assert.deepEqual(rows.events.map((e) => [e.event_id, e.payment_id, e.decision]), [['evt_race', 'pay_a', 'apply'], ['evt_seed', 'pay_b', 'apply']]);
        assert.deepEqual(rows.payments.map((p) => [p.payment_id, p.status_version, p.event_id]), [['pay_a', '2', 'evt_race'], ['pay_b', '1', 'evt_seed']]);
      });

      test('default_transaction_isolation serializable: serialization failures (40001) retried by the store, all 200', async () => {
        const sql = connect({ max: 8, connection: { default_transaction_isolation: 'serializable' } });
        const [{ isolation }] = await sql`SELECT current_setting('default_transaction_isolation') AS isolation`;
        assert.equal(isolation, 'serializable');
        let failures = 0;
        const client = adapter(sql);
        const counting = {
          query: (text, values) => client.query(text, values).catch((error) => {
            if (error.code === '40001' || error.code === '40P01') failures += 1;
            throw error;
          }),
        };
        const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(counting, { prefix: `iso_${prefix}` }), { log: false }));
        await receiver.ready();
        const rng = random(SEED + 1);
        for (let round = 0; round < 10; round += 1) {
          const deliveries = [];
          for (let v = 1; v <= 8; v += 1) {
            const body = eventBody({ eventId: `evt_i${round}_${v}`, paymentId: `pay_i${round}`, statusVersion: v });
            for (let copy = 0; copy < 3; copy += 1) deliveries.push(body);
          }
          rng.shuffle(deliveries);
          const answers = await Promise.all(deliveries.map((body) => receiver.handle({ body, headers: signedHeaders(body) })));
          assert.deepEqual(answers.filter((a) => a.status !== 200).map((a) => a.body), [], `round ${round}`);
          assert.equal(answers.map(decisionOf).filter((d) => d !== 'duplicate').length, 8);
        }
        const rows = await postgresRows(direct, `iso_${prefix}`);
        assert.equal(rows.events.length, 80);
        assert.deepEqual(rows.payments.map((p) => p.status_version), Array(10).fill('8'));
        assert.ok(failures > 0, 'the deliveries met serialization failures (and the store retried them)');
      });
    });
  }
});

// Debian's PgBouncer 1.18 in transaction mode does not keep statement names (see
// pooler.test.mjs). sql.unsafe's unnamed statements pass through as they are; with
// { prepare: true } postgres.js names each statement per connection, the pooler loses the names
// (26000 in the server's log), and postgres.js prepares the statement again and retries it
// itself, before it ran: answered 200 all the same.
describe('postgres.js through PgBouncer in transaction mode (statement names not kept)', { timeout: 120_000 }, () => {
  const pgb = pgBouncerForSuite({ poolSize: 4 });

  for (const [name, adapter] of Object.entries(ADAPTERS)) {
    const named = name.startsWith('sql.unsafe with');
    test(`${name}: 240 deliveries, 8 at a time, 8 connections on 4 server connections: all 200, the outcome exact`, async () => {
      const sql = postgres({ host: new URL(pgb.bouncer.url).searchParams.get('host'), port: Number(new URL(pgb.bouncer.url).port), user: 'postgres', database: 'postgres', ssl: false, max: 8, onnotice: () => {} });
      const logged = [];
      const log = { warn: (line) => logged.push(line), error: (line) => logged.push(line) };
      const prefix = named ? 'pgb_named_' : 'pgb_unnamed_';
      const lostBefore = pgb.lostNames();
      try {
        const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(adapter(sql), { prefix }), { log }));
        await receiver.ready();
        await poolerBurst(receiver, { seed: SEED + 2, logged, read: () => postgresRows(pgb.direct, prefix) });
        const lost = pgb.lostNames() - lostBefore;
        if (named) assert.ok(lost >= 1, 'no statement lost its name through the pooler: this run proves nothing of the retry');
        else assert.equal(lost, 0);
      } finally {
        await sql.end();
      }
    });
  }
});

describe('postgres.js and a PostgreSQL restart', { timeout: 120_000 }, () => {
  let server;
  before(() => {
    server = startPostgres();
  });
  after(() => server?.destroy());

  test('503 while the server is down, then 200 on the same postgres.js instance once it is back; nothing lost', async () => {
    const sql = postgres({ host: server.socketDir, user: 'postgres', database: 'postgres', ssl: false, max: 4, connect_timeout: 5, onnotice: () => {} });
    const direct = openPool({ connectionString: server.url, max: 1 });
    const logged = [];
    const log = { warn: (line) => logged.push(line), error: (line) => logged.push(line) };
    try {
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(ADAPTERS['sql.unsafe (unnamed statements)'](sql)), { log }));
      await receiver.ready();
      const send = (body) => receiver.handle({ body, headers: signedHeaders(body) });
      const first = eventBody({ eventId: 'evt_r1', paymentId: 'pay_r', statusVersion: 1 });
      assert.equal(decisionOf(await send(first)), 'apply');
      await direct.end();
      await server.stopAsync('fast');
      const second = eventBody({ eventId: 'evt_r2', paymentId: 'pay_r', statusVersion: 2 });
      const down = await send(second);
      assert.deepEqual([down.status, down.body], [503, '{"error":"store_unavailable"}']);
      assert.equal(logged.length, 1);
      assert.match(logged[0], /store_unavailable/);
      await server.startAsync();
      assert.equal(decisionOf(await send(second)), 'apply');
      assert.equal(decisionOf(await send(second)), 'duplicate');
      const again = openPool({ connectionString: server.url, max: 1 });
      try {
        const rows = await postgresRows(again);
        assert.deepEqual(rows.events.map((e) => [e.event_id, e.decision]), [['evt_r1', 'apply'], ['evt_r2', 'apply']]);
        assert.deepEqual(rows.payments.map((p) => [p.status_version, p.event_id]), [['2', 'evt_r2']]);
      } finally {
        await again.end();
      }
    } finally {
      await sql.end();
    }
  });
});
