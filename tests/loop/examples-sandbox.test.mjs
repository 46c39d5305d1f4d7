// The examples' merchant loops driven by the sandbox, each a process: the node example
// (examples/node-receiver: POST /payments creates a payment through the client and records its
// order; its passes confirm with the sandbox and print what they would do) and the axum example
// (examples/axum-receiver: POST /orders records the answer of a creation; its passes GET
// /v1/payments/{id} over plain http). Payments paid in every way through the sandbox, deliveries
// duplicated and shuffled (seeded): every order paid exactly is shipped once, no other; neither
// the API key, the webhook secret nor ADMIN_TOKEN (the bearer token both examples ask of the
// shop's route) is printed.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ROOT, SIG_HEADER, TS_HEADER, tempDir } from '../receiver/lib/helpers.mjs';
import { send, startExample } from '../receiver/lib/example.mjs';
import { freePort, startProcess } from '../sandbox/lib.mjs';
import {
  applySteps, canaries, createClient, settled, sleep, startSandbox, waitFor,
} from './lib/sandbox.mjs';

const AXUM = process.env.AXUM_RECEIVER_BIN ?? join(ROOT, 'target', 'axum-receiver', 'release', 'cryptopay-verify-axum-receiver');
const SEED = 20_261_207;
// The shop's routes (POST /payments, POST /orders) answer only its bearer.
const ADMIN_TOKEN = `admin_canary_${randomBytes(16).toString('hex')}`;
const asShop = { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` };

// What each order goes through, and whether it ends paid exactly (shipped).
const PLANS = [
  ['paid in full', [['pay', '1000']], true],
  ['paid in two parts', [['pay', '400'], ['pay', '600']], true],
  [null, [['pay', '1000']], true], // no order_ref
  ['paid in part', [['pay', '250']], false],
  ['paid too much', [['pay', '1500']], false],
  ['held for review', [['review']], false],
  ['expired', [['pay', '100'], ['expire']], false],
  ['cancelled', [['cancel']], false],
  ['never paid', [], false],
];

/** A sandbox whose webhook is a receiver yet to start on a free port. */
async function sandboxFor(watch) {
  const port = await freePort();
  const sandbox = await startSandbox({
    port: 0, webhookUrl: `http://127.0.0.1:${port}/webhook`, retryDelaysMs: [50, 100, 200, 400, 800, 1600],
    duplicateRate: 0.5, shuffle: true, seed: SEED, log: watch.sandboxLog,
  });
  return { sandbox, port, api: createClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey }) };
}

/**
 * Creates one order per plan (`create(orderRef)` resolves its payment_id), then pays them as
 * planned through the sandbox; resolves [{ paymentId, orderRef, shipped }].
 */
async function workload(sandbox, api, create) {
  const orders = [];
  for (const [orderRef, steps, shipped] of PLANS) orders.push({ paymentId: await create(orderRef), orderRef, steps, shipped });
  for (const { paymentId, steps } of orders) await applySteps(sandbox, api, paymentId, steps);
  return orders;
}

/**
 * Waits until `output()` has shipped every order that ends paid exactly and the sandbox is
 * quiet, lets a few more passes run, then checks: each of those shipped once, at its last
 * version; no other order shipped.
 */
async function checkShipped(output, orders, sandbox, api) {
  const shipping = (paymentId) => new RegExp(`would ship .*payment ${paymentId}, paid at version (\\d+); key ${paymentId}:\\1\\)`, 'g');
  await settled(sandbox, 30_000);
  await waitFor(() => orders.every((o) => !o.shipped || shipping(o.paymentId).test(output())), { timeoutMs: 20_000, what: `every paid order shipped in:\n${output()}` });
  await sleep(500); // several more passes: nothing shipped twice
  for (const { paymentId, orderRef, shipped } of orders) {
    const lines = output().match(shipping(paymentId)) ?? [];
    assert.equal(lines.length, shipped ? 1 : 0, `${orderRef ?? '(no order_ref)'}: shipped ${lines.length} times`);
    if (shipped) {
      const view = await api.getPayment(paymentId);
      assert.equal(view.status, 'paid');
      assert.ok(lines[0].includes(`key ${paymentId}:${view.status_version})`), 'at the version the service says');
      if (orderRef !== null) assert.ok(lines[0].startsWith(`would ship order ${orderRef} `), lines[0]);
    }
  }
  assert.ok((await sandbox.deliveries()).some((d) => d.kind === 'duplicate'), 'duplicates were delivered');
}

