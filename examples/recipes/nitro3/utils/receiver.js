// The receiver the webhook route uses, on cryptopay-verify/receiver. It verifies, then records
// the event (de-duplicated by event_id, applied only when its status_version is greater) in one
// transaction, and answers 2xx only after the commit.
//
// Configuration (environment, read at the first request, never at build time, so `nitro build`
// needs neither the secret nor the database):
//   CRYPTOPAY_WEBHOOK_SECRET  the signing Secret exactly as saved (required)
//   TIMESTAMP_HEADER          the header carrying the delivery timestamp (required)
//   SIGNATURE_HEADER          the header carrying the signature (required)
//   DATABASE_URL              PostgreSQL: what serverless and multi-instance deployments need
//   DATA_DIR (./data)         without DATABASE_URL: a SQLite file, for one server process
//   MAX_SKEW_SECS             default 300

import { createReceiver, postgresStore, sqliteStore } from 'cryptopay-verify/receiver';

const REQUIRED = ['CRYPTOPAY_WEBHOOK_SECRET', 'TIMESTAMP_HEADER', 'SIGNATURE_HEADER'];

async function openStore(env) {
  if (env.DATABASE_URL) {
    const { default: pg } = await import('pg');
    return postgresStore(new pg.Pool({ connectionString: env.DATABASE_URL, connectionTimeoutMillis: 5_000 }));
  }
  const [{ default: Database }, { mkdirSync }, { join }] = await Promise.all([import('better-sqlite3'), import('node:fs'), import('node:path')]);
  const dataDir = env.DATA_DIR ?? 'data';
  mkdirSync(dataDir, { recursive: true });
  return sqliteStore(new Database(join(dataDir, 'receiver.sqlite')));
}

// Created at the first request (once, however many arrive together); forgotten on failure, so
// the next request tries again.
let receiving = null;
function getReceiver() {
  receiving ??= (async () => {
    const env = process.env;
    const missing = REQUIRED.filter((name) => !env[name]);
    if (missing.length) {
      throw Object.assign(new Error(`set ${missing.join(', ')} in the server's environment`), { notConfigured: true });
    }
    const receiver = createReceiver({
      secrets: env.CRYPTOPAY_WEBHOOK_SECRET,
      maxSkewSecs: Number(env.MAX_SKEW_SECS ?? 300),
      timestampHeader: env.TIMESTAMP_HEADER,
      signatureHeader: env.SIGNATURE_HEADER,
      maxBodyBytes: 1024 * 1024,
      store: await openStore(env),
    });
    await receiver.ready(); // creates the tables when missing
    return receiver;
  })().catch((error) => {
    receiving = null;
    throw error;
  });
  return receiving;
}

/**
 * Resolves { receiver } once it is ready, or { unavailable: { status, body } }: not configured
 * (500), or the store cannot be reached (503); the service retries both.
 */
export async function webhookReceiver() {
  try {
    return { receiver: await getReceiver() };
  } catch (error) {
    console.error(`webhook receiver unavailable: ${error.message}`);
    return error.notConfigured
      ? { unavailable: { status: 500, body: { error: 'not_configured' } } }
      : { unavailable: { status: 503, body: { error: 'store_unavailable' } } };
  }
}
