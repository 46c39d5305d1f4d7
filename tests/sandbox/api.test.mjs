// The sandbox's API through HTTP, endpoint by endpoint: every rule of the spec and of the
// contract's decisions, the refusals included (401, 403, 400 with the core's code, 404, 405,
// 409), and no event where the spec says none is emitted.

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  SandboxError, USD, api, createPayment, endpoint, newKey, pkg, sandboxCjs, settled, startSandbox, verifyRecorded,
} from './lib.mjs';

const source = (amountRaw = '12800') => ({ kind: 'fiat', currency: 'USD', amount_raw: amountRaw });
const VIEW_FIELDS = ['payment_id', 'order_ref', 'source_amount', 'status', 'status_version', 'amount_received_raw',
  'checkout_origin', 'expires_at'];

/** Asserts an ErrorResponse with `status` and `code`. */
function refused(res, status, code) {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status} ${res.text}`);
  assert.deepEqual(Object.keys(res.json), ['error']);
  assert.equal(res.json.error.code, code);
  assert.equal(typeof res.json.error.message, 'string');
  assert.ok(res.json.error.message.length > 10);
}

/** A GET sent as raw bytes (a target or Host no HTTP client sends): resolves the whole answer. */
const rawGet = (port, target, host) => new Promise((resolve, reject) => {
  const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
  let got = '';
  socket.on('data', (chunk) => { got += chunk; });
  socket.on('end', () => resolve(got));
  socket.on('error', reject);
});

let sandbox;
let hook;
const eventsOf = async (paymentId) => (await api(sandbox, 'GET', `/sandbox/events?payment_id=${paymentId}`)).json.events;

before(async () => {
  hook = await endpoint();
  sandbox = await startSandbox({ port: 0, webhookUrl: hook.url, retryDelaysMs: [20], website: 'https://shop.example' });
});
after(async () => {
  await sandbox?.close();
  await hook?.close();
});

describe('API keys and scopes', () => {
  const calls = [
    ['POST', '/v1/payments'], ['GET', '/v1/payments/pay_x'], ['POST', '/v1/payments/pay_x/cancel'],
    ['DELETE', '/v1/payments/pay_x/consumer-access'], ['GET', '/v1/store'], ['POST', '/v1/webhook-endpoints'],
    ['POST', '/v1/webhook-endpoints/we_x/verify'],
  ];

  test('every /v1 call without a key, with an unknown key or another scheme is 401 unauthorized', async () => {
    for (const [method, path] of calls) {
      refused(await api(sandbox, method, path, { key: null }), 401, 'unauthorized');
      refused(await api(sandbox, method, path, { key: 'sk_sandbox_not_issued' }), 401, 'unauthorized');
      refused(await api(sandbox, method, path, { key: null, headers: { authorization: `Basic ${sandbox.apiKey}` } }), 401, 'unauthorized');
    }
    // A key it does not know, from a sandbox in memory: said to be of an earlier start (or
    // revoked); no key at all is not.
    const unknown = await api(sandbox, 'GET', '/v1/store', { key: 'sk_sandbox_not_issued' });
    assert.match(unknown.json.error.message, /^unauthorized: this sandbox knows no such key \(revoked, or from an earlier start: .*new key at each start/);
    assert.doesNotMatch((await api(sandbox, 'GET', '/v1/store', { key: null })).json.error.message, /earlier start/);
    // Before anything else is looked at: an unknown path, a method the path does not take, a
    // path that does not decode, a body over the limit.
    for (const [method, path, body] of [['GET', '/v1/nothing-here'], ['PUT', '/v1/payments'], ['GET', '/v1/payments/%E0'],
      ['POST', '/v1/payments', Buffer.alloc(1024 * 1024 + 1, 0x20)]]) {
      refused(await api(sandbox, method, path, { key: null, body }), 401, 'unauthorized');
    }
    // With a key, those are what they are.
    refused(await api(sandbox, 'GET', '/v1/nothing-here'), 404, 'not_found');
    refused(await api(sandbox, 'GET', '/v1/payments/%E0'), 404, 'payment_not_found');
    refused(await api(sandbox, 'POST', '/v1/webhook-endpoints/%ZZ/verify', { body: {} }), 404, 'webhook_not_found');
  });

  test('a key without the scope is 403 insufficient_scope; the scope it has works', async () => {
    const issued = await api(sandbox, 'POST', '/sandbox/keys', { key: null, body: { scopes: ['payment:read'] } });
    assert.equal(issued.status, 200);
    assert.deepEqual(issued.json.scopes, ['payment:read']);
    const readOnly = issued.json.api_key;
    refused(await api(sandbox, 'POST', '/v1/payments', { key: readOnly, idem: newKey(), body: { source_amount: source() } }), 403, 'insufficient_scope');
    refused(await api(sandbox, 'POST', '/v1/payments/pay_x/cancel', { key: readOnly }), 403, 'insufficient_scope');
    refused(await api(sandbox, 'DELETE', '/v1/payments/pay_x/consumer-access', { key: readOnly }), 403, 'insufficient_scope');
    refused(await api(sandbox, 'POST', '/v1/webhook-endpoints', { key: readOnly, idem: newKey(), body: { url: hook.url } }), 403, 'insufficient_scope');
    assert.equal((await api(sandbox, 'GET', '/v1/store', { key: readOnly })).status, 200);
    // A key with no scope at all; and the method's promise form.
    const none = await sandbox.issueKey([]);
    refused(await api(sandbox, 'GET', '/v1/store', { key: none }), 403, 'insufficient_scope');
    const writer = await sandbox.issueKey(['payment:write']);
    refused(await api(sandbox, 'GET', '/v1/store', { key: writer }), 403, 'insufficient_scope');
    const bootstrap = await sandbox.issueKey(['webhook:bootstrap']);
    refused(await api(sandbox, 'GET', '/v1/payments/pay_x', { key: bootstrap }), 403, 'insufficient_scope');
  });

  test('a key revoked (the last step of a key replacement) is 401 from then on; the others keep working', async () => {
    const old = await sandbox.issueKey(['payment:read']);
    const next = await sandbox.issueKey(['payment:read']);
    assert.equal((await api(sandbox, 'GET', '/v1/store', { key: old })).status, 200);
    const revoked = await api(sandbox, 'POST', '/sandbox/keys/revoke', { key: null, body: { api_key: old } });
    assert.equal(revoked.status, 200, revoked.text);
    assert.deepEqual(revoked.json, { revoked: true, scopes: ['payment:read'] });
    refused(await api(sandbox, 'GET', '/v1/store', { key: old }), 401, 'unauthorized');
    assert.equal((await api(sandbox, 'GET', '/v1/store', { key: next })).status, 200);
    refused(await api(sandbox, 'POST', '/sandbox/keys/revoke', { body: { api_key: old } }), 404, 'key_not_found');
    refused(await api(sandbox, 'POST', '/sandbox/keys/revoke', { body: { api_key: 7 } }), 400, 'request_invalid');
    // The handle's method.
    await sandbox.revokeKey(next);
    refused(await api(sandbox, 'GET', '/v1/store', { key: next }), 401, 'unauthorized');
    await assert.rejects(sandbox.revokeKey(next), (e) => e instanceof SandboxError && e.code === 'key_not_found' && e.status === 404);
  });

  test('POST /sandbox/keys refuses scopes that are not the three standard ones', async () => {
    refused(await api(sandbox, 'POST', '/sandbox/keys', { body: { scopes: ['payment:admin'] } }), 400, 'request_invalid');
    refused(await api(sandbox, 'POST', '/sandbox/keys', { body: { scopes: 'payment:read' } }), 400, 'request_invalid');
    refused(await api(sandbox, 'POST', '/sandbox/keys', { body: 'not json' }), 400, 'request_invalid');
    const latin1 = await api(sandbox, 'POST', '/sandbox/keys', { body: Buffer.from('{"scopes":["payment:read"],"n":"\xfc"}', 'latin1') });
    refused(latin1, 400, 'request_invalid');
    assert.match(latin1.json.error.message, /the body is not UTF-8 text/);
    await assert.rejects(sandbox.issueKey(['nope']), (e) => e instanceof SandboxError && e.code === 'request_invalid' && e.status === 400);
  });
});

describe('GET /v1/store', () => {
  test('the primary source and the website', async () => {
    const res = await api(sandbox, 'GET', '/v1/store');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { primary_source: USD, website_origin: 'https://shop.example', website_domain: 'shop.example' });
  });
});

describe('POST /v1/payments', () => {
  test('an Idempotency-Key is required and must be valid', async () => {
    refused(await api(sandbox, 'POST', '/v1/payments', { body: { source_amount: source() } }), 400, 'idempotency_key_missing');
    refused(await api(sandbox, 'POST', '/v1/payments', { idem: 'has space', body: { source_amount: source() } }), 400, 'idempotency_key_invalid');
    refused(await api(sandbox, 'POST', '/v1/payments', { idem: 'k'.repeat(256), body: { source_amount: source() } }), 400, 'idempotency_key_invalid');
  });

  test('the body is checked by the core against the store (400 with its code)', async () => {
    const cases = [
      ['not json', 'create_payment_invalid'],
      ['[1]', 'create_payment_invalid'],
      ['null', 'create_payment_invalid'],
      // A repeated key: the core reads the text as received, never the last value of it.
      [`{"source_amount":${JSON.stringify(source())},"source_amount":${JSON.stringify(source('999'))}}`, 'create_payment_invalid'],
      [{}, 'create_payment_invalid'],
      [{ source_amount: { ...source(), currency: 'EUR' } }, 'source_currency_mismatch'],
      [{ source_amount: source('0') }, 'amount_raw_invalid'],
      [{ source_amount: source('12.80') }, 'amount_raw_invalid'],
      [{ source_amount: { kind: 'crypto', pricing_ref: 'usdc', amount_raw: '1' } }, 'source_kind_mismatch'],
      [{ source_amount: source(), order_ref: 5 }, 'create_payment_invalid'],
      [{ source_amount: source(), checkout_origin: 'http://shop.example' }, 'origin_not_https'],
      [{ source_amount: source(), checkout_origin: 'https://other.example' }, 'origin_not_permitted'],
      // Latin-1, not UTF-8: refused, never stored as "M\uFFFDller" (which would link to no order).
      [Buffer.concat([Buffer.from(`{"source_amount":${JSON.stringify(source())},"order_ref":"M`), Buffer.from([0xfc]), Buffer.from('ller"}')]),
        'create_payment_invalid'],
    ];
    const json = { 'content-type': 'application/json' };
    for (const [body, code] of cases) {
      refused(await api(sandbox, 'POST', '/v1/payments', { idem: newKey(), body, headers: json }), 400, code);
    }
    // Worded with the package's names, as every message of the package is.
    const decimal = await api(sandbox, 'POST', '/v1/payments', { idem: newKey(), body: { source_amount: source('12.80') }, headers: json });
    assert.match(decimal.json.error.message, /use toAmountRaw to convert a decimal/);
    assert.doesNotMatch(decimal.json.error.message, /to_amount_raw/);
  });

  test('the body must come as Content-Type: application/json (415 otherwise), a charset allowed', async () => {
    const body = JSON.stringify({ source_amount: source('700') });
    const key = newKey();
    // fetch sends a string body as text/plain;charset=UTF-8 unless told: the usual slip.
    for (const headers of [{}, { 'content-type': 'text/plain' }, { 'content-type': 'application/jsonx' }, { 'content-type': 'application/x-www-form-urlencoded' }]) {
      const res = await api(sandbox, 'POST', '/v1/payments', { idem: key, body, headers });
      refused(res, 415, 'unsupported_media_type');
      assert.match(res.json.error.message, /Content-Type: application\/json/);
    }
    // Nothing was created under the key: the corrected request creates.
    for (const type of ['Application/JSON; charset=utf-8', 'application/json']) {
      const res = await api(sandbox, 'POST', '/v1/payments', { idem: key, body, headers: { 'content-type': type } });
      assert.equal(res.status, 200, type);
    }
    // Its key and scope are checked first.
    refused(await api(sandbox, 'POST', '/v1/payments', { key: 'sk_sandbox_wrong', idem: newKey(), body }), 401, 'unauthorized');
  });

  test('200 CreatedPayment: open, version 1, the hosted checkout address; no event', async () => {
    const res = await api(sandbox, 'POST', '/v1/payments', { idem: newKey(), body: { order_ref: 'order-1', source_amount: source() } });
    assert.equal(res.status, 200);
    const p = res.json;
    assert.match(p.payment_id, /^pay_[0-9a-f]{24}$/);
    assert.equal(p.order_ref, 'order-1');
    assert.deepEqual(p.source_amount, source());
    assert.equal(p.status, 'open');
    assert.equal(p.status_version, 1);
    assert.equal(p.amount_received_raw, '0');
    assert.equal(p.checkout_origin, sandbox.baseUrl);
    assert.equal(p.checkout_url, `${sandbox.baseUrl}/#payment_id=${p.payment_id}`);
    assert.ok(Date.parse(p.expires_at) > Date.now() + 50 * 60_000);
    assert.equal(p.consumer_access, true);
    assert.deepEqual(await eventsOf(p.payment_id), []);
    // The website's origin may be named; an order_ref not given is left out (never null).
    const embedded = await createPayment(sandbox, '500', { checkout_origin: 'https://shop.example' });
    assert.equal(embedded.checkout_origin, 'https://shop.example');
    assert.equal('order_ref' in embedded, false);
    // The same origin written otherwise: kept as browsers write it, its checkout URL the one
    // hostedCheckoutUrl builds.
    const written = await createPayment(sandbox, '500', { checkout_origin: 'HTTPS://Shop.Example:443' });
    assert.equal(written.checkout_origin, 'https://shop.example');
    assert.equal(written.checkout_url, pkg.hostedCheckoutUrl('HTTPS://Shop.Example:443', written.payment_id));
  });

  test('a payment created without order_ref: its view and its events leave the field out, and parsePaymentView reads them', async () => {
    const p = await createPayment(sandbox, '800');
    await sandbox.pay(p.payment_id, '800');
    const res = await api(sandbox, 'GET', `/v1/payments/${p.payment_id}`);
    assert.deepEqual(Object.keys(res.json), [...VIEW_FIELDS.filter((f) => f !== 'order_ref'), 'consumer_access']);
    const view = pkg.parsePaymentView(res.text);
    assert.deepEqual([view.status, view.status_version, 'order_ref' in view], ['paid', '3', false]);
    assert.equal(pkg.defaultPolicy(res.text), 'fulfil');
    for (const event of await eventsOf(p.payment_id)) {
      const { data } = JSON.parse(event.body);
      assert.equal('order_ref' in data, false);
      assert.equal(pkg.parsePaymentView(JSON.stringify(data)).status_version, String(event.status_version));
    }
  });

  test('an identical replay answers 200 with the same payment; another body under the key is 409', async () => {
    const key = newKey();
    const body = JSON.stringify({ order_ref: 'order-2', source_amount: source('900') });
    const first = await api(sandbox, 'POST', '/v1/payments', { idem: key, body, headers: { 'content-type': 'application/json' } });
    const again = await api(sandbox, 'POST', '/v1/payments', { idem: key, body, headers: { 'content-type': 'application/json' } });
    assert.equal(first.status, 200);
    assert.equal(again.status, 200);
    assert.equal(again.json.payment_id, first.json.payment_id);
    assert.deepEqual(again.json, first.json);
    // The same JSON with other whitespace is another body (bytes are compared).
    refused(await api(sandbox, 'POST', '/v1/payments', { idem: key, body: ` ${body}`, headers: { 'content-type': 'application/json' } }), 409, 'idempotency_key_reused');
    refused(await api(sandbox, 'POST', '/v1/payments', { idem: key, body: { order_ref: 'order-2', source_amount: source('901') } }), 409, 'idempotency_key_reused');
    const all = await api(sandbox, 'GET', `/v1/payments/${first.json.payment_id}`);
    assert.equal(all.status, 200);
  });

  test('a replay once the payment expired answers it expired, as a read of it would', async (t) => {
    const key = newKey();
    const body = { order_ref: 'order-late', source_amount: source('900') };
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    try {
      const first = await api(sandbox, 'POST', '/v1/payments', { idem: key, body });
      assert.equal(first.json.status, 'open');
      t.mock.timers.tick(Date.parse(first.json.expires_at) - Date.now() + 1000);
      const again = await api(sandbox, 'POST', '/v1/payments', { idem: key, body });
      assert.deepEqual([again.status, again.json.payment_id, again.json.status], [200, first.json.payment_id, 'expired']);
      assert.equal((await api(sandbox, 'GET', `/v1/payments/${first.json.payment_id}`)).json.status, 'expired');
    } finally {
      t.mock.timers.reset();
    }
  });

  test('a refused creation does not use up its key: the corrected request creates', async () => {
    const key = newKey();
    refused(await api(sandbox, 'POST', '/v1/payments', { idem: key, body: { source_amount: source('0') } }), 400, 'amount_raw_invalid');
    assert.equal((await api(sandbox, 'POST', '/v1/payments', { idem: key, body: { source_amount: source('1') } })).status, 200);
  });
});

