// A Hono receiver for payment.updated: verify over the raw body, de-duplicate by event_id,
// apply status_version only when newer. The same app runs on any Hono adapter; server.mjs
// serves it with @hono/node-server.

import { Hono } from 'hono';
import { CryptoPayError, Verifier, decideEvent, init, readDeliveryHeaders } from 'cryptopay-verify';

await init(); // a no-op in Node (the wasm is inlined there); required where it loads asynchronously

/** config: { secrets, maxSkewSecs, timestampHeader, signatureHeader, path? } */
export function createApp(config, log = console) {
  const app = new Hono();
  const verifier = new Verifier({
    secrets: config.secrets,
    maxSkewSecs: config.maxSkewSecs,
    maxBodyBytes: 1024 * 1024,
  });
  const names = { timestampHeader: config.timestampHeader, signatureHeader: config.signatureHeader };

  // In memory for the recipe. In production: your database, in one transaction.
  const seenEventIds = new Set();
  const appliedVersions = new Map(); // payment_id -> status_version (exact decimal text)

  app.post(config.path ?? '/webhook', async (c) => {
    const body = await c.req.arrayBuffer(); // the raw bytes: never c.req.json()
    let verified;
    try {
      const { timestamp, signature } = readDeliveryHeaders(c.req.raw.headers, names);
      verified = verifier.verifyWebhook({ body, timestamp, signature, nowSecs: Math.floor(Date.now() / 1000) });
    } catch (error) {
      if (!(error instanceof CryptoPayError)) throw error;
      if (error.code === 'event_type_unknown') return c.json({ received: true, ignored: error.code });
      log.warn(`webhook rejected: ${error.message}`);
      return c.json({ error: error.code }, 400); // the code only, never the message
    }
    const { event } = verified;
    const decision = decideEvent(event, {
      eventSeen: seenEventIds.has(event.eventId),
      statusVersion: appliedVersions.get(event.paymentId),
    });
    if (decision !== 'duplicate') seenEventIds.add(event.eventId);
    if (decision === 'apply') appliedVersions.set(event.paymentId, event.statusVersion);
    // 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}.
    return c.json({ received: true, event_id: event.eventId, decision });
  });
  return app;
}
