// The stores at their edges, on real engines (a throwaway PostgreSQL, SQLite files, D1 in
// workerd through Miniflare):
//   - what a store cannot hold (an id over 1024 bytes or holding a NUL, on every store, libsql
//     included; a D1 body over
//     1,800,000 bytes, a version or data text over what D1 holds) is quarantined or refused
//     before anything is written: never a 503 the service retries until it gives up;
//   - ready() refuses a PostgreSQL database that is not UTF8, and tables whose column types
//     differ from the schema's (CREATE TABLE IF NOT EXISTS keeps them), naming each column;
//   - a client that answers the record statement in an unexpected shape is a 503, never a
//     guessed 200.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { d1ReceiversForSuite } from './lib/d1.mjs';
import {
  Database, PACKAGE_DIR, PRUNE_POSTGRES, PRUNE_SQLITE, ROOT, captureLog, checkPruned, checkSqliteKeys, createLibsqlClient, eventBody, exportedFile, postgresRows,
  pg, receiverOptions, rx,
  signedHeaders, sqliteFileRows, sqliteRows, tempDir,
} from './lib/helpers.mjs';
import { readStatements } from '../../scripts/build-receiver.mjs';
import { openPool, postgresForSuite } from './lib/postgres.mjs';

// The documented limits (docs/receiver.md).
const MAX_ID_BYTES = 1024;
const D1_MAX_BODY_BYTES = 1_800_000;

const quarantined = (code) => `{"received":true,"quarantined":"${code}"}`;
const decided = (decision) => `{"received":true,"decision":"${decision}"}`;
const handle = async (receiver, body) => {
  const { status, body: text } = await receiver.handle({ body, headers: signedHeaders(body) });
  return [status, text];
};

// Ids at and over the limit in UTF-8 bytes ("é" is 2 bytes: the 1025-byte id has 515
// characters), ids holding a NUL, and a NUL inside data (kept: data is json, not jsonb).
const atLimit = `evt_${'é'.repeat((MAX_ID_BYTES - 4) / 2)}`;
const ID_CASES = [
  ['an event_id of 1024 bytes', { eventId: atLimit, paymentId: 'pay_id1' }, decided('apply')],
  ['a payment_id of 1024 bytes', { eventId: 'evt_id2', paymentId: atLimit }, decided('apply')],
  ['an event_id of 1025 bytes', { eventId: `${atLimit}x`, paymentId: 'pay_id3' }, quarantined('event_malformed')],
  ['a payment_id of 1025 bytes', { eventId: 'evt_id4', paymentId: `${atLimit}x` }, quarantined('event_malformed')],
  ['an event_id of 3000 bytes (over a PostgreSQL btree key)', { eventId: `evt_${'a'.repeat(2996)}`, paymentId: 'pay_id5' }, quarantined('event_malformed')],
  ['an event_id holding a NUL', { eventId: 'evt_\u0000id6', paymentId: 'pay_id6' }, quarantined('event_malformed')],
  ['a payment_id holding a NUL', { eventId: 'evt_id7', paymentId: 'pay_\u0000id7' }, quarantined('event_malformed')],
  ['a NUL inside data', { eventId: 'evt_id8', paymentId: 'pay_id8', note: 'a\u0000b' }, decided('apply')],
];

/** Sends every id case through `deliver(body)` ([status, text]); checks the rows `read()` gives. */
async function checkIds(deliver, read) {
  const bodies = ID_CASES.map(([, ids]) => eventBody({ statusVersion: 1, ...ids }));
  for (const [i, [name, , expected]] of ID_CASES.entries()) {
    assert.deepEqual(await deliver(bodies[i]), [200, expected], name);
    const again = expected === decided('apply') ? decided('duplicate') : expected;
    assert.deepEqual(await deliver(bodies[i]), [200, again], `${name}, delivered again`);
  }
  const rows = await read();
  const recorded = ID_CASES.filter(([, , expected]) => expected === decided('apply')).map(([, ids]) => ids.eventId);
  assert.deepEqual(rows.events.map((e) => e.event_id).sort(), recorded.sort());
  // A quarantined delivery sent again is answered the same and kept once (the stores compare
  // a body with the newest rows before keeping it).
  const kept = ID_CASES.flatMap(([, , expected], i) => (expected === decided('apply') ? [] : [bodies[i]]));
  assert.deepEqual(rows.quarantine.map((q) => q.code), kept.map(() => 'event_malformed'));
  rows.quarantine.forEach((q, i) => assert.ok(Buffer.from(q.body).equals(kept[i]), 'the quarantined body, byte for byte'));
  const nul = rows.payments.find((p) => p.payment_id === 'pay_id8');
  assert.equal(JSON.parse(nul.data).order_ref, 'a\u0000b');
}

describe('ids: at most 1024 UTF-8 bytes and no NUL, on every store (quarantined as event_malformed)', () => {
  test('SQLite file', async () => {
    const db = new Database(join(tempDir(), 'ids.sqlite'));
    const receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log: false }));
    await checkIds((body) => handle(receiver, body), () => sqliteRows(db));
    db.close();
  });

  test('libsqlStore (@libsql/client, a file)', async () => {
    const file = join(tempDir(), 'ids.db');
    const client = createLibsqlClient({ url: pathToFileURL(file).href });
    const receiver = rx.createReceiver(receiverOptions(rx.libsqlStore(client), { log: false }));
    await checkIds((body) => handle(receiver, body), () => sqliteFileRows(file));
    client.close();
  });

  test('memoryStore', async () => {
    const store = rx.memoryStore();
    const receiver = rx.createReceiver(receiverOptions(store, { log: false }));
    await checkIds((body) => handle(receiver, body), () => ({
      events: [...store.events.values()], payments: [...store.payments.values()], quarantine: store.quarantined,
    }));
  });
});

