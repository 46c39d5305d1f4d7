// The receiver as a provider: created and made ready (tables created when missing) once, when
// the app starts; a store that cannot be used fails the start.

import { Module } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createReceiver, receiverOptionsFromEnv, sqliteStore } from 'cryptopay-verify/receiver';
import { RECEIVER, WebhookController } from './webhook.controller.js';

/** One process on a SQLite file, DATA_DIR/receiver.sqlite. For several instances, PostgreSQL instead: postgresStore(new pg.Pool({ connectionString: env.DATABASE_URL })). */
function openStore(dataDir: string) {
  mkdirSync(dataDir, { recursive: true });
  return sqliteStore(new Database(join(dataDir, 'receiver.sqlite')));
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
          store: openStore(process.env.DATA_DIR || 'data'),
        });
        await receiver.ready();
        return receiver;
      },
    },
  ],
})
export class AppModule {}
