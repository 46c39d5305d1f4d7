// An Express 5 receiver for payment.updated, on cryptopay-verify/receiver: it reads the raw
// body itself, verifies, then records the event in the store (de-duplicated by event_id,
// applied only when its status_version is greater) in one transaction, and answers 2xx only
// after the commit. server.mjs opens the store and starts it.

import express from 'express';
import { createReceiver } from 'cryptopay-verify/receiver';

/**
 * The receiver. config: { secrets, maxSkewSecs, timestampHeader, signatureHeader, store }.
 * Its `node` handler must see the raw request: register no body parser before it (with
 * express.json() first, every delivery is answered 500 body_not_raw).
 */
export function webhookReceiver(config, log = console) {
  return createReceiver({
    secrets: config.secrets,
    maxSkewSecs: config.maxSkewSecs,
    timestampHeader: config.timestampHeader,
    signatureHeader: config.signatureHeader,
    maxBodyBytes: 1024 * 1024,
    store: config.store,
    log,
  });
}

export async function createApp(config, log = console) {
  const receiver = webhookReceiver(config, log);
  await receiver.ready(); // creates the tables when missing; fails the start if the store is unusable
  const app = express();
  // The webhook route first, with no body parser: the receiver reads the raw bytes.
  app.post(config.path ?? '/webhook', receiver.node);
  // The rest of the app may parse JSON as usual.
  app.use(express.json());
  return app;
}
