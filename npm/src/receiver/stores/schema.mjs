// The receiver's tables as this package writes them: the schema version, the migrations
// SQLite's tables take from an older one, and the check of the columns ready() finds.

import { answeredFalse, flag } from './common.mjs';

/**
 * The schema version of the tables this package writes (the row 'receiver' of the table
 * `<prefix>schema`): 1, the first tables (events, payments, quarantine; no version row); 2,
 * the merchant loop (orders, fulfilment, and the integration and version handled beside the
 * events and payments); 3, the fulfilment row's fulfil_version; 4, an index of closed payments
 * checked for late money (and on PostgreSQL the one whose statistics keep a claim cheap); 5,
 * the fulfilment row's recheck_at (when a closed payment's next check is due), indexed.
 * ready() migrates an older version forward, in one transaction.
 */
export const SCHEMA_VERSION = 5;

/**
 * The schema/sqlite.sql statements that alter tables of a version before `schema` runs, in
 * order (version 1 has no fulfilment table: `schema` makes it whole; 3 to 4 added an index,
 * which `schema` alone made).
 */
const SQLITE_MIGRATIONS = { 1: ['migrate_1'], 2: ['migrate_2', 'migrate_4'], 3: ['migrate_4'], 4: ['migrate_4'] };

/**
 * The tables' schema version, from the `tables` statement's row and, when the schema table
 * stands, the `version` statement's: 0 for no tables; the version row's; without one (the
 * first schema's tables, or a later one's whose row was lost), the version their columns
 * show, with `rowLost` (the schema then runs, and writes the row again).
 */
export function versionOf(tables, versionRow) {
  const version = versionRow?.version;
  if (version !== null && version !== undefined) return { version: Number(version), rowLost: false };
  return flag(tables?.has_events) ? { version: Number(tables?.columns_version), rowLost: true } : { version: 0, rowLost: false };
}

/** ready() on tables a newer package made: never written by this one. */
export const newerSchema = (what, version) => new Error(`${what}: the tables are at schema version ${version}, newer than `
  + `this package's (${SCHEMA_VERSION}): a newer cryptopay-verify made them, and an older one does not write them; upgrade this `
  + 'one, or, rolling back on purpose, take the rollback step of the newer package\'s guide first (docs/merchant-loop.md, '
  + '"Upgrading": a version row set back)');

/** ready() with createTables: false on tables of an older version. */
export const olderSchema = (what, version, dialect) => new Error(`${what}: the tables are at schema version ${version}, `
  + `older than this package's (${SCHEMA_VERSION}), and createTables is false: run `
  + `${dialect === 'postgres' ? 'dist/receiver/schema/postgres-schema.sql' : 'the schema statements of dist/receiver/schema/sqlite.sql'} as their owner (${dialect === 'postgres' ? 'it migrates them in place, rows kept'
    : SQLITE_MIGRATIONS[version] === undefined ? 'the `schema` statements, in one transaction'
      : `the ${SQLITE_MIGRATIONS[version].map((name) => `\`${name}\``).join(' then the ')} statements, then the \`schema\` ones, in one transaction`}), `
  + 'or let ready() do it (createTables: true)');

/** ready() on a SQLite database with no file: everything acknowledged would end with the process. */
export const IN_MEMORY = (what, open) => `${what}: the database is in memory (':memory:'), so every event it acknowledged `
  + `would be lost when the process ends, and the service would not send it again: open a file (${open}); `
  + 'for tests, memoryStore() is named so';

/** Whether tables of schema `version` take migration statements (and so a read of their columns). */
export const migratesFrom = (version) => SQLITE_MIGRATIONS[version] !== undefined;

/**
 * The statements of schema/sqlite.sql that take tables of schema `version` to the next one
 * before `schema` runs (`schema` then makes what a later version adds): none for new tables.
 * `columnsRow`: the `columns` statement's row, read before (the tables' columns as they stand).
 */
export function sqliteMigration(sql, version, columnsRow, prefix) {
  const statements = (SQLITE_MIGRATIONS[version] ?? []).flatMap((name) => sql[name]);
  // A column that stands is not added again (SQLite has no ADD COLUMN IF NOT EXISTS): tables
  // set back to an older version by hand keep the columns the newer one added, and an ALTER
  // would fail every start with "duplicate column name".
  let present;
  try {
    present = new Set(JSON.parse(columnsRow?.columns ?? '[]').map((c) => `${prefix}${c.suffix}.${c.name}`));
  } catch {
    present = new Set();
  }
  return statements.filter((statement) => {
    const added = /^\s*ALTER TABLE (\w+) ADD COLUMN (\w+)/.exec(statement);
    return added === null || !present.has(`${added[1]}.${added[2]}`);
  });
}

/**
 * Checks the tables' columns, as read from the database ({ suffix, name, type } rows, a row
 * with no name for a table that is missing) against `expected`: { suffix: { column: [types]
 * or null (any type) } }. `typeOf(type)` gives the comparable type and how to show it.
 * Throws one error naming every table, column, type found and type expected that differ.
 */
export function checkColumns(rows, expected, { prefix, what, typeOf, fix, missing = fix, version = SCHEMA_VERSION }) {
  const found = new Map();
  const undefaulted = new Set();
  const unkeyed = new Set();
  for (const row of rows) {
    if (!found.has(row.suffix)) found.set(row.suffix, new Map());
    if (row.name) found.get(row.suffix).set(row.name, row.type);
    if (row.name && answeredFalse(row.defaulted)) undefaulted.add(`${row.suffix}.${row.name}`);
    if (row.name && answeredFalse(row.keyed)) unkeyed.add(`${row.suffix}.${row.name}`);
  }
  const problems = [];
  for (const [suffix, columns] of Object.entries(version === 1 ? firstSchema(expected) : expected)) {
    const have = found.get(suffix) ?? new Map();
    if (have.size === 0) {
      // Before a migration (version 1), a missing table is made by it.
      if (version !== 1) problems.push(`no such table: ${prefix}${suffix}`);
      continue;
    }
    for (const [name, types] of Object.entries(columns)) {
      if (!have.has(name)) {
        problems.push(`${prefix}${suffix}.${name} is missing${types ? ` (expected ${types[0]})` : ''}`);
      } else if (types) {
        const { type, shown } = typeOf(have.get(name));
        if (!types.includes(type)) problems.push(`${prefix}${suffix}.${name} is ${shown}, expected ${types[0]}`);
      }
      if (KEYS[suffix] === name && unkeyed.has(`${suffix}.${name}`)) {
        problems.push(`${prefix}${suffix}.${name} is neither a primary key nor unique on its own (the receiver's statements insert ON CONFLICT (${name}): without it every one fails)`);
      }
      if (DEFAULTED[suffix]?.includes(name) && undefaulted.has(`${suffix}.${name}`)) {
        problems.push(`${prefix}${suffix}.${name} has no default (the receiver's statements leave it to the table's, as the schema declares it: without, it holds NULL)`);
      }
    }
  }
  if (problems.length === 0) return;
  // Tables missing and nothing else (createTables: false before the migration ran, or another
  // database): what creates them, not what mends their columns.
  const onlyMissing = problems.every((problem) => problem.startsWith('no such table: '));
  throw new Error(`${what}: ${problems.join('; ')}. ${onlyMissing ? missing : fix}`);
}

