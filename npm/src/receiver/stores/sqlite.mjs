// sqliteStore: the embedded store for one process, a file. Works with the synchronous
// drivers: better-sqlite3, bun:sqlite and node:sqlite (DatabaseSync).
//
// Durability: WAL with synchronous=FULL by default, so a commit is on disk (fsync) before
// its deliveries are answered. A commit costs one fsync, and SQLite has one writer at a time,
// so the deliveries that arrive together are committed together: each runs in the same
// BEGIN IMMEDIATE ... COMMIT (its statements, schema/sqlite.sql `foreign`, `apply`, `record`,
// see exactly what the ones before it wrote), and every one of them is answered only after
// that COMMIT returned. A failure rolls the group back; none of it is acknowledged.

import { sqlite as SQL } from '../sql.mjs';
import {
  bytes, expectClient, inClaimOrder, invalid, isoTime, loaded, loadedParam, sqliteDecisionOf, storeOptions, withPrefix,
} from './common.mjs';
import {
  IN_MEMORY, SCHEMA_VERSION, checkSqliteColumns, migratesFrom, newerSchema, olderSchema, sqliteMigration, versionOf,
} from './schema.mjs';

const SYNCHRONOUS = { OFF: 0, NORMAL: 1, FULL: 2, EXTRA: 3 };
// PRAGMA journal_size_limit: the WAL file's size after a checkpoint, at most (64 MiB).
const WAL_SIZE_LIMIT = 64 * 1024 * 1024;
// Errors of the database rather than of one delivery (SQLite's primary result codes): they
// fail every delivery of the group.
const SYSTEMIC = new Set([5, 6, 7, 8, 10, 11, 13, 14, 15, 26]); // BUSY LOCKED NOMEM READONLY IOERR CORRUPT FULL CANTOPEN PROTOCOL NOTADB
const SYSTEMIC_NAMES = /^SQLITE_(BUSY|LOCKED|NOMEM|READONLY|IOERR|CORRUPT|FULL|CANTOPEN|PROTOCOL|NOTADB)/;

function systemic(error) {
  const number = error?.errcode ?? error?.errno;
  if (typeof number === 'number' && SYSTEMIC.has(number & 0xff)) return true;
  return SYSTEMIC_NAMES.test(String(error?.code ?? ''));
}

const later = typeof setImmediate === 'function' ? setImmediate : (fn) => setTimeout(fn, 0);

/**
 * db: an open better-sqlite3 Database, a bun:sqlite Database or a node:sqlite DatabaseSync.
 * options: { prefix?, createTables?, synchronous? ('FULL' | 'EXTRA' | 'NORMAL'),
 *            busyTimeoutMs?, maxBatch? }.
 */
