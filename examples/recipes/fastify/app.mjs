// A Fastify 5 receiver for payment.updated, on cryptopay-verify/receiver: a raw-body parser
// hands the bytes to receiver.handle(), which verifies, then records the event in the store
// (de-duplicated by event_id, applied only when its status_version is greater) in one
// transaction, and says what to answer (2xx only after the commit). server.mjs makes the
// receiver and starts the app.

import Fastify from 'fastify';
import { MAX_BODY_BYTES } from '../common/receiver.mjs';

export function createApp(receiver, { path = '/webhook', logger = false, requestTimeout = 30_000, http = {} } = {}) {
  // Fastify reads a body before its handler, so the receiver's body deadline and its
  // maxBufferedBytes never see it: requestTimeout (none by default in Fastify 5) is what ends a
  // body that never comes whole, and the memory it holds. Node applies it only with a
  // headersTimeout no longer than it (its default, 60 s, leaves requestTimeout unapplied), and
  // checks both every 30 s (connectionsCheckingInterval).
  const app = Fastify({ logger, requestTimeout, http: { headersTimeout: Math.min(10_000, requestTimeout), ...http } });
  // An encapsulated plugin: the raw-body parser applies to the webhook route only; the rest
  // of the app keeps Fastify's JSON parser. Every content type is taken as bytes: Fastify
  // answers 415 to a type no parser takes (a permanent failure for the service, never logged
  // by the receiver), and its text/plain parser would hand over decoded text.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES },
      (request, body, done) => done(null, body)); // keep the Buffer as it is

    scope.post(path, async (request, reply) => {
      // rawHeaders keeps a header sent twice apart (header_duplicated).
      const { status, headers, body } = await receiver.handle({ body: request.body, headers: request.raw.rawHeaders });
      return reply.code(status).headers(headers).send(body);
    });
  });
  return app;
}
