// The Elysia recipe (examples/recipes/elysia), run on Bun as `bun server.mjs`, recording in a
// SQLite file through bun:sqlite: the deliveries every recipe answers, the conformance kit, and
// a restart on the same file.

import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { ROOT, deliveryTests, recipeCopy, restartTest, sqliteStoreRows, startNodeRecipe } from './helpers.mjs';

const BUN = join(ROOT, 'node_modules', '.bin', 'bun');

describe('Elysia recipe on Bun (receiver.fetch(request); bun:sqlite)', () => {
  let server;
  let dir;
  const start = () => startNodeRecipe(dir, { runtime: BUN });
  before(async () => {
    dir = recipeCopy('elysia');
    server = await start();
  });
  after(() => server?.stop());
  deliveryTests(() => server.url, () => sqliteStoreRows(dir));
  restartTest(start, () => server, (next) => { server = next; });
});
