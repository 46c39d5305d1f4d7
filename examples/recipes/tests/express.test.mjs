// The Express recipe (examples/recipes/express), run as `node server.mjs` on its SQLite file.

import { after, before, describe } from 'node:test';
import { deliveryTests, recipeCopy, restartTest, sqliteStoreRows, startNodeRecipe } from './helpers.mjs';

describe('Express recipe (receiver.node, no body parser on the route; SQLite file)', () => {
  let server;
  let dir;
  before(async () => {
    dir = recipeCopy('express');
    server = await startNodeRecipe(dir);
  });
  after(() => server?.stop());
  deliveryTests(() => server.url, () => sqliteStoreRows(dir));
  restartTest(() => startNodeRecipe(dir), () => server, (next) => { server = next; });
});
