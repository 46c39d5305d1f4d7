// The Hono recipe (examples/recipes/hono) on @hono/node-server, run as `node server.mjs`; the
// same app on Bun (`bun bun.mjs`, bun:sqlite) and on Deno (`deno run ... deno.mjs`,
// node:sqlite); and on a Worker with D1.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import {
  ROOT, breakD1, d1StoreRows, deliveryTests, recipeCopy, sqliteRecipeSuite, startNodeRecipe, startWorkerRecipe,
} from './helpers.mjs';

sqliteRecipeSuite('Hono recipe (receiver.fetch(c.req.raw); SQLite file)', 'hono');

// The permissions deno.mjs's header names, no more: a recipe that needs another fails here.
const DENO_RUN = ['run', '--allow-env', '--allow-net', '--allow-read', '--allow-write'];
const RUNTIMES = [
  ['Bun', 'bun.mjs', 'bun', [], 'Bun.serve; bun:sqlite'],
  ['Deno', 'deno.mjs', 'deno', DENO_RUN, 'Deno.serve; node:sqlite'],
];
for (const [runtime, script, bin, args, how] of RUNTIMES) {
  sqliteRecipeSuite(`Hono recipe on ${runtime} (${script}: ${how}; SQLite file)`, 'hono', {
    as: `hono-${bin}`,
    start: (dir) => startNodeRecipe(dir, { runtime: join(ROOT, 'node_modules', '.bin', bin), args, script }),
  });
}

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
