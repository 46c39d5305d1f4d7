// What the Node recipes share (common/receiver.mjs): a lazy receiver whose store cannot be
// made ready (a PostgreSQL with nothing behind its port) answers 503 at every delivery, each
// one a new attempt, and all of them use one node-postgres pool: an attempt that failed leaves
// no pool of its own open (one connection each, until the database's connection limit).

import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { installUnbuiltBetterSqlite } from '../../../tests/lib/unbuilt-sqlite.mjs';
import { freePort, startServer } from '../../../tests/runtimes/lib.mjs';
import { RECIPES, RECIPE_ENV, ROOT, SECRET, SIG_HEADER, TS_HEADER, eventBody, nowSecs, recipeCopy, sign, startNodeRecipe } from './helpers.mjs';

test('a lazy receiver whose PostgreSQL cannot be reached: 503 at each delivery, one pool for all the attempts', async () => {
  const dir = recipeCopy('express', 'common-pool');
  // The pg module the copy imports (the repository's), its Pool counted.
  const pg = createRequire(join(ROOT, 'package.json'))('pg');
  const RealPool = pg.Pool;
  const made = [];
  pg.Pool = class CountedPool extends RealPool {
    constructor(options) {
      super(options);
      made.push(this);
    }
  };
  const saved = { ...process.env };
  const port = await freePort(); // nothing listens there
  Object.assign(process.env, RECIPE_ENV, { DATABASE_URL: `postgresql://shop:pw@127.0.0.1:${port}/shop` });
  try {
    const { lazyNodeReceiver } = await import(pathToFileURL(join(dir, '..', 'common', 'receiver.mjs')).href);
    const receiver = lazyNodeReceiver();
    for (let n = 1; n <= 3; n += 1) {
      const body = eventBody({ eventId: `evt_pool_${n}`, paymentId: 'pay_pool', statusVersion: n });
      const ts = String(nowSecs());
      const request = new Request('http://127.0.0.1/webhook', { method: 'POST', body, headers: { [TS_HEADER]: ts, [SIG_HEADER]: sign(SECRET, ts, body) } });
      const answer = await receiver.fetch(request);
      assert.equal(answer.status, 503, await answer.text());
    }
    assert.equal(made.length, 1, `${made.length} pools made for 3 attempts`);
  } finally {
    pg.Pool = RealPool;
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
    await Promise.all(made.map((pool) => pool.end()));
  }
});

// The same in every recipe a user copies: where a lazyReceiver makes the receiver (again at
// each delivery after a failure), its pool is made once (`pool ??=`, or a Map of pools),
// never inside the attempt. Read from the sources, since some run where a pool cannot be
// counted (Deno, a Worker).
test('every recipe with a lazyReceiver makes its node-postgres pool once, not at each attempt', () => {
  const files = readdirSync(RECIPES, { recursive: true })
    .filter((f) => /\.(mjs|ts)$/.test(f) && !/(^|[/\\])(node_modules|tests|dist)[/\\]/.test(f))
    .map((f) => [f, readFileSync(join(RECIPES, f), 'utf8')])
    .filter(([, text]) => text.includes('lazyReceiver('));
  assert.ok(files.length >= 5, `${files.length} recipes with a lazyReceiver`);
  const pooled = files.filter(([, text]) => text.includes('new pg.Pool('));
  assert.ok(pooled.some(([f]) => f.includes('supabase')) && pooled.some(([f]) => f.includes('lambda')), pooled.map(([f]) => f).join(' '));
  for (const [file, text] of pooled) {
    for (const line of text.split('\n').filter((l) => l.includes('new pg.Pool('))) {
      assert.match(line, /\?\?= new pg\.Pool\(|pools\.set\(/, `${file}: a pool made at each attempt: ${line.trim()}`);
    }
  }
});

// A server recipe deployed with NODE_ENV=production and neither DATABASE_URL nor DATA_DIR (a
// variable unset or misspelled on a host whose disk goes with each deploy): it does not start,
// rather than answer 200 into ./data. Without NODE_ENV, ./data stays the local default.
test('a server recipe in production with neither DATABASE_URL nor DATA_DIR stops at start, naming both', async () => {
  const dir = recipeCopy('express', 'common-production');
  const port = await freePort();
  const env = { ...process.env, ...RECIPE_ENV, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: '', DATA_DIR: '' };
  const server = startServer(process.execPath, ['server.mjs'], { cwd: dir, env });
  const exited = await Promise.race([server.exited, new Promise((r) => setTimeout(() => r('timeout'), 30_000))]);
  await server.stop();
  const said = server.output.stdout + server.output.stderr;
  assert.deepEqual(exited, { code: 2, signal: null }, said);
  assert.match(said, /express recipe: invalid_argument: set DATABASE_URL .* or DATA_DIR .*; neither is set/);
  assert.ok(!existsSync(join(dir, 'data')), 'no SQLite file was made');
  const local = await startNodeRecipe(dir, { env: { NODE_ENV: '', DATA_DIR: '' } });
  try {
    assert.ok(existsSync(join(dir, 'data', 'receiver.sqlite')), 'without NODE_ENV=production, ./data as before');
  } finally {
    await local.stop();
  }
});

// npm 12 and later skip a dependency's install script unless package.json's allowScripts
// approves it, and better-sqlite3's builds its native addon: without it, better-sqlite3 is
// installed and cannot open a file. Such a copy (the package without its build/) beside the
// recipe, where the recipe resolves it first: the start stops with one line saying what to run.
test('a server recipe whose better-sqlite3 was installed without its build stops at start, saying what to run', async () => {
  const dir = recipeCopy('express', 'common-unbuilt');
  installUnbuiltBetterSqlite(join(dir, '..', 'node_modules'));
  const port = await freePort();
  const env = { ...process.env, ...RECIPE_ENV, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: '', DATA_DIR: '' };
  const server = startServer(process.execPath, ['server.mjs'], { cwd: dir, env });
  const exited = await Promise.race([server.exited, new Promise((r) => setTimeout(() => r('timeout'), 30_000))]);
  await server.stop();
  const said = server.output.stdout + server.output.stderr;
  assert.deepEqual(exited, { code: 1, signal: null }, said);
  assert.match(said, /express recipe: the store cannot be opened, so the receiver did not start: better-sqlite3's native addon is not built \(.*allowScripts.*\): run npm install-scripts approve better-sqlite3, then npm rebuild better-sqlite3; or set DATABASE_URL for PostgreSQL\n/);
  assert.doesNotMatch(said, /Tried:|\n\s+at /, 'one line, not the paths tried nor a stack');
});
