// Shared by the Nitro 2 and Nitro 3 recipe tests, which differ only in their Nitro, their h3
// and the routes they write beside the recipe's: `nitro build` of a recipe copy as a deployment
// runs it (neither the secret nor the database in its environment), the .output it ships copied
// outside the repository, the built server started from that copy; then the same suites on
// both (nitroSuites): the deliveries on PostgreSQL and the framework's traps (traps.mjs), the
// deliveries and a restart on a SQLite file, and the build for Bun, run on Bun.

import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, run, startServer, tail } from '../../../tests/runtimes/lib.mjs';
import { postgresForSuite } from '../../../tests/receiver/lib/postgres.mjs';
import {
  RECIPE_ENV, ROOT, breakPostgres, breakSqlite, deliveryTests, postgresStoreRows, recipeCopy, recordedEvents, restartTest, sqliteStoreRows, waitForOutput,
} from './helpers.mjs';
import { trapSuite } from './traps.mjs';

const BUN = join(ROOT, 'node_modules', '.bin', 'bun');

const deployed = []; // the copies of .output, outside the repository
after(() => {
  for (const dir of deployed) rmSync(dir, { recursive: true, force: true });
});

/**
 * The environment without Nitro's own settings (NITRO_PRESET, NITRO_PORT, NITRO_HOST, ...),
 * which would take precedence over what the test sets.
 */
const nitroEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('NITRO_')));

/**
 * `node <cli> build` (with `preset`, else Nitro's default: node-server) in `dir`, a recipe copy
 * with the test's routes written, with neither the secret nor the database in its environment.
 * Resolves { out, meta }: a copy of its .output alone, outside the repository (what a deployment
 * ships), where no node_modules above can stand in for what Nitro left out; and what Nitro
 * recorded of the build (.output/nitro.json: its preset is checked there, as the log's wording
 * changes where Nitro detects CI).
 */
async function buildNitro(cli, dir, preset) {
  const buildEnv = { ...nitroEnv(), NO_COLOR: '1', ...RECIPE_ENV };
  delete buildEnv.CRYPTOPAY_WEBHOOK_SECRET;
  delete buildEnv.DATABASE_URL;
  const result = await run(process.execPath, [cli, 'build', ...(preset ? ['--preset', preset] : [])], { cwd: dir, env: buildEnv, timeoutMs: 120_000 });
  assert.equal(result.code, 0, `nitro build ${result.timedOut ? 'timed out' : `exited ${result.code}`}:\n${tail(result.stdout + result.stderr, 30)}`);
  const meta = JSON.parse(readFileSync(join(dir, '.output', 'nitro.json'), 'utf8'));
  assert.equal(meta.preset, preset ?? 'node-server');
  const out = mkdtempSync(join(tmpdir(), 'cpv-nitro-'));
  deployed.push(out);
  for (let above = dirname(out); ; above = dirname(above)) {
    assert.ok(!existsSync(join(above, 'node_modules')), `${above}/node_modules would stand in for what the build left out`);
    if (dirname(above) === above) break;
  }
  cpSync(join(dir, '.output'), out, { recursive: true });
  return { out, meta };
}

/** A built server (`runtime server/index.mjs` in `out`) with the recipe's environment and `env`, not waited for. */
const spawnNitro = (out, env, runtime = process.execPath) => startServer(runtime, [join('server', 'index.mjs')], {
  cwd: out,
  env: { ...nitroEnv(), ...RECIPE_ENV, HOST: '127.0.0.1', DATA_DIR: 'data', DATABASE_URL: '', ...env },
});

/**
 * Runs a built server; resolves once it prints where it listens. PORT is a port found free
 * unless `env` sets it (Nitro 2 binds a free port itself for PORT=0; Nitro 3's node-server
 * takes 0 as unset). A port found free can be taken before the server binds it: then another.
 */
async function startNitro(out, env, { runtime = process.execPath, timeoutMs = 15_000 } = {}) {
  for (let attempt = 1; ; attempt += 1) {
    const server = spawnNitro(out, { PORT: String(await freePort()), ...env }, runtime);
    const log = () => server.output.stdout + server.output.stderr;
    let origin;
    try {
      // Nitro's node-server and bun presets print the address they bound, the port included.
      [, origin] = await waitForOutput(server, /Listening on (http:\/\/127\.0\.0\.1:\d+)|EADDRINUSE/, { timeoutMs, what: 'the built Nitro server' });
    } catch (error) {
      // A server that could not bind exits; its last output may reach us after its exit.
      await new Promise((resolve) => setTimeout(resolve, 250));
      if (!/EADDRINUSE/.test(log()) || attempt >= 5) throw error;
    }
    if (origin) return { origin, url: `${origin}/webhook`, dir: out, output: server.output, stop: () => server.stop() };
    await server.stop();
    assert.ok(attempt < 5, `no free port after ${attempt} attempts:\n${tail(log())}`);
  }
}

