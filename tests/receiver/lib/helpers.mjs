// Shared by the receiver tests: the INSTALLED package (CONSUMER_DIR, default target/consumer,
// as `make consumer` leaves it), loaded through its own "exports" map; signed deliveries;
// the drivers (better-sqlite3, pg, @libsql/client) from the repository's node_modules;
// temporary folders; the checks several test files run on their stores.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { eventBody, oneByOne, random } from './events.mjs';
import { tempDir as makeTempDir } from '../../lib/temp.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const CONSUMER_DIR = resolve(process.env.CONSUMER_DIR ?? join(ROOT, 'target', 'consumer'));
export const PACKAGE_DIR = join(CONSUMER_DIR, 'node_modules', 'cryptopay-verify');
if (!existsSync(join(PACKAGE_DIR, 'package.json'))) {
  throw new Error(`cryptopay-verify is not installed in ${CONSUMER_DIR}: run make consumer (or make receiver-test)`);
}
const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8'));

/** The file the package's exports map gives for a subpath under Node's import conditions. */
export function exportedFile(subpath, condition = 'import') {
  let target = manifest.exports[subpath];
  while (target && typeof target === 'object') target = target.node ?? target[condition] ?? target.default;
  return join(PACKAGE_DIR, target);
}

/** The installed package and its receiver, as `import` sees them (one instance, shared). */
export const pkg = await import(pathToFileURL(exportedFile('.')).href);
export const rx = await import(pathToFileURL(exportedFile('./receiver')).href);

const require = createRequire(join(ROOT, 'package.json'));
export const Database = require('better-sqlite3');
export const pg = require('pg');
export const { createClient: createLibsqlClient } = require('@libsql/client');

export const SECRET = `whsec_rx_${randomBytes(12).toString('hex')}`;
export const TS_HEADER = 'X-Webhook-Timestamp';
export const SIG_HEADER = 'X-Webhook-Signature';
export const nowSecs = () => Math.floor(Date.now() / 1000);

// The bodies and the seeded generator, in a module of their own that Bun scripts load too.
export { eventBody, oneByOne, random };

/** The two headers of a delivery of `body` signed now (or at `timestamp`) with `secret`. */
export function signedHeaders(body, { timestamp = nowSecs(), secret = SECRET } = {}) {
  const ts = String(timestamp);
  return { [TS_HEADER]: ts, [SIG_HEADER]: pkg.signWebhook({ secret, timestamp: ts, body }) };
}

/** Options of createReceiver with these header names and secret. */
export function receiverOptions(store, extra = {}) {
  return { secrets: SECRET, maxSkewSecs: 300, timestampHeader: TS_HEADER, signatureHeader: SIG_HEADER, store, ...extra };
}

/** Collects the receiver's log lines. */
export function captureLog() {
  const lines = [];
  return { lines, warn: (line) => lines.push(`warn ${line}`), error: (line) => lines.push(`error ${line}`) };
}

export const tempDir = (prefix = 'cpv-rx-') => makeTempDir(prefix);

// The retention statements of docs/receiver.md, with "older than 30 days" turned into "older than a minute
// from now" (every row).
export const PRUNE_POSTGRES = (prefix) => `DELETE FROM ${prefix}events WHERE received_at < now() + interval '1 minute'`;
export const PRUNE_SQLITE = (prefix) => `DELETE FROM ${prefix}events WHERE received_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+1 minute')`;

/**
 * Retention (docs/receiver.md, "Stores"): rows of `events` may be deleted once the service no longer
 * retries them; `payments` holds the applied version, so a late retry of a pruned event is
 * stale (recorded again, never applied twice) and a newer event still applies. `deliver(body)`
 * resolves [status, answer text]; `prune()` deletes the events; `read()` gives the rows.
 */
export async function checkPruned(deliver, prune, read) {
  const decided = (decision) => `{"received":true,"decision":"${decision}"}`;
  const v1 = eventBody({ eventId: 'evt_r1', paymentId: 'pay_r', statusVersion: 1, status: 'open' });
  const v2 = eventBody({ eventId: 'evt_r2', paymentId: 'pay_r', statusVersion: 2, status: 'paid' });
  const v3 = eventBody({ eventId: 'evt_r3', paymentId: 'pay_r', statusVersion: 3, status: 'refunded' });
  assert.deepEqual(await deliver(v1), [200, decided('apply')]);
  assert.deepEqual(await deliver(v2), [200, decided('apply')]);
  await prune();
  assert.deepEqual((await read()).events, []);
  assert.deepEqual(await deliver(v2), [200, decided('stale')], 'the applied event, retried after its row was pruned');
  assert.deepEqual(await deliver(v1), [200, decided('stale')], 'an older one, retried after its row was pruned');
  assert.deepEqual(await deliver(v2), [200, decided('duplicate')]);
  assert.deepEqual(await deliver(v3), [200, decided('apply')]);
  const rows = await read();
  assert.deepEqual(rows.events.map((e) => [e.event_id, e.decision]).sort(), [['evt_r1', 'stale'], ['evt_r2', 'stale'], ['evt_r3', 'apply']]);
  assert.deepEqual(rows.payments.map((p) => [p.payment_id, String(p.status_version), p.event_id, JSON.parse(p.data).status]),
    [['pay_r', '3', 'evt_r3', 'refunded']]);
}

