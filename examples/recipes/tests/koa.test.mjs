// The Koa recipe (examples/recipes/koa), run as `node server.mjs` on its SQLite file; then
// its traps (traps.mjs): a body parser mounted ahead of the webhook route, and a route that
// verifies bodyParser's ctx.request.rawBody (text, not the bytes that were signed), beside the
// recipe's app.

import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { listenLocal, sqliteRecipeSuite } from './helpers.mjs';
import { appTraps } from './traps.mjs';

sqliteRecipeSuite('Koa recipe (receiver.node on ctx.req with ctx.respond = false, the route before the body parser; SQLite file)', 'koa');

/** A route that verifies ctx.request.rawBody, the text bodyParser keeps. */
function rawBodyRoutes(receiver) {
  const router = new Router();
  router.post('/webhook', async (ctx) => {
    const answer = await receiver.handle({ body: ctx.request.rawBody, headers: ctx.req.rawHeaders });
    ctx.status = answer.status;
    ctx.set(answer.headers);
    ctx.body = answer.body;
  });
  return router.routes();
}

appTraps('Koa', 'koa', (setup, receiver, recipe) => listenLocal({
  'parser-first': () => new Koa().use(bodyParser()).use(recipe.webhookRoutes(receiver)),
  'raw-body-text': () => new Koa().use(bodyParser()).use(rawBodyRoutes(receiver)),
  'recipe-order': () => recipe.createApp(receiver),
}[setup]()));