test('the quarantine statements compare a body with the newest QUARANTINE_RECENT rows, as the memory store does', async () => {
  const { QUARANTINE_RECENT } = await import(pathToFileURL(join(PACKAGE_DIR, 'dist', 'receiver', 'limits.mjs')).href);
  for (const dialect of ['postgres', 'sqlite']) {
    const { quarantine } = readStatements(readFileSync(join(ROOT, 'sql', `${dialect}.sql`), 'utf8'));
    assert.match(String(quarantine), new RegExp(`FROM cryptopay_quarantine ORDER BY id DESC LIMIT ${QUARANTINE_RECENT}\\)`), dialect);
  }
});

describe('events pruned (retention): a late retry is stale, never applied twice', () => {
  test('SQLite file', async () => {
    const db = new Database(join(tempDir(), 'pruned.sqlite'));
    const receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log: false }));
    await receiver.ready();
    await checkPruned((body) => handle(receiver, body), () => db.prepare(PRUNE_SQLITE('cryptopay_')).run(), () => sqliteRows(db));
    db.close();
  });
});

describe('PostgreSQL (a throwaway server)', () => {
  const db = postgresForSuite({ max: 4 });

  test('ids over 1024 bytes or holding a NUL are quarantined (never a 503 at every retry); a NUL in data is kept', async () => {
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(db.pool, { prefix: 'ids_' }), { log }));
    await receiver.ready();
    await checkIds((body) => handle(receiver, body), () => postgresRows(db.pool, 'ids_'));
    assert.ok(log.lines.some((l) => l.includes('cannot record as an event: event_malformed')), log.lines.join('\n'));
    assert.ok(!log.lines.some((l) => l.includes('store_unavailable')), log.lines.join('\n'));
  });

  test('a role that may only use the tables (no CREATE): ready() runs no DDL when they stand, and the deliveries are recorded; where they are missing it names the fix', async () => {
    // The tables made once by the owner with the migration file the package ships (its
    // exports name it), then a role with the grants of the receiver guide's SQL block, each as
    // a user copies them (another prefix: cryptopay_ replaced); PostgreSQL 15 grants no CREATE
    // on the public schema to other roles.
    const migration = readFileSync(exportedFile('./schema/postgres-schema.sql'), 'utf8');
    assert.doesNotMatch(migration, /\$\d/, 'no parameter: psql runs it as it is');
    await db.pool.query(migration.replaceAll('cryptopay_', 'granted_'));
    await db.pool.query(migration.replaceAll('cryptopay_', 'granted_')); // run again: nothing to do
    const guide = readFileSync(join(ROOT, 'docs', 'receiver.md'), 'utf8');
    const grants = [...guide.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]).find((block) => block.includes('GRANT SELECT, INSERT, UPDATE ON cryptopay_events'));
    assert.ok(grants, 'docs/receiver.md has the GRANT block');
    await db.pool.query('CREATE ROLE shop_app LOGIN');
    await db.pool.query(grants.replaceAll('cryptopay_', 'granted_'));
    const app = openPool({ ...db.server.connection, user: 'shop_app', max: 2 });
    try {
      const log = captureLog();
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(app, { prefix: 'granted_' }), { log }));
      await receiver.ready(); // createTables left at its default
      const v2 = eventBody({ eventId: 'evt_g2', paymentId: 'pay_g', statusVersion: 2 });
      const v1 = eventBody({ eventId: 'evt_g1', paymentId: 'pay_g', statusVersion: 1 });
      assert.deepEqual(await handle(receiver, v2), [200, decided('apply')]);
      assert.deepEqual(await handle(receiver, v2), [200, decided('duplicate')]);
      assert.deepEqual(await handle(receiver, v1), [200, decided('stale')]);
      assert.deepEqual(await handle(receiver, Buffer.from('not json')), [200, quarantined('event_not_json')]);
      assert.deepEqual(log.lines.filter((l) => l.includes('store_unavailable')), []);
      const rows = await postgresRows(db.pool, 'granted_');
      assert.deepEqual(rows.payments.map((p) => [p.payment_id, p.status_version]), [['pay_g', '2']]);
      assert.equal(rows.quarantine.length, 1);
      // Tables that do not exist yet, which this role may not create: the fix is named.
      const missing = rx.createReceiver(receiverOptions(rx.postgresStore(app, { prefix: 'ungranted_' }), { log: false }));
      await assert.rejects(missing.ready(), /postgresStore: this role may not create the receiver's tables \(42501: permission denied for schema public\): create them once as a role that may .*GRANT SELECT, INSERT, UPDATE/);
      // A role granted nothing yet: the grants named, not the driver's bare refusal.
      await db.pool.query('CREATE ROLE bare_rx LOGIN');
      const bare = openPool({ ...db.server.connection, user: 'bare_rx', max: 1 });
      try {
        await assert.rejects(rx.createReceiver(receiverOptions(rx.postgresStore(bare, { prefix: 'granted_' }), { log: false })).ready(),
          /^Error: postgresStore: this role may not read the receiver's tables \(42501: permission denied for table granted_schema\): this role may not use the receiver's tables: GRANT SELECT, INSERT, UPDATE .*USAGE on the schema that holds them/);
      } finally {
        await bare.end();
      }
      // A grant taken away later: recordCreated names it, where a caller retrying while the
      // error is retryable would fail for as long as it lasts.
      await db.pool.query('REVOKE UPDATE ON granted_fulfilment FROM shop_app');
      await assert.rejects(receiver.recordCreated({ payment_id: 'pay_g_order', order_ref: 'o-g', source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' } }),
        /^Error: recordCreated: the store refused the order \(42501: permission denied for table granted_fulfilment\), and every retry will fail the same way until: this role may not use the receiver's tables: GRANT SELECT, INSERT, UPDATE/);
      await db.pool.query('GRANT UPDATE ON granted_fulfilment TO shop_app');
      // createTables: false before the migration ran: what makes the tables, not what mends columns.
      await assert.rejects(rx.createReceiver(receiverOptions(rx.postgresStore(app, { prefix: 'unmade_', createTables: false }), { log: false })).ready(),
        /no such table: unmade_events; .*\. With createTables: false nothing is created: run dist\/receiver\/schema\/postgres-schema\.sql as the tables' owner first/);
      // Tables of an older version (an upgrade of the package): migrating them takes their owner, not CREATE.
      await db.pool.query("UPDATE granted_schema SET version = version - 1 WHERE name = 'receiver'");
      const older = rx.createReceiver(receiverOptions(rx.postgresStore(app, { prefix: 'granted_' }), { log: false }));
      await assert.rejects(older.ready(), /postgresStore: the tables are at schema version \d+, older than this package's \(\d+\), and this role may not migrate them \(42501: [^)]*\): run dist\/receiver\/schema\/postgres-schema.sql as the tables' owner/);
    } finally {
      await app.end();
    }
  });

  test('a database no delivery could be written to: ready() refuses it, naming the fix (read-only; a role without INSERT/UPDATE)', async () => {
    await rx.createReceiver(receiverOptions(rx.postgresStore(db.pool, { prefix: 'ro_' }), { log: false })).ready();
    // A standby, or default_transaction_read_only = on: every delivery would be 503 for good.
    const readOnly = openPool({ ...db.server.connection, max: 1, options: '-c default_transaction_read_only=on' });
    await db.pool.query('CREATE ROLE reader_rx LOGIN; GRANT SELECT ON ro_events, ro_payments, ro_quarantine, ro_orders, ro_fulfilment, ro_schema TO reader_rx');
    const reader = openPool({ ...db.server.connection, user: 'reader_rx', max: 1 });
    try {
      const log = captureLog();
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(readOnly, { prefix: 'ro_' }), { log }));
      await assert.rejects(receiver.ready(), /postgresStore: no delivery could be recorded \(25006: cannot execute [A-Z]+ in a read-only transaction\): the database is read-only \(a standby, as after a failover, or default_transaction_read_only = on\): connect to the primary/);
      // A delivery all the same: 503, the log naming the same fix.
      const body = eventBody({ eventId: 'evt_ro', paymentId: 'pay_ro', statusVersion: 1 });
      assert.deepEqual(await handle(receiver, body), [503, '{"error":"store_unavailable"}']);
      assert.ok(log.lines.some((l) => l.includes('connect to the primary')), log.lines.join('\n'));
      await assert.rejects(rx.createReceiver(receiverOptions(rx.postgresStore(reader, { prefix: 'ro_' }), { log: false })).ready(),
        /postgresStore: no delivery could be recorded \(42501: permission denied for table ro_events\): this role may not use the receiver's tables: GRANT SELECT, INSERT, UPDATE/);
      assert.deepEqual((await postgresRows(db.pool, 'ro_')).events, []);
    } finally {
      await readOnly.end();
      await reader.end();
    }
  });

  test('events pruned (retention): a late retry is stale, never applied twice', async () => {
    const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(db.pool, { prefix: 'pruned_' }), { log: false }));
    await receiver.ready();
    await checkPruned((body) => handle(receiver, body), () => db.pool.query(PRUNE_POSTGRES('pruned_')), () => postgresRows(db.pool, 'pruned_'));
  });

  test('a database whose encoding is not UTF8: ready() refuses it, naming the fix; a delivery is 503', async () => {
    await db.pool.query("CREATE DATABASE latin ENCODING 'LATIN1' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'");
    const latin = openPool({ ...db.server.connection, database: 'latin', max: 2 });
    try {
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(latin), { log: false }));
      await assert.rejects(receiver.ready(), /server_encoding is LATIN1, not UTF8.*ENCODING 'UTF8'/);
      const euro = eventBody({ eventId: 'evt_latin', paymentId: 'pay_latin', statusVersion: 1, note: '5 €' });
      assert.deepEqual(await handle(receiver, euro), [503, '{"error":"store_unavailable"}']);
      assert.equal((await latin.query('SELECT count(*)::int AS n FROM cryptopay_events')).rows[0].n, 0);
    } finally {
      await latin.end();
    }
  });

  // Tables made beforehand with one column of another type: ready() refuses them whether it
  // creates the tables (CREATE TABLE IF NOT EXISTS keeps them) or only checks them.
  const TABLES = {
    events: { event_id: 'text PRIMARY KEY', payment_id: 'text NOT NULL', status_version: 'numeric NOT NULL', decision: 'text NOT NULL', received_at: 'timestamptz NOT NULL DEFAULT now()', body: 'bytea NOT NULL' },
    payments: { payment_id: 'text PRIMARY KEY', status_version: 'numeric NOT NULL', event_id: 'text NOT NULL', data: 'json NOT NULL', updated_at: 'timestamptz NOT NULL DEFAULT now()' },
    quarantine: { id: 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY', received_at: 'timestamptz NOT NULL DEFAULT now()', code: 'text NOT NULL', body: 'bytea NOT NULL' },
  };
  const WRONG = [
    // [table, column, declared (null: dropped), the message's words]
    ['payments', 'status_version', 'text NOT NULL', 'payments.status_version is text, expected numeric'],
    ['events', 'status_version', 'numeric(20,0) NOT NULL', 'events.status_version is numeric(20,0), expected numeric'],
    ['events', 'event_id', 'varchar(64) PRIMARY KEY', 'events.event_id is character varying(64), expected text'],
    ['payments', 'payment_id', 'bigint PRIMARY KEY', 'payments.payment_id is bigint, expected text'],
    ['events', 'body', 'text NOT NULL', 'events.body is text, expected bytea'],
    ['quarantine', 'body', 'jsonb NOT NULL', 'quarantine.body is jsonb, expected bytea'],
    ['payments', 'data', 'jsonb NOT NULL', 'payments.data is jsonb, expected json'],
    ['events', 'decision', null, 'events.decision is missing'],
    // Read in each session's TimeZone: two instances set differently disagree on every lease.
    ['events', 'received_at', 'timestamp NOT NULL DEFAULT now()', 'events.received_at is timestamp without time zone, expected timestamp with time zone'],
    // Left to the table by the statements: without a default it would hold NULL.
    ['quarantine', 'received_at', 'timestamptz', 'quarantine.received_at has no default'],
    // Named by the ON CONFLICT of the statements: without a key of its own every delivery fails.
    ['events', 'event_id', 'text NOT NULL', 'events.event_id is neither a primary key nor unique on its own'],
  ];
  async function makeTables(prefix, [table, column, declared]) {
    for (const [name, columns] of Object.entries(TABLES)) {
      const defs = Object.entries(columns).flatMap(([c, d]) => {
        if (name !== table || c !== column) return [`${c} ${d}`];
        return declared === null ? [] : [`${c} ${declared}`];
      });
      await db.pool.query(`CREATE TABLE ${prefix}${name} (${defs.join(', ')})`);
    }
  }

  test('tables with another column type: ready() refuses them, naming the table, column, type found and expected', async () => {
    for (const [i, wrong] of WRONG.entries()) {
      const prefix = `wrong${i}_`;
      await makeTables(prefix, wrong);
      for (const createTables of [true, false]) {
        const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(db.pool, { prefix, createTables }), { log: false }));
        await assert.rejects(receiver.ready(), (error) => {
          assert.ok(error.message.startsWith('postgresStore: '), error.message);
          assert.ok(error.message.includes(`${prefix}${wrong[3]}`), `${error.message}\nshould say: ${prefix}${wrong[3]}`);
          return true;
        });
        const body = eventBody({ eventId: `evt_w${i}`, paymentId: `pay_w${i}`, statusVersion: 10 });
        assert.deepEqual(await handle(receiver, body), [503, '{"error":"store_unavailable"}'], 'nothing is recorded in them');
      }
    }
    // The same tables with the right types (the first schema's, version 1): not written while
    // createTables is false (they need the migration), migrated in place when it is true.
    await makeTables('right_', []);
    await assert.rejects(rx.createReceiver(receiverOptions(rx.postgresStore(db.pool, { prefix: 'right_', createTables: false }), { log: false })).ready(),
      /postgresStore: the tables are at schema version 1, older than this package's \(5\), and createTables is false/);
    await rx.createReceiver(receiverOptions(rx.postgresStore(db.pool, { prefix: 'right_' }), { log: false })).ready();
    await rx.createReceiver(receiverOptions(rx.postgresStore(db.pool, { prefix: 'right_', createTables: false }), { log: false })).ready();
  });

  test('a client whose booleans read as PostgreSQL\'s text (\'t\', \'f\'): ready() on an empty database, an order recorded twice, a delivery', async () => {
    // node-postgres with the bool type's parser left raw, as a driver or an adapter that
    // returns text answers them: 'f' is a true string, so each flag must be read as a flag.
    const asText = openPool({
      ...db.server.connection, max: 2,
      types: { getTypeParser: (oid, format) => (oid === pg.types.builtins.BOOL ? (text) => text : pg.types.getTypeParser(oid, format)) },
    });
    try {
      const { rows: [probe] } = await asText.query('SELECT false AS no');
      assert.equal(probe.no, 'f');
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(asText, { prefix: 'textbool_' }), { log: false }));
      await receiver.ready(); // no tables yet: has_schema 'f' is no schema, and they are made
      await rx.createReceiver(receiverOptions(rx.postgresStore(asText, { prefix: 'textbool_' }), { log: false })).ready();
      const amount = (amountRaw) => ({ kind: 'fiat', currency: 'USD', amount_raw: amountRaw });
      await receiver.recordCreated({ payment_id: 'pay_textbool', order_ref: 'order-tb', source_amount: amount('12800') });
      await receiver.recordCreated({ payment_id: 'pay_textbool', order_ref: 'order-tb', source_amount: amount('12800') });
      // Not inserted ('f'): the stored order is compared, and another amount is refused.
      await assert.rejects(
        receiver.recordCreated({ payment_id: 'pay_textbool', order_ref: 'order-tb', source_amount: amount('99900') }),
        /recorded already, with another source_amount/,
      );
      const { rows } = await db.pool.query("SELECT source_amount FROM textbool_orders WHERE payment_id = 'pay_textbool'");
      assert.equal(rows[0].source_amount.amount_raw, '12800');
      const body = eventBody({ eventId: 'evt_textbool', paymentId: 'pay_textbool', statusVersion: 1 });
      assert.deepEqual(await handle(receiver, body), [200, decided('apply')]);
      assert.deepEqual(await handle(receiver, body), [200, decided('duplicate')]);
    } finally {
      await asText.end();
    }
  });

  test('a client that answers timestamptz and bytea as text, its session west of UTC: quarantined() lists each body byte for byte, its time in UTC', async () => {
    // PostgreSQL writes a whole-hour offset as two digits ('-05') and bytea as hex text
    // ('\\x7b…'): read as a time without an offset the row would be five hours off, and a
    // body read as empty would be lost once its row is pruned.
    const raw = new Set([pg.types.builtins.BOOL, pg.types.builtins.TIMESTAMPTZ, pg.types.builtins.BYTEA]);
    const asText = openPool({
      ...db.server.connection, max: 2, options: '-c TimeZone=Etc/GMT+5',
      types: { getTypeParser: (oid, format) => (raw.has(oid) ? (text) => text : pg.types.getTypeParser(oid, format)) },
    });
    try {
      const { rows: [probe] } = await asText.query("SELECT '2026-12-04 12:00:00Z'::timestamptz AS at, '\\x7bff00'::bytea AS body");
      assert.deepEqual([probe.at, probe.body], ['2026-12-04 07:00:00-05', '\\x7bff00']);
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(asText, { prefix: 'texttime_' }), { log: false }));
      const kept = [
        eventBody({ eventId: 'evt_texttime', paymentId: 'pay_texttime', statusVersion: 1, eventType: 'payment.refunded' }),
        Buffer.from([0x7b, 0xff, 0x00]),
      ];
      const before = Date.now();
      for (const body of kept) assert.equal((await handle(receiver, body))[0], 200);
      const listed = await receiver.quarantined();
      assert.deepEqual(listed.map((q) => Buffer.from(q.body)), kept);
      for (const q of listed) {
        assert.match(q.receivedAt, /Z$/);
        assert.ok(Math.abs(Date.parse(q.receivedAt) - before) < 60_000, `${q.receivedAt}, recorded at ${new Date(before).toISOString()}`);
      }
      // A body in a shape no driver gives for bytes (a number, null): an error naming it, never
      // an empty body.
      for (const shape of [4, null, 'text']) {
        const odd = { query: async (text, values) => {
          const result = await asText.query(text, values);
          return /SELECT id, received_at, code, body FROM/.test(text) ? { ...result, rows: result.rows.map((row) => ({ ...row, body: shape })) } : result;
        } };
        const reading = rx.createReceiver(receiverOptions(rx.postgresStore(odd, { prefix: 'texttime_' }), { log: false }));
        await assert.rejects(reading.quarantined(), { code: 'invalid_argument', message: /a stored body read as (number|null|string), not bytes/ });
      }
    } finally {
      await asText.end();
    }
  });

  test('a client that answers the record statement in another shape: 503, never a guessed 200', async () => {
    // A fake client: the real pool for everything but the record statement (7 values).
    const fakeClientAnswering = (shape) => ({
      query: (text, values) => (values?.length === 7 ? Promise.resolve(shape) : db.pool.query(text, values)),
    });
    const body = eventBody({ eventId: 'evt_shape', paymentId: 'pay_shape', statusVersion: 1 });
    for (const shape of [undefined, {}, { rows: null }, { rows: {} }, { rows: [{}] }, { rows: [{ decision: 'applied' }] },
      { rows: [{ decision: 'duplicate' }] }, { rows: [{ decision: 'apply' }, { decision: 'apply' }] }]) {
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(fakeClientAnswering(shape), { prefix: 'shape_' }), { log: false }));
      assert.deepEqual(await handle(receiver, body), [503, '{"error":"store_unavailable"}'], JSON.stringify(shape));
    }
    // The shapes the statement does return: no row (a duplicate), one row with its decision.
    for (const [shape, decision] of [[{ rows: [] }, 'duplicate'], [{ rows: [{ decision: 'stale' }] }, 'stale']]) {
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(fakeClientAnswering(shape), { prefix: 'shape_' }), { log: false }));
      assert.deepEqual(await handle(receiver, body), [200, decided(decision)]);
    }
    const mismatch = { rows: [{ decision: 'integration_mismatch' }] };
    const refused = rx.createReceiver(receiverOptions(rx.postgresStore(fakeClientAnswering(mismatch), { prefix: 'shape_' }), { log: false }));
    assert.deepEqual(await handle(refused, body), [500, '{"error":"integration_mismatch"}']);
  });
});

