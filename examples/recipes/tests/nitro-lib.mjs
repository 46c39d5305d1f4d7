// Shared by the Nitro 2 and Nitro 3 recipe tests: `nitro build` of a recipe copy as a deployment
// runs it (neither the secret nor the database in its environment), the .output it ships copied
// outside the repository, the built server started from that copy, and a test both run on it.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, run, startServer, tail } from '../../../tests/runtimes/lib.mjs';
import { RECIPE_ENV, assertLogged, deliver, deliveryTests, eventBody, restartTest, sqliteStoreRows, waitForOutput } from './helpers.mjs';

const deployed = []; // the copies of .output, outside the repository
after(() => {
  for (const dir of deployed) rmSync(dir, { recursive: true, force: true });
});

/**
 * The environment without Nitro's own settings (NITRO_PRESET, NITRO_PORT, NITRO_HOST, ...),
 * which would take precedence over what the test sets.
 */
export const nitroEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('NITRO_')));

/**
 * `node <cli> build` (with `preset`, else Nitro's default: node-server) in `dir`, a recipe copy
 * with the test's routes written, with neither the secret nor the database in its environment.
 * Resolves { out, meta }: a copy of its .output alone, outside the repository (what a deployment
 * ships), where no node_modules above can stand in for what Nitro left out; and what Nitro
 * recorded of the build (.output/nitro.json: its preset is checked there, as the log's wording
 * changes where Nitro detects CI).
 */
export async function buildNitro(cli, dir, preset) {
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

/**
 * Runs a built server (`runtime server/index.mjs` in `out`) with the recipe's environment and
 * `env`; resolves once it prints where it listens. PORT is a port found free unless `env` sets
 * it (Nitro 2 binds a free port itself for PORT=0; Nitro 3's node-server takes 0 as unset). A
 * port found free can be taken before the server binds it: then another.
 */
export async function startNitro(out, env, { runtime = process.execPath, timeoutMs = 15_000 } = {}) {
  for (let attempt = 1; ; attempt += 1) {
    const server = startServer(runtime, [join('server', 'index.mjs')], {
      cwd: out,
      env: { ...nitroEnv(), ...RECIPE_ENV, PORT: String(await freePort()), HOST: '127.0.0.1', DATA_DIR: 'data', DATABASE_URL: '', ...env },
    });
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
 * `name`: on the built server at `origin()`, the route `route` (one that reads the body some way
 * before the receiver) verifies and applies a delivery, and refuses it altered under its signature.
 */
export function verifiesAfterTest(name, origin, route) {
  test(name, async () => {
    const tag = `${route.replaceAll('-', '_')}_${randomBytes(4).toString('hex')}`;
    const body = eventBody({ eventId: `evt_${tag}`, paymentId: `pay_${tag}`, statusVersion: 1 });
    const response = await deliver(`${origin()}/${route}`, body);
    assert.deepEqual([response.status, response.json], [200, { received: true, decision: 'apply' }], response.text);
    const tampered = Buffer.from(body.toString('utf8').replace('"status": "open"', '"status": "paid"'));
    const refused = await deliver(`${origin()}/${route}`, tampered, { signBody: body });
    assert.deepEqual([refused.status, refused.json], [400, { error: 'signature_mismatch' }], refused.text);
  });
}

/**
 * The tests of a Node build (`built()`, started by `start(out, env)`) without DATABASE_URL: the
 * deliveries and a restart on its SQLite file, then started without the secret. `recipe` opens
 * the suite's name; `prefix` the ids of the events it sends.
 */
export function sqliteTests(recipe, built, start, prefix) {
  describe(`${recipe}; SQLite file, no DATABASE_URL)`, { timeout: 120_000 }, () => {
    let server;
    before(async () => {
      server = await start(built(), {});
    });
    after(() => server?.stop());
    deliveryTests(() => server.url, () => sqliteStoreRows(built()));
    restartTest(() => start(built(), {}), () => server, (next) => { server = next; });
  });

  test('started without the secret: 500 not_configured (the service retries), and the log names the variable', async () => {
    const server = await start(built(), { CRYPTOPAY_WEBHOOK_SECRET: '', DATA_DIR: 'data-unset' });
    try {
      const response = await deliver(server.url, eventBody({ eventId: `evt_${prefix}_unset`, paymentId: `pay_${prefix}_unset`, statusVersion: 1 }));
      assert.deepEqual([response.status, response.json], [500, { error: 'not_configured' }], response.text);
      await assertLogged(server.output, /webhook receiver unavailable: set CRYPTOPAY_WEBHOOK_SECRET in the server's environment/);
      assert.ok(!existsSync(join(built(), 'data-unset')), 'no store was opened');
    } finally {
      await server.stop();
    }
  });
}

/** A Bun build (`out()`, started by `start(out, env)`) without DATABASE_URL: 503, as better-sqlite3 does not load in Bun. */
export function bunWithoutDatabaseTest(out, start, prefix) {
  test('without DATABASE_URL: 503 store_unavailable (the service retries), the log says better-sqlite3 does not load in Bun', async () => {
    const sqlite = await start(out(), {});
    try {
      const response = await deliver(sqlite.url, eventBody({ eventId: `evt_${prefix}_bun_sqlite`, paymentId: `pay_${prefix}_bun_sqlite`, statusVersion: 1 }));
      assert.deepEqual([response.status, response.json], [503, { error: 'store_unavailable' }], response.text);
      await assertLogged(sqlite.output, /webhook receiver unavailable: 'better-sqlite3' is not yet supported in Bun/);
    } finally {
      await sqlite.stop();
    }
  });
}
