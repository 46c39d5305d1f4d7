// The Elysia recipe (examples/recipes/elysia), run on Bun as `bun server.mjs`, recording in a
// SQLite file through bun:sqlite: the deliveries every recipe answers, the conformance kit, and
// a restart on the same file; then its traps (traps.mjs): the recipe with a handler that names
// `body`, and the recipe without ahead-of-time compilation.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { ROOT, recipeCopy, sqliteRecipeSuite, startNodeRecipe } from './helpers.mjs';
import { trapSuite } from './traps.mjs';

const BUN = join(ROOT, 'node_modules', '.bin', 'bun');
const RECIPE_HANDLER = '({ request }) => receiver.fetch(request)';

sqliteRecipeSuite('Elysia recipe on Bun (receiver.fetch(request); bun:sqlite)', 'elysia', { start: (dir) => startNodeRecipe(dir, { runtime: BUN }) });

// The recipe's server.mjs changed one way per trap.
const VARIANTS = {
  // The handler takes `body` too (and never uses it).
  'body-named': [RECIPE_HANDLER, '({ request, body }) => receiver.fetch(request)'],
  // Elysia without ahead-of-time compilation (the usual setting on Workers).
  'aot-off': ['new Elysia()', 'new Elysia({ aot: false })'],
};

describe('Elysia: the traps', () => {
  const dir = recipeCopy('elysia', 'elysia-traps');
  trapSuite('Elysia', {
    async start(variant) {
      const source = readFileSync(join(dir, 'server.mjs'), 'utf8');
      const [from, to] = VARIANTS[variant];
      if (!source.includes(from)) throw new Error(`the recipe no longer holds ${from}: update the test`);
      writeFileSync(join(dir, `${variant}.mjs`), source.replace(from, to));
      return startNodeRecipe(dir, { runtime: BUN, script: `${variant}.mjs` });
    },
  });
});
