// The Fastify recipe (examples/recipes/fastify), run as `node server.mjs`; then its app with a
// route of the merchant's own beside the webhook: that route keeps Fastify's JSON parser (the
// raw-body parser is the webhook's scope only).

import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { deliver, eventBody, recipeCopy, recipeReceiver, sqliteRecipeSuite } from './helpers.mjs';

sqliteRecipeSuite('Fastify recipe (raw-body content-type parser, receiver.handle; SQLite file)', 'fastify');

test('Fastify recipe: the app\'s other routes keep Fastify\'s JSON parser; the webhook still gets the bytes', async () => {
  const dir = recipeCopy('fastify', 'fastify-other-routes');
  const { receiver, recipe } = await recipeReceiver(dir, 'fastify');
  await receiver.ready();
  const app = recipe.createApp(receiver);
  app.post('/orders', async (request) => ({ parsed: !Buffer.isBuffer(request.body), body: request.body }));
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const order = await fetch(`${origin}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"order_ref":"o-1"}' });
    assert.equal(order.status, 200);
    assert.deepEqual(await order.json(), { parsed: true, body: { order_ref: 'o-1' } });
    const refused = await fetch(`${origin}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"order_ref":' });
    assert.equal(refused.status, 400, 'the JSON parser of the app, not the raw one');
    const body = eventBody({ eventId: 'evt_fastify_scope', paymentId: 'pay_fastify_scope', statusVersion: 1 });
    const delivered = await deliver(`${origin}/webhook`, body);
    assert.deepEqual([delivered.status, delivered.json], [200, { received: true, decision: 'apply' }], delivered.text);
  } finally {
    await app.close();
  }
});

test('Fastify recipe: a body that never comes whole is ended by its requestTimeout (the receiver never sees it)', async () => {
  const dir = recipeCopy('fastify', 'fastify-slow-body');
  const { receiver, recipe } = await recipeReceiver(dir, 'fastify');
  await receiver.ready();
  const app = recipe.createApp(receiver, { requestTimeout: 500, http: { connectionsCheckingInterval: 100 } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { port } = app.server.address();
    const started = Date.now();
    const answer = await new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write('POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":');
      });
      let text = '';
      socket.on('data', (chunk) => { text += chunk; });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      setTimeout(() => { socket.destroy(); reject(new Error('still open after 10 s')); }, 10_000).unref();
    });
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.ok(Date.now() - started < 5_000, `closed after ${Date.now() - started} ms`);
  } finally {
    await app.close();
  }
});
