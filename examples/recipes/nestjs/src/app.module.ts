// The receiver as a provider: created and made ready (tables created when missing) once, when
// the app starts; a store that cannot be used fails the start.

import { Module } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createReceiver, sqliteStore } from 'cryptopay-verify/receiver';
import { RECEIVER, WebhookController } from './webhook.controller.js';

@Module({
  controllers: [WebhookController],
  providers: [
    {
      provide: RECEIVER,
      useFactory: async () => {
        const env = process.env;
        const dataDir = env.DATA_DIR ?? 'data';
        mkdirSync(dataDir, { recursive: true });
        const receiver = createReceiver({
          secrets: env.CRYPTOPAY_WEBHOOK_SECRET,
          maxSkewSecs: Number(env.MAX_SKEW_SECS ?? 300),
          timestampHeader: env.TIMESTAMP_HEADER ?? '',
          signatureHeader: env.SIGNATURE_HEADER ?? '',
          maxBodyBytes: 1024 * 1024,
          // One process on a SQLite file. For several instances, PostgreSQL instead:
          //   store: postgresStore(new pg.Pool({ connectionString: env.DATABASE_URL }))
          store: sqliteStore(new Database(join(dataDir, 'receiver.sqlite'))),
        });
        await receiver.ready();
        return receiver;
      },
    },
  ],
})
export class AppModule {}