describe('SQLite file: tables whose ids or versions lack TEXT affinity are refused at ready()', () => {
  test('an INTEGER event_id ("0123" and "123" would be one event) or status_version (past 2^63 an inexact REAL)', async () => {
    for (const [column, table] of [['event_id', 'events'], ['status_version', 'payments']]) {
      const db = new Database(join(tempDir(), 'types.sqlite'));
      const events = `CREATE TABLE cryptopay_events (event_id ${column === 'event_id' ? 'INTEGER' : 'TEXT'} PRIMARY KEY, payment_id TEXT, status_version TEXT, decision TEXT, received_at TEXT DEFAULT CURRENT_TIMESTAMP, body BLOB)`;
      const payments = `CREATE TABLE cryptopay_payments (payment_id TEXT PRIMARY KEY, status_version ${column === 'status_version' ? 'INT' : 'TEXT'}, event_id TEXT, data TEXT, updated_at TEXT DEFAULT CURRENT_TIMESTAMP)`;
      db.exec(`${events}; ${payments}; CREATE TABLE cryptopay_quarantine (id INTEGER PRIMARY KEY, received_at TEXT DEFAULT CURRENT_TIMESTAMP, code TEXT, body BLOB)`);
      for (const createTables of [true, false]) {
        const receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db, { createTables }), { log: false }));
        await assert.rejects(receiver.ready(), new RegExp(`^Error: sqliteStore: cryptopay_${table}\\.${column} is INT(EGER)? \\(INTEGER affinity\\), expected TEXT affinity`));
      }
      db.close();
    }
  });

  test('a column the statements leave to its default, made without one (an ORM\'s nullable column): refused, naming it', async () => {
    const sql = readStatements(readFileSync(join(ROOT, 'sql', 'sqlite.sql'), 'utf8'));
    const made = sql.schema.replace(/seen_at +TEXT +NOT NULL DEFAULT \(strftime\('%Y-%m-%dT%H:%M:%fZ', 'now'\)\)/, 'seen_at TEXT');
    assert.notEqual(made, sql.schema, 'the schema declares seen_at with a default');
    const db = new Database(join(tempDir(), 'defaults.sqlite'));
    db.exec(made);
    for (const createTables of [true, false]) {
      const receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db, { createTables }), { log: false }));
      await assert.rejects(receiver.ready(), /^Error: sqliteStore: cryptopay_fulfilment\.seen_at has no default \(the receiver's statements leave it to the table's/);
    }
    db.close();
  });
});

