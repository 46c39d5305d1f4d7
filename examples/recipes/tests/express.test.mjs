// The Express recipe (examples/recipes/express), run as `node server.mjs` on its SQLite file;
// then its traps (traps.mjs) on the recipe's app and on an app with express.json() ahead of
// the receiver.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import express from 'express';
import { freePort, startServer } from '../../../tests/runtimes/lib.mjs';
import { RECIPE_ENV, listenLocal, recipeCopy, sqliteRecipeSuite } from './helpers.mjs';
import { appTraps } from './traps.mjs';

sqliteRecipeSuite('Express recipe (receiver.node, no body parser on the route; SQLite file)', 'express');

appTraps('Express', 'express', (setup, receiver, recipe) => listenLocal(setup === 'json-first'
  ? express().use(express.json()).post('/webhook', receiver.node) // the mistake: every JSON body parsed before any route runs
  : recipe.createApp(receiver)));

test('Express recipe: a PostgreSQL it cannot reach stops the start with one line, exit 1, the password masked', async () => {
  const dir = recipeCopy('express', 'express-no-db');
  const port = await freePort(); // nothing listens there
  const server = startServer(process.execPath, ['server.mjs'], {
    cwd: dir,
    env: { ...process.env, ...RECIPE_ENV, PORT: '0', DATABASE_URL: `postgresql://shop:pw-Canary-71@127.0.0.1:${port}/shop` },
  });
  const exited = await Promise.race([server.exited, new Promise((r) => setTimeout(() => r('timeout'), 30_000))]);
  await server.stop();
  const said = server.output.stdout + server.output.stderr;
  assert.deepEqual(exited, { code: 1, signal: null }, said);
  assert.match(said, /express recipe: the store cannot be used, so the receiver did not start: .*ECONNREFUSED/);
  assert.doesNotMatch(said, /\n\s+at /, 'no stack trace');
  assert.ok(!said.includes('pw-Canary-71'), 'no password');
});
