// The Fastify recipe (examples/recipes/fastify), run as `node server.mjs`.

import { after, before, describe } from 'node:test';
import { deliveryTests, recipeCopy, startNodeRecipe } from './helpers.mjs';

describe('Fastify recipe (raw-body content-type parser)', () => {
  let server;
  before(async () => { server = await startNodeRecipe(recipeCopy('fastify')); });
  after(() => server?.stop());
  deliveryTests(() => server.url);
});
