// libsqlStore: libsql and Turso through @libsql/client (a `Client` from createClient). Each
// delivery is one client.batch() of the two statements of schema/sqlite.sql (`apply`, then
// `record`) in "write" mode, which the client runs as one transaction: BEGIN IMMEDIATE ...
// COMMIT on one connection for a local file (so `record` reads `apply`'s changes()), one
// request for a remote database. Every client of the database, in any process, agrees.
//
// Not d1Store behind an adapter: the client's shape differs (execute/batch of { sql, args },
// rows rather than results), and d1Store declares D1's row limit (bodies over 1,800,000 bytes
// answered 413), which a libsql file does not have.

import { sqlite as SQL } from '../sql.mjs';
import { checkSqliteColumns, decisionOf, invalid, storeOptions, withPrefix } from './common.mjs';

const READ_ONLY = /SQLITE_READONLY|SQLITE_CANTOPEN|readonly database/;

/** client: a @libsql/client Client. options: { prefix?, createTables? }. */
export function libsqlStore(client, options) {
  if (client !== null && typeof client === 'object' && typeof client.prepare === 'function' && typeof client.batch === 'function'
    && typeof client.execute !== 'function') {
    throw invalid('libsqlStore was given what looks like a Cloudflare D1 binding: use d1Store(env.DB)');
  }
  if (client === null || typeof client !== 'object' || typeof client.execute !== 'function' || typeof client.batch !== 'function') {
    throw invalid('libsqlStore takes a libsql client: createClient({ url }) of @libsql/client (the receiver never opens one itself)');
  }
  const { prefix, createTables } = storeOptions(options, ['prefix', 'createTables'], 'libsqlStore');
  const sql = withPrefix(SQL, prefix);
  const statement = (text, args = []) => ({ sql: text, args });

  return {
    kind: 'libsql',
    async ready() {
      try {
        if (createTables) await client.batch(sql.schema.map((text) => statement(text)), 'write');
        const { rows } = await client.execute(statement(sql.columns));
        checkSqliteColumns(rows?.[0], prefix, 'libsqlStore');
        if (!createTables) await client.execute(statement(sql.check));
        // A write that changes nothing: a database no delivery could be written to fails here,
        // at start, rather than at every delivery.
        await client.batch([statement(sql.writable)], 'write');
      } catch (error) {
        if (READ_ONLY.test(`${error?.code} ${error?.message}`)) {
          // The driver's words (a batch's say its code twice), so the log names the state too.
          const said = String(error.message).replace(/^([A-Z_]+: )\1+/, '$1');
          throw Object.assign(new Error(`libsqlStore: no delivery could be written to this database (${said}): for a file, let this `
            + 'process write both the file and its folder (SQLite keeps its journal beside it); for a remote database, use a token '
            + 'that may write', { cause: error }), { code: error.code });
        }
        throw error;
      }
    },
    async record({ eventId, paymentId, statusVersion, data, body }) {
      const [, recorded] = await client.batch([
        statement(sql.apply, [eventId, paymentId, statusVersion, data]),
        statement(sql.record, [eventId, paymentId, statusVersion, body]),
      ], 'write');
      return decisionOf(recorded?.rows, 'libsqlStore');
    },
    async quarantine({ code, body }) {
      await client.execute(statement(sql.quarantine, [code, body]));
    },
  };
}
