// The Hono recipe (examples/recipes/hono) on @hono/node-server, run as `node server.mjs`; and
// the same app on a Worker with D1.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import {
  breakD1, d1StoreRows, deliveryTests, recipeCopy, sqliteRecipeSuite, startWorkerRecipe,
} from './helpers.mjs';

sqliteRecipeSuite('Hono recipe (receiver.fetch(c.req.raw); SQLite file)', 'hono');

// app.mjs says the same app runs on Hono's other adapters, on Workers with d1Store: the
// recipe's worker.mjs (the app built on the first request, when env is there), bundled by
// wrangler as for a deployment and served by Miniflare with D1 on a SQLite file.

describe('the same Hono app on a Worker (receiver.fetch(c.req.raw); D1)', { timeout: 90_000 }, () => {
  let worker;
  before(async () => {
    const dir = recipeCopy('hono', 'hono-worker');
    writeFileSync(join(dir, 'wrangler.json'), JSON.stringify({ name: 'hono-worker', main: 'worker.mjs', compatibility_date: '2025-09-01' }));
    worker = await startWorkerRecipe(dir);
  });
  after(() => worker?.dispose());
  deliveryTests(() => new URL('/webhook', worker.url).href, () => d1StoreRows(worker.db), { breakStore: breakD1(() => worker.db) });
});
