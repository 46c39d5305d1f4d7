// The Elysia recipe (examples/recipes/elysia), run on Bun as `bun server.mjs`, recording in a
// SQLite file through bun:sqlite: the deliveries every recipe answers, the conformance kit, and
// a restart on the same file; then its trap (traps.mjs): the recipe with a handler that names
// `body`.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { ROOT, recipeCopy, sqliteRecipeSuite, startNodeRecipe } from './helpers.mjs';
import { trapSuite } from './traps.mjs';

const BUN = join(ROOT, 'node_modules', '.bin', 'bun');
const RECIPE_HANDLER = '({ request }) => receiver.fetch(request)';

sqliteRecipeSuite('Elysia recipe on Bun (receiver.fetch(request); bun:sqlite)', 'elysia', { start: (dir) => startNodeRecipe(dir, { runtime: BUN }) });

describe('Elysia: the traps', () => {
  const dir = recipeCopy('elysia', 'elysia-traps');
  trapSuite('Elysia', {
    async start() {
      const source = readFileSync(join(dir, 'server.mjs'), 'utf8');
      if (!source.includes(RECIPE_HANDLER)) throw new Error('the recipe\'s handler changed: update the test');
      // The mistake: the handler takes `body` too (and never uses it).
      writeFileSync(join(dir, 'body-named.mjs'), source.replace(RECIPE_HANDLER, '({ request, body }) => receiver.fetch(request)'));
      return startNodeRecipe(dir, { runtime: BUN, script: 'body-named.mjs' });
    },
  });
});
