// The Fastify recipe (examples/recipes/fastify), run as `node server.mjs`.

import { after, before, describe } from 'node:test';
import { deliveryTests, recipeCopy, restartTest, sqliteStoreRows, startNodeRecipe } from './helpers.mjs';

describe('Fastify recipe (raw-body content-type parser, receiver.handle; SQLite file)', () => {
  let server;
  let dir;
  before(async () => {
    dir = recipeCopy('fastify');
    server = await startNodeRecipe(dir);
  });
  after(() => server?.stop());
  deliveryTests(() => server.url, () => sqliteStoreRows(dir));
  restartTest(() => startNodeRecipe(dir), () => server, (next) => { server = next; });
});
