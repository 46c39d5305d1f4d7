// Part of `make pkg` (called by build-pkg.mjs): the subpath export `cryptopay-verify/receiver`.
//
//   npm/src/receiver/**.mjs  -> dist/receiver/ (ESM, as written)
//   sql/*.sql (the schema, one file per dialect) -> dist/receiver/schema/ (to read, or to run in a
//        migration) and dist/receiver/sql.mjs, the same statements as JavaScript strings, so
//        no runtime (Workers least of all) reads a file at run time
//   dist/receiver/index.cjs            the ESM bundled for require(), with 'cryptopay-verify'
//        left external: the receiver then loads the package's own entry for the runtime (the
//        Node CJS entry under require, the ESM one under import, workerd's in Workers), so
//        one process never holds two WebAssembly instances because of the receiver
//   npm/types/receiver.d.ts  -> dist/receiver/index.d.ts and index.d.cts
//   receiver/package.json              a stub for resolvers that ignore "exports" (node10)

import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertMainNeverNames, bundleCjs, shipTypesAndStub } from './subpath.mjs';

/** Splits a .sql file into its `-- statement: NAME` sections, comments and blank lines dropped. */
export function readStatements(text) {
  const sections = {};
  let current = null;
  for (const line of text.split('\n')) {
    const start = /^-- statement: ([a-z_][a-z0-9_]*)\s*$/.exec(line);
    if (start) {
      current = start[1];
      sections[current] = [];
    } else if (current !== null && !/^\s*(--.*)?$/.test(line)) {
      sections[current].push(line.replace(/\s+--\s.*$/, '').trimEnd());
    }
  }
  return Object.fromEntries(Object.entries(sections).map(([name, lines]) => [name, lines.join('\n')]));
}

// The statements of one section, split at the semicolons that end a line.
const split = (text) => text.split(/;\n/).map((s) => s.replace(/;$/, '').trim()).filter(Boolean);

export function buildReceiver({ root, dist, out, fail }) {
  const src = join(root, 'npm', 'src', 'receiver');
  const target = join(dist, 'receiver');
  mkdirSync(join(target, 'stores'), { recursive: true });
  for (const file of readdirSync(src).filter((f) => f.endsWith('.mjs'))) cpSync(join(src, file), join(target, file));
  for (const file of readdirSync(join(src, 'stores'))) cpSync(join(src, 'stores', file), join(target, 'stores', file));
  const schemas = join(root, 'sql');
  cpSync(schemas, join(target, 'schema'), { recursive: true });

  // Each dialect's `schema` section alone, comments kept, for a migration run by psql, wrangler
  // or a migration tool: the whole files hold every statement, most with parameters.
  const schemaOf = (dialect, text) => {
    const from = text.indexOf('\n-- statement: schema\n');
    const to = text.indexOf('\n-- statement: ', from + 1);
    if (from < 0 || to < 0) fail(`schema/${dialect}.sql: no "-- statement: schema" section followed by another`);
    return text.slice(from + 1, to + 1);
  };
  const postgresText = readFileSync(join(schemas, 'postgres.sql'), 'utf8');
  writeFileSync(join(target, 'schema', 'postgres-schema.sql'), `-- cryptopay-verify/receiver: the PostgreSQL tables at this package's schema version, for a
-- migration: the \`schema\` statement of postgres.sql (beside this file), alone. Run it as the
-- tables' owner, in one transaction (psql -1 -v ON_ERROR_STOP=1 -f postgres-schema.sql, or
-- as one step of your migration tool): it creates the tables, migrates older ones in place
-- (rows kept), and changes nothing where they stand at this version. Another table prefix:
-- replace cryptopay_ throughout. Then grant the receiver's role what it uses (docs/receiver.md
-- of the repository), and give its store createTables: false.
${schemaOf('postgres', postgresText)}`);
  writeFileSync(join(target, 'schema', 'sqlite-schema.sql'), `-- cryptopay-verify/receiver: the SQLite and D1 tables at this package's schema version, for new
-- tables made by a migration: the \`schema\` statements of sqlite.sql (beside this file), alone.
-- D1: npx wrangler d1 execute <database> --remote --file sqlite-schema.sql (without --remote, the
-- local database of wrangler dev); SQLite, in one transaction that a failing statement leaves
-- undone: sqlite3 -bail receiver.sqlite BEGIN '.read sqlite-schema.sql' COMMIT (fed with <, the
-- sqlite3 shell goes on past an error and writes the version row of tables it left half made).
-- Tables of an older version: let ready() migrate them, or run sqlite.sql's migrate_ statements
-- first (this file alone stops at the first column they lack).
-- Another table prefix: replace cryptopay_ throughout. Then give the store createTables: false.
${schemaOf('sqlite', readFileSync(join(schemas, 'sqlite.sql'), 'utf8'))}`);

  const postgres = readStatements(postgresText);
  const sqlite = readStatements(readFileSync(join(schemas, 'sqlite.sql'), 'utf8'));
  const LOOP = ['quarantined', 'order', 'claim', 'load', 'intend', 'renew', 'keep', 'complete', 'retry', 'release', 'retry_now'];
  for (const [dialect, sections] of [['postgres', postgres], ['sqlite', sqlite]]) {
    const names = ['tables', 'version', 'schema', 'check', 'columns', 'writable', 'record', 'quarantine', ...LOOP,
      ...(dialect === 'postgres' ? ['unmark'] : []),
      ...(dialect === 'sqlite' ? ['apply', 'migrate_1', 'migrate_2', 'migrate_4', 'order_mark', 'order_unheld', 'order_state', 'order_read', 'claim_fresh', 'load_renew', 'complete_mark', 'complete_unmark'] : [])];
    for (const name of names) {
      if (!sections[name]) fail(`schema/${dialect}.sql has no "-- statement: ${name}" section`);
    }
  }
  // Sections that are several statements, run in one transaction.
  const MANY = new Set(['schema', 'migrate_1', 'migrate_2', 'migrate_4']);
  const statements = {
    // PostgreSQL runs its schema as one simple query (one implicit transaction).
    postgres: Object.fromEntries(Object.entries(postgres).map(([name, text]) => [name, name === 'schema' ? text : split(text)[0]])),
    // SQLite and D1 prepare one statement at a time.
    sqlite: Object.fromEntries(Object.entries(sqlite).map(([name, text]) => [name, MANY.has(name) ? split(text) : split(text)[0]])),
  };
  writeFileSync(join(target, 'sql.mjs'), `// Generated by scripts/build-receiver.mjs from schema/*.sql (read those): do not edit.
export const postgres = ${JSON.stringify(statements.postgres, null, 2)};
export const sqlite = ${JSON.stringify(statements.sqlite, null, 2)};
`);

  const cjs = bundleCjs({ root, target, fail, what: 'the receiver' });
  if (/require\("(pg|better-sqlite3|@libsql|node:)/.test(cjs)) fail('the receiver\'s CommonJS build requires a driver or a Node module');
  shipTypesAndStub({ root, dist, out, name: 'receiver' });
  assertMainNeverNames({ dist, fail, pattern: /createReceiver|(from|import\(|require\()\s*['"][^'"]*receiver/, what: 'the receiver' });
}
