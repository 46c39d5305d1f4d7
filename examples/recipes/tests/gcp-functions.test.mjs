// The Google Cloud Run functions recipe (examples/recipes/gcp-functions): the Functions
// Framework's own command (`functions-framework --target=webhook`, as `npm start` and the
// platform run it) serving the recipe, which records in a throwaway PostgreSQL. The framework
// parses every body before the function runs and keeps the bytes in req.rawBody: the shared
// deliveries and the conformance kit show receiver.node verifies those bytes; then its trap
// (traps.mjs): deployed without DATABASE_URL.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe } from 'node:test';
import { freePort, startServer, tail, waitForPort } from '../../../tests/runtimes/lib.mjs';
import { postgresForSuite } from '../../../tests/receiver/lib/postgres.mjs';
import {
  RECIPE_ENV, ROOT, breakPostgres, deliveryTests, postgresStoreRows, recipeCopy, recordedEvents,
} from './helpers.mjs';
import { trapSuite } from './traps.mjs';

const FRAMEWORK = join(ROOT, 'node_modules', '@google-cloud', 'functions-framework', 'build', 'src', 'main.js');

/**
 * The framework's command on a free port (it cannot pick one itself: --port=0 prints port 0):
 * another port is tried if a process took that one meanwhile. Resolves { url, output, stop() }.
 */
async function startFunction(dir, env) {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const server = startServer(process.execPath, [FRAMEWORK, '--target=webhook', `--port=${port}`], {
      cwd: dir,
      env: { ...process.env, ...RECIPE_ENV, ...env },
    });
    try {
      await waitForPort(port, { timeoutMs: 20_000, exited: server.exited });
      return { url: `http://127.0.0.1:${port}/`, output: server.output, stop: () => server.stop() };
    } catch (error) {
      await server.stop();
      if (attempt >= 5) throw new Error(`${error.message}:\n${tail(server.output.stdout + server.output.stderr, 30)}`);
    }
  }
}

describe('Google Cloud Run functions recipe (Functions Framework, receiver.node on req.rawBody; PostgreSQL)', { timeout: 120_000 }, () => {
  let dir;
  const db = postgresForSuite({ max: 1 });
  let fn;
  before(async () => {
    dir = recipeCopy('gcp-functions');
    fn = await startFunction(dir, { DATABASE_URL: db.server.url });
    db.stopFirst(() => fn.stop());
  });

  deliveryTests(() => fn.url, () => postgresStoreRows(db.pool), { breakStore: breakPostgres(() => db.pool) });

  trapSuite('Google Cloud Run functions', {
    start: (env) => startFunction(dir, { DATABASE_URL: db.server.url, ...env }),
    recorded: (eventId) => recordedEvents(db.pool, eventId),
  });
});
