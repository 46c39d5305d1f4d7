// The merchant loop in a Cloudflare Worker on D1 (the guide's Worker, docs/merchant-loop.md),
// bundled by wrangler and run in workerd through Miniflare, against a scripted stand-in of the
// service: a checkout route creates the payment with the client for an order of its own table
// and records it, the webhook route records the events, and the scheduled handler fulfils
// through getPayment, writing one shipment per order into D1.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bundleWorker, serveBundle, serveWithD1, workerFolder } from '../receiver/lib/d1.mjs';
import { SECRET, SIG_HEADER, TS_HEADER, eventBody, signedHeaders, tempDir } from '../receiver/lib/helpers.mjs';
import { startStandin } from './lib/standin.mjs';

const API_KEY = 'sk_canary_worker_51e0';

// The guide's Worker, its wrangler.jsonc and the shop's tables, read from the page users copy
// them from.
const GUIDE = readFileSync(fileURLToPath(new URL('../../docs/merchant-loop.md', import.meta.url)), 'utf8');
const WORKER = /### Cloudflare Workers, D1\n\n```js\n([\s\S]*?)\n```/.exec(GUIDE)?.[1];
const CONFIG = /Its `wrangler.jsonc`:\n\n```jsonc\n([\s\S]*?)\n```/.exec(GUIDE)?.[1];
// The Queue beside it: src/queued.js and the keys it adds to wrangler.jsonc.
const QUEUED = /#### Orders shipped within seconds: a Queue[\s\S]*?```js\n([\s\S]*?)\n```/.exec(GUIDE)?.[1];
const QUEUE_CONFIG = /#### Orders shipped within seconds: a Queue[\s\S]*?```jsonc\n([\s\S]*?)\n```/.exec(GUIDE)?.[1];
const TABLES = /The shop's own tables[\s\S]*?```sql\n([\s\S]*?)\n```/.exec(GUIDE)?.[1];
// JSONC without its comments (a // inside a string, as in a URL, kept).
const parseJsonc = (text) => JSON.parse(text.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*/g, (_, string) => string ?? ''));
const SECRETS = ['CRYPTOPAY_API_KEY', 'CRYPTOPAY_WEBHOOK_SECRET'];

// The vars and secrets the guide's Worker reads, for a test against `standin`.
const guideBindings = (standin) => ({
  CRYPTOPAY_WEBHOOK_SECRET: SECRET, TIMESTAMP_HEADER: TS_HEADER, SIGNATURE_HEADER: SIG_HEADER,
  CRYPTOPAY_BASE_URL: standin.baseUrl, CRYPTOPAY_API_KEY: API_KEY,
});
// The shop's own tables of the guide, and one order of it.
async function shopTables(db, orderRef, total) {
  for (const statement of TABLES.split(';').map((t) => t.trim()).filter(Boolean)) await db.prepare(statement).run();
  await db.prepare('INSERT INTO orders (order_ref, total) VALUES (?, ?)').bind(orderRef, total).run();
}

// The Worker served through a wrapper that counts what each scheduled run costs against the
// platform's limits per invocation: D1 statements (each of a batch() counted) and fetches.
const COUNTING = `import worker from './index.js';
let counts = { d1: 0, fetches: 0 };
const statement = (real) => ({
  real,
  bind: (...values) => statement(real.bind(...values)),
  first: (...a) => { counts.d1 += 1; return real.first(...a); },
  all: (...a) => { counts.d1 += 1; return real.all(...a); },
  run: (...a) => { counts.d1 += 1; return real.run(...a); },
  raw: (...a) => { counts.d1 += 1; return real.raw(...a); },
});
const database = (db) => ({
  prepare: (sql) => statement(db.prepare(sql)),
  batch: (list) => { counts.d1 += list.length; return db.batch(list.map((s) => s.real)); },
});
const wrapped = new WeakMap();
const envOf = (env) => {
  if (!wrapped.has(env)) wrapped.set(env, { ...env, DB: database(env.DB) });
  return wrapped.get(env);
};
export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === '/__counts') {
      const seen = counts;
      counts = { d1: 0, fetches: 0 };
      return Response.json(seen);
    }
    return worker.fetch(request, envOf(env), ctx);
  },
  async scheduled(controller, env, ctx) {
    const real = globalThis.fetch;
    globalThis.fetch = (...a) => { counts.fetches += 1; return real(...a); };
    try {
      return await worker.scheduled(controller, envOf(env), ctx);
    } finally {
      globalThis.fetch = real;
    }
  },
};
`;
// What the guide's comment says one payment of a run costs at most (and its one fetch), a
// run's own claim, a new isolate's ready() making the tables and at most (migrating tables of
// schema version 1: the tables read, the columns read twice, the migration's 7 statements and
// the schema's 12 in one batch, the columns checked, and the version read again when another
// isolate migrated first), and the limit of Workers Free the batch fits.
const PER_PAYMENT_D1 = 10;
const PER_RUN_D1 = 2;
const READY_FRESH_D1 = 14;
const READY_D1 = 25;
const FREE_SUBREQUESTS = 50;
// At worst, beside those: a payment's step the store failed set aside (one statement) and its
// confirm sent four times (the client's three retries); a run's leases given back twice (at
// the end of a pass that lost one, and what a failed pass before it held).
const PER_PAYMENT_WORST = PER_PAYMENT_D1 + 1 + 4;
const PER_RUN_WORST_D1 = PER_RUN_D1 + 2;
const BATCH = Number(/\n {6}batch: (\d+),/.exec(WORKER ?? '')?.[1]);

