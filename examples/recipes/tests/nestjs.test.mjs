// The NestJS recipe (examples/recipes/nestjs): its TypeScript compiled with tsc as a user
// builds it (`npm run build`: decorators, nodenext modules), then run as `node dist/main.js`
// on its SQLite file.

import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { join } from 'node:path';
import { run } from '../../../tests/runtimes/lib.mjs';
import { ROOT, deliveryTests, recipeCopy, restartTest, sqliteStoreRows, startNodeRecipe } from './helpers.mjs';

const start = (dir) => startNodeRecipe(dir, { script: join('dist', 'main.js') });

describe('NestJS recipe (rawBody: true, req.rawBody to receiver.handle; SQLite file)', () => {
  let server;
  let dir;
  before(async () => {
    dir = recipeCopy('nestjs');
    const tsc = join(ROOT, 'node_modules', 'typescript-5', 'bin', 'tsc');
    const build = await run(process.execPath, [tsc, '-p', dir], { cwd: dir, timeoutMs: 120_000 });
    assert.equal(build.code, 0, `tsc -p examples/recipes/nestjs failed:\n${build.stdout}${build.stderr}`);
    server = await start(dir);
  });
  after(() => server?.stop());
  deliveryTests(() => server.url, () => sqliteStoreRows(dir));
  restartTest(() => start(dir), () => server, (next) => { server = next; });
});
