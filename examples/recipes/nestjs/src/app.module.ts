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
 * said once at start so that a DATABASE_URL unset or misspelled on a deployment shows.
 */
async function openStore(env: NodeJS.ProcessEnv) {
  if (env.DATABASE_URL) {
    const { default: pg } = await import('pg');
    return postgresStore(new pg.Pool({ connectionString: env.DATABASE_URL, connectionTimeoutMillis: 5_000, query_timeout: 10_000 }));
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