describe('the loop in a Worker on D1 (workerd)', () => {
  let standin;
  let worker;
  const state = { status: 'open', version: 1, received: '0' };
  before(async () => {
    standin = await startStandin((req) => {
      if (req.path === '/v1/store') return { json: { primary_source: { kind: 'fiat', ref: 'USD', decimals: 2 } } };
      // The order's second payment attempt is another payment.
      if (req.method === 'POST' && req.path === '/v1/payments') {
        const ids = { 'create-order-w-2': 'pay_w2', 'create-order-9-1': 'pay_w9' };
        return { json: { payment_id: ids[req.headers['idempotency-key']] ?? 'pay_w1' } };
      }
      if (req.path === '/v1/payments/pay_w2') {
        return { text: '{"payment_id":"pay_w2","order_ref":"order-w","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"12800"},"status":"paid","status_version":3,"amount_received_raw":"12800"}' };
      }
      // A payment this shop never created (another integration's, a dashboard link): a review.
      if (req.path === '/v1/payments/pay_w9') {
        return { text: '{"payment_id":"pay_w9","order_ref":"order-9","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"500"},"status":"partially_paid","status_version":4,"amount_received_raw":"300"}' };
      }
      if (req.path === '/v1/payments/pay_w1') {
        return {
          text: `{"payment_id":"pay_w1","order_ref":"order-w","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"12800"},`
            + `"status":"${state.status}","status_version":${state.version},"amount_received_raw":"${state.received}"}`,
        };
      }
      return null;
    });
    // The project as the guide lays it out: src/index.js and its wrangler.jsonc.
    const dir = workerFolder('loop-worker', '');
    rmSync(join(dir, 'worker.mjs'));
    rmSync(join(dir, 'wrangler.json'));
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'index.js'), WORKER);
    writeFileSync(join(dir, 'src', 'counting.js'), COUNTING);
    writeFileSync(join(dir, 'wrangler.jsonc'), CONFIG.replace('"main": "src/index.js"', '"main": "src/counting.js"'));
    const out = await bundleWorker(dir);
    // Its vars, the header names and the service's URL set for this test.
    worker = await serveWithD1(out, {
      persistDir: tempDir(),
      bindings: guideBindings(standin),
    });
    await shopTables(worker.db, 'order-w', '128.00');
  });
  after(async () => {
    await worker?.dispose();
    await standin?.close();
  });

  test('the guide holds the Worker, its wrangler.jsonc (the bindings it reads, a cron) and the shop\'s tables', () => {
    assert.ok(WORKER?.includes('d1Store(env.DB)'), 'docs/merchant-loop.md has the Worker under "Cloudflare Workers, D1"');
    const config = parseJsonc(CONFIG);
    assert.equal(config.main, 'src/index.js');
    assert.deepEqual(config.d1_databases.map((d) => d.binding), ['DB']);
    assert.deepEqual(config.triggers, { crons: ['* * * * *'] });
    // Every env name the Worker reads is a var of the config or a secret the guide names.
    const read = [...new Set([...WORKER.matchAll(/env\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]))].filter((name) => name !== 'DB').sort();
    assert.deepEqual(read, [...Object.keys(config.vars), ...SECRETS].sort());
    for (const secret of SECRETS) assert.ok(CONFIG.includes(`wrangler secret put ${secret}`), secret);
    assert.match(TABLES, /CREATE TABLE orders[\s\S]*CREATE TABLE shipments[\s\S]*CREATE TABLE reviews/);
  });

  test('a new isolate\'s first run: ready() and the claim within what the guide says, and its batch fits Workers Free', async () => {
    assert.ok(BATCH > 0, 'the guide\'s Worker passes fulfil a batch');
    assert.ok(BATCH * PER_PAYMENT_WORST + PER_RUN_WORST_D1 + READY_D1 <= FREE_SUBREQUESTS, `batch ${BATCH} can exceed ${FREE_SUBREQUESTS}`);
    assert.match(WORKER, new RegExp(`1 a run fits Free \\(${PER_PAYMENT_WORST + PER_RUN_WORST_D1 + READY_D1} at most, `
      + `${PER_PAYMENT_WORST + PER_RUN_WORST_D1} after`), 'the guide\'s sum is the test\'s');
    await worker.dispatch('http://worker.test/__counts'); // the counts' reset: the receiver is not made
    const result = await (await worker.mf.getWorker()).scheduled({ cron: '* * * * *' });
    assert.equal(result.outcome, 'ok', JSON.stringify(result));
    const run = await (await worker.dispatch('http://worker.test/__counts')).json();
    // Nothing to claim: what ready() (the tables made) and the claim cost.
    assert.ok(run.d1 > PER_RUN_D1 && run.d1 <= PER_RUN_D1 + READY_FRESH_D1 && run.fetches === 0, JSON.stringify(run));
  });

  test('create and record, receive, fulfil on a schedule through getPayment: one shipment per order', async () => {
    // An order the shop does not hold is not created; an amount the browser sends is not used.
    const unknown = await worker.dispatch('http://worker.test/checkout', { method: 'POST', body: JSON.stringify({ orderRef: 'order-x' }) });
    assert.equal(unknown.status, 404);
    const checkout = await worker.dispatch('http://worker.test/checkout', { method: 'POST', body: JSON.stringify({ orderRef: 'order-w', amount: '0.01' }) });
    assert.deepEqual(await checkout.json(), { paymentId: 'pay_w1' });
    const creations = standin.requests.filter((r) => r.method === 'POST');
    assert.equal(creations.length, 1);
    const [created] = creations;
    assert.equal(created.body.toString(), '{"order_ref":"order-w","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"12800"}}');
    assert.equal(created.headers['idempotency-key'], 'create-order-w-1');
    const orders = (await worker.db.prepare('SELECT payment_id, order_ref, source_amount FROM cryptopay_orders').all()).results;
    assert.deepEqual(orders, [{ payment_id: 'pay_w1', order_ref: 'order-w', source_amount: '{"kind":"fiat","currency":"USD","amount_raw":"12800"}' }]);

    const deliver = async (version, status) => {
      const body = eventBody({ eventId: `evt_w${version}`, paymentId: 'pay_w1', statusVersion: version, status });
      const response = await worker.dispatch('http://worker.test/webhook', { method: 'POST', body, headers: signedHeaders(body) });
      return [response.status, await response.text()];
    };
    // The cron trigger, as workerd fires it.
    // The cron trigger, as workerd fires it; each run within what the guide says it costs:
    // per payment confirmed, at most PER_PAYMENT_D1 statements and one fetch.
    const counts = async () => (await worker.dispatch('http://worker.test/__counts')).json();
    const confirms = () => standin.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/payments/')).length;
    const scheduled = async () => {
      await counts();
      const before = confirms();
      const result = await (await worker.mf.getWorker()).scheduled({ cron: '* * * * *' });
      assert.equal(result.outcome, 'ok', JSON.stringify(result));
      const run = await counts();
      const payments = confirms() - before;
      assert.ok(run.d1 <= PER_RUN_D1 + PER_PAYMENT_D1 * payments && run.fetches === payments,
        `a run confirming ${payments} payments made ${run.d1} D1 statements and ${run.fetches} fetches`);
      ran.push({ ...run, payments });
    };
    const ran = [];
    Object.assign(state, { status: 'confirming', version: 2, received: '12800' });
    assert.deepEqual(await deliver(2, 'confirming'), [200, '{"received":true,"decision":"apply"}']);
    await scheduled();
    Object.assign(state, { status: 'paid', version: 3 });
    assert.deepEqual(await deliver(3, 'paid'), [200, '{"received":true,"decision":"apply"}']);
    await scheduled();
    await scheduled();
    const shipments = (await worker.db.prepare('SELECT * FROM shipments').all()).results;
    assert.deepEqual(shipments, [{ order_ref: 'order-w', payment_id: 'pay_w1', idempotency_key: 'pay_w1:3' }]);
    const [state3] = (await worker.db.prepare('SELECT handled_version, outcome, settled FROM cryptopay_fulfilment').all()).results;
    assert.deepEqual(state3, { handled_version: '3', outcome: 'fulfil', settled: 1 });
    // The key only ever in the Authorization header.
    for (const request of standin.requests) {
      assert.equal(request.headers.authorization, `Bearer ${API_KEY}`);
      assert.ok(!request.url.includes(API_KEY));
    }
    assert.deepEqual(standin.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/payments/')).length, 2, 'one confirm per version');
    // A payment the shop never created: kept for a person, never shipped.
    const body = eventBody({ eventId: 'evt_w9', paymentId: 'pay_w9', statusVersion: 4, status: 'paid' });
    assert.equal((await worker.dispatch('http://worker.test/webhook', { method: 'POST', body, headers: signedHeaders(body) })).status, 200);
    await scheduled();
    assert.deepEqual((await worker.db.prepare('SELECT * FROM reviews').all()).results,
      [{ idempotency_key: 'pay_w9:4', order_ref: null, reason: 'payment_unknown' }]);
    assert.equal((await worker.db.prepare('SELECT count(*) AS n FROM shipments').all()).results[0].n, 1);
    // Its order recorded afterwards (the shop creates it: the service answers the same payment):
    // looked at again under the same key, its own review (a part payment) kept beside the first.
    await worker.db.prepare("INSERT INTO orders (order_ref, total) VALUES ('order-9', '5.00')").run();
    const late = await worker.dispatch('http://worker.test/checkout', { method: 'POST', body: JSON.stringify({ orderRef: 'order-9' }) });
    assert.deepEqual(await late.json(), { paymentId: 'pay_w9' });
    await scheduled();
    assert.deepEqual((await worker.db.prepare("SELECT * FROM reviews WHERE idempotency_key = 'pay_w9:4' ORDER BY reason").all()).results,
      [{ idempotency_key: 'pay_w9:4', order_ref: 'order-9', reason: 'partially_paid' }, { idempotency_key: 'pay_w9:4', order_ref: null, reason: 'payment_unknown' }]);
    // The customer checks out again (a second payment attempt) and pays that one too: the
    // order is not shipped twice, and the second payment is kept for a refund.
    await worker.db.prepare("UPDATE orders SET payment_attempt = 2 WHERE order_ref = 'order-w'").run();
    const again = await worker.dispatch('http://worker.test/checkout', { method: 'POST', body: JSON.stringify({ orderRef: 'order-w' }) });
    assert.deepEqual(await again.json(), { paymentId: 'pay_w2' });
    const second = eventBody({ eventId: 'evt_w2_3', paymentId: 'pay_w2', statusVersion: 3, status: 'paid' });
    assert.equal((await worker.dispatch('http://worker.test/webhook', { method: 'POST', body: second, headers: signedHeaders(second) })).status, 200);
    await scheduled();
    assert.deepEqual((await worker.db.prepare('SELECT * FROM shipments').all()).results,
      [{ order_ref: 'order-w', payment_id: 'pay_w1', idempotency_key: 'pay_w1:3' }]);
    assert.deepEqual((await worker.db.prepare("SELECT * FROM reviews WHERE order_ref = 'order-w'").all()).results,
      [{ idempotency_key: 'pay_w2:3', order_ref: 'order-w', reason: 'refund: a second payment of the order' }]);
    // The wrapper counted: runs that waited, fulfilled, reviewed, and one whose handler wrote
    // its most (a second payment of a shipped order: the shipment, its read, the refund).
    assert.ok(ran.filter((r) => r.payments > 0).length >= 4 && ran.every((r) => r.d1 >= PER_RUN_D1), JSON.stringify(ran));
    assert.equal(ran.at(-1).d1, PER_RUN_D1 + PER_PAYMENT_D1, JSON.stringify(ran));
  });
});