export function sqliteStore(db, options) {
  expectClient(db, 'sqlite', 'sqliteStore', 'an open synchronous SQLite database: better-sqlite3, bun:sqlite or node:sqlite (the receiver never opens one itself)');
  const opts = storeOptions(options, ['prefix', 'createTables', 'synchronous', 'busyTimeoutMs', 'maxBatch'], 'sqliteStore');
  const synchronous = opts.synchronous ?? 'FULL';
  if (!['FULL', 'EXTRA', 'NORMAL'].includes(synchronous)) {
    throw invalid('sqliteStore: synchronous is "FULL" (the default), "EXTRA" or "NORMAL" (NORMAL in WAL can lose the last commits on power loss); OFF is not offered');
  }
  const busyTimeoutMs = opts.busyTimeoutMs ?? 5000;
  const maxBatch = opts.maxBatch ?? 100;
  for (const [name, value, max] of [['busyTimeoutMs', busyTimeoutMs, 600_000], ['maxBatch', maxBatch, 10_000]]) {
    if (!Number.isSafeInteger(value) || value < (name === 'maxBatch' ? 1 : 0) || value > max) {
      throw invalid(`sqliteStore: ${name} is an integer from ${name === 'maxBatch' ? 1 : 0} to ${max}`);
    }
  }
  const sql = withPrefix(SQL, opts.prefix);

  // better-sqlite3 refuses get() on a statement that returns no rows (and run() on one that
  // does); the other drivers take either.
  const step = (statement, args) => (statement.reader === false ? (statement.run(...args), undefined) : statement.get(...args));
  const every = (statement, args) => (statement.reader === false ? (statement.run(...args), []) : statement.all(...args));
  const one = (text) => step(db.prepare(text), []);
  function schemaVersion() {
    const tables = one(sql.tables);
    return versionOf(tables, Number(tables?.has_schema) > 0 ? one(sql.version) : undefined);
  }

  let statements = null;
  const queue = [];
  let scheduled = false;

  function rollback() {
    try {
      statements.rollback.run();
    } catch {
      // SQLite already rolled back (it does so itself on some errors, e.g. SQLITE_FULL)
    }
  }

  // A connection your code holds a transaction open on (its BEGIN on the same Database object):
  // the group could neither commit apart from it nor roll back without ending it, so every
  // delivery is refused (503) and the transaction is left alone. better-sqlite3 and bun:sqlite
  // say so with inTransaction, node:sqlite with isTransaction (where its version has it).
  const openElsewhere = () => db.inTransaction === true || db.isTransaction === true;

  const insideYours = () => new Error('sqliteStore: the Database object given to the store is inside a transaction the store did not open '
    + '(a BEGIN of your code, not yet committed): nothing can be recorded apart from it, so deliveries are answered 503 '
    + 'until it ends. Give the store a Database object of its own (open the file again: SQLite\'s lock orders the two)');

  // Runs a group of writes in one transaction. Returns after settling every promise.
  function commitGroup(group) {
    if (openElsewhere()) {
      const error = insideYours();
      for (const item of group) item.reject(error);
      return;
    }
    let failed = -1;
    let begun = false;
    try {
      try {
        statements.begin.run();
      } catch (error) {
        // A driver that cannot say (node:sqlite before isTransaction): SQLite's own refusal of
        // a BEGIN inside a transaction tells; that transaction is left alone (no ROLLBACK).
        throw /within a transaction/i.test(String(error?.message)) ? insideYours() : error;
      }
      begun = true;
      const results = [];
      for (let i = 0; i < group.length; i += 1) {
        failed = i;
        results.push(group[i].write());
      }
      failed = -1;
      statements.commit.run();
      group.forEach((item, i) => item.resolve(results[i]));
    } catch (error) {
      // Only the store's own transaction is rolled back: a BEGIN that failed opened none.
      if (begun) rollback();
      if (failed < 0 || systemic(error) || group.length === 1) {
        for (const item of group) item.reject(error);
        return;
      }
      // One delivery's own error: it alone fails; the others are tried again.
      group[failed].reject(error);
      queue.unshift(...group.filter((_, i) => i !== failed));
      schedule();
    }
  }

  function flush() {
    scheduled = false;
    const group = queue.splice(0, maxBatch);
    if (queue.length > 0) schedule();
    if (group.length > 0) commitGroup(group);
  }

  function schedule() {
    if (!scheduled) {
      scheduled = true;
      later(flush);
    }
  }

  function ensureReady() {
    if (statements === null) throw new Error('sqliteStore: ready() has not completed');
  }

  const enqueue = (write) => new Promise((resolve, reject) => {
    if (statements === null) {
      reject(new Error('sqliteStore: ready() has not completed'));
      return;
    }
    queue.push({ write, resolve, reject });
    schedule();
  });

  // What ready() does; its errors are worded by ready().
  function prepare() {
    // The busy timeout first, so switching to WAL waits for another connection's lock.
    one(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    const journal = one('PRAGMA journal_mode = WAL');
    const mode = String(Object.values(journal ?? {})[0] ?? '').toLowerCase();
    if (mode === 'memory') throw new Error(IN_MEMORY('sqliteStore', "new Database('receiver.sqlite')"));
    if (mode !== 'wal') {
      throw new Error(`sqliteStore: the database could not switch to WAL (journal_mode is ${mode || 'unknown'})`);
    }
    one(`PRAGMA synchronous = ${synchronous}`);
    // The WAL file is cut back to this size after each checkpoint: without it, a WAL that a
    // long reader (a report, a backup) let grow keeps its largest size on disk until the last
    // connection closes.
    one(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
    const level = Number(Object.values(one('PRAGMA synchronous') ?? {})[0]);
    if (level !== SYNCHRONOUS[synchronous]) throw new Error(`sqliteStore: PRAGMA synchronous = ${synchronous} did not hold`);
    const begin = db.prepare('BEGIN IMMEDIATE');
    const commit = db.prepare('COMMIT');
    const rollbackStatement = db.prepare('ROLLBACK');
    if (opts.createTables) {
      // The version read and the migration in one write transaction: another process that
      // starts at once waits for it, then finds the tables at this version.
      begin.run();
      try {
        const { version } = schemaVersion();
        if (version > SCHEMA_VERSION) throw newerSchema('sqliteStore', version);
        // Tables of the first schema are checked before they are migrated.
        if (version === 1) checkSqliteColumns(one(sql.columns), opts.prefix, 'sqliteStore', 1);
        const migration = migratesFrom(version) ? sqliteMigration(sql, version, one(sql.columns), opts.prefix) : [];
        for (const statement of [...migration, ...sql.schema]) one(statement);
        commit.run();
      } catch (error) {
        try {
          rollbackStatement.run();
        } catch {
          // already rolled back
        }
        throw error;
      }
    }
    if (!opts.createTables) {
      const { version } = schemaVersion();
      if (version > SCHEMA_VERSION) throw newerSchema('sqliteStore', version);
      if (version === 1) checkSqliteColumns(one(sql.columns), opts.prefix, 'sqliteStore', 1);
      if (version > 0 && version < SCHEMA_VERSION) throw olderSchema('sqliteStore', version, 'sqlite');
    }
    checkSqliteColumns(one(sql.columns), opts.prefix, 'sqliteStore');
    if (!opts.createTables) one(sql.check);
    // A write that changes nothing, rolled back: a database this process cannot write fails
    // here, at start, rather than at every delivery.
    begin.run();
    try {
      one(sql.writable);
    } finally {
      rollbackStatement.run();
    }
    statements = {
      begin,
      commit,
      rollback: rollbackStatement,
      foreign: db.prepare(sql.foreign),
      apply: db.prepare(sql.apply),
      record: db.prepare(sql.record),
      quarantine: db.prepare(sql.quarantine),
      quarantineDue: db.prepare(sql.quarantine_due),
      quarantined: db.prepare(sql.quarantined),
      orderMark: db.prepare(sql.order_mark),
      order: db.prepare(sql.order),
      orderUnheld: db.prepare(sql.order_unheld),
      orderState: db.prepare(sql.order_state),
      orderRead: db.prepare(sql.order_read),
      claim: db.prepare(sql.claim),
      claimFresh: db.prepare(sql.claim_fresh),
      loadRenew: db.prepare(sql.load_renew),
      load: db.prepare(sql.load),
      complete: db.prepare(sql.complete),
      intend: db.prepare(sql.intend),
      renew: db.prepare(sql.renew),
      keep: db.prepare(sql.keep),
      completeMark: db.prepare(sql.complete_mark),
      completeRead: db.prepare(sql.complete_read),
      completeUnmark: db.prepare(sql.complete_unmark),
      retry: db.prepare(sql.retry),
      release: db.prepare(sql.release),
      retryNow: db.prepare(sql.retry_now),
    };
  }

  return {
    kind: 'sqlite',
    async ready() {
      try {
        prepare();
      } catch (error) {
        if (/^SQLITE_(READONLY|CANTOPEN)/.test(String(error?.code ?? '')) || /readonly database/i.test(String(error?.message))) {
          throw new Error(`sqliteStore: this process cannot write the database (${error.code ?? 'read-only'}): open it read-write, ` +
            'and let the process write both the file and its folder (WAL keeps -wal and -shm files beside it)', { cause: error });
        }
        throw error;
      }
    },
    record({ eventId, paymentId, statusVersion, data, body, integration = null, secretKind = null }) {
      return enqueue(() => {
        // No row is undefined, or null in bun:sqlite.
        const rows = (row) => (row === undefined || row === null ? [] : [row]);
        const foreign = rows(step(statements.foreign, [eventId, paymentId, integration]));
        if (foreign.length > 0) return sqliteDecisionOf(foreign, [], 'sqliteStore');
        step(statements.apply, [eventId, paymentId, statusVersion, data, integration]);
        // No row: the event_id was stored already.
        const recorded = rows(step(statements.record, [eventId, paymentId, statusVersion, body, integration, secretKind]));
        return sqliteDecisionOf(foreign, recorded, 'sqliteStore');
      });
    },
    quarantine({ code, body, paymentId = null, integration = null }) {
      return enqueue(() => {
        if (paymentId !== null) step(statements.quarantineDue, [paymentId, integration]);
        step(statements.quarantine, [code, body]);
      });
    },
    // The merchant loop: each write a group member (one transaction); reads see what committed.
    async listQuarantined({ afterId, limit }) {
      ensureReady();
      return every(statements.quarantined, [afterId, limit])
        .map((row) => ({ id: Number(row.id), receivedAt: isoTime(row.received_at), code: row.code, body: bytes(row.body) }));
    },
    recordOrder({ paymentId, orderRef, sourceAmount, integration }) {
      return enqueue(() => {
        step(statements.orderMark, [paymentId]);
        step(statements.order, [paymentId, orderRef, sourceAmount, integration]);
        step(statements.orderUnheld, [paymentId]);
        step(statements.orderState, [paymentId]);
        const row = step(statements.orderRead, [paymentId]);
        return { inserted: false, stored: row ? { orderRef: row.order_ref ?? null, sourceAmount: row.source_amount, integration: row.integration ?? null } : null };
      });
    },
    claim({ owner, leaseSecs, batch, recoverAfterSecs, recheckClosedSecs = 0 }) {
      return enqueue(() => {
        step(statements.claimFresh, [batch]);
        return inClaimOrder(every(statements.claim, [owner, leaseSecs, batch, recoverAfterSecs, recheckClosedSecs]));
      });
    },
    load({ paymentId, owner, recoverAfterSecs, leaseSecs, recheckClosedSecs = 0 }) {
      return enqueue(() => {
        step(statements.loadRenew, [owner, leaseSecs, paymentId]);
        const row = step(statements.load, [owner, recoverAfterSecs, paymentId, recheckClosedSecs]);
        return row === undefined || row === null ? null : loaded(row);
      });
    },
    complete({ paymentId, owner, version, outcome, code, settled, recheckClosedSecs = 0 }) {
      return enqueue(() => {
        step(statements.complete, [paymentId, owner, version, outcome, code, settled ? 1 : 0, recheckClosedSecs]);
        step(statements.completeMark, [paymentId]);
        const handled = step(statements.completeRead, [paymentId])?.handled_version ?? null;
        step(statements.completeUnmark, [paymentId, owner]);
        return handled;
      });
    },
    intend({ paymentId, owner, version, leaseSecs }) {
      return enqueue(() => {
        const row = step(statements.intend, [paymentId, owner, version, leaseSecs]);
        return row === undefined || row === null ? null : String(row.fulfil_version);
      });
    },
    renew({ paymentId, owner, leaseSecs, marked = false }) {
      return enqueue(() => {
        const row = step(marked ? statements.keep : statements.renew, [paymentId, owner, leaseSecs]);
        return row !== undefined && row !== null;
      });
    },
    retry({ paymentId, owner, delaySecs, code, loadedVersion }) {
      return enqueue(() => {
        const row = step(statements.retry, [paymentId, owner, delaySecs, code, loadedParam(loadedVersion)]);
        return row === undefined || row === null ? null : Number(row.attempts);
      });
    },
    release({ owner }) {
      return enqueue(() => {
        step(statements.release, [owner]);
      });
    },
    retryNow({ paymentId = null }) {
      return enqueue(() => every(statements.retryNow, [paymentId]).length);
    },
  };
}
