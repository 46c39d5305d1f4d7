// The Hono recipe (examples/recipes/hono) on @hono/node-server, run as `node server.mjs`.

import { after, before, describe } from 'node:test';
import { deliveryTests, recipeCopy, startNodeRecipe } from './helpers.mjs';

describe('Hono recipe (c.req.arrayBuffer())', () => {
  let server;
  before(async () => { server = await startNodeRecipe(recipeCopy('hono')); });
  after(() => server?.stop());
  deliveryTests(() => server.url);
});
