// The Next.js recipe (examples/recipes/nextjs): `next build`, then `next start` on 127.0.0.1
// (Node runtime), and the deliveries POSTed to /api/webhook.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, run, startServer, tail, waitForPort } from '../../../tests/runtimes/lib.mjs';
import { RECIPE_ENV, ROOT, deliveryTests, recipeCopy } from './helpers.mjs';

const NEXT = join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NO_COLOR: '1', ...RECIPE_ENV };

describe('Next.js recipe (App Router route handler, request.arrayBuffer())', { timeout: 150_000 }, () => {
  let dir;
  let server;
  let url;
  before(async () => {
    dir = recipeCopy('nextjs');
    // The secret is only in the environment of `next start`: the build must not need it.
    const buildEnv = { ...env };
    delete buildEnv.CRYPTOPAY_WEBHOOK_SECRET;
    const build = await run(process.execPath, [NEXT, 'build'], { cwd: dir, env: buildEnv, timeoutMs: 120_000 });
    assert.equal(build.code, 0, `next build ${build.timedOut ? 'timed out' : `exited ${build.code}`}:\n${tail(build.stdout + build.stderr, 30)}`);
    const port = await freePort();
    server = startServer(process.execPath, [NEXT, 'start', '--hostname', '127.0.0.1', '--port', String(port)], { cwd: dir, env });
    await waitForPort(port, { timeoutMs: 20_000, exited: server.exited });
    url = `http://127.0.0.1:${port}/api/webhook`;
  });
  after(() => server?.stop());

  test('the route is built as a dynamic Node route handler', async () => {
    const { readFile } = await import('node:fs/promises');
    const manifest = JSON.parse(await readFile(join(dir, '.next', 'server', 'app-paths-manifest.json'), 'utf8'));
    assert.ok(Object.keys(manifest).includes('/api/webhook/route'), JSON.stringify(manifest));
  });
  deliveryTests(() => url);
});