/**
 * Tables of schema version 1 made by hand on a SQLite engine, whose `events.event_id` is keyed
 * as each case says: [prefix, its statements, refused]. The statements' ON CONFLICT (event_id)
 * needs it alone to be the primary key or a unique index's (not partial, not one of two).
 */
export const SQLITE_KEY_CASES = [
  ['nokey_', 'event_id TEXT NOT NULL', [], true],
  ['pair_', 'event_id TEXT NOT NULL, PRIMARY KEY (event_id, payment_id)', [], true],
  ['partial_', 'event_id TEXT NOT NULL', ["CREATE UNIQUE INDEX partial_e ON partial_events (event_id) WHERE event_id <> ''"], true],
  ['unique_', 'event_id TEXT NOT NULL UNIQUE', [], false],
  ['index_', 'event_id TEXT NOT NULL', ['CREATE UNIQUE INDEX index_e ON index_events (event_id)'], false],
].map(([prefix, key, more, refused]) => [prefix, [
  `CREATE TABLE ${prefix}events (payment_id TEXT, status_version TEXT, decision TEXT, received_at TEXT DEFAULT CURRENT_TIMESTAMP, body BLOB, ${key})`,
  `CREATE TABLE ${prefix}payments (payment_id TEXT PRIMARY KEY, status_version TEXT, event_id TEXT, data TEXT, updated_at TEXT DEFAULT CURRENT_TIMESTAMP)`,
  `CREATE TABLE ${prefix}quarantine (id INTEGER PRIMARY KEY, received_at TEXT DEFAULT CURRENT_TIMESTAMP, code TEXT, body BLOB)`,
  ...more,
], refused]);

/**
 * Runs SQLITE_KEY_CASES: `make(statements)` makes the tables, `open(prefix)` gives a receiver
 * on them; a refused case's ready() names the column and a delivery is 503, the others apply.
 */
export async function checkSqliteKeys(make, open, what) {
  for (const [prefix, statements, refused] of SQLITE_KEY_CASES) {
    await make(statements);
    const receiver = open(prefix);
    const body = eventBody({ eventId: `evt_${prefix}`, paymentId: `pay_${prefix}`, statusVersion: 1 });
    const answer = async () => {
      // A Uint8Array, not a Buffer: Miniflare's D1 binding, used from Node, takes no Buffer.
      const { status, body: text } = await receiver.handle({ body: new Uint8Array(body), headers: signedHeaders(body) });
      return [status, text];
    };
    if (refused) {
      await assert.rejects(receiver.ready(), (error) => {
        assert.ok(error.message.startsWith(`${what}: ${prefix}events.event_id is neither a primary key nor unique on its own`), `${prefix}: ${error.message}`);
        return true;
      });
      assert.deepEqual(await answer(), [503, '{"error":"store_unavailable"}'], prefix);
    } else {
      await receiver.ready();
      assert.deepEqual(await answer(), [200, '{"received":true,"decision":"apply"}'], prefix);
    }
  }
}

/** Reads every row of a SQLite store's tables (prefix `cryptopay_` unless given). */
export function sqliteRows(db, prefix = 'cryptopay_') {
  return {
    events: db.prepare(`SELECT * FROM ${prefix}events ORDER BY event_id`).all(),
    payments: db.prepare(`SELECT * FROM ${prefix}payments ORDER BY payment_id`).all(),
    quarantine: db.prepare(`SELECT * FROM ${prefix}quarantine ORDER BY id`).all(),
  };
}

/** sqliteRows of a SQLite (or libsql) file, read through a read-only connection of its own. */
export function sqliteFileRows(file, prefix) {
  const db = new Database(file, { readonly: true });
  try {
    return sqliteRows(db, prefix);
  } finally {
    db.close();
  }
}

