// A Fastify 5 receiver for payment.updated: verify over the raw body, de-duplicate by
// event_id, apply status_version only when newer. server.mjs configures and starts it.

import Fastify from 'fastify';
import { CryptoPayError, Verifier, decideEvent, init, readDeliveryHeaders } from 'cryptopay-verify';

await init(); // a no-op in Node (the wasm is inlined there); required where it loads asynchronously

/** config: { secrets, maxSkewSecs, timestampHeader, signatureHeader, path? } */
export function createApp(config, { logger = false } = {}) {
  const app = Fastify({ logger });
  const verifier = new Verifier({ secrets: config.secrets, maxSkewSecs: config.maxSkewSecs });
  const names = { timestampHeader: config.timestampHeader, signatureHeader: config.signatureHeader };

  // In memory for the recipe. In production: your database, in one transaction.
  const seenEventIds = new Set();
  const appliedVersions = new Map(); // payment_id -> status_version (exact decimal text)

  // An encapsulated plugin: the raw-body parser applies to the webhook route only; the rest
  // of the app keeps Fastify's JSON parser.
  app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 1024 * 1024 },
      (request, body, done) => done(null, body)); // keep the Buffer as it is

    scope.post(config.path ?? '/webhook', async (request, reply) => {
      let verified;
      try {
        // rawHeaders keeps a header sent twice apart (header_duplicated).
        const { timestamp, signature } = readDeliveryHeaders(request.raw.rawHeaders, names);
        verified = verifier.verifyWebhook({
          body: request.body, // the raw Buffer
          timestamp,
          signature,
          nowSecs: Math.floor(Date.now() / 1000),
        });
      } catch (error) {
        if (!(error instanceof CryptoPayError)) throw error;
        if (error.code === 'event_type_unknown') return { received: true, ignored: error.code };
        request.log.warn(`webhook rejected: ${error.message}`);
        return reply.code(400).send({ error: error.code }); // the code only, never the message
      }
      const { event } = verified;
      const decision = decideEvent(event, {
        eventSeen: seenEventIds.has(event.eventId),
        statusVersion: appliedVersions.get(event.paymentId),
      });
      if (decision !== 'duplicate') seenEventIds.add(event.eventId);
      if (decision === 'apply') appliedVersions.set(event.paymentId, event.statusVersion);
      // 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}.
      return { received: true, event_id: event.eventId, decision };
    });
  });
  app.addHook('onClose', async () => verifier.free());
  return app;
}
