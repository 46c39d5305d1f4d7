// Shared by the Nitro 2 and Nitro 3 recipe tests: `nitro build` of a recipe copy as a deployment
// runs it (neither the secret nor the database in its environment), the .output it ships copied
// outside the repository, and the built server started from that copy.

import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after } from 'node:test';
import { freePort, run, startServer, tail } from '../../../tests/runtimes/lib.mjs';
import { RECIPE_ENV, waitForOutput } from './helpers.mjs';

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
