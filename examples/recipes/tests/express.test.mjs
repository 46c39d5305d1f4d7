// The Express recipe (examples/recipes/express), run as `node server.mjs` on its SQLite file;
// then its traps (traps.mjs) on the recipe's app and on an app with express.json() ahead of
// the receiver.

import express from 'express';
import { listenLocal, sqliteRecipeSuite } from './helpers.mjs';
import { appTraps } from './traps.mjs';

sqliteRecipeSuite('Express recipe (receiver.node, no body parser on the route; SQLite file)', 'express');

appTraps('Express', 'express', (setup, receiver, recipe) => listenLocal(setup === 'json-first'
  ? express().use(express.json()).post('/webhook', receiver.node) // the mistake: every JSON body parsed before any route runs
  : recipe.createApp(receiver)));
