// common/receiver.mjs bundled as Next.js bundles a route's server code (webpack; Turbopack reads
// the same comment), in an app that installed one database driver only: an app on PostgreSQL
// (Neon, Vercel) has no better-sqlite3, a native addon it never loads, and one on SQLite no pg.
// A driver import the bundler resolves fails the build ("Can't resolve 'better-sqlite3'"), and
// in `next dev` every delivery's compile (a 500 page, retried, then lost).

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import webpack from 'webpack';
import { RECIPES } from './helpers.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'cpv-common-bundle-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** webpack's errors for `entry` bundled for Node, packages resolved from an empty folder only. */
function bundleErrors(entry) {
  const modules = join(scratch, 'node_modules');
  mkdirSync(modules, { recursive: true });
  return new Promise((resolve, reject) => {
    webpack({
      mode: 'none',
      target: 'node',
      entry,
      output: { path: join(scratch, 'out'), filename: 'bundle.cjs' },
      resolve: { modules: [modules] },
      // The package itself is the app's (installed); what is asked here is the drivers.
      externals: [({ request }, callback) => (request.startsWith('cryptopay-verify') ? callback(null, `commonjs ${request}`) : callback())],
      infrastructureLogging: { level: 'none' },
    }, (failure, stats) => {
      if (failure) reject(failure);
      else resolve(stats.toJson({ all: false, errors: true }).errors.map((e) => e.message));
    });
  });
}

test('common/receiver.mjs bundles with neither pg nor better-sqlite3 installed: each is loaded only when used', async () => {
  assert.deepEqual(await bundleErrors(join(RECIPES, 'common', 'receiver.mjs')), []);
});

test('the check above fails on a driver import the bundler resolves', async () => {
  const { writeFileSync } = await import('node:fs');
  const careless = join(scratch, 'careless.mjs');
  writeFileSync(careless, "export const open = async () => (await import('better-sqlite3')).default;\n");
  const errors = await bundleErrors(careless);
  assert.ok(errors.some((message) => message.includes("Can't resolve 'better-sqlite3'")), errors.join('\n'));
});
