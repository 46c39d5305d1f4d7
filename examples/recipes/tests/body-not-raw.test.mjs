// What a user sees when the framework parsed the body before the webhook route: Express's
// express.json() registered app-wide, ahead of the recipe's route. The message logged is the
// one examples/recipes/README.md quotes, word for word.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import express from 'express';
import { RECIPES, SECRET, SIG_HEADER, TS_HEADER, deliver, eventBody, recipeCopy } from './helpers.mjs';

// The fenced block under the README's body_not_raw heading.
function readmeMessage() {
  const readme = readFileSync(join(RECIPES, 'README.md'), 'utf8');
  const match = /^## [^\n]*`body_not_raw`[^\n]*\n[\s\S]*?^```text\n([^\n]*)\n```$/m.exec(readme);
  assert.ok(match, 'README.md has a "## ... `body_not_raw` ..." section with the message in a ```text block');
  return match[1];
}

async function listen(app) {
  const server = await new Promise((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (error) => (error ? reject(error) : resolve(s)));
  });
  return { server, url: `http://127.0.0.1:${server.address().port}/webhook` };
}

describe('body_not_raw: the framework parsed the body first', () => {
  const config = { secrets: SECRET, maxSkewSecs: 300, timestampHeader: TS_HEADER, signatureHeader: SIG_HEADER };
  let webhookHandler;
  const servers = [];
  before(async () => {
    const dir = recipeCopy('express', 'express-json-first');
    ({ webhookHandler } = await import(pathToFileURL(join(dir, 'app.mjs')).href));
  });
  after(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('app.use(express.json()) before the route: 400 body_not_raw, and the log says why', async () => {
    const logged = [];
    const app = express();
    app.use(express.json()); // the mistake: every JSON body is parsed before any route runs
    app.post('/webhook', express.raw({ type: 'application/json' }), webhookHandler(config, { warn: (l) => logged.push(l) }));
    const { server, url } = await listen(app);
    servers.push(server);

    const response = await deliver(url, eventBody({ eventId: 'evt_parsed', paymentId: 'pay_parsed', statusVersion: 1 }));
    assert.deepEqual([response.status, response.json], [400, { error: 'body_not_raw' }]);
    assert.deepEqual(logged, [`webhook rejected: ${readmeMessage()}`]);
    // The message names the fix for each framework, and never shows the body or the secret.
    for (const hint of ['express.raw', 'Fastify', 'arrayBuffer']) assert.ok(logged[0].includes(hint), hint);
    assert.ok(!logged[0].includes('evt_parsed') && !logged[0].includes(SECRET));
  });

  test('the same handler with the raw parser first (the recipe\'s order) accepts the delivery', async () => {
    const app = express();
    app.post('/webhook', express.raw({ type: 'application/json' }), webhookHandler(config, { warn: () => {} }));
    app.use(express.json()); // after the webhook route: harmless to it
    const { server, url } = await listen(app);
    servers.push(server);
    const response = await deliver(url, eventBody({ eventId: 'evt_raw', paymentId: 'pay_raw', statusVersion: 1 }));
    assert.deepEqual([response.status, response.json], [200, { received: true, event_id: 'evt_raw', decision: 'apply' }]);
  });
});
