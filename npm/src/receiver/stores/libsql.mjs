// libsqlStore: libsql and Turso through @libsql/client (a `Client` from createClient). Each
// delivery is one client.batch() of the three statements of schema/sqlite.sql (`foreign`,
// `apply`, `record`) in "write" mode, which the client runs as one transaction: BEGIN IMMEDIATE ...
// COMMIT on one connection for a local file (so `record` reads `apply`'s changes()), one
// request for a remote database. Every client of the database, in any process, agrees.
//
// Not d1Store behind an adapter: the client's shape differs (execute/batch of { sql, args },
// rows rather than results), and d1Store declares D1's row limit (bodies over 1,800,000 bytes
// answered 413), which a libsql file does not have.

import { sqlite as SQL } from '../sql.mjs';
import {
  bytes, describeError, expectClient, inClaimOrder, isoTime, loaded, loadedParam, sqliteDecisionOf, storeOptions, withPrefix,
} from './common.mjs';
import {
  IN_MEMORY, SCHEMA_VERSION, checkSqliteColumns, migratesFrom, newerSchema, olderSchema, sqliteMigration, versionOf,
} from './schema.mjs';

const READ_ONLY = /SQLITE_READONLY|SQLITE_CANTOPEN|readonly database/;

/** client: a @libsql/client Client. options: { prefix?, createTables? }. */
export function libsqlStore(client, options) {
  expectClient(client, 'libsql', 'libsqlStore', 'a libsql client: createClient({ url }) of @libsql/client (the receiver never opens one itself)');
  const { prefix, createTables } = storeOptions(options, ['prefix', 'createTables'], 'libsqlStore');
  const sql = withPrefix(SQL, prefix);
  const statement = (text, args = []) => ({ sql: text, args });
  const first = async (text, args) => (await client.execute(statement(text, args))).rows?.[0];
  async function schemaVersion() {
    const tables = await first(sql.tables);
    return versionOf(tables, Number(tables?.has_schema) > 0 ? await first(sql.version) : undefined);
  }
  const storedOrder = (row) => (row ? { orderRef: row.order_ref ?? null, sourceAmount: String(row.source_amount), integration: row.integration ?? null } : null);

  return {
    kind: 'libsql',
    async ready() {
      // A local database with no file (':memory:'): gone with the process, acknowledged or not.
      if (client.protocol === 'file' && (await first('PRAGMA database_list'))?.file === '') {
        throw new Error(IN_MEMORY('libsqlStore', "createClient({ url: 'file:receiver.db' })"));
      }
      try {
        const { version } = await schemaVersion();
        if (version > SCHEMA_VERSION) throw newerSchema('libsqlStore', version);
        // Tables of the first schema are checked before they are migrated.
        if (version === 1) checkSqliteColumns(await first(sql.columns), prefix, 'libsqlStore', 1);
        if (createTables) {
          // One write batch, one transaction: the migration from version 1 or 2 (when needed),
          // then the schema. A client migrating at once fails at the first ALTER and rolls
          // back: the tables are then found at this version (or, having read the columns after
          // the other committed, runs no ALTER, and the UPDATEs see the version: sqlite.sql).
          const migration = migratesFrom(version) ? sqliteMigration(sql, version, await first(sql.columns), prefix) : [];
          const statements = [...migration, ...sql.schema];
          try {
            await client.batch(statements.map((text) => statement(text)), 'write');
          } catch (error) {
            if (migration.length === 0 || (await schemaVersion()).version !== SCHEMA_VERSION) throw error;
          }
        } else if (version > 0 && version < SCHEMA_VERSION) {
          throw olderSchema('libsqlStore', version, 'sqlite');
        }
        const { rows } = await client.execute(statement(sql.columns));
        checkSqliteColumns(rows?.[0], prefix, 'libsqlStore');
        if (!createTables) await client.execute(statement(sql.check));
        // A write that changes nothing: a database no delivery could be written to fails here,
        // at start, rather than at every delivery.
        await client.batch([statement(sql.writable)], 'write');
      } catch (error) {
        if (READ_ONLY.test(`${error?.code} ${error?.message}`)) {
          // The driver's words (a batch's say its code twice), so the log names the state too.
          const said = describeError(error).replace(/^([A-Z_]+: )\1+/, '$1');
          throw Object.assign(new Error(`libsqlStore: no delivery could be written to this database (${said}): for a file, let this `
            + 'process write both the file and its folder (SQLite keeps its journal beside it); for a remote database, use a token '
            + 'that may write', { cause: error }), { code: error.code });
        }
        throw error;
      }
    },
    async record({ eventId, paymentId, statusVersion, data, body, integration = null, secretKind = null }) {
      const [foreign, , recorded] = await client.batch([
        statement(sql.foreign, [eventId, paymentId, integration]),
        statement(sql.apply, [eventId, paymentId, statusVersion, data, integration]),
        statement(sql.record, [eventId, paymentId, statusVersion, body, integration, secretKind]),
      ], 'write');
      return sqliteDecisionOf(foreign?.rows, recorded?.rows, 'libsqlStore');
    },
    async quarantine({ code, body, paymentId = null, integration = null }) {
      if (paymentId === null) await client.execute(statement(sql.quarantine, [code, body]));
      else await client.batch([statement(sql.quarantine_due, [paymentId, integration]), statement(sql.quarantine, [code, body])], 'write');
    },
    async listQuarantined({ afterId, limit }) {
      const { rows } = await client.execute(statement(sql.quarantined, [afterId, limit]));
      return rows.map((row) => ({ id: Number(row.id), receivedAt: isoTime(row.received_at), code: row.code, body: bytes(row.body) }));
    },
    async recordOrder({ paymentId, orderRef, sourceAmount, integration }) {
      const results = await client.batch([
        statement(sql.order_mark, [paymentId]),
        statement(sql.order, [paymentId, orderRef, sourceAmount, integration]),
        statement(sql.order_unheld, [paymentId]),
        statement(sql.order_state, [paymentId]),
        statement(sql.order_read, [paymentId]),
      ], 'write');
      return { inserted: false, stored: storedOrder(results?.[4]?.rows?.[0]) };
    },
    async claim({ owner, leaseSecs, batch, recoverAfterSecs, recheckClosedSecs = 0 }) {
      const [, leased] = await client.batch([
        statement(sql.claim_fresh, [batch]),
        statement(sql.claim, [owner, leaseSecs, batch, recoverAfterSecs, recheckClosedSecs]),
      ], 'write');
      return inClaimOrder(leased?.rows ?? []);
    },
    async load({ paymentId, owner, recoverAfterSecs, leaseSecs, recheckClosedSecs = 0 }) {
      const [, loadedRows] = await client.batch([
        statement(sql.load_renew, [owner, leaseSecs, paymentId]),
        statement(sql.load, [owner, recoverAfterSecs, paymentId, recheckClosedSecs]),
      ], 'write');
      const row = loadedRows?.rows?.[0];
      return row === undefined ? null : loaded(row);
    },
    async complete({ paymentId, owner, version, outcome, code, settled, recheckClosedSecs = 0 }) {
      const [, , state] = await client.batch([
        statement(sql.complete, [paymentId, owner, version, outcome, code, settled ? 1 : 0, recheckClosedSecs]),
        statement(sql.complete_mark, [paymentId]),
        statement(sql.complete_read, [paymentId]),
        statement(sql.complete_unmark, [paymentId, owner]),
      ], 'write');
      const handled = state?.rows?.[0]?.handled_version;
      return handled === undefined || handled === null ? null : String(handled);
    },
    async intend({ paymentId, owner, version, leaseSecs }) {
      const [intended] = await client.batch([statement(sql.intend, [paymentId, owner, version, leaseSecs])], 'write');
      const row = intended?.rows?.[0];
      return row === undefined ? null : String(row.fulfil_version);
    },
    async renew({ paymentId, owner, leaseSecs, marked = false }) {
      const [renewed] = await client.batch([statement(marked ? sql.keep : sql.renew, [paymentId, owner, leaseSecs])], 'write');
      return (renewed?.rows?.length ?? 0) > 0;
    },
    async retry({ paymentId, owner, delaySecs, code, loadedVersion }) {
      const [retried] = await client.batch([statement(sql.retry, [paymentId, owner, delaySecs, code, loadedParam(loadedVersion)])], 'write');
      const row = retried?.rows?.[0];
      return row === undefined ? null : Number(row.attempts);
    },
    async release({ owner }) {
      await client.batch([statement(sql.release, [owner])], 'write');
    },
    async retryNow({ paymentId = null }) {
      const [made] = await client.batch([statement(sql.retry_now, [paymentId])], 'write');
      return made?.rows?.length ?? 0;
    },
  };
}
