// A Hono receiver for payment.updated, on cryptopay-verify/receiver: receiver.fetch reads the
// raw body of the Fetch request itself, verifies, then records the event in the store
// (de-duplicated by event_id, applied only when its status_version is greater) in one
// transaction, and answers 2xx only after the commit. The same app runs on any Hono adapter:
// server.mjs serves it on Node, worker.mjs on a Cloudflare Worker with D1.

import { Hono } from 'hono';

export function createApp(receiver, path = '/webhook') {
  const app = new Hono();
  // c.req.raw is the untouched Request: never call c.req.json() first.
  app.post(path, (c) => receiver.fetch(c.req.raw));
  return app;
}