/**
 * A suite on a throwaway PostgreSQL: `build()` if given, the server `start(env)` resolves
 * started on it, `tests()` if given, the deliveries, and `framework`'s traps (traps.mjs) on
 * `runtime`, started by `start(env)` and `spawn(env)`.
 */
function postgresSuite(title, framework, { runtime = 'Node', build, start, spawn, tests }) {
  describe(title, { timeout: 120_000 }, () => {
    let server;
    const db = postgresForSuite({ max: 2 });
    before(async () => {
      await build?.();
      server = await start({ DATABASE_URL: db.server.url });
      db.stopFirst(() => server.stop());
    });
    tests?.();
    deliveryTests(() => server.url, () => postgresStoreRows(db.pool), { breakStore: breakPostgres(() => db.pool) });
    const target = { origin: () => server.origin, output: () => server.output, recorded: (eventId) => recordedEvents(db.pool, eventId), start, spawn };
    trapSuite(framework, target, { runtime });
  });
}

/**
 * The suites of a Nitro recipe: `framework` (its rows in traps.mjs), `recipe` (its folder),
 * `title` (how it receives), `cli` (its Nitro's CLI), `routes` ({ file: source } written in the
 * copy's routes/ beside the recipe's), `env` (set on every start: Nitro 2's PORT=0),
 * `traced` (more files .output/server/node_modules must hold), `checkTraced(modules)` (more
 * checks of that folder), `checkBuild(meta)` (of what Nitro recorded of each build).
 */
export function nitroSuites({ framework, recipe, title, cli, routes, env: always = {}, traced = [], checkTraced = () => {}, checkBuild = () => {} }) {
  const build = async (as, preset) => {
    const dir = recipeCopy(recipe, as);
    for (const [file, source] of Object.entries(routes)) writeFileSync(join(dir, 'routes', file), source);
    const { out, meta } = await buildNitro(cli, dir, preset);
    checkBuild(meta);
    return out;
  };
  const start = (out, env, options) => startNitro(out, { ...always, ...env }, options);

  let built; // the node-server build (Nitro's default preset)
  before(async () => {
    built = await build(recipe);
  });

  postgresSuite(`${framework} recipe (${title}; PostgreSQL)`, framework, {
    start: (env) => start(built, env),
    spawn: (env) => spawnNitro(built, env),
    tests: () => test(`the build traced the package, pg, better-sqlite3 (its native addon)${traced.length ? ' and Nitro\'s h3' : ''} into .output`, () => {
      const modules = join(built, 'server', 'node_modules');
      for (const file of ['cryptopay-verify/package.json', 'cryptopay-verify/dist/receiver/index.mjs', 'cryptopay-verify/dist/entry/node.mjs',
        'pg/package.json', 'better-sqlite3/build/Release/better_sqlite3.node', ...traced]) {
        assert.ok(existsSync(join(modules, file)), file);
      }
      checkTraced(modules);
    }),
  });

  describe(`${framework} recipe (${title}; SQLite file, no DATABASE_URL)`, { timeout: 120_000 }, () => {
    let server;
    before(async () => {
      server = await start(built, {});
    });
    after(() => server?.stop());
    deliveryTests(() => server.url, () => sqliteStoreRows(built), { breakStore: breakSqlite(() => built) });
    restartTest(() => start(built, {}), () => server, (next) => { server = next; });
  });

  // The same files built with Nitro's bun preset and run on Bun: there the route gets no Node
  // request, only the one Nitro makes from Bun's (its body the bytes Bun read), as on Nitro's
  // other non-Node presets. better-sqlite3 does not load in Bun, so PostgreSQL.
  let bunBuilt;
  postgresSuite(`the ${framework} recipe built with --preset bun, run on Bun (PostgreSQL)`, framework, {
    runtime: 'Bun',
    async build() {
      bunBuilt = await build(`${recipe}-bun`, 'bun');
    },
    start: (env) => start(bunBuilt, env, { runtime: BUN }),
  });
}
