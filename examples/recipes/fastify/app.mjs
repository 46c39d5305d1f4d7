// A Fastify 5 receiver for payment.updated, on cryptopay-verify/receiver: a raw-body parser
// hands the bytes to receiver.handle(), which verifies, then records the event in the store
// (de-duplicated by event_id, applied only when its status_version is greater) in one
// transaction, and says what to answer (2xx only after the commit). server.mjs opens the store.

import Fastify from 'fastify';
import { createReceiver } from 'cryptopay-verify/receiver';

/** config: { secrets, maxSkewSecs, timestampHeader, signatureHeader, store, path? } */
export async function createApp(config, { logger = false } = {}) {
  const app = Fastify({ logger });
  const receiver = createReceiver({
    secrets: config.secrets,
    maxSkewSecs: config.maxSkewSecs,
    timestampHeader: config.timestampHeader,
    signatureHeader: config.signatureHeader,
    maxBodyBytes: 1024 * 1024,
    store: config.store,
    log: app.log,
  });
  await receiver.ready(); // creates the tables when missing; fails the start if the store is unusable

  // An encapsulated plugin: the raw-body parser applies to the webhook route only; the rest
  // of the app keeps Fastify's JSON parser.
  app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 1024 * 1024 },
      (request, body, done) => done(null, body)); // keep the Buffer as it is

    scope.post(config.path ?? '/webhook', async (request, reply) => {
      // rawHeaders keeps a header sent twice apart (header_duplicated).
      const { status, headers, body } = await receiver.handle({ body: request.body, headers: request.raw.rawHeaders });
      return reply.code(status).headers(headers).send(body);
    });
  });
  return app;
}
