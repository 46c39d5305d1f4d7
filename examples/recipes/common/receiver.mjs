// What the Node recipes share (Express, Fastify, hapi, Hono, Koa, Elysia, Next.js, Nitro,
// Nitro 3): the store opened from the environment, the receiver's options, a receiver made at
// the first request, and a server's address. Copy this folder beside a recipe's: the recipe
// imports ../common/receiver.mjs.
//
// Environment (read from the object passed in, process.env by the recipes):
//   CRYPTOPAY_WEBHOOK_SECRET, TIMESTAMP_HEADER, SIGNATURE_HEADER, MAX_SKEW_SECS, and a Secret
//                 rotation: see receiverOptionsFromEnv (cryptopay-verify/receiver)
//   DATABASE_URL  PostgreSQL (postgresql://user:password@host/db): several instances, serverless
//   DATA_DIR      without DATABASE_URL: the folder of the SQLite file receiver.sqlite (./data);
//                 one process. Next.js and Nitro (often deployed where the disk does not last,
//                 several instances) need one of the two set: neither is 500 not_configured.
//   PORT, HOST    a server's address: 8787 (0 picks a free port) and 127.0.0.1

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CryptoPayError } from 'cryptopay-verify';
import {
  createReceiver, lazyReceiver, postgresStore, receiverOptionsFromEnv, sqliteStore,
} from 'cryptopay-verify/receiver';

/** The largest delivery the recipes read (an event is a few KB). */
export const MAX_BODY_BYTES = 1024 * 1024;

// One node-postgres pool per database URL for the process (openStore's).
const pools = new Map();

/**
 * PostgreSQL when env.DATABASE_URL is set (a pg.Pool; a server that does not answer is a 503
 * within seconds, not a hang), else the SQLite file DATA_DIR/receiver.sqlite (with `explicit`,
 * only when DATA_DIR is set: neither is a CryptoPayError, which lazyReceiver answers 500). `sqlite(file)`
 * opens the file (default: better-sqlite3; Bun's bun:sqlite on Elysia). The drivers are loaded
 * only when used: install pg for PostgreSQL.
 */
export async function openStore(env, { sqlite, explicit = false } = {}) {
  if (explicit && !env.DATABASE_URL && !env.DATA_DIR) {
    // A DATABASE_URL unset or misspelled on a serverless deployment would otherwise answer 200
    // into a file that goes with the instance (and de-duplicate per instance).
    throw new CryptoPayError('invalid_argument', 'invalid_argument: set DATABASE_URL (PostgreSQL: several instances, serverless) '
      + 'or DATA_DIR (the folder of a SQLite file: one process on a lasting disk); neither is set');
  }
  if (env.DATABASE_URL) {
    // Not resolved by a bundler (Next.js's webpack and Turbopack): an app on SQLite alone installs
    // no pg, and one on PostgreSQL alone no better-sqlite3, a native addon it never loads.
    const { default: pg } = await import(/* webpackIgnore: true */ 'pg');
    // One pool per database for the process: a lazy receiver's attempt that failed (the
    // database down) is made again at the next delivery, and must not leave a pool open each time.
    if (!pools.has(env.DATABASE_URL)) {
      pools.set(env.DATABASE_URL, new pg.Pool({ connectionString: env.DATABASE_URL, connectionTimeoutMillis: 5_000, query_timeout: 10_000 }));
    }
    return postgresStore(pools.get(env.DATABASE_URL));
  }
  const dataDir = env.DATA_DIR || 'data';
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'receiver.sqlite');
  // Said once, so that a DATABASE_URL unset or misspelled on a deployment of several instances
  // (each then answering 200 into a file of its own) shows in the log.
  console.log(`receiver: events recorded in the SQLite file ${file} (one process only; set DATABASE_URL for PostgreSQL)`);
  if (sqlite) return sqliteStore(sqlite(file));
  return sqliteStore(await openSqliteFile(file));
}

