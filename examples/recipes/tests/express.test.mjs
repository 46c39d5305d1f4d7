// The Express recipe (examples/recipes/express), run as `node server.mjs` on its SQLite file;
// then its traps (traps.mjs) on the recipe's app and on apps with express.json() ahead of
// the receiver (without and with a verify callback keeping req.rawBody).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import express from 'express';
import { listenLocal, recipeCopy, sqliteRecipeSuite, startWithoutDatabase } from './helpers.mjs';
import { appTraps } from './traps.mjs';

sqliteRecipeSuite('Express recipe (receiver.node, no body parser on the route; SQLite file)', 'express');

const TRAP_APPS = {
  // the mistake: every JSON body parsed before any route runs
  'json-first': (receiver) => express().use(express.json()).post('/webhook', receiver.node),
  'verify-callback': (receiver) => express()
    .use(express.json({ verify: (req, res, buf) => { req.rawBody = buf; } }))
    .post('/webhook', receiver.node),
};
appTraps('Express', 'express', (setup, receiver, recipe) => listenLocal(TRAP_APPS[setup]?.(receiver) ?? recipe.createApp(receiver)));

test('Express recipe: a PostgreSQL it cannot reach stops the start with one line, exit 1, the password masked', async () => {
  const { exited, said } = await startWithoutDatabase(recipeCopy('express', 'express-no-db'), 'server.mjs', 'pw-Canary-71');
  assert.deepEqual(exited, { code: 1, signal: null }, said);
  assert.match(said, /express recipe: the store cannot be used, so the receiver did not start: .*ECONNREFUSED/);
  assert.doesNotMatch(said, /\n\s+at /, 'no stack trace');
  assert.ok(!said.includes('pw-Canary-71'), 'no password');
});
