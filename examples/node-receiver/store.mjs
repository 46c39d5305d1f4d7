// Where the example records deliveries: a SQLite file in DATA_DIR by default (one process),
// PostgreSQL when DATABASE_URL is set (any number of instances). The receiver is given the
// open client; it creates its tables at ready().
//
// Also the read views behind GET /events, /payments and /payments/:id, straight from the
// tables (cryptopay_events, cryptopay_payments), for inspection.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { postgresStore, sqliteStore } from 'cryptopay-verify/receiver';

const LIMIT = 1000; // rows a view returns at most

// The driver, imported only when used (pg is not needed for SQLite, nor the reverse).
async function driver(name) {
  try {
    return (await import(name)).default;
  } catch (error) {
    if (error.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new Error(`the package ${name} is not installed: npm install ${name}`);
  }
}

const text = (body) => Buffer.from(body).toString('utf8'); // a verified event is UTF-8 JSON

function eventView(row) {
  return {
    event_id: row.event_id,
    payment_id: row.payment_id,
    status_version: String(row.status_version),
    decision: row.decision,
    received_at: new Date(row.received_at).toISOString(),
    body: text(row.body),
  };
}

function paymentView(row) {
  return {
    payment_id: row.payment_id,
    status_version: String(row.status_version),
    event_id: row.event_id,
    data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data,
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

// better-sqlite3's native addon is built by its install script, which npm 12 and later run only
// when package.json's allowScripts approves it (this folder's does): when it did not run, say
// what to run rather than the paths the addon was looked for at.
function openDatabase(Database, file) {
  try {
    return new Database(file);
  } catch (error) {
    if (!String(error?.message).startsWith('Could not locate the bindings file')) throw error;
    throw new Error('better-sqlite3\'s native addon is not built (npm 12 and later skip its install script unless '
      + 'package.json\'s allowScripts approves it): run npm install-scripts approve better-sqlite3, then npm rebuild '
      + 'better-sqlite3; or set DATABASE_URL for PostgreSQL', { cause: error });
  }
}

async function openSqlite(dataDir) {
  const Database = await driver('better-sqlite3');
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'receiver.sqlite');
  const db = openDatabase(Database, file);
  const all = (sql, ...args) => db.prepare(sql).all(...args);
  return {
    description: `SQLite file ${file}`,
    store: sqliteStore(db),
    async counts() {
      const [{ events }] = all('SELECT count(*) AS events FROM cryptopay_events');
      const [{ payments }] = all('SELECT count(*) AS payments FROM cryptopay_payments');
      return { events, payments };
    },
    async events() {
      return all(`SELECT * FROM cryptopay_events ORDER BY rowid LIMIT ${LIMIT}`).map(eventView);
    },
    async payments() {
      return all(`SELECT * FROM cryptopay_payments ORDER BY payment_id LIMIT ${LIMIT}`).map(paymentView);
    },
    async payment(id) {
      const [row] = all('SELECT * FROM cryptopay_payments WHERE payment_id = ?', id);
      return row && paymentView(row);
    },
    async close() {
      db.close();
    },
  };
}

async function openPostgres(databaseUrl) {
  const pg = await driver('pg');
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    connectionTimeoutMillis: 5_000, // a server that does not answer is a 503, not a hang
    query_timeout: 10_000,
  });
  const all = async (sql, values) => (await pool.query(sql, values)).rows;
  // The URL is never printed: it may hold a password.
  const where = (() => {
    try {
      const url = new URL(databaseUrl);
      return `${url.searchParams.get('host') ?? url.hostname}${url.pathname}`;
    } catch {
      return '(DATABASE_URL)';
    }
  })();
  return {
    description: `PostgreSQL ${where}`,
    store: postgresStore(pool),
    async counts() {
      const [{ events, payments }] = await all(`SELECT (SELECT count(*) FROM cryptopay_events)::int AS events,
        (SELECT count(*) FROM cryptopay_payments)::int AS payments`);
      return { events, payments };
    },
    async events() {
      return (await all(`SELECT * FROM cryptopay_events ORDER BY received_at, event_id LIMIT ${LIMIT}`)).map(eventView);
    },
    async payments() {
      return (await all(`SELECT * FROM cryptopay_payments ORDER BY payment_id LIMIT ${LIMIT}`)).map(paymentView);
    },
    async payment(id) {
      const [row] = await all('SELECT * FROM cryptopay_payments WHERE payment_id = $1', [id]);
      return row && paymentView(row);
    },
    async close() {
      await pool.end();
    },
  };
}

/** config: { dataDir, databaseUrl? }. Resolves { description, store, counts, events, payments, payment, close }. */
export function openStore(config) {
  return config.databaseUrl ? openPostgres(config.databaseUrl) : openSqlite(config.dataDir);
}
