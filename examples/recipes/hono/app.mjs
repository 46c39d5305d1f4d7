// A Hono receiver for payment.updated, on cryptopay-verify/receiver: receiver.fetch reads the
// raw body of the Fetch request itself, verifies, then records the event in the store
// (de-duplicated by event_id, applied only when its status_version is greater) in one
// transaction, and answers 2xx only after the commit. The same app runs on any Hono adapter
// (on Workers, with d1Store); server.mjs serves it on Node with a SQLite file.

import { Hono } from 'hono';
import { createReceiver } from 'cryptopay-verify/receiver';

/** config: { secrets, maxSkewSecs, timestampHeader, signatureHeader, store, path? } */
export async function createApp(config, log = console) {
  const receiver = createReceiver({
    secrets: config.secrets,
    maxSkewSecs: config.maxSkewSecs,
    timestampHeader: config.timestampHeader,
    signatureHeader: config.signatureHeader,
    maxBodyBytes: 1024 * 1024,
    store: config.store,
    log,
  });
  await receiver.ready(); // creates the tables when missing; fails the start if the store is unusable
  const app = new Hono();
  // c.req.raw is the untouched Request: never call c.req.json() first.
  app.post(config.path ?? '/webhook', (c) => receiver.fetch(c.req.raw));
  return app;
}