/**
 * better-sqlite3's database in `file`. Its native addon is built (or downloaded) by its install
 * script, which npm 12 and later run only when package.json's `allowScripts` approves it (each
 * recipe's does); when it did not run, or ran for another Node, the error says what to run
 * instead of listing the paths the addon was looked for at.
 */
async function openSqliteFile(file) {
  const { default: Database } = await import(/* webpackIgnore: true */ 'better-sqlite3');
  try {
    return new Database(file);
  } catch (error) {
    const unbuilt = String(error?.message).startsWith('Could not locate the bindings file');
    if (!unbuilt && error?.code !== 'ERR_DLOPEN_FAILED') throw error;
    // Kept under the 300 characters the receiver's log line quotes of an error.
    const said = String(error.message).split('\n')[0].slice(0, 120);
    const why = unbuilt
      ? 'is not built (npm 12 and later skip its install script unless package.json\'s allowScripts approves it): '
        + 'run npm install-scripts approve better-sqlite3, then npm rebuild better-sqlite3'
      : process.versions.bun !== undefined
        ? `does not load in Bun (${said}): use bun:sqlite (the sqlite option, as elysia/server.mjs does)`
        : `does not load in this Node (${said}): run npm rebuild better-sqlite3`;
    throw new Error(`better-sqlite3's native addon ${why}; or set DATABASE_URL for PostgreSQL`, { cause: error });
  }
}

/**
 * createReceiver's options from env: its variables (all checked before a store is opened: a
 * CryptoPayError names each one missing) and the store.
 */
export async function receiverOptions(env, options) {
  const fromEnv = receiverOptionsFromEnv(env);
  return { ...fromEnv, maxBodyBytes: MAX_BODY_BYTES, store: await openStore(env, options) };
}

/**
 * The receiver of a framework whose build must not need the configuration (Next.js, Nitro):
 * made at the first request from process.env, then kept; 500 not_configured or 503
 * store_unavailable until it can be (lazyReceiver, cryptopay-verify/receiver).
 */
export const lazyNodeReceiver = () => lazyReceiver(async () => createReceiver(await receiverOptions(process.env, { explicit: true })));

/**
 * A server recipe's start: its receiver, made ready (the tables created when missing; a store
 * that cannot be used fails the start), and where to listen. With NODE_ENV=production, DATABASE_URL
 * or DATA_DIR must be set (`explicit`). A missing variable ends the
 * process (exit 2) with a line naming each; a store that cannot be opened or used, with a line
 * saying why (exit 1).
 */
export async function startReceiver(env, name, options) {
  let receiver;
  try {
    // In production, no default file: a DATABASE_URL unset or misspelled on a host whose disk
    // goes with each deploy (or with several replicas) would answer 200 into ./data.
    receiver = createReceiver(await receiverOptions(env, { explicit: env.NODE_ENV === 'production', ...options }));
  } catch (error) {
    if (!(error instanceof CryptoPayError)) {
      // The store could not be opened (its driver not installed, or not built): one line.
      console.error(`${name} recipe: the store cannot be opened, so the receiver did not start: ${error.message}`);
      process.exit(1);
    }
    console.error(`${name} recipe: ${error.message}`);
    process.exit(2);
  }
  try {
    await receiver.ready();
  } catch (error) {
    // A store that cannot be used (PostgreSQL down or refusing the login, a file that cannot
    // be written): one line saying why, the password masked by the package, not a stack.
    console.error(`${name} recipe: the store cannot be used, so the receiver did not start: ${error.message}`);
    process.exit(1);
  }
  return { receiver, port: Number(env.PORT || 8787), host: env.HOST || '127.0.0.1' };
}

/** The line the tests (and you) wait for: `<name> recipe: listening on http://HOST:PORT/webhook`. */
export function listening(name, { address, port }) {
  console.log(`${name} recipe: listening on http://${address}:${port}/webhook`);
}
