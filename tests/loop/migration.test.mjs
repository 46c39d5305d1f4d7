// The migrations to this package's schema, from the first one (version 1: the statements of
// sql/*.sql before the merchant loop, kept in fixtures/schema-v1/), from version 2 (before
// fulfil_version, fixtures/schema-v2/), from version 3 (before the index of closed
// payments, fixtures/schema-v3/) and from version 4 (before recheck_at, fixtures/schema-v4/),
// in place, on PostgreSQL, a
// SQLite file, a libsql file and D1: tables made and written by the first schema's own
// statements; then ready() migrates them in one transaction with every row kept, the payments
// recorded before taken as handled (no pass claims them), deliveries and the loop go on; ready()
// again changes nothing; two receivers migrating at once agree; tables of a newer version, or of
// an older one with createTables: false, are refused.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { readStatements } from '../../scripts/build-receiver.mjs';
import { Database, ROOT, createLibsqlClient, eventBody, receiverOptions, rx, signedHeaders, sqliteRows, tempDir } from '../receiver/lib/helpers.mjs';
import { openPool } from '../receiver/lib/postgres.mjs';
import { d1Engine, postgresEngine } from './lib/engines.mjs';
import { drain, recorder } from './lib/suite.mjs';
import { scriptedWorld } from './lib/world.mjs';

// This package's schema version (sql/*.sql).
const SCHEMA = 5;
const fixture = (dialect) => readStatements(readFileSync(join(ROOT, 'tests', 'receiver', 'fixtures', 'schema-v1', `${dialect}.sql`), 'utf8'));
const prefixed = (text, prefix) => text.replace(/\bcryptopay_/g, prefix);
const split = (text) => text.split(/;\n/).map((s) => s.replace(/;$/, '').trim()).filter(Boolean);
const body = (eventId, paymentId, statusVersion, status) => eventBody({ eventId, paymentId, statusVersion, status });

// What the first schema's receiver recorded: two payments, one stale event, a quarantined body.
const WRITES = [
  ['evt_m1', 'pay_m1', '1', 'open'],
  ['evt_m2', 'pay_m1', '2', 'paid'],
  ['evt_m0', 'pay_m1', '1', 'open'], // stale: version 1 after 2
  ['evt_m3', 'pay_m2', '18446744073709551617', 'expired'],
];

/**
 * The migration, on one engine. `engine`: { firstSchema() (makes the tables and writes WRITES
 * with the first schema's statements), receiver(options) (a receiver of this package on them),
 * rows() (events, payments, quarantine; versions as text), version(), setVersion(n), exec(sql)
 * (a statement written with the prefix cryptopay_) }.
 */
