// d1Store: Cloudflare D1 for Workers. Each delivery is one batch() of the three statements of
// schema/sqlite.sql (`foreign`, `apply`, `record`): D1 runs a batch as one transaction, so the
// decision and the writes are one atomic step shared by every isolate.
//
// D1 holds at most 2,000,000 bytes in a row: the store declares the largest body it records
// (D1_MAX_BODY_BYTES, limits.mjs) and the longest version (as PostgreSQL's), so that
// createReceiver answers a larger body 413 and quarantines a longer version, before writing.

import { D1_MAX_BODY_BYTES, NUMERIC_DIGITS } from '../limits.mjs';
import { sqlite as SQL } from '../sql.mjs';
import {
  bytes, expectClient, inClaimOrder, isoTime, loaded, loadedParam, sqliteDecisionOf, storeOptions, withPrefix,
} from './common.mjs';
import {
  SCHEMA_VERSION, checkSqliteColumns, migratesFrom, newerSchema, olderSchema, sqliteMigration, versionOf,
} from './schema.mjs';

/** binding: the D1 database binding (env.DB). options: { prefix?, createTables? }. */
export function d1Store(binding, options) {
  expectClient(binding, 'd1', 'd1Store', 'a D1 database binding (env.DB, declared under d1_databases in wrangler.jsonc)');
  const { prefix, createTables } = storeOptions(options, ['prefix', 'createTables'], 'd1Store');
  const sql = withPrefix(SQL, prefix);
  // A body is bound as a plain Uint8Array of its own bytes: not a Node Buffer, nor a view into
  // a larger buffer (Miniflare's binding proxy, used from Node, refuses both).
  const own = (body) => (Object.getPrototypeOf(body) === Uint8Array.prototype && body.byteOffset === 0
    && body.byteLength === body.buffer.byteLength ? body : new Uint8Array(body));
  const rows = async (statement) => (await statement.all())?.results ?? [];
  const first = async (statement) => (await rows(statement))[0];
  // The tables and indexes the schema makes and the indexes it drops, read from its statements
  // (with the prefix). When a statement is none of those nor the version row's upsert, the
  // schema is always run: what it does cannot be read back from sqlite_master.
  const nameOf = (pattern) => (statement) => pattern.exec(statement)?.[1] ?? [];
  const made = sql.schema.flatMap(nameOf(/^\s*CREATE (?:UNIQUE )?(?:TABLE|INDEX) IF NOT EXISTS (\w+)/));
  const dropped = sql.schema.flatMap(nameOf(/^\s*DROP INDEX IF EXISTS (\w+)/));
  const upserts = sql.schema.filter((statement) => /^\s*INSERT INTO \w+schema \(name, version\)/.test(statement)).length;
  const readable = made.length + dropped.length + upserts === sql.schema.length;
  const gone = dropped.length === 0 ? [''] : dropped; // IN () is not SQL; no table is named ''
  const marks = (names) => names.map(() => '?').join(', ');
  const standing = `SELECT (SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'index') AND name IN (${marks(made)})) AS made, `
    + `(SELECT count(*) FROM sqlite_master WHERE name IN (${marks(gone)})) AS dropped`;
  // Whether every table and index of the schema stands and none it drops does (the version
  // row said this version, so its upsert would change nothing).
  async function schemaStands() {
    if (!readable) return false;
    const row = await first(binding.prepare(standing).bind(...made, ...gone));
    return Number(row?.made) === made.length && Number(row?.dropped) === 0;
  }
  async function schemaVersion() {
    const tables = await first(binding.prepare(sql.tables));
    return versionOf(tables, Number(tables?.has_schema) > 0 ? await first(binding.prepare(sql.version)) : undefined);
  }

  return {
    kind: 'd1',
    maxBodyBytes: D1_MAX_BODY_BYTES,
    maxStatusVersionDigits: NUMERIC_DIGITS,
    async ready() {
      const { version, rowLost } = await schemaVersion();
      if (version > SCHEMA_VERSION) throw newerSchema('d1Store', version);
      // Tables of the first schema are checked before they are migrated.
      if (version === 1) checkSqliteColumns((await first(binding.prepare(sql.columns))), prefix, 'd1Store', 1);
      // Tables at this version whose every table and index stands are read, not made again: a
      // new isolate then runs four reads instead of the schema's statements, a write
      // transaction on the primary before its first answer. Anything missing: made as below.
      if (createTables && !(version === SCHEMA_VERSION && !rowLost && await schemaStands())) {
        // One batch, one transaction: the migration from version 1 or 2 (when needed), then the
        // schema. Another isolate migrating at once fails at the first ALTER (the column is
        // there) and rolls back: the tables are then found at this version; one that read the
        // columns after the other committed has no ALTER left, and the migration's UPDATEs
        // run only while the version row is older (sql/sqlite.sql).
        const migration = migratesFrom(version) ? sqliteMigration(sql, version, await first(binding.prepare(sql.columns)), prefix) : [];
        const statements = [...migration, ...sql.schema];
        try {
          await binding.batch(statements.map((statement) => binding.prepare(statement)));
        } catch (error) {
          if (migration.length === 0 || (await schemaVersion()).version !== SCHEMA_VERSION) throw error;
        }
      } else if (version > 0 && version < SCHEMA_VERSION) {
        throw olderSchema('d1Store', version, 'sqlite');
      }
      const { results } = await binding.prepare(sql.columns).all();
      checkSqliteColumns(results?.[0], prefix, 'd1Store');
      if (!createTables) await binding.prepare(sql.check).all();
    },
    async record({ eventId, paymentId, statusVersion, data, body, integration = null, secretKind = null }) {
      const [foreign, , recorded] = await binding.batch([
        binding.prepare(sql.foreign).bind(eventId, paymentId, integration),
        binding.prepare(sql.apply).bind(eventId, paymentId, statusVersion, data, integration),
        binding.prepare(sql.record).bind(eventId, paymentId, statusVersion, own(body), integration, secretKind),
      ]);
      return sqliteDecisionOf(foreign?.results, recorded?.results, 'd1Store');
    },
    async quarantine({ code, body, paymentId = null, integration = null }) {
      const keep = binding.prepare(sql.quarantine).bind(code, own(body));
      if (paymentId === null) await keep.run();
      else await binding.batch([binding.prepare(sql.quarantine_due).bind(paymentId, integration), keep]);
    },
    async listQuarantined({ afterId, limit }) {
      return (await rows(binding.prepare(sql.quarantined).bind(afterId, limit)))
        .map((row) => ({ id: Number(row.id), receivedAt: isoTime(row.received_at), code: row.code, body: bytes(row.body) }));
    },
    async recordOrder({ paymentId, orderRef, sourceAmount, integration }) {
      const results = await binding.batch([
        binding.prepare(sql.order_mark).bind(paymentId),
        binding.prepare(sql.order).bind(paymentId, orderRef, sourceAmount, integration),
        binding.prepare(sql.order_unheld).bind(paymentId),
        binding.prepare(sql.order_state).bind(paymentId),
        binding.prepare(sql.order_read).bind(paymentId),
      ]);
      const row = results?.[4]?.results?.[0];
      return { inserted: false, stored: row ? { orderRef: row.order_ref ?? null, sourceAmount: row.source_amount, integration: row.integration ?? null } : null };
    },
    async claim({ owner, leaseSecs, batch, recoverAfterSecs, recheckClosedSecs = 0 }) {
      const [, leased] = await binding.batch([
        binding.prepare(sql.claim_fresh).bind(batch),
        binding.prepare(sql.claim).bind(owner, leaseSecs, batch, recoverAfterSecs, recheckClosedSecs),
      ]);
      return inClaimOrder(leased?.results ?? []);
    },
    async load({ paymentId, owner, recoverAfterSecs, leaseSecs, recheckClosedSecs = 0 }) {
      const [, loadedRows] = await binding.batch([
        binding.prepare(sql.load_renew).bind(owner, leaseSecs, paymentId),
        binding.prepare(sql.load).bind(owner, recoverAfterSecs, paymentId, recheckClosedSecs),
      ]);
      const row = loadedRows?.results?.[0];
      return row === undefined ? null : loaded(row);
    },
    async complete({ paymentId, owner, version, outcome, code, settled, recheckClosedSecs = 0 }) {
      const [, , state] = await binding.batch([
        binding.prepare(sql.complete).bind(paymentId, owner, version, outcome, code, settled ? 1 : 0, recheckClosedSecs),
        binding.prepare(sql.complete_mark).bind(paymentId),
        binding.prepare(sql.complete_read).bind(paymentId),
        binding.prepare(sql.complete_unmark).bind(paymentId, owner),
      ]);
      return state?.results?.[0]?.handled_version ?? null;
    },
    async intend({ paymentId, owner, version, leaseSecs }) {
      const row = await first(binding.prepare(sql.intend).bind(paymentId, owner, version, leaseSecs));
      return row === undefined ? null : String(row.fulfil_version);
    },
    async renew({ paymentId, owner, leaseSecs, marked = false }) {
      return (await first(binding.prepare(marked ? sql.keep : sql.renew).bind(paymentId, owner, leaseSecs))) !== undefined;
    },
    async retry({ paymentId, owner, delaySecs, code, loadedVersion }) {
      const row = await first(binding.prepare(sql.retry).bind(paymentId, owner, delaySecs, code, loadedParam(loadedVersion)));
      return row === undefined ? null : Number(row.attempts);
    },
    async release({ owner }) {
      await binding.prepare(sql.release).bind(owner).run();
    },
    async retryNow({ paymentId = null }) {
      return (await rows(binding.prepare(sql.retry_now).bind(paymentId))).length;
    },
  };
}
