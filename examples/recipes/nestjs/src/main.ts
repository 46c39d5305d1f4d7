// Starts the NestJS recipe (`npm run build && npm start`). Environment:
//   CRYPTOPAY_WEBHOOK_SECRET, TIMESTAMP_HEADER, SIGNATURE_HEADER, MAX_SKEW_SECS, and a Secret
//                             rotation: see receiverOptionsFromEnv (cryptopay-verify/receiver)
//   DATA_DIR (./data)         the folder of the SQLite file receiver.sqlite
//   PORT (8787; 0 picks a free one)  HOST (127.0.0.1)

import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { receiverOptionsFromEnv } from 'cryptopay-verify/receiver';
import { AppModule } from './app.module.js';

const env = process.env;
try {
  receiverOptionsFromEnv(env); // names every variable missing, before Nest starts
} catch (error) {
  console.error(`nestjs recipe: ${(error as Error).message}`);
  process.exit(2);
}

// rawBody: true keeps each request's exact bytes in req.rawBody next to the parsed body.
const app = await NestFactory.create<NestExpressApplication>(AppModule, { rawBody: true, logger: ['warn', 'error'] });
// Nest's JSON parser refuses bodies over 100 KB by default; an event can be larger.
app.useBodyParser('json', { limit: '1mb' });
await app.listen(Number(env.PORT || 8787), env.HOST || '127.0.0.1');
console.log(`nestjs recipe: listening on ${await app.getUrl()}/webhook`);
