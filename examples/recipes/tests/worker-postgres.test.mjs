// The Cloudflare Worker recipe on PostgreSQL (examples/recipes/worker-postgres): bundled by
// `wrangler deploy --dry-run` as for a deployment, served by Miniflare (workerd) with its
// Hyperdrive binding pointed at a throwaway PostgreSQL on 127.0.0.1 (as `wrangler dev` points
// it at localConnectionString), text bindings standing in for the vars and the secret. Then
// what the recipe's client-per-statement store avoids: a pg.Pool kept across requests, which
// postgresStore refuses in a Worker.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { bundleWorker, serveBundle, workerFolder } from '../../../tests/receiver/lib/d1.mjs';
import { postgresForSuite } from '../../../tests/receiver/lib/postgres.mjs';
import { RECIPE_ENV, deliver, deliveryTests, eventBody, postgresStoreRows, recipeCopy } from './helpers.mjs';

const WORKERS = { compatibilityFlags: ['nodejs_compat'] };

describe('Cloudflare Worker recipe on PostgreSQL (receiver.fetch, Hyperdrive, in workerd through Miniflare)', { timeout: 120_000 }, () => {
  const db = postgresForSuite({ max: 1, tcp: true });
  let worker;
  before(async () => {
    const out = await bundleWorker(recipeCopy('worker-postgres'));
    worker = await serveBundle(out, { ...WORKERS, bindings: RECIPE_ENV, hyperdrives: { HYPERDRIVE: db.server.tcpUrl }, port: 0 });
    db.stopFirst(() => worker.dispose());
  });

  deliveryTests(() => new URL('/webhook', worker.url).href, () => postgresStoreRows(db.pool));

  test('a pg.Pool kept across requests, as a Node receiver keeps one (every delivery after the first would hang): refused, the error naming the fix, nothing recorded', async () => {
    const dir = workerFolder('worker-postgres-pool', `import pg from 'pg';
import { createReceiver, postgresStore } from 'cryptopay-verify/receiver';
let receiver;
export default {
  fetch(request, env) {
    receiver ??= createReceiver({ secrets: env.CRYPTOPAY_WEBHOOK_SECRET, maxSkewSecs: 300, timestampHeader: env.TIMESTAMP_HEADER,
      signatureHeader: env.SIGNATURE_HEADER, store: postgresStore(new pg.Pool({ connectionString: env.HYPERDRIVE.connectionString, max: 1 })) });
    return receiver.fetch(request);
  },
};
`, { compatibility_flags: ['nodejs_compat'] });
    const pooled = await serveBundle(await bundleWorker(dir), { ...WORKERS, bindings: RECIPE_ENV, hyperdrives: { HYPERDRIVE: db.server.tcpUrl }, port: 0 });
    try {
      const url = new URL('/webhook', pooled.url).href;
      const response = await deliver(url, eventBody({ eventId: 'evt_pool_1', paymentId: 'pay_pool', statusVersion: 1 }));
      // The exception, as Miniflare shows it in development (workerd answers a bare 500 in production).
      assert.equal(response.status, 500, response.text);
      assert.match(response.text, /postgresStore was given a pg\.Pool in a Cloudflare Worker.*client per statement/);
      const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM cryptopay_events WHERE payment_id = 'pay_pool'");
      assert.equal(rows[0].n, 0);
    } finally {
      await pooled.dispose();
    }
  });
});