async function checkMigration(engine) {
  await engine.firstSchema();
  const before = await engine.rows();
  assert.equal(before.events.length, 4);
  // createTables: false: not migrated, refused naming the fix.
  await assert.rejects(engine.receiver({ createTables: false }).ready(), new RegExp(`schema version 1, older than this package's \\(${SCHEMA}\\), and createTables is false: run (the schema statements|dist/receiver/schema/postgres-schema\\.sql)`));
  // Two receivers at once: one migrates, the other finds it done.
  const receiver = engine.receiver();
  await Promise.all([receiver.ready(), engine.receiver().ready()]);
  assert.equal(await engine.version(), SCHEMA);
  const after = await engine.rows();
  const strip = (row, extra) => Object.fromEntries(Object.entries(row).filter(([key]) => !extra.includes(key)));
  assert.deepEqual(after.events.map((e) => strip(e, ['integration', 'secret_kind'])), before.events, 'every event kept');
  assert.ok(after.events.every((e) => e.integration === null && e.secret_kind === null));
  assert.deepEqual(after.payments.map((p) => strip(p, ['integration', 'handled_version'])), before.payments, 'every payment kept');
  assert.deepEqual(after.payments.map((p) => [p.payment_id, p.handled_version]), [['pay_m1', '2'], ['pay_m2', '18446744073709551617']],
    'what was recorded before the loop is taken as handled');
  assert.deepEqual(after.quarantine, before.quarantine);
  // No pass claims what was recorded before; the receiver and the loop go on.
  const h = recorder();
  const world = scriptedWorld(receiver);
  assert.equal((await receiver.fulfil({ confirm: world.confirm, handle: h.handle })).claimed, 0);
  const late = body('evt_m4', 'pay_m1', 3, 'refunded');
  world.override('pay_m1', '{"payment_id":"pay_m1","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"100"},"status":"refunded","status_version":3}');
  assert.equal((await receiver.handle({ body: late, headers: signedHeaders(late) })).body, '{"received":true,"decision":"apply"}');
  const created = world.create({ orderRef: 'after the migration' });
  await receiver.recordCreated(created);
  await world.change(created.payment_id, { status: 'paid' });
  await drain(receiver, { confirm: world.confirm, handle: h.handle });
  assert.deepEqual(h.calls.map((c) => [c.paymentId, c.action, c.mismatch?.code ?? null]).sort(),
    [['pay_m1', 'review', 'payment_unknown'], [created.payment_id, 'fulfil', null]].sort());
  // The merchant backfills the order of a payment handled before the upgrade: it is taken as
  // handled still (its key was never this package's: handled again, it would ship twice), and
  // not checked again for a lost delivery; a newer event would bring it back.
  world.override('pay_m2', '{"payment_id":"pay_m2","order_ref":"before the upgrade","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"100"},"status":"paid","status_version":18446744073709551617}');
  await receiver.recordCreated({ payment_id: 'pay_m2', order_ref: 'before the upgrade', source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' } });
  await new Promise((resolve) => { setTimeout(resolve, 1100); });
  const backfilled = await receiver.fulfil({ confirm: world.confirm, handle: h.handle, recoverAfterSecs: 1 });
  assert.equal(backfilled.claimed, 0, 'a payment handled before the upgrade is not claimed once its order is recorded');
  assert.ok(!h.calls.some((c) => c.paymentId === 'pay_m2'));
  // An authentic event of it that is quarantined (a type this package does not know) makes it
  // due once: looked at, nothing new, and settled again, not checked at every recoverAfterSecs.
  const unknownType = eventBody({ eventId: 'evt_m5', paymentId: 'pay_m2', statusVersion: 5, status: 'paid', eventType: 'payment.created' });
  assert.match((await receiver.handle({ body: unknownType, headers: signedHeaders(unknownType) })).body, /"quarantined":"event_type_unknown"/);
  assert.equal((await receiver.fulfil({ confirm: world.confirm, handle: h.handle, recoverAfterSecs: 1 })).claimed, 1);
  await new Promise((resolve) => { setTimeout(resolve, 1100); });
  assert.equal((await receiver.fulfil({ confirm: world.confirm, handle: h.handle, recoverAfterSecs: 1 })).claimed, 0,
    'settled again once looked at');
  assert.ok(!h.calls.some((c) => c.paymentId === 'pay_m2'));
  // What the guide says to do to have the loop handle it after all: both versions cleared.
  await engine.exec("UPDATE cryptopay_payments SET handled_version = NULL WHERE payment_id = 'pay_m2'");
  await engine.exec("UPDATE cryptopay_fulfilment SET handled_version = NULL, settled = false WHERE payment_id = 'pay_m2'");
  await drain(receiver, { confirm: world.confirm, handle: h.handle });
  assert.deepEqual(h.calls.filter((c) => c.paymentId === 'pay_m2').map((c) => [c.action, c.idempotencyKey, c.mismatch]),
    [['fulfil', 'pay_m2:18446744073709551617', null]]);
  // ready() again: nothing changes.
  await engine.receiver().ready();
  assert.equal(await engine.version(), SCHEMA);
  // Tables a newer package made: refused, never written.
  await engine.setVersion(SCHEMA + 1);
  await assert.rejects(engine.receiver().ready(), new RegExp(`the tables are at schema version ${SCHEMA + 1}, newer than this package's \\(${SCHEMA}\\): a newer cryptopay-verify made them, and an older one does not write them; upgrade this one, or, rolling back on purpose, take the rollback step`));
  await engine.setVersion(SCHEMA);
  // The version row lost (a partial restore), then the whole schema table: the tables are at
  // the version their columns show, not the first schema's, whose migration would take a
  // payment not yet handled as handled (no pass would ever claim it).
  const pending = body('evt_m9', 'pay_m9', 4, 'paid');
  await receiver.handle({ body: pending, headers: signedHeaders(pending) });
  for (const lose of [["DELETE FROM cryptopay_schema WHERE name = 'receiver'"], ['DROP TABLE cryptopay_schema'],
    ['DROP TABLE cryptopay_schema', 'DROP TABLE cryptopay_fulfilment']]) {
    for (const statement of lose) await engine.exec(statement);
    await engine.receiver().ready();
    assert.equal(await engine.version(), SCHEMA, lose);
    assert.deepEqual((await engine.rows()).payments.filter((p) => p.payment_id === 'pay_m9').map((p) => p.handled_version), [null], lose);
  }
}

function sqliteFirstSchema(run, prefix) {
  const sql = fixture('sqlite');
  const statements = Object.fromEntries(Object.entries(sql).map(([name, text]) => [name, name === 'schema' ? split(prefixed(text, prefix)) : prefixed(split(text)[0], prefix)]));
  return async () => {
    await run(statements.schema.map((text) => [text, []]));
    for (const [eventId, paymentId, version, status] of WRITES) {
      const bytes = body(eventId, paymentId, version, status);
      const data = JSON.stringify(JSON.parse(bytes).data);
      await run([[statements.apply, [eventId, paymentId, version, data]], [statements.record, [eventId, paymentId, version, bytes]]]);
    }
    await run([[statements.quarantine, ['event_not_json', Buffer.from('not json')]]]);
  };
}

const sqliteVersion = (read, prefix) => async () => Number((await read(`SELECT version FROM ${prefix}schema WHERE name = 'receiver'`))[0].version);

describe('the migration from the first schema, rows kept', () => {
  test('SQLite file', async () => {
    const file = join(tempDir(), 'v1.sqlite');
    const db = new Database(file);
    const prefix = 'cryptopay_';
    const read = async (text) => db.prepare(text).all();
    await checkMigration({
      firstSchema: sqliteFirstSchema(async (list) => db.transaction(() => list.forEach(([text, args]) => db.prepare(text).run(...args)))(), prefix),
      receiver: (options) => rx.createReceiver(receiverOptions(rx.sqliteStore(new Database(file), options), { log: false })),
      rows: async () => sqliteRows(db),
      version: sqliteVersion(read, prefix),
      setVersion: async (n) => db.prepare(`UPDATE ${prefix}schema SET version = ?`).run(n),
      exec: async (text) => db.prepare(prefixed(text, prefix)).run(),
    });
    db.close();
  });

  test('libsql file (@libsql/client)', async () => {
    const file = join(tempDir(), 'v1.db');
    const url = pathToFileURL(file).href;
    const client = createLibsqlClient({ url });
    const prefix = 'mig_';
    await checkMigration({
      firstSchema: sqliteFirstSchema((list) => client.batch(list.map(([sql, args]) => ({ sql, args })), 'write'), prefix),
      receiver: (options) => rx.createReceiver(receiverOptions(rx.libsqlStore(createLibsqlClient({ url }), { prefix, ...options }), { log: false })),
      rows: async () => {
        const db = new Database(file, { readonly: true });
        try {
          return sqliteRows(db, prefix);
        } finally {
          db.close();
        }
      },
      version: async () => Number((await client.execute(`SELECT version FROM ${prefix}schema`)).rows[0].version),
      setVersion: async (n) => { await client.execute({ sql: `UPDATE ${prefix}schema SET version = ?`, args: [n] }); },
      exec: async (text) => { await client.execute(prefixed(text, prefix)); },
    });
    client.close();
  });

  describe('D1 in workerd', () => {
    const d1 = d1Engine();
    test('D1', async () => {
      const db = () => d1.suite.worker.db;
      const prefix = 'mig_';
      const read = async (text) => (await db().prepare(text).all()).results;
      await checkMigration({
        firstSchema: sqliteFirstSchema((list) => db().batch(list.map(([text, args]) => db().prepare(text).bind(...args.map((a) => (Buffer.isBuffer(a) ? new Uint8Array(a) : a))))), prefix),
        receiver: (options) => rx.createReceiver(receiverOptions(rx.d1Store(db(), { prefix, ...options }), { log: false })),
        rows: async () => ({
          events: (await read(`SELECT * FROM ${prefix}events ORDER BY event_id`)).map((e) => ({ ...e, body: Buffer.from(e.body) })),
          payments: await read(`SELECT * FROM ${prefix}payments ORDER BY payment_id`),
          quarantine: (await read(`SELECT * FROM ${prefix}quarantine ORDER BY id`)).map((q) => ({ ...q, body: Buffer.from(q.body) })),
        }),
        version: sqliteVersion(read, prefix),
        setVersion: async (n) => { await db().prepare(`UPDATE ${prefix}schema SET version = ?`).bind(n).run(); },
        exec: async (text) => { await db().prepare(prefixed(text, prefix)).run(); },
      });
    });
  });

  describe('PostgreSQL', () => {
    const pg = postgresEngine();
    test('PostgreSQL', async () => {
      const { pool } = pg.db;
      const prefix = 'mig_';
      const sql = fixture('postgres');
      const statement = (name) => prefixed(name === 'schema' ? sql.schema : split(sql[name])[0], prefix);
      const q = async (text, values) => (await pool.query(text, values)).rows;
      await checkMigration({
        async firstSchema() {
          await pool.query(statement('schema'));
          for (const [eventId, paymentId, version, status] of WRITES) {
            const bytes = body(eventId, paymentId, version, status);
            await pool.query(statement('record'), [eventId, paymentId, version, JSON.stringify(JSON.parse(bytes).data), bytes]);
          }
          await pool.query(statement('quarantine'), ['event_not_json', Buffer.from('not json')]);
        },
        receiver: (options) => rx.createReceiver(receiverOptions(rx.postgresStore(pool, { prefix, ...options }), { log: false })),
        rows: async () => ({
          events: await q(`SELECT *, status_version::text AS status_version FROM ${prefix}events ORDER BY event_id`),
          payments: await q(`SELECT *, status_version::text AS status_version, data::text AS data FROM ${prefix}payments ORDER BY payment_id`)
            .then((rows) => rows.map((p) => ('handled_version' in p ? { ...p, handled_version: p.handled_version === null ? null : String(p.handled_version) } : p))),
          quarantine: await q(`SELECT * FROM ${prefix}quarantine ORDER BY id`),
        }),
        version: async () => (await q(`SELECT version FROM ${prefix}schema`))[0].version,
        setVersion: async (n) => { await pool.query(`UPDATE ${prefix}schema SET version = $1`, [n]); },
        exec: async (text) => { await pool.query(prefixed(text, prefix)); },
      });
    });
  });
});

// Version 2 to 5: tables made by that schema's statements (fixtures/schema-v2/), with a
// payment due and one fulfilled; ready() adds fulfil_version in place, rows kept; the loop goes
// on, the due payment's fulfil storing the version whose key it carries. Versions 3 and 4 to 5
// (fixtures/schema-v3/, schema-v4/): ready() adds recheck_at, set for the closed payments of
// the last 7 days, and its index; a closed payment whose order is three hours old, looked at
// two hours ago, is looked at again (the money came in late, and goes to review); one whose
// order is ten days old is not.
const AMOUNT = '{"kind":"fiat","currency":"USD","amount_raw":"100"}';
const V2_ROWS = (p) => [
  `INSERT INTO ${p}payments (payment_id, status_version, event_id, data, handled_version) VALUES
     ('pay_v2_due', '3', 'evt_v2_due', '{"payment_id":"pay_v2_due","status_version":3}', NULL),
     ('pay_v2_done', '3', 'evt_v2_done', '{"payment_id":"pay_v2_done","status_version":3}', '3')`,
  `INSERT INTO ${p}orders (payment_id, order_ref, source_amount) VALUES ('pay_v2_due', 'order-due', '${AMOUNT}'),
     ('pay_v2_done', 'order-done', '${AMOUNT}')`,
  `INSERT INTO ${p}fulfilment (payment_id, handled_version, outcome, settled) VALUES ('pay_v2_due', NULL, NULL, FALSE),
     ('pay_v2_done', '3', 'fulfil', TRUE)`,
];
const ago = (dialect, hours) => (dialect === 'postgres' ? `now() - interval '${hours} hours'` : `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-${hours} hours')`);
const V3_ROWS = (p, dialect) => [
  `INSERT INTO ${p}payments (payment_id, status_version, event_id, data, handled_version) VALUES
     ('pay_v3_closed', '2', 'evt_v3_closed', '{"payment_id":"pay_v3_closed","status_version":2}', '2'),
     ('pay_v3_old', '2', 'evt_v3_old', '{"payment_id":"pay_v3_old","status_version":2}', '2')`,
  `INSERT INTO ${p}orders (payment_id, order_ref, source_amount, created_at) VALUES ('pay_v3_closed', 'order-closed', '${AMOUNT}', ${ago(dialect, 3)}),
     ('pay_v3_old', 'order-old', '${AMOUNT}', ${ago(dialect, 240)})`,
  `INSERT INTO ${p}fulfilment (payment_id, handled_version, outcome, settled, seen_at, fulfil_version) VALUES
     ('pay_v3_closed', '2', 'closed', TRUE, ${ago(dialect, 2)}, NULL), ('pay_v3_old', '2', 'closed', TRUE, ${ago(dialect, 200)}, NULL)`,
];
const olderSchema = (from, dialect) => {
  const sql = readStatements(readFileSync(join(ROOT, 'tests', 'receiver', 'fixtures', `schema-v${from}`, `${dialect}.sql`), 'utf8'));
  return (prefix) => {
    const schema = prefixed(sql.schema, prefix);
    return [...(dialect === 'postgres' ? [schema] : split(schema)), ...(from === 2 ? V2_ROWS(prefix) : V3_ROWS(prefix, dialect))];
  };
};
const view = (paymentId, orderRef, status, version) => `{"payment_id":"${paymentId}","order_ref":"${orderRef}","source_amount":${AMOUNT},`
  + `"status":"${status}","status_version":${version},"amount_received_raw":"100"}`;

async function checkMigrationFrom(from, engine, dialect) {
  await engine.run(olderSchema(from, dialect)(engine.prefix));
  assert.equal(await engine.version(), from);
  const how = dialect === 'postgres' ? 'it migrates them in place' : from === 2 ? 'the `migrate_2` then the `migrate_4` statements' : 'the `migrate_4` statements';
  const file = dialect === 'postgres' ? 'dist/receiver/schema/postgres-schema.sql' : 'the schema statements of dist/receiver/schema/sqlite.sql';
  await assert.rejects(engine.receiver({ createTables: false }).ready(), new RegExp(`schema version ${from}, older than this package's \\(${SCHEMA}\\), `
    + `and createTables is false: run ${file.replaceAll('.', '\\.')} as their owner \\(${how}`));
  const receiver = engine.receiver();
  await Promise.all([receiver.ready(), engine.receiver().ready()]);
  assert.equal(await engine.version(), SCHEMA);
  assert.ok(await engine.hasIndex(`${engine.prefix}fulfilment_recheck`), 'the index of closed payments\' next checks made');
  assert.ok(!await engine.hasIndex(`${engine.prefix}fulfilment_closed`), 'version 4\'s index of closed payments dropped');
  const calls = [];
  const handle = async ({ paymentId, action, idempotencyKey }) => { calls.push([paymentId, action, idempotencyKey]); };
  if (from === 2) {
    assert.deepEqual(await engine.fulfilment(), [['pay_v2_done', '3', 'fulfil', null], ['pay_v2_due', null, null, null]], 'rows kept, no fulfil version yet');
    const pass = await receiver.fulfil({
      confirm: async (paymentId) => (paymentId === 'pay_v2_due' ? view('pay_v2_due', 'order-due', 'paid', 3) : assert.fail(`confirm(${paymentId})`)),
      handle,
    });
    assert.deepEqual([pass.claimed, calls], [1, [['pay_v2_due', 'fulfil', 'pay_v2_due:3']]]);
    assert.deepEqual(await engine.fulfilment(), [['pay_v2_done', '3', 'fulfil', null], ['pay_v2_due', '3', 'fulfil', '3']]);
  } else {
    assert.deepEqual(await engine.fulfilment(), [['pay_v3_closed', '2', 'closed', null], ['pay_v3_old', '2', 'closed', null]], 'rows kept');
    // Not within recheckClosedSecs of the order: not looked at.
    assert.equal((await receiver.fulfil({ confirm: async () => assert.fail('confirm'), handle, recheckClosedSecs: 3600 })).claimed, 0);
    const pass = await receiver.fulfil({
      confirm: async (paymentId) => (paymentId === 'pay_v3_closed' ? view('pay_v3_closed', 'order-closed', 'expired', 3) : assert.fail(`confirm(${paymentId})`)),
      handle,
    });
    assert.deepEqual([pass.claimed, calls], [1, [['pay_v3_closed', 'review', 'pay_v3_closed:3']]]);
    assert.deepEqual(await engine.fulfilment(), [['pay_v3_closed', '3', 'review', null], ['pay_v3_old', '2', 'closed', null]]);
  }
  await engine.receiver().ready();
  assert.equal(await engine.version(), SCHEMA);
}

for (const from of [2, 3, 4]) {
  describe(`the migration from schema version ${from}, rows kept`, () => {
    const sqliteFulfilment = (read, prefix) => async () => (await read(`SELECT payment_id, handled_version, outcome, fulfil_version FROM ${prefix}fulfilment ORDER BY payment_id`))
      .map((r) => [r.payment_id, r.handled_version, r.outcome, r.fulfil_version]);
    const sqliteIndex = (read) => async (name) => (await read(`SELECT name FROM sqlite_master WHERE type = 'index' AND name = '${name}'`)).length === 1;

    test('SQLite file', async () => {
      const file = join(tempDir(), `v${from}.sqlite`);
      const db = new Database(file);
      const prefix = 'cryptopay_';
      const read = async (text) => db.prepare(text).all();
      await checkMigrationFrom(from, {
        prefix,
        run: async (list) => db.transaction(() => list.forEach((text) => db.prepare(text).run()))(),
        receiver: (options) => rx.createReceiver(receiverOptions(rx.sqliteStore(new Database(file), options), { log: false })),
        version: sqliteVersion(read, prefix),
        fulfilment: sqliteFulfilment(read, prefix),
        hasIndex: sqliteIndex(read),
      }, 'sqlite');
      db.close();
    });

    test('libsql file (@libsql/client)', async () => {
      const url = pathToFileURL(join(tempDir(), `v${from}.db`)).href;
      const client = createLibsqlClient({ url });
      const prefix = `mig${from}_`;
      const read = async (text) => (await client.execute(text)).rows;
      await checkMigrationFrom(from, {
        prefix,
        run: (list) => client.batch(list, 'write'),
        receiver: (options) => rx.createReceiver(receiverOptions(rx.libsqlStore(createLibsqlClient({ url }), { prefix, ...options }), { log: false })),
        version: sqliteVersion(read, prefix),
        fulfilment: sqliteFulfilment(read, prefix),
        hasIndex: sqliteIndex(read),
      }, 'sqlite');
      client.close();
    });

    describe('D1 in workerd', () => {
      const d1 = d1Engine();
      test('D1', async () => {
        const db = () => d1.suite.worker.db;
        const prefix = `mig${from}_`;
        const read = async (text) => (await db().prepare(text).all()).results;
        await checkMigrationFrom(from, {
          prefix,
          run: (list) => db().batch(list.map((text) => db().prepare(text))),
          receiver: (options) => rx.createReceiver(receiverOptions(rx.d1Store(db(), { prefix, ...options }), { log: false })),
          version: sqliteVersion(read, prefix),
          fulfilment: sqliteFulfilment(read, prefix),
          hasIndex: sqliteIndex(read),
        }, 'sqlite');
      });
    });

    describe('PostgreSQL', () => {
      const pg = postgresEngine();
      test('PostgreSQL', async () => {
        const { pool } = pg.db;
        const prefix = `mig${from}_`;
        const q = async (text) => (await pool.query(text)).rows;
        await checkMigrationFrom(from, {
          prefix,
          run: async (list) => { for (const text of list) await pool.query(text); },
          receiver: (options) => rx.createReceiver(receiverOptions(rx.postgresStore(pool, { prefix, ...options }), { log: false })),
          version: async () => (await q(`SELECT version FROM ${prefix}schema`))[0].version,
          fulfilment: async () => (await q(`SELECT payment_id, handled_version::text AS h, outcome, fulfil_version::text AS f FROM ${prefix}fulfilment ORDER BY payment_id`))
            .map((r) => [r.payment_id, r.h, r.outcome, r.f]),
          hasIndex: async (name) => (await q(`SELECT 1 FROM pg_indexes WHERE indexname = '${name}'`)).length === 1,
        }, 'postgres');
      });
    });
  });
}

// A migration behind a long transaction that reads the tables (a pg_dump, a report) waits 5 s
// for its lock at most, then gives up with the fix, so that the deliveries of the receivers
// already running do not queue behind it; once the transaction ends, ready() migrates.
describe('PostgreSQL: a migration behind a long transaction', () => {
  const pg = postgresEngine();
  test('the schema run again where every column stands (a version row behind, a migration tool) takes no ACCESS EXCLUSIVE lock: done at once beside the reader', async () => {
    const { pool } = pg.db;
    const prefix = 'migr_';
    await rx.createReceiver(receiverOptions(rx.postgresStore(pool, { prefix }), { log: false })).ready();
    await pool.query(`UPDATE ${prefix}schema SET version = ${SCHEMA - 1}`);
    const reader = await pool.connect();
    const writer = await pool.connect();
    try {
      // A pg_dump's locks: ACCESS SHARE on every table, held for the whole dump.
      await reader.query('BEGIN');
      for (const table of ['events', 'payments', 'quarantine', 'orders', 'fulfilment', 'schema']) await reader.query(`SELECT count(*) FROM ${prefix}${table}`);
      // A delivery's write still open (ROW EXCLUSIVE on events and payments): an index made
      // again, even IF NOT EXISTS, would wait for it (SHARE), holding every other write.
      await writer.query('BEGIN');
      await writer.query(`UPDATE ${prefix}events SET body = body WHERE false`);
      await writer.query(`UPDATE ${prefix}payments SET data = data WHERE false`);
      const started = Date.now();
      await rx.createReceiver(receiverOptions(rx.postgresStore(pool, { prefix }), { log: false })).ready();
      const waited = Date.now() - started;
      assert.ok(waited < 3000, `migrated in ${waited} ms beside the reader and the writer (an ALTER TABLE or an index would wait 5 s, then give up)`);
      assert.equal((await pool.query(`SELECT version FROM ${prefix}schema`)).rows[0].version, SCHEMA);
    } finally {
      for (const held of [reader, writer]) {
        await held.query('ROLLBACK').catch(() => {});
        held.release();
      }
    }
  });

  test('gives up after 5 s (lock_timeout), naming the cause; a writer of the old version waits that long, not until the transaction ends; then migrates', async () => {
    const { pool } = pg.db;
    const prefix = 'migl_';
    // From version 2: a column to add (fulfil_version), so the ACCESS EXCLUSIVE lock of ALTER TABLE.
    for (const text of olderSchema(2, 'postgres')(prefix)) await pool.query(text);
    const reader = await pool.connect();
    const writer = await pool.connect();
    try {
      // A pg_dump's locks: ACCESS SHARE on every table, held for the whole dump.
      await reader.query('BEGIN');
      for (const table of ['events', 'payments', 'quarantine', 'orders', 'fulfilment', 'schema']) await reader.query(`SELECT count(*) FROM ${prefix}${table}`);
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(pool, { prefix }), { log: false }));
      const started = Date.now();
      const migrating = receiver.ready().then(() => null, (e) => e);
      // A receiver of the old version writes while the migration waits for its lock: queued
      // behind the migration's request, it goes on once the migration gives up (without a
      // lock_timeout it would wait for the long transaction, here never ending on its own).
      await new Promise((resolve) => { setTimeout(resolve, 500); });
      const write = writer.query(`UPDATE ${prefix}fulfilment SET attempts = attempts WHERE payment_id = 'pay_v2_done'`);
      const stuck = new Promise((resolve) => { setTimeout(() => resolve('still waiting after 20 s'), 20_000).unref(); });
      assert.notEqual(await Promise.race([write, stuck]), 'still waiting after 20 s');
      const failure = await migrating;
      const waited = Date.now() - started;
      assert.ok(failure instanceof Error, 'ready() rejects');
      assert.match(failure.message, /^postgresStore: the schema migration gave up waiting for a lock \(55P03\).*a lock on the receiver's tables \(it waits 5 s\), held by a long transaction .*end that transaction, or upgrade when none runs$/);
      assert.ok(waited >= 4500 && waited < 15_000, `gave up after ${waited} ms`);
      assert.equal((await pool.query(`SELECT version FROM ${prefix}schema`)).rows[0].version, 2, 'nothing migrated');
      // Not tried again at once (each try would queue the other receivers' writes for 5 s).
      const again = Date.now();
      await assert.rejects(receiver.ready(), /gave up waiting for a lock \(55P03\) less than 30 s ago and is not tried again before/);
      // Nor by a new store on the same pool (a lazyReceiver makes one at each try).
      await assert.rejects(rx.createReceiver(receiverOptions(rx.postgresStore(pool, { prefix }), { log: false })).ready(),
        /gave up waiting for a lock \(55P03\) less than 30 s ago/);
      assert.ok(Date.now() - again < 2000, 'refused without waiting for the lock');
      await reader.query('COMMIT');
      // Another instance (its own pool; or this one, 30 s later) migrates once the transaction ended.
      const other = openPool({ connectionString: pg.db.server.url, max: 2 });
      try {
        await rx.createReceiver(receiverOptions(rx.postgresStore(other, { prefix }), { log: false })).ready();
      } finally {
        await other.end();
      }
      assert.equal((await pool.query(`SELECT version FROM ${prefix}schema`)).rows[0].version, SCHEMA);
      // Run by a migration tool inside its own transaction, with more after it: what follows
      // keeps the transaction's own lock_timeout.
      const tool = await pool.connect();
      try {
        await tool.query('BEGIN');
        await tool.query("SET LOCAL lock_timeout = '42s'");
        await tool.query(prefixed(readStatements(readFileSync(join(ROOT, 'sql', 'postgres.sql'), 'utf8')).schema, prefix));
        assert.equal((await tool.query("SELECT current_setting('lock_timeout') AS t")).rows[0].t, '42s');
        await tool.query('COMMIT');
      } finally {
        tool.release();
      }
    } finally {
      await reader.query('ROLLBACK').catch(() => {});
      reader.release();
      writer.release();
    }
  });

  // A large table's migration outlasts the timeouts the docs give a pool (the statement's, the
  // server's): it still runs to its end, where a timeout would roll it back at every start.
  // While it runs, a receiver starting beside it waits for its advisory lock 5 s at most,
  // holding no connection for longer. Version 1 with 200,000 payments: a backfill and two
  // indexes over them, longer than the 300 ms given to every other statement.
  test('a migration longer than the pool\'s query_timeout and the role\'s statement_timeout runs to its end', async () => {
    const { pool } = pg.db;
    const prefix = 'migt_';
    await pool.query(prefixed(fixture('postgres').schema, prefix));
    await pool.query(`INSERT INTO ${prefix}payments (payment_id, status_version, event_id, data)
      SELECT 'pay_' || i, i, 'evt_' || i, '{}' FROM generate_series(1, 200000) AS i`);
    const hurried = openPool({ connectionString: pg.db.server.url, max: 2, query_timeout: 300, statement_timeout: 300 });
    try {
      const started = Date.now();
      await rx.createReceiver(receiverOptions(rx.postgresStore(hurried, { prefix }), { log: false })).ready();
      const took = Date.now() - started;
      assert.equal((await pool.query(`SELECT version FROM ${prefix}schema`)).rows[0].version, SCHEMA);
      assert.equal((await pool.query(`SELECT count(*)::int AS n FROM ${prefix}payments WHERE handled_version = status_version`)).rows[0].n, 200000);
      assert.ok(took > 300, `the migration took ${took} ms: longer than the timeouts, or the test shows nothing`);
      // The session's own settings are left as they were.
      const settings = (await hurried.query("SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l")).rows[0];
      assert.deepEqual(settings, { s: '300ms', l: '0' });
    } finally {
      await hurried.end();
    }
  });

  test('a receiver starting while another migrates waits for it 5 s at most (lock_timeout), then answers 503 naming it', async () => {
    const { pool } = pg.db;
    const prefix = 'miga_';
    for (const text of olderSchema(2, 'postgres')(prefix)) await pool.query(text);
    const migrating = await pool.connect();
    try {
      await migrating.query('BEGIN');
      await migrating.query('SELECT pg_advisory_xact_lock(4150767016395183)');
      const started = Date.now();
      const failure = await rx.createReceiver(receiverOptions(rx.postgresStore(pool, { prefix }), { log: false })).ready().then(() => null, (e) => e);
      const waited = Date.now() - started;
      assert.match(String(failure?.message), /gave up waiting for a lock \(55P03\).*the migration's advisory lock, held by another receiver migrating/);
      assert.ok(waited >= 4500 && waited < 15_000, `gave up after ${waited} ms`);
      const waiting = (await pool.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0].n;
      assert.equal(waiting, 0, 'no connection left waiting for the lock');
    } finally {
      await migrating.query('ROLLBACK').catch(() => {});
      migrating.release();
    }
  });

  // A migration tool that sends the statement's parts one by one, each its own transaction
  // (psql -f without -1): the settings put back at the end were local to a transaction now
  // over, and the current ones stay (set_config('lock_timeout', '') would fail there).
  test('the schema\'s last statement, run outside the schema\'s transaction, keeps the current settings', async () => {
    const schema = readStatements(readFileSync(join(ROOT, 'sql', 'postgres.sql'), 'utf8')).schema;
    const last = schema.slice(schema.lastIndexOf("SELECT set_config('lock_timeout'"));
    assert.match(last, /^SELECT set_config\('lock_timeout', coalesce/);
    const client = await pg.db.pool.connect();
    try {
      await client.query("SELECT set_config('cryptopay.lock_timeout', '1s', true), set_config('cryptopay.statement_timeout', '1s', true)");
      await client.query(last);
      const settings = (await client.query("SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l")).rows[0];
      assert.deepEqual(settings, { s: '0', l: '0' });
    } finally {
      client.release();
    }
  });
});

// Rolled back to an older package (the version row set to 4, as docs/merchant-loop.md says),
// whose passes move a closed payment's seen_at on without writing recheck_at, then upgraded
// again: every recheck_at is computed again from the payment's last look, none kept from
// before the rollback.
describe('PostgreSQL: upgraded again after a rollback to version 4', () => {
  const pg = postgresEngine();
  test('recheck_at is computed again from each closed payment\'s last look; a payment no longer closed keeps none', async () => {
    const { pool } = pg.db;
    const prefix = 'migb_';
    await rx.createReceiver(receiverOptions(rx.postgresStore(pool, { prefix }), { log: false })).ready();
    await pool.query(`INSERT INTO ${prefix}orders (payment_id, order_ref, source_amount, created_at) VALUES
      ('pay_b_closed', 'o1', '${AMOUNT}', now() - interval '3 hours'), ('pay_b_review', 'o2', '${AMOUNT}', now() - interval '3 hours')`);
    // What version 5 wrote before the rollback (a look 2.5 hours ago: due 2 hours ago), and
    // what the older package's pass wrote since (a look 1 hour ago; a review).
    await pool.query(`INSERT INTO ${prefix}fulfilment (payment_id, handled_version, outcome, settled, seen_at, recheck_at) VALUES
      ('pay_b_closed', 2, 'closed', true, now() - interval '1 hour', now() - interval '2 hours'),
      ('pay_b_review', 3, 'review', false, now() + interval '3 hours', now() - interval '2 hours')`);
    await pool.query(`UPDATE ${prefix}schema SET version = 4`);
    await rx.createReceiver(receiverOptions(rx.postgresStore(pool, { prefix }), { log: false })).ready();
    assert.equal((await pool.query(`SELECT version FROM ${prefix}schema`)).rows[0].version, SCHEMA);
    const { rows } = await pool.query(`SELECT payment_id, round(extract(epoch FROM recheck_at - now()) / 60) AS minutes
      FROM ${prefix}fulfilment ORDER BY payment_id`);
    // The last look 1 hour ago, 2 hours after the order: the next check an hour from now.
    assert.deepEqual(rows.map((r) => [r.payment_id, r.minutes === null ? null : Number(r.minutes)]), [['pay_b_closed', 60], ['pay_b_review', null]]);
  });
});

// The same rollback on SQLite, its column left standing (the docs once said to drop it): the
// ALTER of migrate_4 is left out, where it failed every start with "duplicate column name",
// and recheck_at is computed again as on PostgreSQL. On a file, and through libsql.
describe('SQLite: upgraded again after a rollback to version 4 that kept the column', () => {
  const rolledBack = async (exec, all, ready) => {
    await ready();
    await exec(`INSERT INTO cryptopay_orders (payment_id, order_ref, source_amount, created_at) VALUES
      ('pay_b_closed', 'o1', '${AMOUNT}', ${ago('sqlite', 3)}), ('pay_b_review', 'o2', '${AMOUNT}', ${ago('sqlite', 3)})`);
    await exec(`INSERT INTO cryptopay_fulfilment (payment_id, handled_version, outcome, settled, seen_at, recheck_at) VALUES
      ('pay_b_closed', '2', 'closed', 1, ${ago('sqlite', 1)}, ${ago('sqlite', 2)}),
      ('pay_b_review', '3', 'review', 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+3 hours'), ${ago('sqlite', 2)})`);
    await exec('UPDATE cryptopay_schema SET version = 4');
    await ready();
    assert.equal(Number((await all('SELECT version FROM cryptopay_schema'))[0].version), SCHEMA);
    const rows = await all(`SELECT payment_id, round((julianday(recheck_at) - julianday('now')) * 1440) AS minutes
      FROM cryptopay_fulfilment ORDER BY payment_id`);
    // The last look 1 hour ago, 2 hours after the order: the next check an hour from now.
    assert.deepEqual(rows.map((r) => [r.payment_id, r.minutes === null ? null : Number(r.minutes)]), [['pay_b_closed', 60], ['pay_b_review', null]]);
  };

  test('SQLite file', async () => {
    const file = join(tempDir(), 'back.sqlite');
    const db = new Database(file);
    try {
      await rolledBack((text) => db.prepare(text).run(), (text) => db.prepare(text).all(),
        () => rx.createReceiver(receiverOptions(rx.sqliteStore(new Database(file)), { log: false })).ready());
    } finally {
      db.close();
    }
  });

  test('libsql file (@libsql/client)', async () => {
    const url = pathToFileURL(join(tempDir(), 'back.db')).href;
    const client = createLibsqlClient({ url });
    try {
      await rolledBack(async (text) => client.execute(text), async (text) => (await client.execute(text)).rows,
        () => rx.createReceiver(receiverOptions(rx.libsqlStore(createLibsqlClient({ url })), { log: false })).ready());
    } finally {
      client.close();
    }
  });
});

// D1 and libsql read the version, then the columns, outside the migration's batch: an isolate
// that read version 4 (or 1) before another migrated, and the columns after, runs a batch with
// no ALTER left. Its UPDATEs must then change nothing: the recheck_at a pass wrote since, the
// payments recorded since and not yet handled. The statements run here as that batch would.
test('SQLite: a migration batch run on tables another one already took to version 5 changes no row', async () => {
  const file = join(tempDir(), 'raced.sqlite');
  await rx.createReceiver(receiverOptions(rx.sqliteStore(new Database(file)), { log: false })).ready();
  const db = new Database(file);
  try {
    db.exec(`INSERT INTO cryptopay_orders (payment_id, order_ref, source_amount, created_at) VALUES
      ('pay_r_closed', 'o1', '${AMOUNT}', ${ago('sqlite', 3)});
      INSERT INTO cryptopay_fulfilment (payment_id, handled_version, outcome, settled, seen_at, recheck_at) VALUES
      ('pay_r_closed', '2', 'closed', 1, ${ago('sqlite', 1)}, '2099-01-01T00:00:00.000Z');
      INSERT INTO cryptopay_payments (payment_id, status_version, event_id, data, handled_version) VALUES
      ('pay_r_new', '4', 'evt_r_new', '{}', NULL);`);
    const sql = readStatements(readFileSync(join(ROOT, 'sql', 'sqlite.sql'), 'utf8'));
    const batch = [...split(sql.migrate_1), ...split(sql.migrate_4)].filter((s) => !/^ALTER TABLE/.test(s));
    assert.ok(batch.filter((s) => /^UPDATE/.test(s)).length >= 3, batch.join('\n'));
    db.transaction(() => { for (const statement of batch) db.prepare(statement).run(); })();
    assert.equal(db.prepare("SELECT recheck_at FROM cryptopay_fulfilment WHERE payment_id = 'pay_r_closed'").get().recheck_at, '2099-01-01T00:00:00.000Z');
    assert.equal(db.prepare("SELECT handled_version FROM cryptopay_payments WHERE payment_id = 'pay_r_new'").get().handled_version, null);
  } finally {
    db.close();
  }
});