describe('SQLite, libsql and D1: a key column made without its key', () => {
  test('SQLite file: ready() refuses a key column that is no primary key or unique on its own, naming it', async () => {
    const db = new Database(join(tempDir(), 'keys.sqlite'));
    await checkSqliteKeys((statements) => db.exec(statements.join(';\n')),
      (prefix) => rx.createReceiver(receiverOptions(rx.sqliteStore(db, { prefix }), { log: false })), 'sqliteStore');
    db.close();
  });
});

describe('D1 (a Worker on D1, in workerd through Miniflare)', () => {
  const d1 = d1ReceiversForSuite('stores-d1');

  const post = async (prefix, body) => {
    const response = await d1.worker.dispatch(`http://worker.test/webhook?prefix=${prefix}`, { method: 'POST', body, headers: signedHeaders(body) });
    return [response.status, await response.text()];
  };
  const select = async (sql) => (await d1.worker.db.prepare(sql).all()).results;
  const rows = async (prefix) => ({
    events: await select(`SELECT * FROM ${prefix}events`),
    payments: await select(`SELECT * FROM ${prefix}payments`),
    quarantine: await select(`SELECT * FROM ${prefix}quarantine ORDER BY id`),
  });

  test('ids over 1024 bytes or holding a NUL are quarantined, as on every store', async () => {
    await checkIds((body) => post('ids_', body), () => rows('ids_'));
  });

  test('events pruned (retention): a late retry is stale, never applied twice', async () => {
    await post('pruned_', eventBody({ eventId: 'evt_setup', paymentId: 'pay_setup', statusVersion: 1 })); // the tables
    await d1.worker.db.prepare('DELETE FROM pruned_payments').run();
    await d1.worker.db.prepare('DELETE FROM pruned_events').run();
    await checkPruned((body) => post('pruned_', body), () => d1.worker.db.prepare(PRUNE_SQLITE('pruned_')).run(), () => rows('pruned_'));
  });

  // The largest row: both ids at 1024 bytes, a version of 131072 digits, the body padded.
  const fullBody = (size, tag) => {
    const ids = { eventId: `evt_${tag}_`.padEnd(MAX_ID_BYTES, 'e'), paymentId: `pay_${tag}_`.padEnd(MAX_ID_BYTES, 'p') };
    const bare = eventBody({ ...ids, statusVersion: `1${'0'.repeat(131071)}`, note: '' });
    return eventBody({ ...ids, statusVersion: `1${'0'.repeat(131071)}`, note: 'x'.repeat(size - bare.length) });
  };

  test('a body of 1,800,000 bytes (the largest row) is recorded; one byte more is 413, before anything is written', async () => {
    const limit = fullBody(D1_MAX_BODY_BYTES, 'lim');
    assert.equal(limit.length, D1_MAX_BODY_BYTES);
    assert.deepEqual(await post('big_', limit), [200, decided('apply')]);
    const over = fullBody(D1_MAX_BODY_BYTES + 1, 'over');
    assert.equal(over.length, D1_MAX_BODY_BYTES + 1);
    assert.deepEqual(await post('big_', over), [413, '{"error":"body_too_large"}']);
    // Between D1's 2,000,000-byte row and the package's 4 MiB default: 413 too, not a 503 forever.
    assert.deepEqual(await post('big_', fullBody(3_000_000, 'huge')), [413, '{"error":"body_too_large"}']);
    const stored = await rows('big_');
    assert.deepEqual(stored.events.map((e) => Buffer.from(e.body).equals(limit)), [true]);
    assert.equal(stored.quarantine.length, 0);
  });

  test('a version over 131072 digits is quarantined; data is stored as its exact text, never longer than the body', async () => {
    const long = eventBody({ eventId: 'evt_digits', paymentId: 'pay_digits', statusVersion: `1${'0'.repeat(131072)}` });
    assert.deepEqual(await post('edge_', long), [200, quarantined('status_version_invalid')]);
    // 1e20 is exact in a double: re-serialized, its 4 bytes would become 21 and outgrow D1's row.
    // The data text is the body's own, so a body D1 records has data D1 records.
    const numbers = Array(300_000).fill('1e20').join(',');
    const dataText = `{"payment_id":"pay_wide","status_version":1,"n":[${numbers}]}`;
    const wide = Buffer.from(`{"schema_version":"1","event_id":"evt_wide","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":${dataText}}`);
    assert.ok(wide.length < D1_MAX_BODY_BYTES);
    assert.deepEqual(await post('edge_', wide), [200, decided('apply')]);
    const stored = await rows('edge_');
    assert.deepEqual(stored.quarantine.map((q) => q.code), ['status_version_invalid']);
    assert.deepEqual(stored.events.map((e) => e.event_id), ['evt_wide']);
    assert.equal(stored.payments[0].data, dataText);
  });

  test('ready() on tables that stand reads them, four statements and no write; with an index dropped it runs the schema, which makes it again', async () => {
    // The binding as the store sees it, each statement it runs noted (each of a batch too).
    const seen = [];
    const statement = (real, sql) => ({
      real,
      sql,
      bind: (...values) => statement(real.bind(...values), sql),
      all: () => { seen.push(sql); return real.all(); },
      first: () => { seen.push(sql); return real.first(); },
      run: () => { seen.push(sql); return real.run(); },
    });
    const counted = {
      prepare: (sql) => statement(d1.worker.db.prepare(sql), sql),
      batch: (list) => { seen.push(...list.map((s) => s.sql)); return d1.worker.db.batch(list.map((s) => s.real)); },
    };
    const ready = () => rx.createReceiver(receiverOptions(rx.d1Store(counted, { prefix: 'rd_' }), { log: false })).ready();
    await ready(); // a new database: the tables made
    assert.ok(seen.some((sql) => /^CREATE TABLE IF NOT EXISTS rd_events/.test(sql)));
    seen.length = 0;
    await ready(); // a new isolate
    assert.equal(seen.length, 4, seen.join('\n'));
    assert.ok(seen.every((sql) => /^\s*SELECT/.test(sql)), seen.join('\n'));
    await d1.worker.db.prepare('DROP INDEX rd_fulfilment_recheck').run();
    seen.length = 0;
    await ready();
    assert.ok(seen.some((sql) => /^CREATE INDEX IF NOT EXISTS rd_fulfilment_recheck/.test(sql)), seen.join('\n'));
    assert.deepEqual(await select("SELECT name FROM sqlite_master WHERE name = 'rd_fulfilment_recheck'"), [{ name: 'rd_fulfilment_recheck' }]);
    // An index the schema drops, made again (an isolate of the previous release running its
    // schema after this one's migration): dropped again.
    await d1.worker.db.prepare('CREATE INDEX rd_fulfilment_closed ON rd_fulfilment (seen_at)').run();
    seen.length = 0;
    await ready();
    assert.ok(seen.some((sql) => /^DROP INDEX IF EXISTS rd_fulfilment_closed/.test(sql)), seen.join('\n'));
    assert.deepEqual(await select("SELECT name FROM sqlite_master WHERE name = 'rd_fulfilment_closed'"), []);
  });

  test('createReceiver refuses a maxBodyBytes over what d1Store records, naming the limit', () => {
    const store = rx.d1Store(d1.worker.db);
    assert.throws(() => rx.createReceiver(receiverOptions(store, { maxBodyBytes: 4 * 1024 * 1024 })), (error) => {
      assert.equal(error.code, 'invalid_argument');
      assert.match(error.message, /maxBodyBytes is 4194304, over the largest body d1Store records \(1800000 bytes\)/);
      return true;
    });
    rx.createReceiver(receiverOptions(store, { maxBodyBytes: D1_MAX_BODY_BYTES }));
  });

  test('tables whose ids or versions lack TEXT affinity are refused at ready()', async () => {
    await d1.worker.db.batch([
      'CREATE TABLE int_events (event_id TEXT PRIMARY KEY, payment_id TEXT, status_version INTEGER, decision TEXT, received_at TEXT DEFAULT CURRENT_TIMESTAMP, body BLOB)',
      'CREATE TABLE int_payments (payment_id TEXT PRIMARY KEY, status_version INTEGER, event_id TEXT, data TEXT, updated_at TEXT DEFAULT CURRENT_TIMESTAMP)',
      'CREATE TABLE int_quarantine (id INTEGER PRIMARY KEY, received_at TEXT DEFAULT CURRENT_TIMESTAMP, code TEXT, body BLOB)',
    ].map((s) => d1.worker.db.prepare(s)));
    const receiver = rx.createReceiver(receiverOptions(rx.d1Store(d1.worker.db, { prefix: 'int_' }), { log: false }));
    await assert.rejects(receiver.ready(), /d1Store: int_events\.status_version is INTEGER \(INTEGER affinity\), expected TEXT affinity; int_payments\.status_version is INTEGER/);
  });

  test('ready() refuses a key column that is no primary key or unique on its own, naming it (D1 would fail each delivery)', async () => {
    await checkSqliteKeys((statements) => d1.worker.db.batch(statements.map((s) => d1.worker.db.prepare(s))),
      (prefix) => rx.createReceiver(receiverOptions(rx.d1Store(d1.worker.db, { prefix }), { log: false })), 'd1Store');
  });

  test('a binding that answers the record batch in another shape: 503, never a guessed 200', async () => {
    // A Uint8Array, not a Buffer: Miniflare's binding, used from Node, takes no Buffer.
    const body = new Uint8Array(eventBody({ eventId: 'evt_shape', paymentId: 'pay_shape', statusVersion: 1 }));
    // A fake binding: the real one for everything but the record batch (three statements:
    // foreign, apply, record; `none` is foreign's answer when the payment is no other
    // integration's).
    const fakeBindingAnswering = (shape) => ({
      prepare: (text) => d1.worker.db.prepare(text),
      batch: (statements) => (statements.length === 3 ? Promise.resolve(shape) : d1.worker.db.batch(statements)),
    });
    const none = { results: [] };
    for (const shape of [[], [none, {}, {}], [none, {}, null], [none, {}, { results: null }], [none, {}, { results: [{}] }],
      [none, {}, { results: [{ decision: 'applied' }] }], [none, {}, { results: [{ decision: 'integration_mismatch' }] }],
      [{}, {}, { results: [] }], [{ results: [{ decision: 'stale' }] }, {}, { results: [] }]]) {
      const receiver = rx.createReceiver(receiverOptions(rx.d1Store(fakeBindingAnswering(shape), { prefix: 'shape_' }), { log: false }));
      assert.deepEqual(await handle(receiver, body), [503, '{"error":"store_unavailable"}'], JSON.stringify(shape));
    }
    const receiver = rx.createReceiver(receiverOptions(rx.d1Store(fakeBindingAnswering([none, {}, { results: [] }]), { prefix: 'shape_' }), { log: false }));
    assert.deepEqual(await handle(receiver, body), [200, decided('duplicate')]);
    const mismatch = { results: [{ decision: 'integration_mismatch' }] };
    const refused = rx.createReceiver(receiverOptions(rx.d1Store(fakeBindingAnswering([mismatch, {}, { results: [] }]), { prefix: 'shape_' }), { log: false }));
    assert.deepEqual(await handle(refused, body), [500, '{"error":"integration_mismatch"}']);
  });
});

