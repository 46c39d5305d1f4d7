// The Cloudflare Worker recipe on PostgreSQL (examples/recipes/worker-postgres): bundled by
// `wrangler deploy --dry-run` as for a deployment, served by Miniflare (workerd) with its
// Hyperdrive binding pointed at a throwaway PostgreSQL on 127.0.0.1 (as `wrangler dev` points
// it at localConnectionString), text bindings standing in for the vars and the secret. Then
// its trap (traps.mjs), what the recipe's client-per-statement store avoids: a pg.Pool kept
// across requests, which postgresStore refuses in a Worker.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { bundleWorker, notResets, serveBundle, workerFolder } from '../../../tests/receiver/lib/d1.mjs';
import { postgresForSuite } from '../../../tests/receiver/lib/postgres.mjs';
import { RECIPE_ENV, breakPostgres, deliveryTests, keptStdio, postgresStoreRows, recipeCopy, recordedEvents } from './helpers.mjs';
import { trapSuite } from './traps.mjs';

const WORKERS = { compatibilityFlags: ['nodejs_compat'] };
const POOLED = `import pg from 'pg';
import { createReceiver, postgresStore } from 'cryptopay-verify/receiver';
let receiver;
export default {
  fetch(request, env) {
    receiver ??= createReceiver({ secrets: env.CRYPTOPAY_WEBHOOK_SECRET, maxSkewSecs: 300, timestampHeader: env.TIMESTAMP_HEADER,
      signatureHeader: env.SIGNATURE_HEADER, store: postgresStore(new pg.Pool({ connectionString: env.HYPERDRIVE.connectionString, max: 1 })) });
    return receiver.fetch(request);
  },
};
`;

describe('Cloudflare Worker recipe on PostgreSQL (receiver.fetch, Hyperdrive, in workerd through Miniflare)', { timeout: 120_000 }, () => {
  const db = postgresForSuite({ max: 1, tcp: true });
  let worker;
  before(async () => {
    const out = await bundleWorker(recipeCopy('worker-postgres'));
    worker = await serveBundle(out, { ...WORKERS, bindings: RECIPE_ENV, hyperdrives: { HYPERDRIVE: db.server.tcpUrl }, port: 0 });
    db.stopFirst(() => worker.dispose());
  });

  deliveryTests(() => new URL('/webhook', worker.url).href, () => postgresStoreRows(db.pool), { breakStore: breakPostgres(() => db.pool) });

  test('the stand-in for Hyperdrive saw no error on its connections but resets (serveBundle)', () => {
    assert.deepEqual(notResets(worker.socketErrors).map(String), []);
  });

  trapSuite('Worker on PostgreSQL', {
    // Not the recipe: a Worker keeping a pg.Pool across requests, as a Node receiver keeps one.
    async start() {
      const dir = workerFolder('worker-postgres-pool', POOLED, { compatibility_flags: ['nodejs_compat'] });
      const { lines, handleRuntimeStdio } = keptStdio();
      const pooled = await serveBundle(await bundleWorker(dir), { ...WORKERS, bindings: RECIPE_ENV, hyperdrives: { HYPERDRIVE: db.server.tcpUrl }, port: 0, handleRuntimeStdio });
      return { url: new URL('/webhook', pooled.url).href, lines, stop: () => pooled.dispose() };
    },
    recorded: (eventId) => recordedEvents(db.pool, eventId),
  });
});
