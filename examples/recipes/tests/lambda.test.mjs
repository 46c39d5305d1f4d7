// The AWS Lambda recipe (examples/recipes/lambda): its handler, unchanged, behind a stand-in
// for API Gateway, Function URLs and ALB (api-gateway-stand-in.mjs: AWS cannot run here), in
// each event shape they document (rows of traps.mjs, with the function deployed unconfigured),
// recording in a throwaway PostgreSQL: the same deliveries and conformance kit as every
// recipe; then what a Lambda meets: a database that went away and came back while the
// execution environment lived.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { postgresForSuite } from '../../../tests/receiver/lib/postgres.mjs';
import { RECIPES, deliver, deliveryTests, eventBody, postgresStoreRows, recipeCopy, recordedEvents, startNodeRecipe } from './helpers.mjs';
import { trapSuite } from './traps.mjs';

const STAND_IN = join(RECIPES, 'tests', 'api-gateway-stand-in.mjs');

describe('AWS Lambda recipe (receiver.handle; PostgreSQL)', { timeout: 240_000 }, () => {
  let dir;
  const db = postgresForSuite({ max: 1 });
  before(() => {
    dir = recipeCopy('lambda');
    // The server is stopped under it once (below): its idle connection then ends with an error.
    db.pool.on('error', () => {});
  });
  const start = (env) => startNodeRecipe(dir, { script: STAND_IN, env });
  const readStore = () => postgresStoreRows(db.pool);

  trapSuite('AWS Lambda', {
    start: (env) => start({ DATABASE_URL: db.server.url, ...env }),
    readStore,
    recorded: (eventId) => recordedEvents(db.pool, eventId),
  });

  // AWS CDK's NodejsFunction (and SST, serverless-esbuild) bundle the handler and its
  // dependencies with esbuild into one file; CDK's defaults: CommonJS, platform node.
  describe('bundled as AWS CDK\'s NodejsFunction bundles it (esbuild: one CommonJS file, pg and the package inside)', () => {
    let fn;
    let asset;
    before(async () => {
      const esbuild = await import('esbuild');
      // The deployed asset: a folder holding index.js alone (no package.json says "module").
      asset = mkdtempSync(join(tmpdir(), 'cpv-lambda-asset-'));
      await esbuild.build({
        entryPoints: [join(dir, 'handler.mjs')], bundle: true, platform: 'node', target: 'node20', format: 'cjs',
        outfile: join(asset, 'index.js'), logLevel: 'error',
      });
      fn = await startNodeRecipe(asset, { script: STAND_IN, env: { SHAPE: 'rest-api-binary', DATABASE_URL: db.server.url, HANDLER: 'index.js' } });
    });
    after(async () => {
      await fn?.stop();
      if (asset) rmSync(asset, { recursive: true, force: true });
    });
    deliveryTests(() => fn.url, readStore);
  });

  describe('the database goes away and comes back while the execution environment lives', () => {
    let fn;
    before(async () => {
      fn = await start({ SHAPE: 'http-api', DATABASE_URL: db.server.url });
    });
    after(() => fn?.stop());
    const body = (n) => eventBody({ eventId: `evt_lambda_restart_${n}`, paymentId: 'pay_lambda_restart', statusVersion: n });

    test('recorded before; 503 (retried by the service) while it is down; recorded again once it is back', async () => {
      let response = await deliver(fn.url, body(1));
      assert.deepEqual([response.status, response.json], [200, { received: true, decision: 'apply' }], response.text);
      db.server.stop('fast');
      try {
        response = await deliver(fn.url, body(2));
        assert.deepEqual([response.status, response.json], [503, { error: 'store_unavailable' }], response.text);
      } finally {
        db.server.start();
      }
      // The pool's connection died with the server: the first delivery after may still meet
      // it (503, retried); within a few the function records again, nothing acknowledged lost.
      const answers = [];
      for (let attempt = 0; attempt < 3; attempt += 1) {
        response = await deliver(fn.url, body(2));
        answers.push(response.status);
        if (response.status === 200) break;
      }
      assert.deepEqual([response.status, response.json], [200, { received: true, decision: 'apply' }], `answers: ${answers}`);
      const { rows } = await db.pool.query("SELECT event_id FROM cryptopay_events WHERE payment_id = 'pay_lambda_restart' ORDER BY event_id");
      assert.deepEqual(rows.map((r) => r.event_id), ['evt_lambda_restart_1', 'evt_lambda_restart_2']);
      const [payment] = (await db.pool.query("SELECT status_version::text AS v FROM cryptopay_payments WHERE payment_id = 'pay_lambda_restart'")).rows;
      assert.equal(payment.v, '2');
    });
  });
});