// A failed attempt's retry and the delivery of newer facts committed in one millisecond (on
// sqliteStore, one commit group: both in one transaction, the same 'now'): the retry set the
// full backoff (it ran before the facts were applied), and the next claim takes the payment
// up all the same. Before, it waited out the backoff (up to an hour).
async function checkRetryTie(store) {
  await store.ready();
  const recordVersion = (version) => store.record({ eventId: `evt_tie_${version}`, paymentId: 'pay_tie', statusVersion: String(version), data: '{"status":"paid"}', body: Buffer.from('{}') });
  const claim = (owner) => store.claim({ owner, leaseSecs: 300, batch: 10, recoverAfterSecs: 900 });
  for (let version = 1; version <= 20; version += 2) {
    assert.equal(await recordVersion(version), 'apply');
    assert.deepEqual(await claim(`A${version}`), ['pay_tie']);
    const [attempts, decision] = await Promise.all([
      store.retry({ paymentId: 'pay_tie', owner: `A${version}`, delaySecs: 3600, code: 'handle_failed', loadedVersion: String(version) }),
      recordVersion(version + 1),
    ]);
    assert.deepEqual([attempts > 0, decision], [true, 'apply']);
    assert.deepEqual(await claim(`B${version}`), ['pay_tie'], `version ${version + 1}: due at once, not after the backoff`);
    await store.release({ owner: `B${version}` });
  }
}

describe('newer facts committed in the millisecond of a failed attempt\'s retry are taken up at the next claim', () => {
  test('SQLite file', async () => {
    const db = new Database(join(tempDir(), 'tie.sqlite'));
    await checkRetryTie(rx.sqliteStore(db));
    db.close();
  });

  test('libsqlStore (@libsql/client, a file)', async () => {
    const client = createLibsqlClient({ url: pathToFileURL(join(tempDir(), 'tie.db')).href });
    await checkRetryTie(rx.libsqlStore(client));
    client.close();
  });

  test('memoryStore', async () => {
    await checkRetryTie(rx.memoryStore());
  });
});