describe('GET /v1/payments/{id}', () => {
  test('the view; unknown is 404 payment_not_found; querying changes no delivery state', async () => {
    const p = await createPayment(sandbox, '700', { order_ref: 'q' });
    await sandbox.pay(p.payment_id, '700');
    await settled(sandbox);
    const before = (await sandbox.deliveries()).length;
    const res = await api(sandbox, 'GET', `/v1/payments/${p.payment_id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.json), [...VIEW_FIELDS, 'consumer_access']);
    assert.equal(res.json.status, 'paid');
    assert.equal(res.json.status_version, 3);
    await api(sandbox, 'GET', `/v1/payments/${p.payment_id}`);
    assert.equal((await sandbox.deliveries()).length, before);
    assert.deepEqual(await sandbox.pendingDeliveries(), []);
    refused(await api(sandbox, 'GET', '/v1/payments/pay_unknown'), 404, 'payment_not_found');
    refused(await api(sandbox, 'GET', '/v1/payments/%E0%A4%A'), 404, 'payment_not_found');
  });

  test('the view equals the facts of the last event, field by field', async () => {
    const p = await createPayment(sandbox, '1000', { order_ref: 'facts' });
    await sandbox.pay(p.payment_id, '400');
    const view = (await api(sandbox, 'GET', `/v1/payments/${p.payment_id}`)).json;
    const events = await eventsOf(p.payment_id);
    assert.deepEqual(events.map((e) => [e.status, e.status_version]), [['confirming', 2], ['partially_paid', 3]]);
    const data = JSON.parse(events.at(-1).body).data;
    assert.deepEqual(Object.keys(data), VIEW_FIELDS);
    for (const field of VIEW_FIELDS) assert.deepEqual(view[field], data[field], field);
  });
});

describe('POST /v1/payments/{id}/cancel', () => {
  test('an open payment with nothing received: cancelled, one event; a repeat reads the state', async () => {
    const p = await createPayment(sandbox, '300');
    const res = await api(sandbox, 'POST', `/v1/payments/${p.payment_id}/cancel`);
    assert.equal(res.status, 200);
    assert.equal(res.json.status, 'cancelled');
    assert.equal(res.json.status_version, 2);
    const again = await api(sandbox, 'POST', `/v1/payments/${p.payment_id}/cancel`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, res.json);
    const events = await eventsOf(p.payment_id);
    assert.deepEqual(events.map((e) => e.status), ['cancelled']);
    refused(await api(sandbox, 'POST', `/v1/payments/${p.payment_id}/pay`), 404, 'not_found');
    // The refusal names the state the payment is in.
    await assert.rejects(sandbox.pay(p.payment_id, '1'), (e) => e.code === 'payment_not_payable' && e.status === 409
      && / \(this payment is cancelled\)$/.test(e.message));
  });

  test('refused with funds received, after review or expiry: 409 payment_not_cancellable', async () => {
    const partly = await createPayment(sandbox, '300');
    await sandbox.pay(partly.payment_id, '100');
    const reviewed = await createPayment(sandbox, '300');
    await sandbox.review(reviewed.payment_id);
    const expired = await createPayment(sandbox, '300');
    await sandbox.expire(expired.payment_id);
    const paid = await createPayment(sandbox, '300');
    await sandbox.pay(paid.payment_id, '300');
    for (const p of [partly, reviewed, expired, paid]) {
      const count = (await eventsOf(p.payment_id)).length;
      refused(await api(sandbox, 'POST', `/v1/payments/${p.payment_id}/cancel`), 409, 'payment_not_cancellable');
      assert.equal((await eventsOf(p.payment_id)).length, count, 'a refusal emits nothing');
    }
    refused(await api(sandbox, 'POST', '/v1/payments/pay_unknown/cancel'), 404, 'payment_not_found');
  });
});

describe('DELETE /v1/payments/{id}/consumer-access and checkout', () => {
  test('the first checkout activation and disabling access emit nothing; checkout then refuses it', async () => {
    const p = await createPayment(sandbox, '800');
    const opened = await api(sandbox, 'GET', `/checkout/${p.payment_id}`, { key: null });
    assert.equal(opened.status, 200);
    assert.deepEqual(opened.json, { payment_id: p.payment_id, source_amount: source('800'), status: 'open', amount_received_raw: '0', expires_at: p.expires_at });
    const html = await api(sandbox, 'GET', `/checkout/${p.payment_id}`, { key: null, headers: { accept: 'text/html' } });
    assert.equal(html.status, 200);
    assert.match(html.headers.get('content-type'), /text\/html/);
    assert.ok(html.text.includes(p.payment_id) && html.text.includes('8.00'));
    const res = await api(sandbox, 'DELETE', `/v1/payments/${p.payment_id}/consumer-access`);
    assert.equal(res.status, 200);
    assert.equal(res.json.status, 'open');
    assert.equal(res.json.status_version, 1);
    assert.equal(res.json.consumer_access, false);
    assert.equal((await api(sandbox, 'DELETE', `/v1/payments/${p.payment_id}/consumer-access`)).status, 200); // idempotent
    assert.deepEqual(await eventsOf(p.payment_id), []);
    refused(await api(sandbox, 'GET', `/checkout/${p.payment_id}`, { key: null }), 403, 'consumer_access_disabled');
    const page = await api(sandbox, 'GET', `/checkout/${p.payment_id}`, { key: null, headers: { accept: 'text/html' } });
    assert.equal(page.status, 403);
    assert.match(page.text, /consumer_access_disabled/);
    refused(await api(sandbox, 'POST', `/sandbox/payments/${p.payment_id}/pay`, { body: { amount_raw: '800' } }), 403, 'consumer_access_disabled');
    // The merchant still queries it, and may still cancel it.
    assert.equal((await api(sandbox, 'GET', `/v1/payments/${p.payment_id}`)).status, 200);
    assert.equal((await api(sandbox, 'POST', `/v1/payments/${p.payment_id}/cancel`)).json.status, 'cancelled');
    refused(await api(sandbox, 'GET', '/checkout/pay_unknown', { key: null }), 404, 'payment_not_found');
  });

  test('the hosted checkout address (the base URL with #payment_id=) serves a page that opens it', async () => {
    const res = await api(sandbox, 'GET', '/', { key: null });
    assert.equal(res.status, 200);
    assert.match(res.text, /payment_id/);
    assert.match(res.text, /location\.replace\('\/checkout\/'/);
  });

  test('publicUrl: checkout links name it and its pages may pay; the Host header never counts', async () => {
    const mapped = await startSandbox({ port: 0, retryDelaysMs: [], publicUrl: 'http://localhost:8080/' });
    try {
      assert.equal(mapped.publicUrl, 'http://localhost:8080');
      assert.notEqual(mapped.baseUrl, mapped.publicUrl);
      const p = await createPayment(mapped, '100');
      assert.equal(p.checkout_origin, 'http://localhost:8080');
      assert.equal(p.checkout_url, `http://localhost:8080/#payment_id=${p.payment_id}`);
      assert.match((await api(mapped, 'GET', '/', { key: null })).text, /<code>http:\/\/localhost:8080\/#payment_id=/);
      const pay = (origin, host) => fetch(`${mapped.baseUrl}/sandbox/payments/${p.payment_id}/pay`, {
        method: 'POST', headers: { origin, ...(host ? { host } : {}), 'content-type': 'application/json' }, body: '{"amount_raw":"40"}',
      });
      // A page of another name, even one whose Host header matches its Origin: refused.
      const other = await pay('http://192.168.1.20:8080', '192.168.1.20:8080');
      assert.equal(other.status, 403);
      assert.equal((await other.json()).error.code, 'forbidden_origin');
      assert.equal((await pay('http://localhost:8080')).status, 200, 'the page the browser opened');
      assert.equal((await pay(mapped.baseUrl)).status, 200, 'the listening address still is its own');
      assert.equal((await pay('http://localhost:8081')).status, 403);
    } finally {
      await mapped.close();
    }
    for (const bad of ['ftp://localhost:8080', 'http://localhost:8080/shop', 'http://localhost:8080/?a=1', 'http://localhost:8080/#x',
      'localhost:8080', 8080]) {
      await assert.rejects(startSandbox({ port: 0, publicUrl: bad }), (e) => e.code === 'invalid_argument' && /publicUrl/.test(e.message), String(bad));
    }
    await assert.rejects(startSandbox({ port: 0, publicUrl: 'http://user:Canary@localhost:8080' }),
      (e) => e.code === 'invalid_argument' && /no user name or password/.test(e.message) && !e.message.includes('Canary'));
  });
});

describe('the customer and the dashboard: /sandbox/payments/{id}/pay, settle, review, expire', () => {
  test('payments add up: confirming, then paid, partially_paid or overpaid; two events each', async () => {
    const p = await createPayment(sandbox, '1000');
    const part = await api(sandbox, 'POST', `/sandbox/payments/${p.payment_id}/pay`, { key: null, body: { amount_raw: '600' } });
    assert.equal(part.status, 200);
    assert.equal(part.json.status, 'partially_paid');
    assert.equal(part.json.amount_received_raw, '600');
    const rest = await api(sandbox, 'POST', `/sandbox/payments/${p.payment_id}/pay`, { key: null, body: { amount_raw: '400' } });
    assert.equal(rest.json.status, 'paid');
    assert.equal(rest.json.status_version, 5);
    const over = await createPayment(sandbox, '1000');
    assert.equal((await sandbox.pay(over.payment_id, '1001')).status, 'overpaid');
    const events = await eventsOf(p.payment_id);
    assert.deepEqual(events.map((e) => `${e.status}@${e.status_version}`), ['confirming@2', 'partially_paid@3', 'confirming@4', 'paid@5']);
    refused(await api(sandbox, 'POST', `/sandbox/payments/${p.payment_id}/pay`, { body: { amount_raw: '1' } }), 409, 'payment_not_payable');
    refused(await api(sandbox, 'POST', `/sandbox/payments/${over.payment_id}/pay`, { body: { amount_raw: '01' } }), 400, 'amount_raw_invalid');
    refused(await api(sandbox, 'POST', `/sandbox/payments/${over.payment_id}/pay`, { body: { amount: '1' } }), 400, 'request_invalid');
    refused(await api(sandbox, 'POST', '/sandbox/payments/pay_unknown/pay', { body: { amount_raw: '1' } }), 404, 'payment_not_found');
  });

  test('pay with hold: the payment stays confirming (one event), refuses pay, cancel and expire, and settle completes it', async () => {
    const p = await createPayment(sandbox, '1000');
    const id = p.payment_id;
    const held = await api(sandbox, 'POST', `/sandbox/payments/${id}/pay`, { body: { amount_raw: '1000', hold: true } });
    assert.equal(held.status, 200, held.text);
    assert.deepEqual([held.json.status, held.json.status_version, held.json.amount_received_raw], ['confirming', 2, '1000']);
    assert.equal((await api(sandbox, 'GET', `/v1/payments/${id}`)).json.status, 'confirming');
    // Its checkout page offers to complete the confirmations, not to pay.
    const page = await api(sandbox, 'GET', `/checkout/${id}`, { key: null, headers: { accept: 'text/html' } });
    assert.match(page.text, /<button id="settle">/);
    assert.doesNotMatch(page.text, /data-amount=/);
    refused(await api(sandbox, 'POST', `/sandbox/payments/${id}/pay`, { body: { amount_raw: '1' } }), 409, 'payment_not_payable');
    refused(await api(sandbox, 'POST', `/v1/payments/${id}/cancel`), 409, 'payment_not_cancellable');
    refused(await api(sandbox, 'POST', `/sandbox/payments/${id}/expire`), 409, 'payment_not_expirable');
    refused(await api(sandbox, 'POST', `/sandbox/payments/${id}/review`), 409, 'payment_not_reviewable');
    const settled = await api(sandbox, 'POST', `/sandbox/payments/${id}/settle`);
    assert.deepEqual([settled.json.status, settled.json.status_version], ['paid', 3]);
    refused(await api(sandbox, 'POST', `/sandbox/payments/${id}/settle`), 409, 'payment_not_confirming');
    assert.deepEqual((await eventsOf(id)).map((e) => `${e.status}@${e.status_version}`), ['confirming@2', 'paid@3']);
    // hold: false is pay; the methods take { hold }; hold is a boolean.
    const other = await createPayment(sandbox, '1000');
    const plain = await api(sandbox, 'POST', `/sandbox/payments/${other.payment_id}/pay`, { body: { amount_raw: '400', hold: false } });
    assert.equal(plain.json.status, 'partially_paid');
    assert.equal((await sandbox.pay(other.payment_id, '700', { hold: true })).status, 'confirming');
    assert.equal((await sandbox.settle(other.payment_id)).status, 'overpaid');
    refused(await api(sandbox, 'POST', `/sandbox/payments/${other.payment_id}/settle`), 409, 'payment_not_confirming');
    refused(await api(sandbox, 'POST', `/sandbox/payments/${id}/pay`, { body: { amount_raw: '1', hold: 'yes' } }), 400, 'request_invalid');
    refused(await api(sandbox, 'POST', '/sandbox/payments/pay_unknown/settle'), 404, 'payment_not_found');
    await assert.rejects(sandbox.pay(other.payment_id, '1', { hold: 1 }), (e) => e.code === 'invalid_argument' && /hold is true or false/.test(e.message));
    await assert.rejects(sandbox.pay(other.payment_id, '1', { hol: true }), (e) => e.code === 'invalid_argument' && /did you mean "hold"/.test(e.message));
  });

  test('review and expire, and their refusals', async () => {
    const p = await createPayment(sandbox, '1000');
    await sandbox.pay(p.payment_id, '1000');
    const reviewed = await api(sandbox, 'POST', `/sandbox/payments/${p.payment_id}/review`);
    assert.equal(reviewed.json.status, 'review_required');
    assert.equal(reviewed.json.status_version, 4);
    refused(await api(sandbox, 'POST', `/sandbox/payments/${p.payment_id}/review`), 409, 'payment_not_reviewable');
    refused(await api(sandbox, 'POST', `/sandbox/payments/${p.payment_id}/expire`), 409, 'payment_not_expirable');
    const open = await createPayment(sandbox, '1000');
    const expired = await api(sandbox, 'POST', `/sandbox/payments/${open.payment_id}/expire`);
    assert.equal(expired.json.status, 'expired');
    refused(await api(sandbox, 'POST', `/sandbox/payments/${open.payment_id}/review`), 409, 'payment_not_reviewable');
    refused(await api(sandbox, 'POST', `/sandbox/payments/${open.payment_id}/pay`, { body: { amount_raw: '1' } }), 409, 'payment_not_payable');
  });
});

describe('endpoints, methods and the error body', () => {
  test('an unknown path is 404 not_found; a known one with another method 405 with Allow', async () => {
    refused(await api(sandbox, 'GET', '/v1/nothing'), 404, 'not_found');
    refused(await api(sandbox, 'GET', '/v2/payments'), 404, 'not_found');
    const res = await api(sandbox, 'PUT', '/v1/payments');
    refused(res, 405, 'method_not_allowed');
    assert.equal(res.headers.get('allow'), 'POST');
    refused(await api(sandbox, 'GET', '/sandbox/webhook/rotate'), 405, 'method_not_allowed');
  });

  test('a request body over 1 MiB is 413 request_too_large', async () => {
    refused(await api(sandbox, 'POST', '/v1/payments', { idem: newKey(), body: Buffer.alloc(1024 * 1024 + 1, 0x20) }), 413, 'request_too_large');
  });

  // From another process, as a client runs: fetch writing a body over the limit reads the 413,
  // never a connection reset (the rest of the body is read and dropped, not cut).
  test('bodies of 4 MB sent by fetch from another process, ten at a time: every one answered 413', async () => {
    const { execFile } = await import('node:child_process');
    const script = `
      const url = process.argv[1];
      const body = new Uint8Array(4_000_000).fill(32);
      const seen = {};
      const one = async () => {
        try {
          const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
          await res.arrayBuffer();
          seen[res.status] = (seen[res.status] ?? 0) + 1;
        } catch (error) {
          const code = error.cause?.code ?? error.code ?? error.message;
          seen[code] = (seen[code] ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: 10 }, async () => { for (let i = 0; i < 6; i += 1) await one(); }));
      console.log(JSON.stringify(seen));`;
    const out = await new Promise((resolve, reject) => {
      execFile(process.execPath, ['--input-type=module', '-e', script, `${sandbox.baseUrl}/sandbox/events/evt_x/replay`],
        { timeout: 60_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)));
    });
    assert.deepEqual(JSON.parse(out), { 413: 60 });
  });

  test('a body without end is answered 413 once past 1 MiB and the connection closed, not read on', async () => {
    const { port } = new URL(sandbox.baseUrl);
    const started = Date.now();
    const { answer, sent } = await new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      let got = '';
      let total = 0;
      const chunk = `10000\r\n${' '.repeat(0x10000)}\r\n`;
      const pump = () => {
        while (!socket.destroyed && total < 256 * 1024 * 1024 && socket.write(chunk)) total += 0x10000;
      };
      socket.on('connect', () => {
        socket.write(`POST /sandbox/events/evt_x/replay HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nTransfer-Encoding: chunked\r\n\r\n`);
        pump();
      });
      socket.on('drain', pump);
      socket.on('data', (data) => { got += data; });
      socket.on('close', () => resolve({ answer: got, sent: total }));
      socket.on('error', () => {}); // the write after the close: EPIPE
      setTimeout(() => reject(new Error(`still open after 20 s (${total} bytes sent)`)), 20_000).unref();
    });
    assert.match(answer, /^HTTP\/1\.1 413/);
    assert.match(answer, /request_too_large/);
    assert.ok(sent < 64 * 1024 * 1024, `${sent} bytes were taken before the close`);
    assert.ok(Date.now() - started < 10_000);
  });

  test('replay of an unknown event is 404 event_not_found', async () => {
    refused(await api(sandbox, 'POST', '/sandbox/events/evt_unknown/replay'), 404, 'event_not_found');
    await assert.rejects(sandbox.replay('evt_unknown'), (e) => e instanceof SandboxError && e.code === 'event_not_found');
  });

  test('the CommonJS build refuses alike, with its own SandboxError', async () => {
    assert.equal(typeof sandboxCjs.startSandbox, 'function');
    await assert.rejects(sandboxCjs.startSandbox({ prot: 1 }), (e) => e.code === 'invalid_argument' && /options: port, /.test(e.message));
  });

  test('printing the handle (util.inspect, JSON.stringify) shows its addresses, never the API key or the signing secret', async () => {
    const { inspect } = await import('node:util');
    for (const shown of [inspect(sandbox, { showHidden: true, getters: true, depth: 5 }), JSON.stringify(sandbox), `${JSON.stringify({ sandbox })}`]) {
      assert.ok(shown.includes(sandbox.baseUrl), shown);
      assert.ok(shown.includes(sandbox.webhook.resourceId), shown);
      assert.ok(!shown.includes(sandbox.apiKey) && !shown.includes(sandbox.webhook.secret), shown);
    }
    assert.match(sandbox.apiKey, /^sk_sandbox_/, 'still read by name');
  });

  test('an unknown option is never echoed (it may be a pasted secret); a near miss is named', async () => {
    await assert.rejects(startSandbox({ port: 0, whsec_Canary_123: true }), (e) => e.code === 'invalid_argument' && !e.message.includes('Canary'));
    await assert.rejects(startSandbox({ Webhook_URL: 'http://127.0.0.1:1/' }), (e) => /did you mean "webhookUrl"\?/.test(e.message));
  });
});

