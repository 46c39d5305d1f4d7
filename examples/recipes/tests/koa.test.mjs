// The Koa recipe (examples/recipes/koa), run as `node server.mjs` on its SQLite file; then
// the two ways a Koa app goes wrong, each checked on the recipe's own receiver: a body parser
// mounted ahead of the webhook route, and a route that verifies bodyParser's ctx.request.rawBody
// (text, not the bytes that were signed).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { SECRET, deliver, eventBody, listenLocal, recipeCopy, recipeReceiver, sqliteRecipeSuite } from './helpers.mjs';

sqliteRecipeSuite('Koa recipe (receiver.node on ctx.req with ctx.respond = false, the route before the body parser; SQLite file)', 'koa');

describe('Koa apps that lose the raw body', () => {
  let dir;
  const servers = [];
  const start = async (app) => {
    const server = await listenLocal(app);
    servers.push(server);
    return server.url;
  };
  before(() => {
    dir = recipeCopy('koa', 'koa-mistakes');
  });
  after(async () => {
    for (const server of servers) await server.close();
  });

  test('app.use(bodyParser()) ahead of the route: 500 body_not_raw, and the log names the Koa fix', async () => {
    const logged = [];
    const { receiver: rc, recipe } = await recipeReceiver(dir, 'parser-first', logged);
    await rc.ready();
    const url = await start(new Koa().use(bodyParser()).use(recipe.webhookRoutes(rc)));
    const response = await deliver(url, eventBody({ eventId: 'evt_koa_parsed', paymentId: 'pay_koa', statusVersion: 1 }));
    assert.deepEqual([response.status, response.json], [500, { error: 'body_not_raw' }]);
    assert.equal(logged.length, 1, logged.join('\n'));
    assert.match(logged[0], /body_not_raw: the request stream was already read .*in Koa, mount the webhook route before app\.use\(bodyParser\(\)\)$/);
    assert.ok(!logged[0].includes('evt_koa_parsed') && !logged[0].includes(SECRET));
  });

  test('bodyParser\'s ctx.request.rawBody is decoded text: a body holding the invalid byte 0xFF verifies against the text it decodes to, so the recipe hands the receiver ctx.req', async () => {
    // Signed over text holding U+FFFD; sent with the byte 0xFF in its place. The service never
    // signed these bytes: a receiver of bytes refuses them, a receiver of decoded text cannot tell.
    const signed = eventBody({ eventId: 'evt_koa_text', paymentId: 'pay_koa_text', statusVersion: 1, status: '\uFFFD' });
    const at = signed.indexOf(Buffer.from('\uFFFD'));
    const sent = Buffer.concat([signed.subarray(0, at), Buffer.from([0xff]), signed.subarray(at + 3)]);
    assert.equal(sent.toString('utf8'), signed.toString('utf8'));

    const { receiver: textRc } = await recipeReceiver(dir, 'raw-body-text');
    await textRc.ready();
    const router = new Router();
    router.post('/webhook', async (ctx) => {
      const answer = await textRc.handle({ body: ctx.request.rawBody, headers: ctx.req.rawHeaders });
      ctx.status = answer.status;
      ctx.set(answer.headers);
      ctx.body = answer.body;
    });
    const textUrl = await start(new Koa().use(bodyParser()).use(router.routes()));
    const acknowledged = await deliver(textUrl, sent, { signBody: signed });
    assert.deepEqual([acknowledged.status, acknowledged.json], [200, { received: true, decision: 'apply' }]);

    const { receiver: recipeRc, recipe } = await recipeReceiver(dir, 'recipe-order');
    await recipeRc.ready();
    const recipeUrl = await start(new Koa().use(recipe.webhookRoutes(recipeRc)).use(bodyParser()));
    const refused = await deliver(recipeUrl, sent, { signBody: signed });
    assert.deepEqual([refused.status, refused.json], [400, { error: 'signature_mismatch' }]);
    const accepted = await deliver(recipeUrl, signed);
    assert.deepEqual([accepted.status, accepted.json], [200, { received: true, decision: 'apply' }]);
  });
});
