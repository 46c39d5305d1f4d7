// better-sqlite3 as npm 12 and later leave it when its install script (which builds the native
// addon) is not approved by the project's package.json: the package without its build.

import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Copies the repository's better-sqlite3 into `nodeModules` (a node_modules folder) without its
 * build and sources, with the packages it requires at run time (bindings, which looks for the
 * addon, and what that requires), so that code resolving it from there finds no addon.
 */
export function installUnbuiltBetterSqlite(nodeModules) {
  const fromRoot = createRequire(join(ROOT, 'package.json'));
  cpSync(dirname(fromRoot.resolve('better-sqlite3/package.json')), join(nodeModules, 'better-sqlite3'), {
    recursive: true, filter: (src) => !/[/\\](build|deps|src)$/.test(src),
  });
  const fromDriver = createRequire(fromRoot.resolve('better-sqlite3'));
  for (const name of ['bindings', 'file-uri-to-path']) {
    cpSync(dirname(fromDriver.resolve(`${name}/package.json`)), join(nodeModules, name), { recursive: true });
  }
}
