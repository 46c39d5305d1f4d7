// The NestJS recipe (examples/recipes/nestjs): its TypeScript compiled with tsc as a user
// builds it (`npm run build`: decorators, nodenext modules), then run as `node dist/main.js`
// on its SQLite file.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { run } from '../../../tests/runtimes/lib.mjs';
import { ROOT, sqliteRecipeSuite, startNodeRecipe } from './helpers.mjs';

sqliteRecipeSuite('NestJS recipe (express.raw on /webhook before Nest\'s parsers, req.body to receiver.handle; SQLite file)', 'nestjs', {
  async build(dir) {
    const tsc = join(ROOT, 'node_modules', 'typescript-5', 'bin', 'tsc');
    const build = await run(process.execPath, [tsc, '-p', dir], { cwd: dir, timeoutMs: 120_000 });
    assert.equal(build.code, 0, `tsc -p examples/recipes/nestjs failed:\n${build.stdout}${build.stderr}`);
  },
  start: (dir) => startNodeRecipe(dir, { script: join('dist', 'main.js') }),
});