// The column each table's ON CONFLICT names: a primary key (or unique) of its own.
const KEYS = { events: 'event_id', payments: 'payment_id', orders: 'payment_id', fulfilment: 'payment_id', schema: 'name' };

// The columns the receiver's statements never write on insert, left to the table's default.
const DEFAULTED = {
  events: ['received_at'],
  payments: ['updated_at'],
  quarantine: ['id', 'received_at'],
  orders: ['created_at'],
  fulfilment: ['settled', 'seen_at', 'attempts', 'updated_at'],
};

// The columns of schema version 1, checked before a migration: tables of the wrong types
// are refused naming the column, rather than failing inside the migration.
const FIRST_SCHEMA = {
  events: ['event_id', 'payment_id', 'status_version', 'decision', 'received_at', 'body'],
  payments: ['payment_id', 'status_version', 'event_id', 'data', 'updated_at'],
  quarantine: ['id', 'received_at', 'code', 'body'],
};
const firstSchema = (expected) => Object.fromEntries(Object.entries(FIRST_SCHEMA)
  .map(([suffix, names]) => [suffix, Object.fromEntries(names.map((name) => [name, expected[suffix][name]]))]));

// SQLite's type affinity of a declared column type (https://sqlite.org/datatype3.html, 3.1).
function affinity(declared) {
  const type = String(declared ?? '').toUpperCase();
  if (type.includes('INT')) return 'INTEGER';
  if (/CHAR|CLOB|TEXT/.test(type)) return 'TEXT';
  if (type === '' || type.includes('BLOB')) return 'BLOB';
  if (/REAL|FLOA|DOUB/.test(type)) return 'REAL';
  return 'NUMERIC';
}

// SQLite compares the versions as digit text and the ids as text: those columns need TEXT
// affinity. The others only need to be there.
const TEXT_AFFINITY = ['TEXT affinity'];
const SQLITE_COLUMNS = {
  events: {
    event_id: TEXT_AFFINITY, payment_id: TEXT_AFFINITY, status_version: TEXT_AFFINITY, decision: null, received_at: null, body: null,
    integration: TEXT_AFFINITY, secret_kind: null,
  },
  payments: {
    payment_id: TEXT_AFFINITY, status_version: TEXT_AFFINITY, event_id: TEXT_AFFINITY, data: null, updated_at: null,
    integration: TEXT_AFFINITY, handled_version: TEXT_AFFINITY,
  },
  quarantine: { id: null, received_at: null, code: null, body: null },
  orders: { payment_id: TEXT_AFFINITY, order_ref: TEXT_AFFINITY, source_amount: TEXT_AFFINITY, integration: TEXT_AFFINITY, created_at: null },
  fulfilment: {
    payment_id: TEXT_AFFINITY, handled_version: TEXT_AFFINITY, outcome: null, code: null, settled: null, seen_at: TEXT_AFFINITY,
    attempts: null, next_attempt_at: TEXT_AFFINITY, lease_owner: TEXT_AFFINITY, lease_until: TEXT_AFFINITY, updated_at: null,
    fulfil_version: TEXT_AFFINITY, recheck_at: TEXT_AFFINITY,
  },
  schema: { name: TEXT_AFFINITY, version: null },
};

/** checkColumns for SQLite and D1, given the row of the `columns` statement of schema/sqlite.sql. */
export function checkSqliteColumns(row, prefix, what, version = SCHEMA_VERSION) {
  const columns = JSON.parse(row?.columns ?? 'null');
  if (!Array.isArray(columns)) throw new Error(`${what}: the columns check returned no list`);
  checkColumns(columns, SQLITE_COLUMNS, {
    prefix,
    what,
    version,
    typeOf: (declared) => ({ type: `${affinity(declared)} affinity`, shown: `${declared || 'declared without a type'} (${affinity(declared)} affinity)` }),
    fix: 'The receiver compares ids and versions as text, as schema/sqlite.sql declares them: recreate the table with those types, or use another prefix to create new tables',
    missing: 'With createTables: false nothing is created: run the schema statements of dist/receiver/schema/sqlite.sql first '
      + '(your migration), or give the store the database that holds the tables',
  });
}
