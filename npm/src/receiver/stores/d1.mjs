// d1Store: Cloudflare D1 for Workers. Each delivery is one batch() of the two statements of
// schema/sqlite.sql (`apply`, then `record`): D1 runs a batch as one transaction, so the
// decision and the writes are one atomic step shared by every isolate.
//
// D1 holds at most 2,000,000 bytes in a row: the store declares the largest body it records
// (D1_MAX_BODY_BYTES, limits.mjs) and the longest version (as PostgreSQL's), so that
// createReceiver answers a larger body 413 and quarantines a longer version, before writing.

import { D1_MAX_BODY_BYTES, NUMERIC_DIGITS } from '../limits.mjs';
import { sqlite as SQL } from '../sql.mjs';
import { checkSqliteColumns, decisionOf, invalid, storeOptions, withPrefix } from './common.mjs';

/** binding: the D1 database binding (env.DB). options: { prefix?, createTables? }. */
export function d1Store(binding, options) {
  if (binding !== null && typeof binding === 'object' && typeof binding.execute === 'function' && typeof binding.prepare !== 'function') {
    throw invalid('d1Store was given what looks like a libsql client (@libsql/client, Turso): use libsqlStore(client)');
  }
  if (binding === null || typeof binding !== 'object' || typeof binding.prepare !== 'function'
    || typeof binding.batch !== 'function') {
    throw invalid('d1Store takes a D1 database binding (env.DB, declared under d1_databases in wrangler.jsonc)');
  }
  const { prefix, createTables } = storeOptions(options, ['prefix', 'createTables'], 'd1Store');
  const sql = withPrefix(SQL, prefix);

  return {
    kind: 'd1',
    maxBodyBytes: D1_MAX_BODY_BYTES,
    maxStatusVersionDigits: NUMERIC_DIGITS,
    async ready() {
      if (createTables) await binding.batch(sql.schema.map((statement) => binding.prepare(statement)));
      const { results } = await binding.prepare(sql.columns).all();
      checkSqliteColumns(results?.[0], prefix, 'd1Store');
      if (!createTables) await binding.prepare(sql.check).all();
    },
    async record({ eventId, paymentId, statusVersion, data, body }) {
      const [, recorded] = await binding.batch([
        binding.prepare(sql.apply).bind(eventId, paymentId, statusVersion, data),
        binding.prepare(sql.record).bind(eventId, paymentId, statusVersion, body),
      ]);
      return decisionOf(recorded?.results, 'd1Store');
    },
    async quarantine({ code, body }) {
      await binding.prepare(sql.quarantine).bind(code, body).run();
    },
  };
}
