// What a user installs when they copy a recipe's folder (with common/) into a project of their
// own: its package.json (the Supabase function's deno.json). It names every package the
// folder's sources import (and what ../common/receiver.mjs loads, for the recipes that import
// it), and each range starts at the version these tests ran: a range reaching below it would
// let a lockfile that holds an older release than was ever tested keep it.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { RECIPES, ROOT, importedPackages as imported } from './helpers.mjs';

// The package itself: installed from the packed tarball (the recipes' README, "Run one").
const OURS = 'cryptopay-verify';
const OUR_VERSION = JSON.parse(readFileSync(join(ROOT, 'npm', 'package.json'), 'utf8')).version;
// Ranges chosen for the user's machine, not by a test run: the types of the Node the app runs
// on (the recipe compiles against any Node from 22).
const USERS_OWN = new Set(['@types/node']);
// A package a range names, and the installed package the tests ran in its place.
const TESTED_AS = { typescript: 'typescript-5' };

/** The version of `name` the tests ran: the workspace's, in the repository's node_modules. */
function tested(name) {
  const manifest = join(ROOT, 'node_modules', TESTED_AS[name] ?? name, 'package.json');
  assert.ok(existsSync(manifest), `${name} is not installed in the workspace (examples/recipes/package.json or tests/package.json): the recipes' tests do not run it`);
  return JSON.parse(readFileSync(manifest, 'utf8')).version;
}

/** The source files under `folder` (not node_modules, not build output). */
function sources(folder) {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) return ['node_modules', '.next', '.output', '.nitro', 'dist', '.wrangler'].includes(entry) ? [] : sources(path);
    return /\.(mjs|js|ts)$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

/** The range check: `^<the version the tests ran>`. */
function assertRange(where, name, range) {
  if (name === OURS || USERS_OWN.has(name)) return;
  const version = tested(name);
  assert.equal(range, `^${version}`, `${where}: ${name} ${range}: the tests ran ${version}; the range starts there (^${version})`);
}

const COMMON = readFileSync(join(RECIPES, 'common', 'receiver.mjs'), 'utf8');
const RECIPE_FOLDERS = readdirSync(RECIPES).filter((name) => existsSync(join(RECIPES, name, 'package.json')));

test('the recipes found: every folder but common/, tests/ and the Supabase project has a package.json', () => {
  const folders = readdirSync(RECIPES).filter((name) => statSync(join(RECIPES, name)).isDirectory());
  assert.deepEqual(folders.filter((name) => !RECIPE_FOLDERS.includes(name)).sort(), ['common', 'supabase', 'tests']);
  assert.ok(RECIPE_FOLDERS.length >= 14, RECIPE_FOLDERS.join(' '));
});

for (const name of RECIPE_FOLDERS) {
  test(`${name} recipe: package.json names every package its sources import, each from the version tested`, () => {
    const folder = join(RECIPES, name);
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    const named = { ...manifest.dependencies, ...manifest.devDependencies };
    const texts = sources(folder).map((file) => readFileSync(file, 'utf8'));
    const needed = new Set(texts.flatMap(imported));
    if (texts.some((text) => text.includes("'../common/receiver.mjs'") || text.includes("'../../common/receiver.mjs'"))) {
      // common/ loads pg for DATABASE_URL, and better-sqlite3 for the SQLite file unless the
      // recipe opens its own (Elysia: bun:sqlite).
      for (const spec of imported(COMMON)) needed.add(spec);
      if (texts.some((text) => text.includes("'bun:sqlite'"))) needed.delete('better-sqlite3');
    }
    assert.ok(needed.has(OURS), `${name}: imports no ${OURS}`);
    for (const spec of needed) {
      assert.ok(spec in named, `${name}/package.json: ${spec} is imported (${relative(ROOT, folder)}) but not a dependency`);
    }
    for (const [dep, range] of Object.entries(named)) assertRange(`${name}/package.json`, dep, range);
    assert.equal(named[OURS], 'file:../../../pkg', `${name}/package.json: ${OURS} from the packed package, as the README says`);
  });
}

