// The hapi recipe (examples/recipes/hapi), run as `node server.mjs` on its SQLite file; then
// the route with hapi's default payload handling (parsed JSON), which can never verify.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { SECRET, deliver, eventBody, recipeCopy, recipeReceiver, sqliteRecipeSuite } from './helpers.mjs';

sqliteRecipeSuite('hapi recipe (payload parse: false, the Buffer to receiver.handle; SQLite file)', 'hapi');

describe('hapi\'s default payload handling', () => {
  let server;
  after(() => server?.stop());

  test('a route without parse: false gets parsed JSON: 500 body_not_raw, and the log says why', async () => {
    const dir = recipeCopy('hapi', 'hapi-parsed');
    const logged = [];
    const { receiver, recipe } = await recipeReceiver(dir, 'parsed', logged);
    await receiver.ready();
    const route = recipe.webhookRoute(receiver);
    delete route.options; // the mistake: hapi's default, payload parsed as JSON
    const Hapi = (await import('@hapi/hapi')).default;
    server = Hapi.server({ port: 0, host: '127.0.0.1' });
    server.route(route);
    await server.start();
    const url = `http://127.0.0.1:${server.listener.address().port}/webhook`;
    const response = await deliver(url, eventBody({ eventId: 'evt_hapi_parsed', paymentId: 'pay_hapi', statusVersion: 1 }));
    assert.deepEqual([response.status, response.json], [500, { error: 'body_not_raw' }], response.text);
    assert.equal(logged.length, 1, logged.join('\n'));
    assert.match(logged[0], /body_not_raw: the body is an object; .*hapi: a route with options: \{ payload: \{ parse: false \} \}, then request\.payload;/);
    assert.ok(!logged[0].includes('evt_hapi_parsed') && !logged[0].includes(SECRET));
  });
});
