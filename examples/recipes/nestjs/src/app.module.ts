// The receiver as a provider: created and made ready (tables created when missing) once, when
// the app starts; a store that cannot be used fails the start.

import { Module } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createReceiver, postgresStore, receiverOptionsFromEnv, sqliteStore } from 'cryptopay-verify/receiver';
import { RECEIVER, WebhookController } from './webhook.controller.js';

/**
 * PostgreSQL when DATABASE_URL is set (several instances; a server that does not answer is a
 * 503 within seconds, not a hang), else one process on the SQLite file DATA_DIR/receiver.sqlite,
 * said once at start so that a DATABASE_URL unset or misspelled on a deployment shows (with
 * NODE_ENV=production, one of them must be set).
 */
async function openStore(env: NodeJS.ProcessEnv) {
  if (env.DATABASE_URL) {
    const { default: pg } = await import('pg');
    return postgresStore(new pg.Pool({ connectionString: env.DATABASE_URL, connectionTimeoutMillis: 5_000, query_timeout: 10_000 }));
  }
  if (env.NODE_ENV === 'production' && !env.DATA_DIR) {
    // A DATABASE_URL unset or misspelled on a host whose disk goes with each deploy (or with
    // several replicas) would otherwise answer 200 into ./data.
    throw new Error('set DATABASE_URL (PostgreSQL: several instances) or DATA_DIR (the folder of a SQLite file: one process '
      + 'on a lasting disk); neither is set, and NODE_ENV is production');
  }
  const dataDir = env.DATA_DIR || 'data';
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'receiver.sqlite');
  console.log(`nestjs recipe: events recorded in the SQLite file ${file} (one process only; set DATABASE_URL for PostgreSQL)`);
  return sqliteStore(new Database(file));
}

@Module({
  controllers: [WebhookController],
  providers: [
    {
      provide: RECEIVER,
      useFactory: async () => {
        const receiver = createReceiver({
          ...receiverOptionsFromEnv(process.env), // checked in main.ts before the app is made
          maxBodyBytes: 1024 * 1024,
          store: await openStore(process.env),
        });
        try {
          await receiver.ready();
        } catch (error) {
          throw new Error(`the store cannot be used: ${(error as Error).message}`, { cause: error });
        }
        return receiver;
      },
    },
  ],
})
export class AppModule {}
