// The Express recipe (examples/recipes/express), run as `node server.mjs`.

import { after, before, describe } from 'node:test';
import { deliveryTests, recipeCopy, startNodeRecipe } from './helpers.mjs';

describe('Express recipe (express.raw)', () => {
  let server;
  before(async () => { server = await startNodeRecipe(recipeCopy('express')); });
  after(() => server?.stop());
  deliveryTests(() => server.url);
});
