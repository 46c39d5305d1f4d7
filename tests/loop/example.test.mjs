// The example receiver (examples/node-receiver) running the merchant loop against a scripted
// stand-in of the service: POST /payments creates a payment through the client and records its
// order; deliveries are recorded; its passes confirm each changed payment with
// GET /v1/payments/{id} and print what it would do. POST /payments answers only the bearer of
// ADMIN_TOKEN (nothing created otherwise), and is off without it. Neither the API key nor the
// token is printed.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { eventBody, signedHeaders, tempDir } from '../receiver/lib/helpers.mjs';
import { send, startExample } from '../receiver/lib/example.mjs';
import { startStandin } from './lib/standin.mjs';

const API_KEY = 'sk_canary_example_90c4';
const ADMIN_TOKEN = `admin_canary_${randomBytes(16).toString('hex')}`;
const asShop = { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` };

describe('the example receiver, fulfilling', () => {
  let standin;
  let example;
  const payment = { status: 'open', version: 1, received: '0' };
  before(async () => {
    standin = await startStandin((req) => {
      if (req.path === '/v1/store') return { json: { primary_source: { kind: 'fiat', ref: 'EUR', decimals: 2 } } };
      if (req.method === 'POST' && req.path === '/v1/payments') return { json: { payment_id: 'pay_ex1' } };
      if (req.path === '/v1/payments/pay_ex1') {
        return { text: JSON.stringify({ payment_id: 'pay_ex1', order_ref: 'order-77', source_amount: { kind: 'fiat', currency: 'EUR', amount_raw: '4990' },
          status: payment.status, status_version: payment.version, amount_received_raw: payment.received }) };
      }
      return null;
    });
    example = await startExample({ env: { DATA_DIR: tempDir(), CRYPTOPAY_BASE_URL: standin.baseUrl, CRYPTOPAY_API_KEY: API_KEY, FULFIL_INTERVAL_MS: '100', ADMIN_TOKEN } });
  });
  after(async () => {
    await example?.stop();
    await standin?.close();
  });

  const until = async (pattern) => {
    for (let i = 0; !pattern.test(example.output); i += 1) {
      assert.ok(i < 200, `no ${pattern} in:\n${example.output}`);
      await new Promise((resolve) => { setTimeout(resolve, 25); });
    }
  };

  test('create, receive, fulfil: it prints the order it would ship, once', async () => {
    assert.match(example.output, /fulfilling every 100 ms, confirming with the service at http:\/\/127\.0\.0\.1:\d+/);
    const body = Buffer.from(JSON.stringify({ order_ref: 'order-77', amount: '49.90' }));
    // Without the token, or with another: 401, and nothing asked of the service.
    for (const authorization of [undefined, `Bearer sk_${randomBytes(16).toString('hex')}`, `Bearer ${API_KEY}`]) {
      const headers = { 'content-type': 'application/json', ...(authorization && { authorization }) };
      const refused = await send(`${example.url}/payments`, body, { headers, agent: false });
      assert.deepEqual([refused.status, refused.headers['www-authenticate'], refused.json], [401, 'Bearer', { error: 'unauthorized' }]);
    }
    assert.deepEqual(standin.requests.filter((r) => r.method === 'POST'), [], 'no payment created');
    const created = await send(`${example.url}/payments`, body, { headers: asShop, agent: false });
    assert.deepEqual([created.status, created.json],
      [201, { payment_id: 'pay_ex1', order_ref: 'order-77', source_amount: { kind: 'fiat', currency: 'EUR', amount_raw: '4990' }, idempotency_key: 'create-order-77-1' }]);
    // The same request again (a back office retrying after a timeout) goes under the same key,
    // so the service answers the payment it created; a new attempt, or the caller's own key, another.
    assert.equal((await send(`${example.url}/payments`, body, { headers: asShop, agent: false })).json.idempotency_key, 'create-order-77-1');
    const next = Buffer.from(JSON.stringify({ order_ref: 'order 77/ü', amount: '49.90', attempt: 2 }));
    assert.equal((await send(`${example.url}/payments`, next, { headers: asShop, agent: false })).json.idempotency_key, 'create-order%2077%2F%C3%BC-2');
    assert.equal((await send(`${example.url}/payments`, body, { headers: { ...asShop, 'idempotency-key': 'bo-4411' }, agent: false })).json.idempotency_key, 'bo-4411');
    assert.deepEqual(standin.requests.filter((r) => r.method === 'POST').map((r) => r.headers['idempotency-key']),
      ['create-order-77-1', 'create-order-77-1', 'create-order%2077%2F%C3%BC-2', 'bo-4411']);
    // Neither an order_ref nor a key: refused before anything is sent, saying what to give.
    const keyless = await send(`${example.url}/payments`, Buffer.from('{"amount":"1.00"}'), { headers: asShop, agent: false });
    assert.deepEqual([keyless.status, keyless.json.error], [400, 'idempotency_key_missing']);
    assert.match(keyless.json.message, /Idempotency-Key header/);
    for (const attempt of [0, 1.5, '2']) {
      const bad = await send(`${example.url}/payments`, Buffer.from(JSON.stringify({ order_ref: 'o', amount: '1.00', attempt })), { headers: asShop, agent: false });
      assert.deepEqual([bad.status, bad.json.error], [400, 'attempt_invalid'], String(attempt));
    }
    // An order_ref no key can spell (a lone surrogate): the creation's own refusal, a 400.
    const lone = await send(`${example.url}/payments`, Buffer.from('{"order_ref":"o\\ud800","amount":"1.00"}'), { headers: asShop, agent: false });
    assert.equal(lone.status, 400, lone.text);
    assert.notEqual(lone.json.error, 'internal');
    assert.equal(standin.requests.filter((r) => r.method === 'POST').length, 4);
    const refused = await send(`${example.url}/payments`, Buffer.from('{"order_ref":"x","amount":"49.999"}'), { headers: asShop, agent: false });
    assert.deepEqual([refused.status, refused.json], [400, { error: 'amount_too_precise' }]);
    for (const [version, status, received] of [[2, 'confirming', '4990'], [3, 'paid', '4990']]) {
      Object.assign(payment, { status, version, received });
      const event = eventBody({ eventId: `evt_ex${version}`, paymentId: 'pay_ex1', statusVersion: version, status });
      assert.equal((await send(example.webhookUrl, event, { headers: signedHeaders(event), agent: false })).status, 200);
      if (version === 2) await until(/order order-77 waits \(payment pay_ex1, confirming at version 2; key pay_ex1:2\)/);
    }
    await until(/would ship order order-77 \(49\.90 EUR paid; payment pay_ex1, paid at version 3; key pay_ex1:3\)/);
    await new Promise((resolve) => { setTimeout(resolve, 400); });
    assert.equal(example.output.match(/would ship/g).length, 1);
    assert.ok(!example.output.includes(API_KEY) && !example.output.includes(ADMIN_TOKEN));
    assert.ok(standin.requests.every((r) => r.headers.authorization === `Bearer ${API_KEY}` && !r.url.includes(API_KEY)));
  });
});

describe('the example receiver fulfilling without ADMIN_TOKEN', () => {
  test('POST /payments is off (404, nothing created); the start says so once, and how to turn it on', async () => {
    const standin = await startStandin(() => ({ json: { payment_id: 'pay_never' } }));
    const example = await startExample({ env: { DATA_DIR: tempDir(), CRYPTOPAY_BASE_URL: standin.baseUrl, CRYPTOPAY_API_KEY: API_KEY } });
    try {
      assert.equal(example.output.match(/the shop's routes \(GET \/events, GET \/payments, GET \/payments\/:id, POST \/payments\) are off: set ADMIN_TOKEN/g)?.length, 1, example.output);
      const off = await send(`${example.url}/payments`, Buffer.from('{"order_ref":"x","amount":"1.00"}'), { headers: asShop, agent: false });
      assert.deepEqual([off.status, off.json], [404, { error: 'not_found' }]);
      assert.deepEqual(standin.requests.filter((r) => r.method === 'POST'), []);
    } finally {
      await example.stop();
      await standin.close();
    }
  });
});

describe('the example receiver without the service configured', () => {
  test('receives as before, and says the loop is off; half a configuration is refused', async () => {
    const plain = await startExample({ env: { DATA_DIR: tempDir() } });
    try {
      assert.match(plain.output, /fulfilment off \(set CRYPTOPAY_BASE_URL and CRYPTOPAY_API_KEY/);
    } finally {
      await plain.stop();
    }
    await assert.rejects(startExample({ env: { DATA_DIR: tempDir(), CRYPTOPAY_BASE_URL: 'http://127.0.0.1:9' } }), (error) => error.exitCode === 2
      && /needs both the service URL .* and CRYPTOPAY_API_KEY/.test(error.message));
  });
});

describe('the example receiver stopping', () => {
  test('SIGTERM with a delivery under way on a keep-alive connection: answered, then out at once (not after keepAliveTimeout)', async () => {
    const example = await startExample({ env: { DATA_DIR: tempDir() } });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const event = eventBody({ eventId: 'evt_stop_1', paymentId: 'pay_stop_1', statusVersion: 1 });
      // The headers and half the body sent; the signal lands while the rest is on its way.
      const answered = new Promise((resolve, reject) => {
        const req = http.request(example.webhookUrl, { method: 'POST', agent, headers: { ...signedHeaders(event), 'content-type': 'application/json', 'content-length': event.length } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection }));
        });
        req.on('error', reject);
        req.write(event.subarray(0, 10));
        setTimeout(() => {
          process.kill(example.pid, 'SIGTERM');
          setTimeout(() => req.end(event.subarray(10)), 300);
        }, 300);
      });
      const started = Date.now();
      assert.equal((await answered).status, 200, example.output);
      assert.equal(await example.exited, 0, example.output);
      assert.ok(Date.now() - started < 5000, `exited ${Date.now() - started} ms after the answer:\n${example.output}`);
    } finally {
      agent.destroy();
      await example.kill();
    }
  });
});
