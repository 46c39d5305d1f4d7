// The Google Cloud Run functions recipe (examples/recipes/gcp-functions): the Functions
// Framework's own command (`functions-framework --target=webhook`, as `npm start` and the
// platform run it) serving the recipe, which records in a throwaway PostgreSQL. The framework
// parses every body before the function runs and keeps the bytes in req.rawBody: the shared
// deliveries and the conformance kit show receiver.node verifies those bytes.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { freePort, startServer, tail, waitForPort } from '../../../tests/runtimes/lib.mjs';
import { postgresForSuite } from '../../../tests/receiver/lib/postgres.mjs';
import { RECIPE_ENV, ROOT, assertLogged, deliver, deliveryTests, eventBody, postgresStoreRows, recipeCopy } from './helpers.mjs';

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

  deliveryTests(() => fn.url, () => postgresStoreRows(db.pool));

  test('deployed without DATABASE_URL: 500 not_configured (the service retries), the log says what to set', async () => {
    const unset = await startFunction(dir, { DATABASE_URL: '' });
    try {
      const response = await deliver(unset.url, eventBody({ eventId: 'evt_gcf_unset', paymentId: 'pay_gcf_unset', statusVersion: 1 }));
      assert.deepEqual([response.status, response.json], [500, { error: 'not_configured' }], response.text);
      await assertLogged(unset.output, /set CRYPTOPAY_WEBHOOK_SECRET, TIMESTAMP_HEADER, SIGNATURE_HEADER and DATABASE_URL/);
    } finally {
      await unset.stop();
    }
  });
});
