// The Elysia recipe (examples/recipes/elysia), run on Bun as `bun server.mjs`, recording in a
// SQLite file through bun:sqlite: the deliveries every recipe answers, the conformance kit, and
// a restart on the same file.

import { join } from 'node:path';
import { ROOT, sqliteRecipeSuite, startNodeRecipe } from './helpers.mjs';

const BUN = join(ROOT, 'node_modules', '.bin', 'bun');

sqliteRecipeSuite('Elysia recipe on Bun (receiver.fetch(request); bun:sqlite)', 'elysia', { start: (dir) => startNodeRecipe(dir, { runtime: BUN }) });
