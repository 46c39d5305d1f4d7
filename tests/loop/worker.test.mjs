// The merchant loop in a Cloudflare Worker on D1 (the guide's Worker, docs/merchant-loop.md),
// bundled by wrangler and run in workerd through Miniflare, against a scripted stand-in of the
// service: a checkout route creates the payment with the client and records its order, the
// webhook route records the events, and the scheduled handler fulfils through getPayment,
// writing one shipment per idempotency key into D1.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bundleWorker, serveWithD1, workerFolder } from '../receiver/lib/d1.mjs';
import { SECRET, SIG_HEADER, TS_HEADER, eventBody, signedHeaders, tempDir } from '../receiver/lib/helpers.mjs';
import { startStandin } from './lib/standin.mjs';

const API_KEY = 'sk_canary_worker_51e0';

export const WORKER = `import { createReceiver, d1Store } from 'cryptopay-verify/receiver';
import { createClient } from 'cryptopay-verify/client';

let receiver;
const receiverOf = (env) => (receiver ??= createReceiver({
  secrets: env.CRYPTOPAY_WEBHOOK_SECRET,
  maxSkewSecs: 300,
  timestampHeader: env.TIMESTAMP_HEADER,
  signatureHeader: env.SIGNATURE_HEADER,
  store: d1Store(env.DB),
}));
const apiOf = (env) => createClient({ baseUrl: env.CRYPTOPAY_BASE_URL, apiKey: env.CRYPTOPAY_API_KEY });

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === '/webhook') return receiverOf(env).fetch(request);
    if (pathname === '/checkout' && request.method === 'POST') {
      const { orderRef, amount } = await request.json();
      const created = await apiOf(env).createPayment({ order_ref: orderRef, amount }, { record: receiverOf(env) });
      return Response.json({ paymentId: created.payment_id });
    }
    return new Response('not found', { status: 404 });
  },
  async scheduled(controller, env, ctx) {
    const api = apiOf(env);
    await receiverOf(env).fulfil({
      confirm: (paymentId) => api.getPayment(paymentId),
      handle: ({ action, order, idempotencyKey }) => env.DB
        .prepare('INSERT INTO shipments (idempotency_key, order_ref, action) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
        .bind(idempotencyKey, order?.orderRef ?? null, action).run(),
    });
  },
};
`;

describe('the loop in a Worker on D1 (workerd)', () => {
  let standin;
  let worker;
  const state = { status: 'open', version: 1, received: '0' };
  before(async () => {
    standin = await startStandin((req) => {
      if (req.path === '/v1/store') return { json: { primary_source: { kind: 'fiat', ref: 'USD', decimals: 2 } } };
      if (req.method === 'POST' && req.path === '/v1/payments') return { json: { payment_id: 'pay_w1' } };
      if (req.path === '/v1/payments/pay_w1') {
        return {
          text: `{"payment_id":"pay_w1","order_ref":"order-w","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"12800"},`
            + `"status":"${state.status}","status_version":${state.version},"amount_received_raw":"${state.received}"}`,
        };
      }
      return null;
    });
    const out = await bundleWorker(workerFolder('loop-worker', WORKER, { triggers: { crons: ['* * * * *'] } }));
    worker = await serveWithD1(out, {
      persistDir: tempDir(),
      bindings: {
        CRYPTOPAY_WEBHOOK_SECRET: SECRET, TIMESTAMP_HEADER: TS_HEADER, SIGNATURE_HEADER: SIG_HEADER,
        CRYPTOPAY_BASE_URL: standin.baseUrl, CRYPTOPAY_API_KEY: API_KEY,
      },
    });
    await worker.db.prepare('CREATE TABLE shipments (idempotency_key TEXT PRIMARY KEY, order_ref TEXT, action TEXT)').run();
  });
  after(async () => {
    await worker?.dispose();
    await standin?.close();
  });

  test('create and record, receive, fulfil on a schedule through getPayment: one shipment per (payment, status_version)', async () => {
    const checkout = await worker.dispatch('http://worker.test/checkout', { method: 'POST', body: JSON.stringify({ orderRef: 'order-w', amount: '128.00' }) });
    assert.deepEqual(await checkout.json(), { paymentId: 'pay_w1' });
    const created = standin.requests.find((r) => r.method === 'POST');
    assert.equal(created.body.toString(), '{"order_ref":"order-w","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"12800"}}');
    const orders = (await worker.db.prepare('SELECT payment_id, order_ref, source_amount FROM cryptopay_orders').all()).results;
    assert.deepEqual(orders, [{ payment_id: 'pay_w1', order_ref: 'order-w', source_amount: '{"kind":"fiat","currency":"USD","amount_raw":"12800"}' }]);

    const deliver = async (version, status) => {
      const body = eventBody({ eventId: `evt_w${version}`, paymentId: 'pay_w1', statusVersion: version, status });
      const response = await worker.dispatch('http://worker.test/webhook', { method: 'POST', body, headers: signedHeaders(body) });
      return [response.status, await response.text()];
    };
    // The cron trigger, as workerd fires it.
    const scheduled = async () => {
      const result = await (await worker.mf.getWorker()).scheduled({ cron: '* * * * *' });
      assert.equal(result.outcome, 'ok', JSON.stringify(result));
    };
    Object.assign(state, { status: 'confirming', version: 2, received: '12800' });
    assert.deepEqual(await deliver(2, 'confirming'), [200, '{"received":true,"decision":"apply"}']);
    await scheduled();
    Object.assign(state, { status: 'paid', version: 3 });
    assert.deepEqual(await deliver(3, 'paid'), [200, '{"received":true,"decision":"apply"}']);
    await scheduled();
    await scheduled();
    const shipments = (await worker.db.prepare('SELECT * FROM shipments ORDER BY idempotency_key').all()).results;
    assert.deepEqual(shipments, [
      { idempotency_key: 'pay_w1:2', order_ref: 'order-w', action: 'wait' },
      { idempotency_key: 'pay_w1:3', order_ref: 'order-w', action: 'fulfil' },
    ]);
    const [state3] = (await worker.db.prepare('SELECT handled_version, outcome, settled FROM cryptopay_fulfilment').all()).results;
    assert.deepEqual(state3, { handled_version: '3', outcome: 'fulfil', settled: 1 });
    // The key only ever in the Authorization header.
    for (const request of standin.requests) {
      assert.equal(request.headers.authorization, `Bearer ${API_KEY}`);
      assert.ok(!request.url.includes(API_KEY));
    }
    assert.deepEqual(standin.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/payments/')).length, 2, 'one confirm per version');
  });
});
