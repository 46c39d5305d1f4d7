// Starts the NestJS recipe (`npm run build && npm start`). Environment:
//   CRYPTOPAY_WEBHOOK_SECRET, TIMESTAMP_HEADER, SIGNATURE_HEADER, MAX_SKEW_SECS, and a Secret
//                             rotation: see receiverOptionsFromEnv (cryptopay-verify/receiver)
//   DATABASE_URL              PostgreSQL (postgresql://user:password@host/db): several instances
//   DATA_DIR (./data)         without DATABASE_URL: the folder of the SQLite file receiver.sqlite
//   PORT (8787; 0 picks a free one)  HOST (127.0.0.1)

import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express from 'express';
import { receiverOptionsFromEnv } from 'cryptopay-verify/receiver';
import { AppModule } from './app.module.js';

const env = process.env;
try {
  receiverOptionsFromEnv(env); // names every variable missing, before Nest starts
} catch (error) {
  console.error(`nestjs recipe: ${(error as Error).message}`);
  process.exit(2);
}

// abortOnError: false, so that a store that cannot be used (or a module that cannot be made)
// rejects here (one line, exit 1) instead of Nest aborting the process.
let app: NestExpressApplication;
try {
  app = await NestFactory.create<NestExpressApplication>(AppModule, { logger: false, abortOnError: false });
} catch (error) {
  console.error(`nestjs recipe: the app did not start: ${(error as Error).message}`);
  process.exit(1);
}
app.useLogger(['warn', 'error']);
// The webhook route's body as its exact bytes, whatever its Content-Type (or none), before
// Nest's parsers: they run for JSON only (`rawBody: true` keeps bytes for what they parse, so
// a delivery sent as text/plain or without a type would have none), and answer a body they
// cannot parse 400 or 415 themselves, which the service never retries. An event can be over
// 100 KB, the parsers' default limit.
app.use('/webhook', express.raw({ type: () => true, limit: '1mb' }));
// The app's other routes keep Nest's JSON parser (it skips a body read already).
app.useBodyParser('json', { limit: '1mb' });
await app.listen(Number(env.PORT || 8787), env.HOST || '127.0.0.1');
console.log(`nestjs recipe: listening on ${await app.getUrl()}/webhook`);
