// An Express 5 receiver for payment.updated, on cryptopay-verify/receiver: receiver.node reads
// the raw body itself, verifies, then records the event in the store (de-duplicated by
// event_id, applied only when its status_version is greater) in one transaction, and answers
// 2xx only after the commit. server.mjs makes the receiver and starts the app.

import express from 'express';

/**
 * The app around a receiver. Its `node` handler must see the raw request: no body parser
 * before it (with express.json() first, every delivery is answered 500 body_not_raw).
 */
export function createApp(receiver, path = '/webhook') {
  const app = express();
  // The webhook route first, with no body parser: the receiver reads the raw bytes.
  app.post(path, receiver.node);
  // The rest of the app may parse JSON as usual.
  app.use(express.json());
  return app;
}