test('the Supabase function: deno.json maps every package index.ts imports, each from the version tested', () => {
  const folder = join(RECIPES, 'supabase', 'supabase', 'functions', 'cryptopay-webhook');
  const { imports } = JSON.parse(readFileSync(join(folder, 'deno.json'), 'utf8'));
  const needed = imported(readFileSync(join(folder, 'index.ts'), 'utf8'));
  assert.ok(needed.length > 0);
  for (const spec of needed) {
    const mapped = Object.keys(imports).filter((key) => key === spec || key.startsWith(`${spec}/`));
    assert.ok(mapped.length > 0, `deno.json maps no import of ${spec}`);
  }
  for (const [key, target] of Object.entries(imports)) {
    const match = /^npm:((?:@[^/@]+\/)?[^/@]+)@([^/]+)(\/.*)?$/.exec(target);
    assert.ok(match, `deno.json: ${key} is not an npm: specifier with a range (${target})`);
    const [, dep, range] = match;
    if (dep === OURS) assert.equal(range, `^${OUR_VERSION}`, `deno.json: ${OURS} from the version this repository builds`);
    else assertRange('deno.json', dep, range);
  }
});

// Install scripts. npm 12 and later run a dependency's install script only when the project's
// package.json approves it in `allowScripts` (npm 11.16 and later warn, and fail the install
// with --strict-allow-scripts): better-sqlite3's builds the native addon the SQLite store
// loads, esbuild's and workerd's put their platform binary in place for the build and dev
// tools, sharp's checks the prebuilt binary wrangler's local image binding loads. Each
// manifest approves, by name, exactly the packages with an install script that its
// dependencies bring, as the repository's lockfile resolves them (where the tests ran).
const LOCK = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages;

/** The package name of a lockfile path (`node_modules/a/node_modules/@s/b` is `@s/b`). */
const nameOf = (path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

/** The lockfile entry Node's resolution finds for `name` from the package at `from` ('' the root). */
function resolveLocked(from, name) {
  for (let base = from; ; base = base.includes('/node_modules/') ? base.slice(0, base.lastIndexOf('/node_modules/')) : '') {
    const path = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (LOCK[path]) return path;
    if (!base) return null;
  }
}

/** The names of the packages with an install script among `deps` and what they depend on. */
function installScripts(from, deps) {
  const seen = new Set();
  const names = new Set();
  const queue = deps.map((dep) => resolveLocked(from, dep) ?? resolveLocked('', dep));
  while (queue.length > 0) {
    const path = queue.pop();
    if (path === null || seen.has(path)) continue;
    seen.add(path);
    const entry = LOCK[path];
    if (entry.hasInstallScript) names.add(nameOf(path));
    for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) queue.push(resolveLocked(path, dep));
  }
  return [...names].sort();
}

const approved = (manifest) => Object.entries(manifest.allowScripts ?? {}).filter(([, allow]) => allow === true).map(([name]) => name).sort();

for (const folder of [...RECIPE_FOLDERS.map((name) => join('examples', 'recipes', name)), join('examples', 'node-receiver')]) {
  test(`${folder}/package.json approves the install scripts of its dependencies, and only those`, () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8'));
    const deps = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter((dep) => dep !== OURS);
    // The recipes' packages are the workspace's (examples/recipes/package.json), the others the root's.
    assert.deepEqual(approved(manifest), installScripts(join('examples', 'recipes'), deps), `${folder}/package.json: allowScripts`);
  });
}

test('the repository\'s package.json approves every install script its lockfile holds (npm ci --strict-allow-scripts passes)', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const all = [...new Set(Object.entries(LOCK).filter(([path, entry]) => path !== '' && entry.hasInstallScript)
    .map(([path]) => nameOf(path)))].sort();
  assert.ok(all.includes('better-sqlite3'), all.join(' '));
  assert.deepEqual(approved(manifest), all);
});
