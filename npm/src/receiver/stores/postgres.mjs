// postgresStore: the store for many receiver instances. Each delivery is ONE statement
// (schema/postgres.sql, `record`), so one transaction: the payment row is written only when
// the event is new and its version greater (checked on the locked, latest row), then the
// event row records the outcome. Concurrent deliveries across instances end as if serial.

import { NUMERIC_DIGITS } from '../limits.mjs';
import { postgres as SQL } from '../sql.mjs';
import {
  answeredFalse, bytes, decisionOf, describeError, expectClient, flag, invalid, isoTime, loaded, loadedParam, sqlState,
  poolWarnings, storeOptions, stuckFix, withPrefix,
} from './common.mjs';
import { SCHEMA_VERSION, checkColumns, newerSchema, olderSchema, versionOf } from './schema.mjs';

const UNIQUE_VIOLATION = '23505';
const INSUFFICIENT_PRIVILEGE = '42501';
// A lock waited for longer than lock_timeout (the schema statement sets 5 s).
const LOCK_NOT_AVAILABLE = '55P03';
// After the migration gave up waiting for a lock, how long ready() refuses before trying again.
const LOCK_BACKOFF_MS = 30_000;
// When it gave up, by client and prefix: a lazyReceiver makes a new store on the same pool at
// each try.
const lockGaveUp = new WeakMap();
// How long node-postgres waits for the schema statement (a migration backfills and indexes
// whole tables: about 7 s a million payments from version 1, measured on PostgreSQL 15), past
// the pool's query_timeout, which would end it, rolled back, at every start. The statement
// lifts the server's statement_timeout itself; its waits for a lock stay bounded (5 s).
const MIGRATION_TIMEOUT_MS = 10 * 60_000;
// A serialization failure (under REPEATABLE READ or SERIALIZABLE as the default isolation) or
// a deadlock: the server rolled the statement's transaction back whole, so it is run again, a
// few times, after a short random pause; past that the delivery is answered 503.
const RETRIED = new Set(['40001', '40P01']);
const RETRIES = 5; // two dozen deliveries of one payment at once, under SERIALIZABLE, may need four
// A named statement another connection of a pooler in transaction mode prepared (42P05), or
// that this one prepared on a server connection the pooler no longer gives it (26000): PgBouncer
// before 1.21, or with max_prepared_statements = 0, passes statements through but not their
// names. Either fails before the statement runs (at Parse or Bind, in the batch's one transaction).
const NAME_LOST = new Set(['42P05', '26000']);
const pause = (attempt) => new Promise((resolve) => { setTimeout(resolve, Math.random() * 10 * 2 ** attempt); });

// A statement of the merchant loop, run again after a serialization failure or a deadlock.
async function retried(statement) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await statement();
    } catch (error) {
      if (!RETRIED.has(sqlState(error)) || attempt >= RETRIES) throw error;
      await pause(attempt + 1);
    }
  }
}

// The types the statements depend on (format_type's names); null: any type. Ids are text (a
// bounded varchar would refuse a long id at every retry), versions an unbounded numeric, the
// body bytea, data json (jsonb refuses a \u0000 a string may hold), times timestamptz (a
// timestamp without time zone is read in each session's TimeZone: two instances set
// differently would each see the other's lease as run out, and both handle a payment).
const TEXT = ['text', 'character varying'];
const TIME = ['timestamp with time zone'];
const COLUMNS = {
  events: {
    event_id: TEXT, payment_id: TEXT, status_version: ['numeric'], decision: null, received_at: TIME, body: ['bytea'],
    integration: TEXT, secret_kind: TEXT,
  },
  payments: {
    payment_id: TEXT, status_version: ['numeric'], event_id: TEXT, data: ['json'], updated_at: TIME, integration: TEXT,
    handled_version: ['numeric'],
  },
  quarantine: { id: null, received_at: TIME, code: null, body: ['bytea'] },
  orders: { payment_id: TEXT, order_ref: TEXT, source_amount: ['json'], integration: TEXT, created_at: TIME },
  fulfilment: {
    payment_id: TEXT, handled_version: ['numeric'], outcome: TEXT, code: TEXT, settled: ['boolean'], seen_at: TIME,
    attempts: null, next_attempt_at: TIME, lease_owner: TEXT, lease_until: TIME, updated_at: TIME,
    fulfil_version: ['numeric'], recheck_at: TIME,
  },
  schema: { name: TEXT, version: null },
};

