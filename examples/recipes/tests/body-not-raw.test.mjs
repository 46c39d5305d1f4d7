// What a user sees when the framework parsed the body before the webhook route: Express's
// express.json() registered app-wide, ahead of the recipe's receiver. The receiver answers 500
// body_not_raw (a configuration error: the service retries while it is fixed) and logs the
// message examples/recipes/README.md quotes, word for word.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import express from 'express';
import { RECIPES, SECRET, deliver, eventBody, listenLocal, recipeCopy, recipeReceiver } from './helpers.mjs';

// The fenced block under the README's body_not_raw heading.
function readmeMessage() {
  const readme = readFileSync(join(RECIPES, 'README.md'), 'utf8');
  const match = /^## [^\n]*`body_not_raw`[^\n]*\n[\s\S]*?^```text\n([^\n]*)\n```$/m.exec(readme);
  assert.ok(match, 'README.md has a "## ... `body_not_raw` ..." section with the message in a ```text block');
  return match[1];
}

describe('body_not_raw: the framework parsed the body first', () => {
  let dir;
  const servers = [];
  before(() => {
    dir = recipeCopy('express', 'express-json-first');
  });
  after(async () => {
    for (const server of servers) await server.close();
  });

  test('app.use(express.json()) before the receiver: 500 body_not_raw, and the log says why', async () => {
    const logged = [];
    const { receiver } = await recipeReceiver(dir, 'json-first', logged);
    const app = express();
    app.use(express.json()); // the mistake: every JSON body is parsed before any route runs
    app.post('/webhook', receiver.node);
    const server = await listenLocal(app);
    servers.push(server);
    const { url } = server;

    const response = await deliver(url, eventBody({ eventId: 'evt_parsed', paymentId: 'pay_parsed', statusVersion: 1 }));
    assert.deepEqual([response.status, response.json], [500, { error: 'body_not_raw' }]);
    assert.deepEqual(logged, [`cryptopay-verify/receiver: ${readmeMessage()}`]);
    // The message names the fix for each framework, and never shows the body or the secret.
    for (const hint of ['Register the webhook route before', 'req.rawBody = buf', 'bodyParser: false']) assert.ok(logged[0].includes(hint), hint);
    assert.ok(!logged[0].includes('evt_parsed') && !logged[0].includes(SECRET));
  });

  test('the same receiver with no parser before it (the recipe\'s order) records the delivery', async () => {
    const { receiver } = await recipeReceiver(dir, 'recipe-order');
    const app = express();
    app.post('/webhook', receiver.node);
    app.use(express.json()); // after the webhook route: harmless to it
    const server = await listenLocal(app);
    servers.push(server);
    const { url } = server;
    const response = await deliver(url, eventBody({ eventId: 'evt_raw', paymentId: 'pay_raw', statusVersion: 1 }));
    assert.deepEqual([response.status, response.json], [200, { received: true, decision: 'apply' }]);
  });
});
