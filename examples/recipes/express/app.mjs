// An Express 5 receiver for payment.updated: verify over the raw body, de-duplicate by
// event_id, apply status_version only when newer. server.mjs configures and starts it.

import express from 'express';
import { CryptoPayError, Verifier, decideEvent, init, readDeliveryHeaders } from 'cryptopay-verify';

await init(); // a no-op in Node (the wasm is inlined there); required where it loads asynchronously

/**
 * The route handler. config: { secrets, maxSkewSecs, timestampHeader, signatureHeader }.
 * It must run after express.raw(): with express.json() before it, req.body is an object and
 * every delivery is rejected as body_not_raw.
 */
export function webhookHandler(config, log = console) {
  const verifier = new Verifier({ secrets: config.secrets, maxSkewSecs: config.maxSkewSecs });
  const names = { timestampHeader: config.timestampHeader, signatureHeader: config.signatureHeader };

  // In memory for the recipe. In production: your database, in one transaction.
  const seenEventIds = new Set();
  const appliedVersions = new Map(); // payment_id -> status_version (exact decimal text)

  return (req, res) => {
    let verified;
    try {
      // rawHeaders keeps a header sent twice apart (header_duplicated).
      const { timestamp, signature } = readDeliveryHeaders(req.rawHeaders, names);
      verified = verifier.verifyWebhook({
        body: req.body, // a Buffer, thanks to express.raw()
        timestamp,
        signature,
        nowSecs: Math.floor(Date.now() / 1000),
      });
    } catch (error) {
      if (!(error instanceof CryptoPayError)) throw error;
      if (error.code === 'event_type_unknown') {
        res.json({ received: true, ignored: error.code }); // authentic: acknowledge, ignore
        return;
      }
      log.warn(`webhook rejected: ${error.message}`);
      res.status(400).json({ error: error.code }); // the code only, never the message
      return;
    }
    const { event } = verified;
    const decision = decideEvent(event, {
      eventSeen: seenEventIds.has(event.eventId),
      statusVersion: appliedVersions.get(event.paymentId),
    });
    if (decision !== 'duplicate') seenEventIds.add(event.eventId);
    if (decision === 'apply') appliedVersions.set(event.paymentId, event.statusVersion);
    // 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}.
    res.json({ received: true, event_id: event.eventId, decision });
  };
}

export function createApp(config, log = console) {
  const app = express();
  // The raw bytes for this route only. Register it before any app.use(express.json()).
  app.post(config.path ?? '/webhook', express.raw({ type: 'application/json', limit: '1mb' }),
    webhookHandler(config, log));
  // The rest of the app may parse JSON as usual.
  app.use(express.json());
  return app;
}
