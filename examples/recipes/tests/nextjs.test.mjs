// The Next.js recipe (examples/recipes/nextjs): `next build` with neither the secret nor a
// database, then `next start` on 127.0.0.1 (Node runtime) recording in PostgreSQL
// (DATABASE_URL, a throwaway server), and the deliveries POSTed to its App Router route
// (/api/webhook) and to its Pages Router route (/api/pages-router-webhook).

import assert from 'node:assert/strict';
import { realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { before, describe, test } from 'node:test';
import { run, startServer, tail, waitForPort } from '../../../tests/runtimes/lib.mjs';
import { postgresForSuite } from '../../../tests/receiver/lib/postgres.mjs';
import {
  RECIPE_ENV, ROOT, breakPostgres, deliveryTests, postgresStoreRows, recipeCopy, recordedEvents, waitForOutput,
} from './helpers.mjs';
import { trapSuite } from './traps.mjs';

const NEXT = join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');

/** The port `next start` printed (`- Local: http://127.0.0.1:<port>`) once it listens. */
async function listeningPort(server, timeoutMs) {
  const [, port] = await waitForOutput(server, /Local:\s+http:\/\/127\.0\.0\.1:(\d+)/, { timeoutMs, what: 'next start' });
  return Number(port);
}

describe('Next.js recipe (App Router route handler, receiver.fetch; PostgreSQL)', { timeout: 150_000 }, () => {
  let dir;
  let server;
  let origin;
  let url;
  const db = postgresForSuite({ max: 2 });
  before(async () => {
    dir = recipeCopy('nextjs');
    // Beside the recipe's routes, for the test only: a Pages API route that leaves Next's body
    // parser on, as a Pages Router app does unless told otherwise.
    writeFileSync(join(dir, 'pages', 'api', 'parsed-webhook.js'), `import { receiver } from '../../lib/receiver.js';
export default function handler(req, res) {
  return receiver.node(req, res);
}
`);
    // Turbopack compiles and resolves only inside its root (the repository, by its lockfile):
    // where node_modules links to an install outside it (a worktree sharing one), the root is
    // set to a folder holding both, for the test only.
    // cacheComponents, as create-next-app writes it: such an app refuses a route's `runtime`
    // and `dynamic` exports, which the recipe leaves out.
    const modules = realpathSync(join(ROOT, 'node_modules'));
    let root = ROOT;
    while (relative(root, modules).startsWith('..')) root = dirname(root);
    const turbopack = root === ROOT ? '' : ` turbopack: { root: ${JSON.stringify(root)} },`;
    writeFileSync(join(dir, 'next.config.mjs'), `export default { cacheComponents: true,${turbopack} };\n`);
    // Neither the secret nor the database is in the environment of `next build`.
    const buildEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NO_COLOR: '1', ...RECIPE_ENV };
    delete buildEnv.CRYPTOPAY_WEBHOOK_SECRET;
    delete buildEnv.DATABASE_URL;
    const build = await run(process.execPath, [NEXT, 'build'], { cwd: dir, env: buildEnv, timeoutMs: 120_000 });
    assert.equal(build.code, 0, `next build ${build.timedOut ? 'timed out' : `exited ${build.code}`}:\n${tail(build.stdout + build.stderr, 30)}`);
    // --port 0: the server binds a free port itself and prints it (a port found free beforehand
    // could be taken by another process before `next start` binds it).
    server = startServer(process.execPath, [NEXT, 'start', '--hostname', '127.0.0.1', '--port', '0'], {
      cwd: dir,
      env: { ...buildEnv, ...RECIPE_ENV, DATABASE_URL: db.server.url },
    });
    db.stopFirst(() => server.stop());
    const port = await listeningPort(server, 20_000);
    await waitForPort(port, { timeoutMs: 20_000, exited: server.exited });
    origin = `http://127.0.0.1:${port}`;
    url = `${origin}/api/webhook`;
  });

  test('the route is built as a dynamic Node route handler', async () => {
    const { readFile } = await import('node:fs/promises');
    const manifest = JSON.parse(await readFile(join(dir, '.next', 'server', 'app-paths-manifest.json'), 'utf8'));
    assert.ok(Object.keys(manifest).includes('/api/webhook/route'), JSON.stringify(manifest));
  });
  const readStore = () => postgresStoreRows(db.pool);
  deliveryTests(() => url, readStore, { breakStore: breakPostgres(() => db.pool) });

  describe('Pages Router: pages/api/pages-router-webhook.js (bodyParser off, receiver.node)', () => {
    deliveryTests(() => `${origin}/api/pages-router-webhook`, readStore);
    trapSuite('Next.js', { origin: () => origin, output: () => server.output, recorded: (eventId) => recordedEvents(db.pool, eventId) });
  });
});