// The guide's Queue: the webhook route sends a message once an event is applied, the consumer
// runs a pass, and a paid order ships without a cron run; a repeat of the delivery sends none.
describe('the Worker\'s Queue: an order shipped within seconds, no cron run (workerd, Miniflare\'s local Queue)', () => {
  let standin;
  let worker;
  before(async () => {
    standin = await startStandin((req) => {
      if (req.path === '/v1/store') return { json: { primary_source: { kind: 'fiat', ref: 'USD', decimals: 2 } } };
      if (req.method === 'POST' && req.path === '/v1/payments') return { json: { payment_id: 'pay_q1' } };
      if (req.path === '/v1/payments/pay_q1') {
        return { text: '{"payment_id":"pay_q1","order_ref":"order-q","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"500"},"status":"paid","status_version":3,"amount_received_raw":"500"}' };
      }
      return null;
    });
    const dir = workerFolder('loop-worker-queue', '');
    rmSync(join(dir, 'worker.mjs'));
    rmSync(join(dir, 'wrangler.json'));
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'index.js'), WORKER);
    writeFileSync(join(dir, 'src', 'queued.js'), QUEUED);
    const config = { ...parseJsonc(CONFIG), ...parseJsonc(QUEUE_CONFIG), main: 'src/queued.js' };
    writeFileSync(join(dir, 'wrangler.jsonc'), JSON.stringify(config, null, 2));
    const out = await bundleWorker(dir);
    const [consumer] = config.queues.consumers;
    worker = await serveBundle(out, {
      d1Databases: { DB: 'receiver-test' },
      d1Persist: tempDir(),
      queueProducers: { [config.queues.producers[0].binding]: config.queues.producers[0].queue },
      queueConsumers: { [consumer.queue]: { maxBatchSize: consumer.max_batch_size, maxBatchTimeout: consumer.max_batch_timeout, maxRetries: consumer.max_retries } },
      bindings: guideBindings(standin),
    });
    worker.db = await worker.mf.getD1Database('DB');
    await shopTables(worker.db, 'order-q', '5.00');
  });
  after(async () => {
    await worker?.dispose();
    await standin?.close();
  });

  test('the guide\'s queued.js wraps the Worker, and its config adds a producer and a consumer of one queue', () => {
    assert.ok(QUEUED?.includes("import shop from './index.js'"), 'docs/merchant-loop.md has src/queued.js');
    const { queues } = parseJsonc(QUEUE_CONFIG);
    assert.equal(queues.producers[0].binding, /env\.([A-Z_]+)\.send/.exec(QUEUED)?.[1]);
    assert.equal(queues.consumers[0].queue, queues.producers[0].queue);
  });

  test('a paid event recorded: the consumer\'s pass ships the order, once; a repeat of the delivery ships nothing more', async () => {
    const checkout = await worker.dispatch('http://worker.test/checkout', { method: 'POST', body: JSON.stringify({ orderRef: 'order-q' }) });
    assert.deepEqual(await checkout.json(), { paymentId: 'pay_q1' });
    const body = eventBody({ eventId: 'evt_q3', paymentId: 'pay_q1', statusVersion: 3, status: 'paid' });
    const deliver = async () => {
      const response = await worker.dispatch('http://worker.test/webhook', { method: 'POST', body, headers: signedHeaders(body) });
      return [response.status, await response.text()];
    };
    assert.deepEqual(await deliver(), [200, '{"received":true,"decision":"apply"}']);
    const shipments = async () => (await worker.db.prepare('SELECT * FROM shipments').all()).results;
    const deadline = Date.now() + 15_000;
    while ((await shipments()).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(await shipments(), [{ order_ref: 'order-q', payment_id: 'pay_q1', idempotency_key: 'pay_q1:3' }], 'shipped by the Queue\'s pass, no cron run');
    assert.deepEqual(await deliver(), [200, '{"received":true,"decision":"duplicate"}']);
    const confirms = () => standin.requests.filter((r) => r.method === 'GET' && r.path === '/v1/payments/pay_q1').length;
    assert.equal(confirms(), 1);
    // A cron run after it finds nothing due.
    const result = await (await worker.mf.getWorker()).scheduled({ cron: '* * * * *' });
    assert.equal(result.outcome, 'ok', JSON.stringify(result));
    assert.equal(confirms(), 1);
    assert.equal((await shipments()).length, 1);
  });
});
