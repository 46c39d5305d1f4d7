// The Hono recipe (examples/recipes/hono) on @hono/node-server, run as `node server.mjs`.

import { after, before, describe } from 'node:test';
import { deliveryTests, recipeCopy, restartTest, sqliteStoreRows, startNodeRecipe } from './helpers.mjs';

describe('Hono recipe (receiver.fetch(c.req.raw); SQLite file)', () => {
  let server;
  let dir;
  before(async () => {
    dir = recipeCopy('hono');
    server = await startNodeRecipe(dir);
  });
  after(() => server?.stop());
  deliveryTests(() => server.url, () => sqliteStoreRows(dir));
  restartTest(() => startNodeRecipe(dir), () => server, (next) => { server = next; });
});