/** Reads every row of a PostgreSQL store's tables, versions as exact text. */
export async function postgresRows(client, prefix = 'cryptopay_') {
  const q = async (sql) => (await client.query(sql)).rows;
  return {
    events: await q(`SELECT event_id, payment_id, status_version::text AS status_version, decision, received_at, body
      FROM ${prefix}events ORDER BY event_id`),
    payments: await q(`SELECT payment_id, status_version::text AS status_version, event_id, data::text AS data, updated_at
      FROM ${prefix}payments ORDER BY payment_id`),
    quarantine: await q(`SELECT id, received_at, code, body FROM ${prefix}quarantine ORDER BY id`),
  };
}

/**
 * The pooler tests' workload (pooler.test.mjs, postgresjs.test.mjs) through `receiver`: 120
 * events of 12 payments (versions 1 to 120), each delivered twice, shuffled by `seed`, 8 at a
 * time. Asserts every answer is 200 and nothing was logged (`logged`); then, in the rows
 * `read()` gives, each event recorded once with the decision one of its answers gave, and every
 * payment at its highest version, applied by the event of that version.
 */
export async function poolerBurst(receiver, { seed, logged, read }) {
  const deliveries = [];
  for (let i = 1; i <= 120; i += 1) {
    const body = eventBody({ eventId: `evt_pgb${i}`, paymentId: `pay_pgb${i % 12}`, statusVersion: i, status: `v${i}` });
    deliveries.push({ eventId: `evt_pgb${i}`, body }, { eventId: `evt_pgb${i}`, body });
  }
  random(seed).shuffle(deliveries);
  const answers = [];
  for (let i = 0; i < deliveries.length; i += 8) {
    const group = deliveries.slice(i, i + 8);
    answers.push(...await Promise.all(group.map(({ body }) => receiver.handle({ body, headers: signedHeaders(body) }))));
  }
  assert.deepEqual(answers.filter((a) => a.status !== 200).map((a) => a.body), [], logged.join('\n'));
  assert.deepEqual(logged, []);
  const rows = await read();
  assert.equal(rows.events.length, 120);
  for (const event of rows.events) {
    const said = answers.filter((_, i) => deliveries[i].eventId === event.event_id).map((a) => JSON.parse(a.body).decision);
    assert.equal(said.filter((d) => d !== 'duplicate').length, 1, `${event.event_id} answered ${said}`);
    assert.equal(event.decision, said.find((d) => d !== 'duplicate'), event.event_id);
  }
  for (let p = 0; p < 12; p += 1) {
    const highest = 120 - ((120 - p) % 12);
    const payment = rows.payments.find((r) => r.payment_id === `pay_pgb${p}`);
    assert.deepEqual([payment.status_version, payment.event_id, JSON.parse(payment.data).status], [String(highest), `evt_pgb${highest}`, `v${highest}`]);
  }
}

/**
 * Checks what oneByOne()'s deliveries left in a PostgreSQL store (`client`, tables `prefix`):
 * the event rows and their decisions, each body byte for byte, the payments at their highest
 * versions with `data` stored as the event's object (json_typeof), the two quarantined bodies.
 */
export async function checkOneByOne(client, prefix) {
  const { huge, bodies } = oneByOne();
  const rows = await postgresRows(client, prefix);
  assert.deepEqual(rows.events.map((e) => [e.event_id, e.payment_id, e.status_version, e.decision]), [
    ['evt_0', 'pay_1', '1', 'stale'],
    ['evt_1', 'pay_1', '2', 'apply'],
    ['evt_2', 'pay_1', String(2n ** 64n), 'apply'],
    ['evt_3', 'pay_2', huge, 'apply'],
  ]);
  for (const event of rows.events) assert.ok(Buffer.from(event.body).equals(bodies[event.event_id]), event.event_id);
  assert.deepEqual(rows.payments.map((p) => [p.payment_id, p.status_version, p.event_id]),
    [['pay_1', String(2n ** 64n), 'evt_2'], ['pay_2', huge, 'evt_3']]);
  // data is the event's data object, as JSON (not a JSON string holding its text).
  for (const payment of rows.payments) assert.deepEqual(JSON.parse(payment.data), JSON.parse(bodies[payment.event_id].toString('utf8')).data);
  const { rows: kinds } = await client.query(`SELECT json_typeof(data) AS kind, data->>'status' AS status FROM ${prefix}payments ORDER BY payment_id`);
  assert.deepEqual(kinds, [{ kind: 'object', status: 'paid' }, { kind: 'object', status: 'open' }]);
  assert.deepEqual(rows.quarantine.map((q) => [q.code, Buffer.from(q.body).equals(q.code === 'event_type_unknown' ? bodies.evt_q : bodies.evt_4)]),
    [['status_version_invalid', true], ['event_type_unknown', true]]);
}