// The one line that makes postgres.js's or Bun's SQL client a store's query.
const ADAPTER = 'wrap it, postgresStore({ query: async (text, values) => ({ rows: await sql.unsafe(text, values) }) })';

/** The rows of a query's result, or an error naming the shape an adapter must answer. */
function rowsOf(result) {
  if (result !== null && typeof result === 'object' && Array.isArray(result.rows)) return result.rows;
  throw invalid(`postgresStore's query(text, values) answered ${Array.isArray(result) ? 'an array' : 'no { rows } array'}: it resolves `
    + `{ rows: [...] }, as node-postgres does; for postgres.js's or Bun's SQL client, ${ADAPTER}`);
}

/**
 * client: a node-postgres Pool (recommended) or Client, or anything with
 * query(text, values) -> Promise<{ rows }>. options: { prefix?, createTables? }.
 */
export function postgresStore(client, options) {
  // postgres.js's sql and Bun's SQL are tagged-template functions, with no query(text, values).
  if (typeof client === 'function' && typeof client.unsafe === 'function') throw invalid(`postgresStore was given a tagged-template SQL client (postgres.js, Bun's SQL), which has no query(text, values): ${ADAPTER}`);
  expectClient(client, 'postgres', 'postgresStore', 'a node-postgres Pool or Client (or anything with query(text, values)); the receiver never opens a connection itself');
  // In a Worker a connection may not be used once the request that opened it has ended, and a
  // pg.Pool exists to keep connections: its second delivery waits on the first one's until
  // workerd cancels it as hung (a 500 with no log line, retried for ever). Refused at once.
  if (globalThis.navigator?.userAgent === 'Cloudflare-Workers' && typeof client.connect === 'function'
    && typeof client.totalCount === 'number' && typeof client.idleCount === 'number') {
    throw invalid('postgresStore was given a pg.Pool in a Cloudflare Worker, where a connection may not be used across requests: every delivery after the first would hang. Give it a client per statement through Hyperdrive, { query: (text, values) => ... a new pg.Client, connect, query, end }, as in the worker-postgres recipe');
  }
  // A node-postgres Client (connectionParameters is its own) from before pg 8.21 cannot say
  // whether your code holds a transaction open on it (getTransactionStatus): a statement of the
  // store run inside one would be acknowledged, and undone by its ROLLBACK. Refused at once.
  if (typeof client.connectionParameters === 'object' && client.connectionParameters !== null
    && typeof client.totalCount !== 'number' && typeof client.getTransactionStatus !== 'function') {
    throw invalid('postgresStore was given a node-postgres Client older than pg 8.21, which cannot tell whether your code holds a transaction open on it (a delivery recorded inside it would be acknowledged, then undone by its ROLLBACK): give the store a pg.Pool, or upgrade pg to 8.21 or later');
  }
  const { prefix, createTables } = storeOptions(options, ['prefix', 'createTables'], 'postgresStore');
  // A node-postgres Pool emits 'error' when an idle connection drops (the server restarted);
  // with no listener Node throws it and the receiver's process dies. The next query on that
  // connection fails instead, and is answered 503 (and logged) like any store failure.
  if (typeof client.on === 'function' && typeof client.listenerCount === 'function' && client.listenerCount('error') === 0) {
    client.on('error', () => {});
  }
  const sql = withPrefix(SQL, prefix);
  const eventsKey = `${prefix}events_pkey`;
  // node-postgres (a Pool or Client has connect()) keeps each statement prepared per
  // connection under its name: parsed and planned once, not at every delivery (measured: 1.7 to
  // 2.2 times the deliveries per second of unnamed statements). Through a pooler
  // that loses the names (NAME_LOST), the statement did not run: it is sent again unnamed, and
  // so is every later one of this store.
  let named = typeof client.connect === 'function';
  // A statement's name carries a digest of its text, so that a server connection a process of
  // another version of the package prepared (kept by a pooler that does not track names) never
  // runs that version's text for this one.
  const names = new Map();
  const nameOf = (name, text) => {
    let given = names.get(name);
    if (given === undefined) names.set(name, (given = `${prefix}${name}_${digest(text)}`));
    return given;
  };
  async function run(name, text, values) {
    if (named) {
      try {
        return await statement({ name: nameOf(name, text), text, values });
      } catch (error) {
        if (!NAME_LOST.has(sqlState(error))) throw error;
        named = false;
      }
    }
    return statement(text, values);
  }
  // The statement of that name, through retried().
  const rerun = (name, values) => retried(() => run(name, sql[name], values));

  // A node-postgres Client your code also runs its own BEGIN ... COMMIT on: a statement of the
  // store sent meanwhile runs inside that transaction, and answering 2xx for it would
  // acknowledge what your ROLLBACK (or a crash) can still undo. The status the server reports
  // after each statement says whether it ended inside a transaction block ('T'): then nothing
  // is acknowledged (503); the write commits or rolls back with your transaction, and the
  // service's retry finds it recorded (duplicate) or records it.
  // Whether a node-postgres connection's last statement ended inside a transaction block (the
  // status the server reports with each answer; unknown, so false, before pg 8.21).
  const insideTransaction = (connection) => typeof connection.getTransactionStatus === 'function'
    && connection.getTransactionStatus() === 'T';
  function outsideTransaction(result) {
    if (insideTransaction(client)) {
      throw new Error('postgresStore: the node-postgres Client given to the store is inside a transaction of your code (a BEGIN '
        + 'on the same connection, not yet committed): the receiver\'s statement ran inside it and is not acknowledged until '
        + 'it commits. Give the store a pg.Pool (each statement on a connection of its own), or a Client your code never uses');
    }
    return result;
  }
  // The same on a pg.Pool: a connection your code released inside a transaction (a BEGIN
  // whose COMMIT or ROLLBACK never ran) goes back to the pool as it is, and pool.query would
  // run the receiver's statement inside that transaction, acknowledged, then undone when the
  // connection closes. So each statement takes its connection (as pool.query does), and one
  // that ends inside a transaction is not acknowledged: the connection is closed (the server
  // rolls that transaction back) and the delivery answered 503; the service's retry records it.
  const isPool = typeof client.connect === 'function' && typeof client.totalCount === 'number';
  async function onPoolConnection(query, values) {
    const connection = await client.connect();
    let broken;
    // A connection lost meanwhile is the statement's error (an 'error' event with no listener
    // would end the process).
    const lost = (error) => { broken ??= error; };
    connection.on('error', lost);
    try {
      const result = await connection.query(query, values);
      if (insideTransaction(connection)) {
        broken = new Error('postgresStore: a connection of the pg.Pool given to the store was inside a transaction of your code '
          + '(released by your code after a BEGIN whose COMMIT or ROLLBACK never ran): the receiver\'s statement ran inside it and '
          + 'is not acknowledged; the connection was closed, which rolls that transaction back. Release a pool client only after '
          + 'COMMIT or ROLLBACK (client.release(error) when either failed)');
        throw broken;
      }
      return result;
    } catch (error) {
      broken ??= error;
      throw error;
    } finally {
      connection.removeListener('error', lost);
      // Released with the error, pg.Pool closes the connection rather than keep it (as
      // pool.query does).
      connection.release(broken);
    }
  }
  const statement = (query, values) => (isPool ? onPoolConnection(query, values) : client.query(query, values).then(outsideTransaction));

  // The columns of the tables (a row with no name for a table that is missing).
  const columns = async () => rowsOf(await client.query(sql.columns));
  // When the migration last gave up waiting for a lock (55P03) on this client: it is not tried
  // again for LOCK_BACKOFF_MS, since each try queues the other receivers' writes behind its
  // lock request for up to 5 s.
  const gaveUpAt = () => lockGaveUp.get(client)?.get(prefix) ?? null;
  async function schemaVersion() {
    const [tables] = rowsOf(await client.query(sql.tables));
    return versionOf(tables, flag(tables?.has_schema) ? (await client.query(sql.version)).rows[0] : undefined);
  }
  const missingTable = (rows) => !Array.isArray(rows) || rows.some((row) => !row.name);
  // A read at start refused for its privileges (a role granted nothing yet): the grants named,
  // as for a write; another failure no retry gets past (a pooler refusing a setting sent when
  // connecting, a Client whose connection broke): its fix named.
  async function readable(read) {
    try {
      return await read();
    } catch (error) {
      const fix = stuckFix(error);
      if (fix === null) throw error;
      const what = sqlState(error) === '42501' ? 'this role may not read the receiver\'s tables' : 'ready() failed';
      throw new Error(`postgresStore: ${what} (${describeError(error)}): ${fix}`, { cause: error });
    }
  }

  function checkDatabase(rows, version = SCHEMA_VERSION) {
    const encoding = rows?.[0]?.encoding;
    if (encoding !== 'UTF8') {
      throw new Error(`postgresStore: the database's server_encoding is ${encoding}, not UTF8: ids and data are UTF-8 text, and an event holding a character ${encoding} lacks (say "€") would fail at every retry. Create the database with ENCODING 'UTF8' (CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE template0) and connect to it`);
    }
    checkColumns(rows, COLUMNS, {
      prefix,
      version,
      what: 'postgresStore',
      // timestamp(3) with time zone is a timestamptz too.
      typeOf: (type) => ({ type: String(type).replace(/^timestamp\(\d\) with time zone$/, 'timestamp with time zone'), shown: type }),
      fix: 'The receiver\'s statements need the types of schema/postgres.sql: ALTER the columns (e.g. ALTER TABLE ... ALTER COLUMN status_version TYPE numeric USING status_version::numeric), or use another prefix to create new tables',
      missing: 'With createTables: false nothing is created: run dist/receiver/schema/postgres-schema.sql as the tables\' owner first '
        + '(your migration). If it ran, this connection sees another database, or a search_path without the tables\' schema, or a '
        + 'schema this role has no USAGE on (GRANT USAGE ON SCHEMA ... TO it)',
    });
  }

  return {
    kind: 'postgres',
    warnings: poolWarnings(client),
    maxStatusVersionDigits: NUMERIC_DIGITS,
    async ready() {
      // The schema runs only when a table is missing or the schema version is older than the
      // package's: where a migration (or an earlier start) made every table at this version,
      // no DDL runs, so a role that may only use the tables needs no createTables: false. The
      // schema is one simple query: one implicit transaction, under an advisory lock, that
      // also migrates tables of an older version in place. Then the encoding and the columns'
      // types; and, where no DDL ran, a read of every column (a role that may not read them
      // fails here, at start).
      const { version, rowLost } = await readable(schemaVersion);
      if (version > SCHEMA_VERSION) throw newerSchema('postgresStore', version);
      let rows = await readable(columns);
      // Tables of the first schema are checked before they are migrated.
      if (version === 1) checkDatabase(rows, 1);
      if (version > 0 && version < SCHEMA_VERSION && !createTables) throw olderSchema('postgresStore', version, 'postgres');
      const create = createTables && (missingTable(rows) || version < SCHEMA_VERSION || rowLost);
      if (create) {
        if (gaveUpAt() !== null && Date.now() - gaveUpAt() < LOCK_BACKOFF_MS) {
          throw new Error(`postgresStore: the schema migration gave up waiting for a lock (55P03) less than ${LOCK_BACKOFF_MS / 1000} s ago `
            + 'and is not tried again before (answered 503 meanwhile), so that the deliveries of receivers already running do not '
            + 'queue behind it at each delivery: end the long transaction (pg_stat_activity names it), or upgrade when none runs');
        }
        try {
          // Under REPEATABLE READ or SERIALIZABLE (a role's or database's default), two
          // receivers starting at once: the second's snapshot, taken before the advisory lock
          // let it on, misses the first's schema row (40001). Run again, it sees them.
          // node-postgres takes the statement's own time limit (the text alone, with no values,
          // is still one simple query: one implicit transaction).
          await retried(() => client.query(typeof client.connect === 'function'
            ? { text: sql.schema, query_timeout: MIGRATION_TIMEOUT_MS } : sql.schema));
        } catch (error) {
          if (sqlState(error) === LOCK_NOT_AVAILABLE) {
            if (!lockGaveUp.has(client)) lockGaveUp.set(client, new Map());
            lockGaveUp.get(client).set(prefix, Date.now());
            throw new Error('postgresStore: the schema migration gave up waiting for a lock (55P03), so that the deliveries of '
              + 'receivers already running do not queue behind it: a lock on the receiver\'s tables (it waits 5 s), held by a long '
              + 'transaction (a pg_dump, a report: pg_stat_activity names it), or the migration\'s advisory lock, held by another '
              + `receiver migrating (a large table takes longer); ready() runs it again at the first delivery ${LOCK_BACKOFF_MS / 1000} s `
              + 'later (answered 503 meanwhile): end that transaction, or upgrade when none runs', { cause: error });
          }
          if (sqlState(error) !== INSUFFICIENT_PRIVILEGE) throw error;
          if (version > 0 && version < SCHEMA_VERSION) {
            // Tables of an older version stand: migrating them takes their owner (ALTER TABLE),
            // not CREATE on the schema (even where the migration also makes new tables).
            throw new Error(`postgresStore: the tables are at schema version ${version}, older than this package's (${SCHEMA_VERSION}), and this role `
              + `may not migrate them (${describeError(error)}): run dist/receiver/schema/postgres-schema.sql as the tables' `
              + 'owner (it migrates them in place, rows kept), then start this receiver again', { cause: error });
          }
          throw new Error(`postgresStore: this role may not create the receiver's tables (${describeError(error)}): create them once ` +
            'as a role that may (dist/receiver/schema/postgres-schema.sql, in a migration; the tables, then ' +
            'GRANT SELECT, INSERT, UPDATE on them and USAGE on the quarantine id sequence to this role), or GRANT CREATE ON SCHEMA', { cause: error });
        }
        rows = await columns();
      }
      checkDatabase(rows);
      if (!create) await readable(() => client.query(sql.check));
      try {
        await client.query(sql.writable);
      } catch (error) {
        const fix = stuckFix(error);
        if (fix === null) throw error;
        throw new Error(`postgresStore: no delivery could be recorded (${describeError(error)}): ${fix}`, { cause: error });
      }
    },
    async record({ eventId, paymentId, statusVersion, data, body, integration = null, secretKind = null }) {
      for (let attempt = 0; ; attempt += 1) {
        let result;
        try {
          result = await run('record', sql.record, [eventId, paymentId, statusVersion, data, body, integration, secretKind]);
        } catch (error) {
          // Another transaction committed this event_id while this one was applying it: the
          // statement was rolled back whole, so nothing changed. Run again, it reads the event
          // stored: a duplicate, or integration_mismatch when another integration's secret
          // verified it. (The constraint's name: node-postgres and Bun.SQL say
          // error.constraint, postgres.js constraint_name.)
          if (sqlState(error) === UNIQUE_VIOLATION && (error.constraint ?? error.constraint_name) === eventsKey) {
            if (attempt < RETRIES) continue;
            return 'duplicate';
          }
          if (RETRIED.has(sqlState(error)) && attempt < RETRIES) {
            await pause(attempt + 1);
            continue;
          }
          throw error;
        }
        return decisionOf(result?.rows, 'postgresStore');
      }
    },
    async quarantine({ code, body, paymentId = null, integration = null }) {
      // The payment made due first, in its own statement: a failure after it answers 503 and
      // costs one more look at the payment; the delivery is acknowledged only once kept.
      if (paymentId !== null) await rerun('quarantine_due', [paymentId, integration]);
      await run('quarantine', sql.quarantine, [code, body]);
    },
    async listQuarantined({ afterId, limit }) {
      const { rows } = await run('quarantined', sql.quarantined, [String(afterId), limit]);
      return rows.map((row) => ({ id: Number(row.id), receivedAt: isoTime(row.received_at), code: row.code, body: bytes(row.body) }));
    },
    async recordOrder({ paymentId, orderRef, sourceAmount, integration }) {
      let [row] = (await rerun('order', [paymentId, orderRef, sourceAmount, integration])).rows;
      if (flag(row?.inserted)) return { inserted: true, stored: null };
      // Not inserted, yet not seen: another recordCreated committed it after this statement's
      // snapshot. Read it again (a new snapshot), for the caller to compare.
      if (row?.source_amount == null) [row] = (await rerun('order_read', [paymentId])).rows;
      return { inserted: false, stored: row?.source_amount == null ? null : { orderRef: row.order_ref, sourceAmount: row.source_amount, integration: row.integration } };
    },
    async claim({ owner, leaseSecs, batch, recoverAfterSecs, recheckClosedSecs = 0 }) {
      const { rows } = await rerun('claim', [owner, leaseSecs, batch, recoverAfterSecs, recheckClosedSecs]);
      return rows.map((row) => row.payment_id);
    },
    async load({ paymentId, owner, recoverAfterSecs, leaseSecs, recheckClosedSecs = 0 }) {
      const [row] = (await rerun('load', [paymentId, owner, recoverAfterSecs, leaseSecs, recheckClosedSecs])).rows;
      return row === undefined ? null : loaded(row);
    },
    async complete({ paymentId, owner, version, outcome, code, settled, recheckClosedSecs = 0 }) {
      const [row] = (await rerun('complete', [paymentId, owner, version, outcome, code, settled, recheckClosedSecs])).rows;
      // Nothing written: an order or a quarantine may have marked the lease (before the
      // statement, or after its snapshot was taken). A marked lease of this owner is given
      // back in a statement of its own; should that fail, the lease runs out (nothing was
      // written to undo).
      if (answeredFalse(row?.wrote)) await rerun('unmark', [paymentId, owner]).catch(() => {});
      return row?.handled_version ?? null;
    },
    async intend({ paymentId, owner, version, leaseSecs }) {
      const [row] = (await rerun('intend', [paymentId, owner, version, leaseSecs])).rows;
      return row === undefined ? null : String(row.fulfil_version);
    },
    async renew({ paymentId, owner, leaseSecs, marked = false }) {
      return (await rerun(marked ? 'keep' : 'renew', [paymentId, owner, leaseSecs])).rows.length > 0;
    },
    async retry({ paymentId, owner, delaySecs, code, loadedVersion }) {
      const [row] = (await rerun('retry', [paymentId, owner, delaySecs, code, loadedParam(loadedVersion)])).rows;
      return row === undefined ? null : Number(row.attempts);
    },
    async release({ owner }) {
      await rerun('release', [owner]);
    },
    async retryNow({ paymentId = null }) {
      return (await rerun('retry_now', [paymentId])).rows.length;
    },
  };
}

// FNV-1a (32 bits) of a statement's text, in base 36: a name, not a security measure.
function digest(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(36);
}
