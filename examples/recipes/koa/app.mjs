// A Koa 3 receiver for payment.updated, on cryptopay-verify/receiver: it reads the raw body
// itself from ctx.req, verifies, then records the event in the store (de-duplicated by
// event_id, applied only when its status_version is greater) in one transaction, and answers
// 2xx only after the commit. server.mjs makes the receiver and starts the app.

import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';

/** The webhook route: the receiver reads ctx.req and writes ctx.res itself. */
export function webhookRoutes(receiver, path = '/webhook') {
  const router = new Router();
  router.post(path, async (ctx) => {
    ctx.respond = false; // Koa must not write a response of its own after the receiver's
    await receiver.node(ctx.req, ctx.res);
  });
  return router.routes();
}

/**
 * The app around a receiver. Its `node` handler must see the untouched request stream: the
 * webhook route is mounted before any body parser (with app.use(bodyParser()) first, every
 * delivery is answered 500 body_not_raw).
 */
export function createApp(receiver, path = '/webhook') {
  const app = new Koa();
  // The webhook route first: a body parser ahead of it would read the stream.
  app.use(webhookRoutes(receiver, path));
  // The rest of the app may parse JSON as usual.
  app.use(bodyParser());
  return app;
}
