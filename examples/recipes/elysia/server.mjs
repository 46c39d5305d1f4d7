// An Elysia receiver for payment.updated on Bun, on cryptopay-verify/receiver with Bun's own
// SQLite (bun:sqlite): receiver.fetch reads the raw body of the Fetch request itself,
// verifies, then records the event (de-duplicated by event_id, applied only when its
// status_version is greater) in one transaction, and answers 2xx only after the commit.
// Environment:
//   CRYPTOPAY_WEBHOOK_SECRET              the signing Secret exactly as saved (required)
//   TIMESTAMP_HEADER, SIGNATURE_HEADER    the delivery header names (required)
//   DATA_DIR (./data)                     the folder of the SQLite file receiver.sqlite
//   MAX_SKEW_SECS (300)  PORT (8787; 0 picks a free one)  HOST (127.0.0.1)
//
// One process on a SQLite file. For several instances, use PostgreSQL instead:
//   store: postgresStore({ query: async (text, values) => ({ rows: await sql.unsafe(text, values) }) })
//   with Bun's own client, const sql = new SQL(process.env.DATABASE_URL) (import { SQL } from 'bun')

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from 'bun:sqlite';
import { Elysia } from 'elysia';
import { createReceiver, sqliteStore } from 'cryptopay-verify/receiver';

const env = process.env;
if (!env.CRYPTOPAY_WEBHOOK_SECRET || !env.TIMESTAMP_HEADER || !env.SIGNATURE_HEADER) {
  console.error('set CRYPTOPAY_WEBHOOK_SECRET, TIMESTAMP_HEADER and SIGNATURE_HEADER');
  process.exit(2);
}
const dataDir = env.DATA_DIR ?? 'data';
mkdirSync(dataDir, { recursive: true });
const receiver = createReceiver({
  secrets: env.CRYPTOPAY_WEBHOOK_SECRET,
  maxSkewSecs: Number(env.MAX_SKEW_SECS ?? 300),
  timestampHeader: env.TIMESTAMP_HEADER,
  signatureHeader: env.SIGNATURE_HEADER,
  maxBodyBytes: 1024 * 1024,
  store: sqliteStore(new Database(join(dataDir, 'receiver.sqlite'))),
});
await receiver.ready(); // creates the tables when missing; fails the start if the store is unusable

const app = new Elysia()
  // Take only `request`, the untouched Request: a handler that names `body` makes Elysia parse
  // the body first, and every delivery is then 500 body_not_raw.
  .post('/webhook', ({ request }) => receiver.fetch(request))
  .listen({ port: Number(env.PORT ?? 8787), hostname: env.HOST ?? '127.0.0.1' });
console.log(`elysia recipe: listening on http://${app.server.hostname}:${app.server.port}/webhook`);
