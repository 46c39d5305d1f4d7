// Starts the hapi recipe. Environment:
//   CRYPTOPAY_WEBHOOK_SECRET              the signing Secret exactly as saved (required)
//   TIMESTAMP_HEADER, SIGNATURE_HEADER    the delivery header names (required)
//   DATA_DIR (./data)                     the folder of the SQLite file receiver.sqlite
//   MAX_SKEW_SECS (300)  PORT (8787; 0 picks a free one)  HOST (127.0.0.1)
//
// One process on a SQLite file. For several instances, use PostgreSQL instead:
//   import pg from 'pg'; import { postgresStore } from 'cryptopay-verify/receiver';
//   store: postgresStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }))

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sqliteStore } from 'cryptopay-verify/receiver';
import { createServer } from './app.mjs';

const env = process.env;
if (!env.CRYPTOPAY_WEBHOOK_SECRET || !env.TIMESTAMP_HEADER || !env.SIGNATURE_HEADER) {
  console.error('set CRYPTOPAY_WEBHOOK_SECRET, TIMESTAMP_HEADER and SIGNATURE_HEADER');
  process.exit(2);
}
const dataDir = env.DATA_DIR ?? 'data';
mkdirSync(dataDir, { recursive: true });
const server = await createServer({
  secrets: env.CRYPTOPAY_WEBHOOK_SECRET,
  maxSkewSecs: Number(env.MAX_SKEW_SECS ?? 300),
  timestampHeader: env.TIMESTAMP_HEADER,
  signatureHeader: env.SIGNATURE_HEADER,
  store: sqliteStore(new Database(join(dataDir, 'receiver.sqlite'))),
  port: Number(env.PORT ?? 8787),
  host: env.HOST ?? '127.0.0.1',
});
await server.start();
const { address, port } = server.listener.address();
console.log(`hapi recipe: listening on http://${address}:${port}/webhook`);
