// A Koa 3 receiver for payment.updated, on cryptopay-verify/receiver: it reads the raw body
// itself from ctx.req, verifies, then records the event in the store (de-duplicated by
// event_id, applied only when its status_version is greater) in one transaction, and answers
// 2xx only after the commit. server.mjs opens the store and starts it.

import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { createReceiver } from 'cryptopay-verify/receiver';

/**
 * The receiver. config: { secrets, maxSkewSecs, timestampHeader, signatureHeader, store }.
 * Its `node` handler must see the untouched request stream: mount the webhook route before
 * any body parser (with app.use(bodyParser()) first, every delivery is answered 500
 * body_not_raw).
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

/** The webhook route: the receiver reads ctx.req and writes ctx.res itself. */
export function webhookRoutes(receiver, path = '/webhook') {
  const router = new Router();
  router.post(path, async (ctx) => {
    ctx.respond = false; // Koa must not write a response of its own after the receiver's
    await receiver.node(ctx.req, ctx.res);
  });
  return router.routes();
}

export async function createApp(config, log = console) {
  const receiver = webhookReceiver(config, log);
  await receiver.ready(); // creates the tables when missing; fails the start if the store is unusable
  const app = new Koa();
  // The webhook route first: a body parser ahead of it would read the stream.
  app.use(webhookRoutes(receiver, config.path));
  // The rest of the app may parse JSON as usual.
  app.use(bodyParser());
  return app;
}