describe('the webhook: POST /v1/webhook-endpoints, verify, rotate, activate (one per account)', () => {
  let bare;
  let target;
  before(async () => {
    bare = await startSandbox({ port: 0, retryDelaysMs: [] });
    target = await endpoint();
  });
  after(async () => {
    await bare?.close();
    await target?.close();
  });

  test('without a website: a checkout_origin is origin_not_permitted (Embedded Checkout needs one); none is hosted checkout', async () => {
    refused(await api(bare, 'POST', '/v1/payments', { idem: newKey(), body: { source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' }, checkout_origin: 'https://shop.example' } }),
      400, 'origin_not_permitted');
    const hosted = await createPayment(bare, '100');
    assert.equal(hosted.checkout_origin, bare.baseUrl);
  });

  test('a request target no URL parser takes is 404, and the sandbox keeps serving; a browser page of another origin, or another host name, may not call it', async () => {
    const { port } = new URL(bare.baseUrl);
    const raw = await rawGet(port, '//[', 'x');
    assert.match(raw, /^HTTP\/1\.1 404/);
    assert.equal((await api(bare, 'GET', '/v1/store')).status, 200, 'still serving');
    // A DNS-rebinding page: the attacker's name in Host, no Origin (a browser's GET sends none).
    const hostAsked = (host) => rawGet(port, '/sandbox/events', host);
    const rebound = await hostAsked(`attacker.example:${port}`);
    assert.match(rebound, /^HTTP\/1\.1 403/);
    assert.match(rebound, /"code": "forbidden_host"/);
    assert.doesNotMatch(rebound, /"events"/);
    for (const own of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `shop.localhost:${port}`, '127.0.0.2',
      `localhost.:${port}`, `0.0.0.0:${port}`, `[::ffff:127.0.0.1]:${port}`]) {
      assert.match(await hostAsked(own), /^HTTP\/1\.1 200/, own);
    }
    // Listening on every interface (a container), the developer chose the exposure: any name
    // (a Compose alias, host.docker.internal, a LAN address) is answered.
    const exposed = await startSandbox({ port: 0, host: '0.0.0.0', log: () => {} });
    try {
      const wide = new URL(exposed.baseUrl).port;
      assert.match(await rawGet(wide, '/sandbox/events', `sandbox.test:${wide}`), /^HTTP\/1\.1 200/);
    } finally {
      await exposed.close();
    }
    const rotate = await fetch(`${bare.baseUrl}/sandbox/webhook/rotate`, { method: 'POST', headers: { origin: 'https://evil.example' } });
    assert.equal(rotate.status, 403);
    assert.equal((await rotate.json()).error.code, 'forbidden_origin');
    // The checkout page opened as localhost on the same port posts its Pay button: its own.
    const p = await createPayment(bare, '100');
    const paid = await fetch(`${bare.baseUrl}/sandbox/payments/${p.payment_id}/pay`, {
      method: 'POST', headers: { origin: `http://localhost:${port}`, 'content-type': 'application/json' }, body: '{"amount_raw":"100"}',
    });
    assert.equal(paid.status, 200);
    const otherPort = await fetch(`${bare.baseUrl}/sandbox/webhook/rotate`, { method: 'POST', headers: { origin: `http://localhost:${Number(port) + 1}` } });
    assert.equal(otherPort.status, 403);
    // Every loopback name whose page the Host check serves may post from it (its Pay button).
    for (const name of ['shop.localhost', '127.0.0.2', 'localhost.']) {
      const q = await createPayment(bare, '100');
      const res = await fetch(`${bare.baseUrl}/sandbox/payments/${q.payment_id}/pay`, {
        method: 'POST', headers: { origin: `http://${name}:${port}`, 'content-type': 'application/json' }, body: '{"amount_raw":"100"}',
      });
      assert.equal(res.status, 200, name);
    }
  });

  test('its pages: framed by the sandbox and the payment\'s checkout_origin only, their script by nonce; no sniffing, no referrer', async () => {
    const html = (path, to = sandbox) => fetch(`${to.baseUrl}${path}`, { headers: { accept: 'text/html' } });
    const embedded = (await api(sandbox, 'POST', '/v1/payments', { idem: newKey(), body: { source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' }, checkout_origin: 'https://shop.example' } })).json;
    const hosted = await createPayment(bare, '100');
    for (const [res, frames] of [
      [await html(`/checkout/${embedded.payment_id}`), "frame-ancestors 'self' https://shop.example"],
      [await html(`/checkout/${hosted.payment_id}`, bare), `frame-ancestors 'self' ${bare.baseUrl}`],
      [await html('/'), "frame-ancestors 'self'"],
      [await html('/checkout/pay_unknown'), "frame-ancestors 'self'"],
    ]) {
      const csp = res.headers.get('content-security-policy');
      const text = await res.text();
      assert.ok(csp.endsWith(frames), csp);
      const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
      assert.ok(nonce, csp);
      assert.match(csp, /default-src 'none'; .*connect-src 'self'; form-action 'none'; base-uri 'none'/);
      // Every script and style of the page carries this answer's nonce; none without it.
      assert.equal((text.match(/<(script|style)\b/g) ?? []).length, (text.match(new RegExp(`<(script|style) nonce="${nonce.replace(/[+/]/g, '\\$&')}">`, 'g')) ?? []).length);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    }
    // Another answer, another nonce.
    const again = (await html('/')).headers.get('content-security-policy');
    assert.notEqual(again, (await html('/')).headers.get('content-security-policy'));
    const apiAnswer = await api(sandbox, 'GET', '/v1/store');
    assert.equal(apiAnswer.headers.get('x-content-type-options'), 'nosniff');
  });

  test('without a webhook: rotate and verify are 404 webhook_not_found; events are not delivered', async () => {
    refused(await api(bare, 'POST', '/sandbox/webhook/rotate'), 404, 'webhook_not_found');
    refused(await api(bare, 'POST', '/sandbox/webhook/activate'), 404, 'webhook_not_found');
    refused(await api(bare, 'POST', '/v1/webhook-endpoints/we_x/verify', { body: { secret: 'x' } }), 404, 'webhook_not_found');
    const p = await createPayment(bare, '100');
    await bare.pay(p.payment_id, '100');
    assert.deepEqual(await bare.pendingDeliveries(), []);
    const [event] = await bare.events(p.payment_id);
    const replay = await api(bare, 'POST', `/sandbox/events/${event.event_id}/replay`);
    refused(replay, 404, 'webhook_not_found');
    // No id can help where there is no webhook: the message says how to make one.
    assert.match(replay.json.error.message, /^webhook_not_found: this sandbox has no webhook: start it with webhookUrl \(--webhook-url\), or create one with POST \/v1\/webhook-endpoints; /);
    await assert.rejects(bare.replay(event.event_id), (e) => e.code === 'webhook_not_found' && /this sandbox has no webhook/.test(e.message));
  });

  test('setup: Idempotency-Key, the URL checked as the service does (loopback http allowed)', async () => {
    const missing = await api(bare, 'POST', '/v1/webhook-endpoints', { body: { url: target.url } });
    refused(missing, 400, 'idempotency_key_missing');
    assert.doesNotMatch(missing.json.error.message, /payment/, 'the message names no payment on a webhook setup');
    refused(await api(bare, 'POST', '/v1/webhook-endpoints', { idem: newKey(), body: { url: 'http://shop.example/webhook' } }), 400, 'webhook_url_not_https');
    refused(await api(bare, 'POST', '/v1/webhook-endpoints', { idem: newKey(), body: { url: 'https://shop.example:8443/webhook' } }), 400, 'webhook_url_port');
    refused(await api(bare, 'POST', '/v1/webhook-endpoints', { idem: newKey(), body: { url: 'https://8.8.8.8/webhook' } }), 400, 'webhook_url_ip_literal');
    refused(await api(bare, 'POST', '/v1/webhook-endpoints', { idem: newKey(), body: { url: `${target.url}?token=1` } }), 400, 'webhook_url_query');
    refused(await api(bare, 'POST', '/v1/webhook-endpoints', { idem: newKey(), body: { url: target.url.replace('http://', 'http://u:p@') } }), 400, 'webhook_url_credentials');
    refused(await api(bare, 'POST', '/v1/webhook-endpoints', { idem: newKey(), body: {} }), 400, 'webhook_url_malformed');
    // A JSON body sent as fetch sends a string (text/plain): 415, as for a payment, nothing set up.
    const key = newKey();
    for (const path of ['/v1/webhook-endpoints', '/v1/webhook-endpoints/we_x/verify']) {
      const plain = await api(bare, 'POST', path, { idem: key, body: JSON.stringify({ url: target.url, secret: 'x' }) });
      refused(plain, 415, 'unsupported_media_type');
      assert.match(plain.json.error.message, /Content-Type: application\/json/);
    }
    refused(await api(bare, 'POST', '/v1/webhook-endpoints/we_x/verify', { body: { secret: 'x' } }), 404, 'webhook_not_found');
  });

  test('a local development name (*.test, *.local, host.docker.internal, *.localhost) is taken as loopback is, and logged; a public one is not', async () => {
    for (const webhookUrl of ['http://shop.test:8080/webhook', 'https://hooks.local/webhook', 'http://host.docker.internal:3000/wh', 'http://api.localhost:8787/wh']) {
      const lines = [];
      const local = await startSandbox({ port: 0, webhookUrl, log: (line) => lines.push(line) });
      await local.close();
      assert.ok(lines.some((l) => l.includes(`webhook ${webhookUrl}: on this machine, a local development name or a private network`)), lines.join('\n'));
    }
    for (const [webhookUrl, code] of [['http://shop.testing/webhook', 'webhook_url_not_https'], ['http://shop.test/webhook?x=1', 'webhook_url_query'],
      ['http://receiver:8787/webhook?token=1', 'webhook_url_query'], ['http://u:p@10.0.0.5/webhook', 'webhook_url_credentials']]) {
      await assert.rejects(startSandbox({ port: 0, webhookUrl, log: false }), (e) => e.code === code, webhookUrl);
    }
  });

  test('a Compose or CI service name (one label) and a private address are taken too; a public http URL is refused saying what a sandbox takes', async () => {
    for (const webhookUrl of ['http://receiver:8787/webhook', 'http://app/webhook', 'http://shop_receiver_1:3000/wh', 'http://172.18.0.3:8787/webhook',
      'http://10.1.2.3/webhook', 'http://192.168.1.20:8080/webhook', 'http://[fd00::5]:8787/webhook']) {
      const lines = [];
      const local = await startSandbox({ port: 0, webhookUrl, log: (line) => lines.push(line) });
      await local.close();
      assert.ok(lines.some((l) => l.includes('a local development name or a private network, accepted because this is a sandbox')), `${webhookUrl}\n${lines.join('\n')}`);
    }
    for (const webhookUrl of ['http://shop.example/webhook', 'http://8.8.8.8/webhook', 'http://172.32.0.1/webhook', 'http://11.0.0.1/webhook',
      'http://[fc::1]/webhook', 'http://[fd1::5]/webhook', 'http://com./webhook']) {
      await assert.rejects(startSandbox({ port: 0, webhookUrl, log: false }), (e) => {
        assert.equal(e.code, 'webhook_url_not_https', webhookUrl);
        assert.match(e.message, /a sandbox also takes http:\/\/ .*a one-label host \(a Compose or CI service name such as http:\/\/receiver:8787\)/);
        return true;
      });
    }
  });

  test('the secret once; a repeat answers the same resource_id without it; another URL is 409', async () => {
    const key = newKey();
    const first = await api(bare, 'POST', '/v1/webhook-endpoints', { idem: key, body: { url: target.url } });
    assert.equal(first.status, 200);
    assert.match(first.json.resource_id, /^we_/);
    assert.match(first.json.secret, /^whsec_/);
    assert.equal(first.json.secret_kind, 'active');
    const replay = await api(bare, 'POST', '/v1/webhook-endpoints', { idem: key, body: { url: target.url } });
    assert.deepEqual(replay.json, { resource_id: first.json.resource_id, url: target.url });
    const repeat = await api(bare, 'POST', '/v1/webhook-endpoints', { idem: newKey(), body: { url: target.url } });
    assert.deepEqual(repeat.json, { resource_id: first.json.resource_id, url: target.url });
    refused(await api(bare, 'POST', '/v1/webhook-endpoints', { idem: key, body: { url: `${target.url}2` } }), 409, 'idempotency_key_reused');
    const exists = await api(bare, 'POST', '/v1/webhook-endpoints', { idem: newKey(), body: { url: `${target.url}2` } });
    refused(exists, 409, 'webhook_exists');
    // What the sandbox offers in place of the dashboard's Edit Webhook.
    assert.match(exists.json.error.message, /^webhook_exists: this sandbox's webhook was set up by --webhook-url .*start it again with the other --webhook-url; /);

    // verify: active; wrong; then a rotation's pending, then after activation.
    const id = first.json.resource_id;
    const check = (secret) => api(bare, 'POST', `/v1/webhook-endpoints/${id}/verify`, { body: { secret } });
    assert.deepEqual((await check(first.json.secret)).json, { resource_id: id, url: target.url, secret_kind: 'active' });
    refused(await check(`${first.json.secret}x`), 400, 'secret_mismatch');
    refused(await check(` ${first.json.secret}`), 400, 'secret_mismatch');
    refused(await api(bare, 'POST', `/v1/webhook-endpoints/${id}/verify`, { body: { secret: 5 } }), 400, 'request_invalid');
    refused(await api(bare, 'POST', '/v1/webhook-endpoints/we_other/verify', { body: { secret: first.json.secret } }), 404, 'webhook_not_found');
    refused(await api(bare, 'POST', '/sandbox/webhook/activate'), 409, 'no_pending_secret');
    const rotated = await api(bare, 'POST', '/sandbox/webhook/rotate');
    assert.equal(rotated.json.secret_kind, 'pending');
    assert.notEqual(rotated.json.secret, first.json.secret);
    assert.equal((await check(rotated.json.secret)).json.secret_kind, 'pending');
    assert.equal((await check(first.json.secret)).json.secret_kind, 'active');
    assert.deepEqual((await api(bare, 'POST', '/sandbox/webhook/activate')).json, { resource_id: id, secret_kind: 'active' });
    assert.equal((await check(rotated.json.secret)).json.secret_kind, 'active');
    refused(await check(first.json.secret), 400, 'secret_mismatch');

    // Deliveries now go there, signed with the active secret.
    const p = await createPayment(bare, '100');
    await bare.pay(p.payment_id, '100');
    await settled(bare);
    assert.equal(target.requests.length, 2);
    for (const request of target.requests) assert.equal(verifyRecorded(request, rotated.json.secret).matchedSecret, 'active');
  });
});

describe('starting', () => {
  test('a port in use (two test files on the default port) is refused with the fix: port 0', async () => {
    const port = Number(new URL(sandbox.baseUrl).port);
    await assert.rejects(startSandbox({ port }), (error) => {
      assert.equal(error.code, 'EADDRINUSE');
      assert.match(error.message, new RegExp(`^port ${port} is in use on 127\\.0\\.0\\.1 \\(another sandbox, or a test file running beside this one\\): give port: 0 to take a free one`));
      return true;
    });
  });
});

describe('delivered(): what a test awaits before asserting on its receiver', () => {
  test('resolves the webhook log once nothing is queued; rejects naming what is still queued after timeoutMs', async () => {
    let down = true;
    const target = await endpoint(() => ({ status: down ? 503 : 200 }));
    const local = await startSandbox({ port: 0, webhookUrl: target.url, retryDelaysMs: [60_000] });
    try {
      const p = await createPayment(local, '100');
      await local.pay(p.payment_id, '100');
      // Refused 503, retried in a minute: still queued when the wait ends.
      await assert.rejects(local.delivered({ timeoutMs: 300 }), (error) => {
        assert.equal(error.code, 'deliveries_pending');
        // A SandboxError, as the sandbox's other refusals are (status 504: the wait timed out).
        assert.deepEqual([error.name, error.status], ['SandboxError', 504]);
        assert.match(error.message, /give startSandbox shorter retryDelaysMs, or delivered\(\) a longer timeoutMs \(under your test runner's own limit: Vitest and Jest stop a test at 5 s/);
        assert.equal(error.pending.length, 2);
        // No duplicates or shuffle here: no seed to repeat.
        assert.doesNotMatch(error.message, /seed/);
        // The one first in line, retrying (the payment's second event waits behind it), and
        // what the receiver answered it.
        const [first] = error.pending;
        assert.match(error.message, new RegExp(`^delivered: 2 deliveries are still queued after 300 ms \\(first in line: ${first.delivery_id} of ${first.event_id} `
          + `\\(payment ${p.payment_id}\\), attempt 2 due \\S+, last answered HTTP 503\\): deliveries\\(\\) says what the receiver answered; `
          + 'a receiver that is down keeps them queued through retryDelaysMs \\(60 s in all here\\)'));
        return true;
      });
      await assert.rejects(local.delivered({ timeout: 1 }), (error) => error.code === 'invalid_argument' && /timeoutMs/.test(error.message));
      await assert.rejects(local.delivered({ timeoutMs: 0 }), (error) => error.code === 'invalid_argument');
      await local.close();
      // With duplicates or a shuffled order, the seed that repeats the run is named.
      const shuffled = await startSandbox({ port: 0, webhookUrl: target.url, retryDelaysMs: [60_000], shuffle: true, seed: 4242 });
      try {
        const q = await createPayment(shuffled, '100');
        await shuffled.pay(q.payment_id, '100');
        await assert.rejects(shuffled.delivered({ timeoutMs: 300 }), (error) => {
          assert.equal(error.code, 'deliveries_pending');
          assert.match(error.message, /; this run's duplicates and order follow seed 4242: startSandbox\(\{ seed: 4242 \}\) repeats them$/);
          return true;
        });
      } finally {
        await shuffled.close();
      }
      // Another sandbox whose receiver answers: every delivery made, the log resolved.
      down = false;
      const again = await startSandbox({ port: 0, webhookUrl: target.url, retryDelaysMs: [20] });
      try {
        const q = await createPayment(again, '100');
        await again.pay(q.payment_id, '100');
        const log = await again.delivered();
        assert.deepEqual(log.filter((entry) => entry.payment_id === q.payment_id).map((entry) => entry.outcome), ['acknowledged', 'acknowledged']);
        assert.deepEqual(await again.pendingDeliveries(), []);
      } finally {
        await again.close();
      }
    } finally {
      await local.close();
      await target.close();
    }
  });
});