describe('the examples\' merchant loops, driven by the sandbox', () => {
  test('the node example: orders created through POST /payments, paid through the sandbox, each paid one shipped once', async (t) => {
    const watch = canaries();
    const { sandbox, port, api } = await sandboxFor(watch);
    t.after(() => sandbox.close());
    const example = await startExample({
      env: {
        DATA_DIR: tempDir(), PORT: String(port), FULFIL_INTERVAL_MS: '100', CRYPTOPAY_WEBHOOK_SECRET: sandbox.webhook.secret,
        CRYPTOPAY_BASE_URL: sandbox.baseUrl, CRYPTOPAY_API_KEY: sandbox.apiKey, ADMIN_TOKEN,
      },
    });
    t.after(() => example.stop());
    const orders = await workload(sandbox, api, async (orderRef) => {
      const body = Buffer.from(JSON.stringify(orderRef === null ? { amount: '10.00' } : { order_ref: orderRef, amount: '10.00' }));
      // Without an order_ref, the back office names the creation's key itself.
      const headers = orderRef === null ? { ...asShop, 'idempotency-key': 'no-order-ref-1' } : asShop;
      const created = await send(`${example.url}/payments`, body, { headers, agent: false });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.json.source_amount, { kind: 'fiat', currency: 'USD', amount_raw: '1000' });
      // Sent again (an answer the back office never saw): the same payment, not a second one.
      const again = await send(`${example.url}/payments`, body, { headers, agent: false });
      assert.deepEqual([again.status, again.json.payment_id], [201, created.json.payment_id], again.text);
      return created.json.payment_id;
    });
    await checkShipped(() => example.output, orders, sandbox, api);
    assert.match(example.output, /would hold order paid in part for review \(partially_paid; /);
    assert.match(example.output, /would release order cancelled: not paid /);
    watch.text(example.output);
    watch.check(sandbox.apiKey, sandbox.webhook.secret, ADMIN_TOKEN);
  });

  test('the axum example: orders recorded through POST /orders, paid through the sandbox, each paid one shipped once',
    { skip: existsSync(AXUM) ? false : `${AXUM} is not built (make loop-test builds it)` }, async (t) => {
      const watch = canaries();
      const { sandbox, port, api } = await sandboxFor(watch);
      t.after(() => sandbox.close());
      // DATABASE_URL empty: SQLite, whatever this process's environment says.
      const env = { DATABASE_URL: '', HOST: '127.0.0.1', PORT: String(port), DATABASE: join(tempDir(), 'axum.db'), FULFIL_INTERVAL_MS: '100',
        CRYPTOPAY_WEBHOOK_SECRET: sandbox.webhook.secret, TIMESTAMP_HEADER: TS_HEADER, SIGNATURE_HEADER: SIG_HEADER,
        CRYPTOPAY_BASE_URL: sandbox.baseUrl, CRYPTOPAY_API_KEY: sandbox.apiKey, ADMIN_TOKEN };
      const axum = await startProcess(AXUM, [], { env, ready: /listening on http:\/\/127\.0\.0\.1:\d+\/webhook/ });
      t.after(() => axum.stop('SIGINT'));
      assert.match(axum.output(), /fulfilling every 100 ms, confirming with the service at http:\/\/127\.0\.0\.1:\d+/);
      const orders = await workload(sandbox, api, async (orderRef) => {
        const created = await api.createPayment(orderRef === null ? { amount: '10.00' } : { order_ref: orderRef, amount: '10.00' });
        const recorded = await send(`http://127.0.0.1:${port}/orders`, Buffer.from(JSON.stringify(created)), { headers: asShop, agent: false });
        assert.deepEqual([recorded.status, recorded.json], [200, { recorded: true }]);
        return created.payment_id;
      });
      await checkShipped(axum.output, orders, sandbox, api);
      assert.match(axum.output(), /would hold order paid in part for review \(partially_paid; /);
      watch.text(axum.output());
      watch.check(sandbox.apiKey, sandbox.webhook.secret, ADMIN_TOKEN);
    });
});
