// cryptopay-verify/client against a programmable stand-in of the payment service (lib/standin.mjs,
// not the service): each test scripts its answers. Creation retried after a dropped connection,
// a 5xx or a timeout with the same Idempotency-Key and the same body bytes; ErrorResponse codes;
// the view read exactly; the webhook setup; and a canary API key and secret that never appear in
// an error, a URL or a message, even when the service echoes them.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { Database, exportedFile, pkg, receiverOptions, rx, tempDir } from '../receiver/lib/helpers.mjs';
import { errorResponse, startStandin } from './lib/standin.mjs';

const client = await import(pathToFileURL(exportedFile('./client')).href);
const clientCjs = createRequire(import.meta.url)(exportedFile('./client', 'require'));
const { createClient, CryptoPayApiError } = client;

const API_KEY = 'sk_canary_3f9a1c7e5b';
const SECRET = 'whsec_canary_b81d0e';
const STORE = { primary_source: { kind: 'fiat', ref: 'USD', decimals: 2 }, website_origin: 'https://shop.example' };
const view = (fields = {}) => JSON.stringify({
  payment_id: 'pay_1', order_ref: 'order-42', source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '12810' },
  status: 'open', status_version: 1, amount_received_raw: '0', ...fields,
});

/** Every text an error exposes: message, code, text, stack, cause's message, and its own keys. */
const exposed = (error) => [error.message, error.code, error.text, error.stack, error.cause?.message, JSON.stringify(error)].join('\n');

describe('the client, against a scripted stand-in of the service', () => {
  let standin;
  let api;
  before(async () => {
    standin = await startStandin(() => null);
    api = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, timeoutMs: 400, retries: 2 });
  });
  after(() => standin.close());
  const script = (answer) => standin.script(answer);

  test('createPayment: amount priced from GET /v1/store exactly ("128.10" is 12810), one Idempotency-Key, the key only in Authorization', async () => {
    script((req) => {
      if (req.path === '/v1/store') return { json: STORE };
      return { json: { payment_id: 'pay_1', checkout_origin: 'https://pay.example' } };
    });
    const fresh = createClient({ baseUrl: `${standin.baseUrl}/`, apiKey: API_KEY });
    const created = await fresh.createPayment({ order_ref: 'order-42', amount: '128.10' });
    assert.deepEqual(created, {
      payment_id: 'pay_1', checkout_origin: 'https://pay.example', order_ref: 'order-42',
      source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '12810' },
    });
    const [store, post] = standin.requests;
    assert.deepEqual([store.method, store.path, post.method, post.path], ['GET', '/v1/store', 'POST', '/v1/payments']);
    assert.equal(post.body.toString(), '{"order_ref":"order-42","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"12810"}}');
    assert.equal(post.headers['content-type'], 'application/json');
    assert.match(post.headers['idempotency-key'], /^[\x21-\x7e]{1,255}$/);
    for (const request of standin.requests) {
      assert.equal(request.headers.authorization, `Bearer ${API_KEY}`);
      assert.ok(!request.url.includes(API_KEY), 'never in a URL');
    }
    // The store is cached: a second creation asks only POST, with another key (another intent).
    standin.requests.length = 0;
    await fresh.createPayment({ order_ref: 'order-43', amount: '1' });
    assert.deepEqual(standin.requests.map((r) => r.path), ['/v1/payments']);
    assert.notEqual(standin.requests[0].headers['idempotency-key'], post.headers['idempotency-key']);
  });

  test('a dropped connection, a 503 and a slow answer: the same request again, same key, same body bytes; an identical replay is one payment', async () => {
    let created = 0;
    script((req, n) => {
      if (req.path === '/v1/store') return { json: STORE };
      if (n === 1) return { drop: true };
      if (n === 2) return { status: 503, text: 'upstream unavailable' };
      if (n === 3) return { delayMs: 1000, json: { payment_id: 'pay_slow' } }; // past timeoutMs
      created += 1;
      return { json: { payment_id: 'pay_2' } };
    });
    const slow = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, timeoutMs: 400, retries: 3 });
    const result = await slow.createPayment({ order_ref: 'o', amount: '5.00' }, { idempotencyKey: 'create-o-1' });
    assert.equal(result.payment_id, 'pay_2');
    assert.equal(created, 1);
    const posts = standin.requests.filter((r) => r.method === 'POST');
    assert.equal(posts.length, 4);
    for (const p of posts) {
      assert.equal(p.headers['idempotency-key'], 'create-o-1');
      assert.ok(p.body.equals(posts[0].body), 'the same body bytes');
    }
  });

  test('every attempt failing: CryptoPayApiError (timeout, network_error, http_502 with the raw text kept), retryable, carrying the idempotencyKey to retry with', async () => {
    for (const [answer, code, status] of [
      [{ delayMs: 1000, json: {} }, 'timeout', 0],
      [{ drop: true }, 'network_error', 0],
      [{ status: 502, text: '<html>Bad Gateway</html>' }, 'http_502', 502],
    ]) {
      script((req) => (req.path === '/v1/store' ? { json: STORE } : answer));
      const error = await api.createPayment({ amount: '1.00' }).then(() => null, (e) => e);
      assert.ok(error instanceof CryptoPayApiError, String(error));
      assert.deepEqual([error.name, error.code, error.status, error.retryable], ['CryptoPayApiError', code, status, true]);
      assert.match(error.idempotencyKey, /^[\x21-\x7e]+$/);
      if (code === 'http_502') assert.equal(error.text, '<html>Bad Gateway</html>');
      const posts = standin.requests.filter((r) => r.method === 'POST');
      assert.equal(posts.length, 3, `${code}: retries + 1 attempts`);
      assert.equal(new Set(posts.map((p) => p.headers['idempotency-key'])).size, 1);
      assert.match(error.message, /after 3 attempts/);
      // Unanswered, the creation may exist: the message says to send it again under its key.
      const again = /may have succeeded: send the same request again with the same idempotencyKey, never a new one$/;
      if (status === 0) assert.match(error.message, again);
      else assert.doesNotMatch(error.message, again);
    }
  });

  test('ErrorResponse: its code, never retried (400, 401, 403, 404, 409); the service\'s message kept, the key masked even when echoed', async () => {
    for (const [status, code] of [[400, 'amount_raw_invalid'], [401, 'unauthorized'], [403, 'insufficient_scope'], [404, 'payment_not_found'], [409, 'idempotency_key_reused']]) {
      script(() => errorResponse(status, code, `refused for key ${API_KEY}`));
      const error = await api.getPayment('pay_x').then(() => null, (e) => e);
      assert.deepEqual([error.code, error.status, error.retryable, standin.requests.length], [code, status, false, 1]);
      assert.match(error.message, new RegExp(`^${code}: the service answered ${status}: refused for key \\*\\*\\*$`));
      assert.ok(!exposed(error).includes(API_KEY), exposed(error));
    }
    // Not an ErrorResponse: the status as the code, the raw text kept (the key masked).
    script(() => ({ status: 418, text: `teapot ${API_KEY}` }));
    const odd = await api.getPayment('pay_x').then(() => null, (e) => e);
    assert.deepEqual([odd.code, odd.status, odd.retryable, odd.text], ['http_418', 418, false, 'teapot ***']);
    // Echoed cut short, in capitals, or as the base64 of its Authorization header: masked too.
    for (const [echo, shown] of [[`${API_KEY.slice(0, -3)}...`, 'teapot ***... here'], [API_KEY.toUpperCase(), 'teapot *** here'],
      [Buffer.from(`Bearer ${API_KEY}`).toString('base64'), 'teapot *** here']]) {
      script(() => ({ status: 418, text: `teapot ${echo} here` }));
      const echoed = await api.getPayment('pay_x').then(() => null, (e) => e);
      assert.equal(echoed.text, shown);
      assert.ok(!exposed(echoed).includes(echo), exposed(echoed));
    }
    // 429 and 5xx are retried; a 3xx is never followed (the key would travel with it).
    script((req, n) => (n === 1 ? { status: 429, text: 'slow down' } : { json: JSON.parse(view()) }));
    assert.equal((await api.getPayment('pay_1')).payment_id, 'pay_1');
    script(() => ({ status: 302, headers: { location: 'https://elsewhere.example/' }, text: '' }));
    const moved = await api.getPayment('pay_1').then(() => null, (e) => e);
    assert.deepEqual([moved.code, moved.retryable, standin.requests.length], ['http_302', false, 1]);
    assert.match(moved.message, /^http_302: the service answered 302: redirects are not followed: check baseUrl/);
    // A creation's key sent before with another body: cancel the first payment, then a new key.
    script((req) => (req.path === '/v1/store' ? { json: STORE } : errorResponse(409, 'idempotency_key_reused', 'used with a different body')));
    const reused = await api.createPayment({ order_ref: 'order-42', amount: '130.00' }, { idempotencyKey: 'create-order-42-1' }).then(() => null, (e) => e);
    assert.deepEqual([reused.code, reused.retryable, reused.idempotencyKey], ['idempotency_key_reused', false, 'create-order-42-1']);
    assert.match(reused.message, /^idempotency_key_reused: the service answered 409: used with a different body; .*cancel the payment created under it \(cancelPayment\) before creating the order's payment under a new key/);
    // No ErrorResponse to quote: the message says what the status asks to check.
    for (const [status, pattern] of [[401, /check the API key \(/], [403, /check the API key's scopes \(payment:write/], [404, /check baseUrl/]]) {
      script(() => ({ status, text: '' }));
      const error = await api.getPayment('pay_1').then(() => null, (e) => e);
      assert.equal(error.code, `http_${status}`);
      assert.match(error.message, pattern);
    }
  });

  test('getPayment: the view read by the core, status_version exact as a string, the response text kept for linking; the id encoded in the path', async () => {
    // As the service writes it: a version past 2^64 and a number no double holds, as JSON numbers.
    const text = view({ status: 'paid', status_version: 0, amount_received_raw: '12810', metadata: { big: 0 } })
      .replace('"status_version":0', '"status_version":18446744073709551617').replace('"big":0', '"big":1e400');
    script(() => ({ text, headers: { 'content-type': 'application/json' } }));
    const got = await api.getPayment('pay/1 ?');
    assert.equal(standin.requests[0].path, '/v1/payments/pay%2F1%20%3F');
    assert.equal(got.status_version, '18446744073709551617');
    assert.equal(got.metadata.big, '1e400');
    assert.equal(got.responseText, text);
    assert.equal(JSON.stringify(got).includes('responseText'), false, 'not enumerable');
    const order = { paymentId: 'pay_1', orderRef: 'order-42', sourceAmount: { kind: 'fiat', currency: 'USD', amount_raw: '12810' } };
    assert.deepEqual(pkg.linkEvent(order, got), { linked: true });
    assert.equal(pkg.defaultPolicy(got), 'fulfil');
    // A view fulfilment cannot read (a float version) is an error, never a guess.
    script(() => ({ text: view({ status_version: 1.5 }) }));
    const bad = await api.getPayment('pay_1').then(() => null, (e) => e);
    assert.deepEqual([bad.code, bad.retryable], ['invalid_response', false]);
    assert.equal(bad.cause.code, 'status_version_invalid');
  });

  test('cancelPayment and disableConsumerAccess: POST .../cancel, DELETE .../consumer-access; payment_not_cancellable', async () => {
    script((req) => (req.method === 'POST' ? { text: view({ status: 'cancelled', status_version: 2 }) } : { status: 204, text: '' }));
    const cancelled = await api.cancelPayment('pay_1');
    assert.deepEqual([cancelled.status, cancelled.status_version], ['cancelled', '2']);
    assert.equal(await api.disableConsumerAccess('pay_1'), null);
    assert.deepEqual(standin.requests.map((r) => `${r.method} ${r.path}`), ['POST /v1/payments/pay_1/cancel', 'DELETE /v1/payments/pay_1/consumer-access']);
    script(() => errorResponse(409, 'payment_not_cancellable'));
    const refused = await api.cancelPayment('pay_1').then(() => null, (e) => e);
    assert.deepEqual([refused.code, refused.status], ['payment_not_cancellable', 409]);
    // An answer that is no whole view (the spec lists no fields for it) is read as JSON, its
    // status_version a string all the same, and one a double cannot hold left out, not rounded.
    // One that repeats a key, at any depth, is refused (JSON.parse would take the last value).
    for (const text of ['{"payment_id":"pay_1","payment_id":"pay_2","status":"cancelled"}', '{"payment_id":"pay_1","x":{"a":1,"a":2}}']) {
      script(() => ({ text }));
      const repeated = await api.cancelPayment('pay_1').then(() => null, (e) => e);
      assert.deepEqual([repeated?.code, repeated?.status], ['invalid_response', 200], text);
      assert.match(repeated.message, /repeats a key/);
    }
    for (const [version, expected] of [['3', '3'], ['9007199254740993', undefined]]) {
      script(() => ({ text: `{"payment_id":"pay_1","status":"cancelled","status_version":${version}}` }));
      const short = await api.cancelPayment('pay_1');
      assert.equal(short.status_version, expected, version);
      assert.equal('status_version' in short, expected !== undefined);
    }
  });

  test('bootstrapWebhook: the secret returned once; a repeat without it is an error that says to rotate; verifyWebhookBinding masks the secret', async () => {
    let setups = 0;
    script((req) => {
      if (req.path === '/v1/webhook-endpoints') {
        setups += 1;
        return { json: setups === 1 ? { resource_id: 'whk_1', secret: SECRET } : { resource_id: 'whk_1' } };
      }
      const { secret } = JSON.parse(req.body);
      return secret === SECRET ? { json: { resource_id: 'whk_1', secret_kind: 'active' } } : errorResponse(400, 'secret_mismatch', `not ${secret}`);
    });
    const first = await api.bootstrapWebhook('https://shop.example/webhook', { idempotencyKey: 'setup-1' });
    assert.deepEqual(first, { resource_id: 'whk_1', secret: SECRET });
    assert.equal(standin.requests[0].headers['idempotency-key'], 'setup-1');
    assert.equal(standin.requests[0].body.toString(), '{"url":"https://shop.example/webhook"}');
    const again = await api.bootstrapWebhook('https://shop.example/webhook').then(() => null, (e) => e);
    assert.deepEqual([again.code, again.resourceId, again.retryable], ['webhook_secret_not_returned', 'whk_1', false]);
    assert.match(again.message, /rotate the secret in the dashboard/);
    assert.match(again.message, /was set up before/);
    assert.equal(typeof again.idempotencyKey, 'string', 'the key it was sent under');
    // The first attempt's answer lost (the service acted), the retry answered without the
    // secret: the message says this call may have set it up, not "before".
    let tries = 0;
    script(() => {
      tries += 1;
      return tries === 1 ? { drop: true } : { json: { resource_id: 'whk_9' } };
    });
    const lost = await api.bootstrapWebhook('https://shop.example/webhook', { idempotencyKey: 'setup-lost' }).then(() => null, (e) => e);
    assert.deepEqual([lost.code, lost.resourceId, lost.idempotencyKey, tries], ['webhook_secret_not_returned', 'whk_9', 'setup-lost', 2]);
    assert.match(lost.message, /this call's first attempt, whose answer \(with the signing secret, given only once\) was lost/);
    script((req) => {
      const { secret } = JSON.parse(req.body);
      return secret === SECRET ? { json: { resource_id: 'whk_1', secret_kind: 'active' } } : errorResponse(400, 'secret_mismatch', `not ${secret}`);
    });
    assert.deepEqual(await api.verifyWebhookBinding('whk_1', SECRET), { resource_id: 'whk_1', secret_kind: 'active' });
    const wrong = `${SECRET}_old`;
    const mismatch = await api.verifyWebhookBinding('whk_1', wrong).then(() => null, (e) => e);
    assert.deepEqual([mismatch.code, mismatch.status], ['secret_mismatch', 400]);
    assert.ok(!exposed(mismatch).includes(wrong) && !exposed(mismatch).includes(API_KEY), exposed(mismatch));
    // An answer that is not a JSON object is the service's fault, said so (never null or an array).
    for (const odd of [{ text: '' }, { text: '[1]' }, { text: 'null' }]) {
      script(() => odd);
      const error = await api.verifyWebhookBinding('whk_1', SECRET).then(() => null, (e) => e);
      assert.deepEqual([error?.code, error?.retryable], ['invalid_response', false], odd.text);
      assert.ok(!exposed(error).includes(SECRET));
    }
    // A setup answer that repeats its secret: which one the service gave is unknown, refused.
    script(() => ({ text: `{"resource_id":"whk_5","secret":"whsec_other","secret":"${SECRET}"}` }));
    const twice = await api.bootstrapWebhook('https://shop.example/webhook').then(() => null, (e) => e);
    assert.deepEqual([twice?.code, twice?.retryable], ['invalid_response', false]);
    assert.match(twice.message, /repeats a key/);
    assert.ok(!exposed(twice).includes(SECRET));
    // The URL is checked as the service checks it (a loopback http URL only against a loopback sandbox).
    await assert.rejects(createClient({ baseUrl: 'https://api.example', apiKey: API_KEY }).bootstrapWebhook('http://127.0.0.1/hook'),
      (error) => error instanceof pkg.CryptoPayError && error.code === 'webhook_url_not_https');
    script(() => ({ json: { resource_id: 'whk_2', secret: SECRET } }));
    assert.equal((await api.bootstrapWebhook('http://127.0.0.1:9/hook')).resource_id, 'whk_2');
    // A local development name (Docker's host.docker.internal, a *.test): to a loopback
    // sandbox only; the service needs a registered domain.
    await assert.rejects(createClient({ baseUrl: 'https://api.example', apiKey: API_KEY }).bootstrapWebhook('https://shop.test/hook'),
      (error) => error instanceof pkg.CryptoPayError && error.code === 'webhook_url_not_registered_domain');
    // What the sandbox itself delivers to over http: a Compose service name, a private address.
    for (const local of ['http://host.docker.internal:3000/hook', 'https://shop.test/hook', 'http://receiver:8787/webhook',
      'http://shop_receiver_1:8787/webhook', 'http://192.168.1.20:8787/webhook', 'http://10.0.0.5/webhook', 'http://[fd00::5]:8787/webhook']) {
      script(() => ({ json: { resource_id: 'whk_3', secret: SECRET } }));
      assert.equal((await api.bootstrapWebhook(local)).resource_id, 'whk_3', local);
    }
    for (const [remote, code] of [['http://receiver:8787/webhook', 'webhook_url_not_https'], ['https://receiver/webhook', 'webhook_url_not_registered_domain'],
      ['https://192.168.1.20/webhook', 'webhook_url_ip_literal'], ['http://172.32.0.1/webhook', 'webhook_url_not_https']]) {
      const error = await createClient({ baseUrl: 'https://api.example', apiKey: API_KEY }).bootstrapWebhook(remote).then(() => null, (e) => e);
      assert.ok(error instanceof pkg.CryptoPayError && error.code === code, `${remote}: ${error}`);
    }
    // Not a private address (172.32/16 is public): refused by a loopback sandbox's client too.
    await assert.rejects(api.bootstrapWebhook('http://172.32.0.1/webhook'), (error) => error.code === 'webhook_url_not_https');
    // A local URL is refused as the sandbox refuses it (credentials, a query, a fragment),
    // before anything is sent: a password in it never reaches the service or an error.
    standin.requests.length = 0;
    for (const [local, code] of [['http://user:PWCANARY@127.0.0.1:9/hook', 'webhook_url_credentials'],
      ['http://127.0.0.1:9/hook?token=PWCANARY', 'webhook_url_query'], ['http://shop.test/hook#PWCANARY', 'webhook_url_fragment']]) {
      const error = await api.bootstrapWebhook(local).then(() => null, (e) => e);
      assert.ok(error instanceof pkg.CryptoPayError && error.code === code, `${local}: ${error}`);
      assert.ok(!exposed(error).includes('PWCANARY'));
    }
    assert.equal(standin.requests.length, 0);
    // An error status whose text echoes a setup's secret (or a URL's credentials): masked in the error.
    script(() => ({ status: 500, text: `{"resource_id":"whk_4","secret":"${SECRET}"} upstream http://user:PWCANARY@db.internal/x` }));
    const echoed = await api.bootstrapWebhook('https://shop.example/webhook').then(() => null, (e) => e);
    assert.equal(echoed.code, 'http_500');
    assert.match(echoed.text, /upstream http:\/\/\*\*\*@db\.internal/);
    assert.ok(!exposed(echoed).includes(SECRET) && !exposed(echoed).includes('PWCANARY'), exposed(echoed));
  });

  test('createPayment checks the body with the core before sending, and refuses an answer for another amount; record stores the order in the receiver', async () => {
    script((req) => (req.path === '/v1/store' ? { json: STORE } : { json: { payment_id: 'pay_r', source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' } } }));
    await assert.rejects(api.createPayment({ amount: '1.005' }), (e) => e instanceof pkg.CryptoPayError && e.code === 'amount_too_precise'
      && /^amount_too_precise: 1\.005 has more fractional digits than the store's primary source, fiat USD, allows \(2\): round it/.test(e.message));
    await assert.rejects(api.createPayment({ source_amount: { kind: 'fiat', currency: 'EUR', amount_raw: '100' } }), (e) => e.code === 'source_currency_mismatch');
    await assert.rejects(api.createPayment({ amount: '1.00', checkout_origin: 'https://evil.example' }), (e) => e.code === 'origin_not_permitted');
    await assert.rejects(api.createPayment({ amount: '1.00', source_amount: {} }), (e) => e.code === 'invalid_argument');
    await assert.rejects(api.createPayment({ amount: '1.00', price: 1 }), (e) => e.code === 'invalid_argument');
    // A key in the wrong argument, or misspelt: named, with where it goes (an idempotencyKey
    // among the fields would be a new payment at every retry).
    const misplaced = [
      [[{ amount: '1.00', idempotencyKey: 'k-1' }], /createPayment's idempotencyKey is an option, not a field: give it in the second argument/],
      [[{ amount: '1.00', idempotency_key: 'k-1' }], /createPayment's idempotencyKey is an option/],
      [[{ amount: '1.00', record: {} }], /createPayment's record is an option/],
      [[{ amount: '1.00', orderRef: 'o-1' }], /createPayment was given an unknown field \(fields: order_ref, .*\); did you mean "order_ref"\?/],
      [[{ amount: '1.00' }, { order_ref: 'o-1' }], /createPayment's order_ref is a field of the payment: give it in the first argument/],
      [[{ amount: '1.00' }, { idempotencykey: 'k-1' }], /createPayment's options was given an unknown option \(options: idempotencyKey, record\); did you mean "idempotencyKey"\?/],
    ];
    for (const [args, pattern] of misplaced) {
      await assert.rejects(api.createPayment(...args), (e) => e.code === 'invalid_argument' && pattern.test(e.message) && !e.message.includes('o-1'));
    }
    await assert.rejects(api.createPayment({ amount: '1.00' }, { idempotencyKey: 'has space' }), (e) => e.code === 'idempotency_key_invalid');
    assert.deepEqual(standin.requests.filter((r) => r.method === 'POST'), [], 'nothing sent');
    // A source_amount given with its keys in another order is sent as the same bytes: the same
    // intent, sent again after a crash under its key, is not idempotency_key_reused.
    for (const given of [{ amount_raw: '100', currency: 'USD', kind: 'fiat' }, { kind: 'fiat', currency: 'USD', amount_raw: '100' }]) {
      await api.createPayment({ source_amount: given }, { idempotencyKey: 'same-intent' });
    }
    const sent = standin.requests.filter((r) => r.method === 'POST').map((r) => r.body.toString());
    assert.deepEqual(sent, Array(2).fill('{"source_amount":{"kind":"fiat","currency":"USD","amount_raw":"100"}}'));
    standin.requests.length = 0;
    // The service answers another amount than was sent: refused, naming the payment to cancel.
    const other = await api.createPayment({ amount: '2.00' }).then(() => null, (e) => e);
    assert.deepEqual([other.code, other.paymentId, other.retryable], ['created_payment_mismatch', 'pay_r', false]);
    // record: the receiver stores the order, once.
    script((req) => (req.path === '/v1/store' ? { json: STORE } : { json: { payment_id: 'pay_rec' } }));
    const db = new Database(join(tempDir(), 'client-record.sqlite'));
    const receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log: false }));
    const created = await api.createPayment({ order_ref: 'order-9', amount: '9.99' }, { record: receiver });
    assert.equal(created.payment_id, 'pay_rec');
    assert.deepEqual(db.prepare('SELECT payment_id, order_ref, source_amount, integration FROM cryptopay_orders').all(),
      [{ payment_id: 'pay_rec', order_ref: 'order-9', source_amount: '{"kind":"fiat","currency":"USD","amount_raw":"999"}', integration: null }]);
    // lazyReceiver's receiver only answers deliveries: refused before anything is sent.
    const lazy = rx.lazyReceiver(() => receiver, { log: false });
    await assert.rejects(api.createPayment({ amount: '9.99' }, { record: lazy }),
      (e) => e.code === 'invalid_argument' && /answers deliveries only \(lazyReceiver's\): give the receiver createReceiver made/.test(e.message));
    // A receiver that fails to record: the error says the payment exists, and how to go on.
    const broken = { recordCreated: async () => { throw new Error(`disk full ${API_KEY}`); } };
    const unrecorded = await api.createPayment({ amount: '9.99' }, { record: broken, idempotencyKey: 'k-9' }).then(() => null, (e) => e);
    assert.deepEqual([unrecorded.code, unrecorded.paymentId, unrecorded.idempotencyKey, unrecorded.retryable], ['record_failed', 'pay_rec', 'k-9', true]);
    assert.ok(!unrecorded.message.includes(API_KEY));
    assert.match(unrecorded.message, /disk full.*call createPayment again with the same idempotencyKey/);
    // Refused for the call itself (another order stored for the payment): no retry is offered.
    const another = await api.createPayment({ order_ref: 'order-10', amount: '9.99' }, { record: receiver, idempotencyKey: 'k-10' }).then(() => null, (e) => e);
    assert.deepEqual([another.code, another.retryable], ['record_failed', false]);
    assert.match(another.message, /recorded already, with another order_ref.*a retry fails the same way/);
    assert.doesNotMatch(another.message, /call createPayment again/);
    // A receiver of named integrations, a client that names none or another: refused before the
    // service is asked, so no payment exists that is never recorded.
    standin.requests.length = 0;
    const shops = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log: false, secrets: { 'shop-eu': 'whsec_eu_0123456789', 'shop-us': 'whsec_us_0123456789' } }));
    for (const integration of [undefined, 'shop-asia']) {
      const client = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, ...(integration && { integration }) });
      await assert.rejects(client.createPayment({ order_ref: 'order-11', amount: '9.99' }, { record: shops }), (error) => {
        assert.equal(error.code, 'invalid_argument');
        assert.match(error.message, /^invalid_argument: createPayment's record: recordCreated needs the integration the payment was created under, one of the receiver's: "shop-eu", "shop-us" \(createClient's integration option\); nothing was sent$/);
        return true;
      });
    }
    assert.deepEqual(standin.requests.filter((r) => r.method === 'POST'), [], 'nothing sent');
    const eu = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, integration: 'shop-eu' });
    script((req) => (req.path === '/v1/store' ? { json: STORE } : { json: { payment_id: 'pay_eu' } }));
    await eu.createPayment({ order_ref: 'order-11', amount: '9.99' }, { record: shops });
    assert.deepEqual(db.prepare("SELECT order_ref, integration FROM cryptopay_orders WHERE payment_id = 'pay_eu'").get(), { order_ref: 'order-11', integration: 'shop-eu' });
    // A receiver of one set of secrets, a client that names an integration: likewise.
    const named = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, integration: 'shop-eu' });
    await assert.rejects(named.createPayment({ order_ref: 'order-12', amount: '9.99' }, { record: receiver }),
      (error) => error.code === 'invalid_argument' && /recordCreated was given an integration.*nothing was sent$/.test(error.message));
    // A store's failure may name its database's credentials: masked as the receiver's log masks them.
    for (const text of ['connect postgres://alice:Pw_Canary@db failed', 'auth {"password":"Pw_Canary"}', 'Authorization: Bearer Pw_Canary',
      `store failed:${'\n'.repeat(4049)} postgres://alice:Pw_Canary@db/shop`, 'connect 1.postgres://alice:Pw_Canary@db refused', 'password=ab}Pw_Canary']) {
      const leaky = { recordCreated: async () => { throw Object.assign(new Error(text), { name: 'postgres://bob:Pw_Canary@h' }); } };
      const error = await api.createPayment({ amount: '9.99' }, { record: leaky, idempotencyKey: 'k-9' }).then(() => null, (e) => e);
      assert.equal(error.code, 'record_failed');
      // Nowhere console.error would print: the message, the cause and its name.
      assert.ok(!exposed(error).includes('Canary') && !inspect(error).includes('Canary'), inspect(error));
    }
    db.close();
  });

  test('the options: HTTPS (or loopback http), a key without white space, never echoed; refused where document exists', async () => {
    const refused = (options, pattern) => assert.throws(() => createClient(options), (error) => {
      assert.ok(error instanceof pkg.CryptoPayError, String(error));
      assert.equal(error.code, 'invalid_argument');
      assert.match(error.message, pattern);
      assert.ok(!error.message.includes(API_KEY) && !error.message.includes('sk_pasted'));
      return true;
    });
    refused({ baseUrl: 'http://api.example.com', apiKey: API_KEY }, /https/);
    refused({ baseUrl: `https://user:${API_KEY}@api.example.com`, apiKey: API_KEY }, /credentials/);
    refused({ baseUrl: `https://api.example.com/?key=${API_KEY}`, apiKey: API_KEY }, /query/);
    refused({ baseUrl: 'https://api.example.com/?', apiKey: API_KEY }, /query/); // an empty query is still one
    refused({ baseUrl: 'https://api.example.com/#', apiKey: API_KEY }, /query or a fragment/);
    refused({ baseUrl: undefined, apiKey: API_KEY }, /is the environment variable set/);
    refused({ baseUrl: 'https://api.example.com', apiKey: undefined }, /is the environment variable set/);
    refused({ baseUrl: 'https://api.example.com', apiKey: `${API_KEY}\n` }, /white space/);
    // The key as an Authorization header's value, or kept in its env file's quotes.
    refused({ baseUrl: 'https://api.example.com', apiKey: `Bearer ${API_KEY}` }, /starts with "Bearer ": give the key itself/);
    for (const quoted of [`"${API_KEY}"`, `'${API_KEY}'`]) refused({ baseUrl: 'https://api.example.com', apiKey: quoted }, /wrapped in quotes/);
    // The API reference's server address with its version: every path would be /v1/v1/...
    for (const baseUrl of ['https://api.example.com/v1', 'https://api.example.com/v1/', 'https://gw.example.com/pay/v1']) {
      refused({ baseUrl, apiKey: API_KEY }, /baseUrl ends in \/v1: give the service's base address without it/);
    }
    createClient({ baseUrl: 'https://gw.example.com/pay', apiKey: API_KEY }); // a gateway's path prefix
    refused({ baseUrl: 'https://api.example.com', apiKey: API_KEY, sk_pasted: 1 }, /unknown option/);
    refused({ baseUrl: 'https://api.example.com', apiKey: API_KEY, retries: 11 }, /retries is an integer from 0 to 10/);
    createClient({ baseUrl: 'http://localhost:4010', apiKey: API_KEY });
    // A sandbox in a container beside the tests: names no network resolves to another machine.
    createClient({ baseUrl: 'http://host.docker.internal:4010', apiKey: API_KEY });
    createClient({ baseUrl: 'http://sandbox.test:4010', apiKey: API_KEY });
    createClient({ baseUrl: 'http://sandbox.localhost:4010', apiKey: API_KEY });
    // Names and addresses of other machines: a live key would cross the network in the clear.
    for (const baseUrl of ['http://sandbox:4010', 'http://10.0.0.5:4010', 'http://pay-proxy.c.shop-prod.internal', 'http://printer.local',
      'http://router.home.arpa', 'http://test.example.com', 'http://test:4010', 'http://localhost.example.com']) {
      refused({ baseUrl, apiKey: API_KEY }, /http:\/\/ only to a local sandbox: a loopback host, host\.docker\.internal, or a name under \.test or \.localhost/);
    }
    globalThis.document = {};
    try {
      refused({ baseUrl: 'https://api.example.com', apiKey: API_KEY }, /`document` exists.*never be in browser code/);
    } finally {
      delete globalThis.document;
    }
    // The CommonJS build is the same client, and instanceof holds for an error of either copy.
    assert.equal(typeof clientCjs.createClient, 'function');
    assert.equal(clientCjs.CryptoPayApiError.name, 'CryptoPayApiError');
    assert.notEqual(clientCjs.CryptoPayApiError, client.CryptoPayApiError);
    const failing = { baseUrl: 'http://127.0.0.1:9', apiKey: API_KEY, retries: 0, fetch: () => Promise.reject(new TypeError('fetch failed')) };
    const errors = [];
    for (const copy of [client, clientCjs]) errors.push(await copy.createClient(failing).getPayment('pay_1').then(() => null, (e) => e));
    for (const error of errors) {
      assert.equal(error.code, 'network_error');
      assert.ok(error instanceof client.CryptoPayApiError && error instanceof clientCjs.CryptoPayApiError && error instanceof Error);
      assert.ok(!(error instanceof pkg.CryptoPayError), 'an API error is not a CryptoPayError');
    }
    for (const other of [new Error('x'), { code: 'network_error', retryable: true }, null]) {
      assert.ok(!(other instanceof client.CryptoPayApiError) && !(other instanceof clientCjs.CryptoPayApiError));
    }
    // Deno's fetch error: its cause has a message and no code; the message says why.
    const deno = { ...failing, fetch: () => Promise.reject(new TypeError('fetch failed', { cause: new Error('tcp connect error: Connection refused (os error 111)') })) };
    const refusedConnect = await createClient(deno).getPayment('pay_1').then(() => null, (e) => e);
    assert.match(refusedConnect.message, /^network_error: the request to the service failed \(GET http:\/\/127\.0\.0\.1:9\/v1\/payments\/pay_1: tcp connect error: Connection refused .*\): nothing accepts connections there: check baseUrl/);
    // Another failure names where it was sent, without the advice for a refused connection.
    const other = await createClient(failing).getPayment('pay_1').then(() => null, (e) => e);
    assert.match(other.message, /^network_error: the request to the service failed \(GET http:\/\/127\.0\.0\.1:9\/v1\/payments\/pay_1: fetch failed\)$/);
    // A fetch of your own (through a proxy) whose failure names the proxy's credentials: masked.
    for (const said of ['connect to http://shopuser:Pw_Canary@proxy.corp:3128 failed', 'proxy refused: Proxy-Authorization: Basic Pw_Canary']) {
      const proxied = { ...failing, fetch: () => Promise.reject(new TypeError('fetch failed', { cause: new Error(said) })) };
      const error = await createClient(proxied).getPayment('pay_1').then(() => null, (e) => e);
      assert.equal(error.code, 'network_error');
      assert.ok(!exposed(error).includes('Pw_Canary'), exposed(error));
      assert.match(error.message, /proxy/);
    }
    // A subclass of it keeps the ordinary test: the package's error is not an instance of yours.
    class MyApiError extends client.CryptoPayApiError {}
    assert.ok(!(errors[0] instanceof MyApiError));
    assert.ok(new MyApiError({ status: 0, code: 'x', message: 'x', retryable: false }) instanceof MyApiError);
    assert.ok(new MyApiError({ status: 0, code: 'x', message: 'x', retryable: false }) instanceof clientCjs.CryptoPayApiError);
  });

  test('a creation whose 2xx answer cannot be read carries its key and is retryable: sent again under it, never under a new one', async () => {
    script((req) => (req.path === '/v1/store' ? { json: STORE } : { status: 200, text: '<html>a proxy page</html>' }));
    const unreadable = await api.createPayment({ amount: '1.00' }, { idempotencyKey: 'intent-7' }).then(() => null, (e) => e);
    assert.deepEqual([unreadable.code, unreadable.retryable, unreadable.idempotencyKey], ['invalid_response', true, 'intent-7']);
    assert.match(unreadable.message, /same idempotencyKey/);
    script((req) => (req.path === '/v1/store' ? { json: STORE } : { json: { note: 'no id' } }));
    const noId = await api.createPayment({ amount: '1.00' }, { idempotencyKey: 'intent-8' }).then(() => null, (e) => e);
    assert.deepEqual([noId.code, noId.retryable, noId.idempotencyKey], ['invalid_response', true, 'intent-8']);
    // A webhook setup's unreadable 2xx: its secret (given once) may be lost with it.
    script(() => ({ status: 200, text: '<html>a proxy page</html>' }));
    const setup = await api.bootstrapWebhook('https://shop.example/webhook', { idempotencyKey: 'setup-9' }).then(() => null, (e) => e);
    assert.deepEqual([setup.code, setup.idempotencyKey], ['invalid_response', 'setup-9']);
    assert.match(setup.message, /same idempotencyKey.*rotate the secret in the dashboard/);
  });

  test('the creation\'s answer as a payment view: status_version exact, never rounded; a null source_amount member is as absent', async () => {
    // The member a kind does not use, written null by the service: the payment sent, not another.
    script((req) => (req.path === '/v1/store' ? { json: STORE } : {
      text: '{"payment_id":"pay_n","order_ref":null,"source_amount":{"kind":"fiat","currency":"USD","pricing_ref":null,"amount_raw":"12800"},'
        + '"status":"open","status_version":9007199254740993}',
    }));
    const created = await api.createPayment({ amount: '128.00' });
    assert.equal(created.payment_id, 'pay_n');
    assert.equal(created.status_version, '9007199254740993');
    assert.deepEqual(created.source_amount, { kind: 'fiat', currency: 'USD', amount_raw: '12800' });
    // Not a view (no status): a version a double holds as a string, one it cannot left out.
    for (const [version, expected] of [['7', '7'], ['9007199254740993', undefined]]) {
      script((req) => (req.path === '/v1/store' ? { json: STORE } : { text: `{"payment_id":"pay_v","status_version":${version}}` }));
      assert.equal((await api.createPayment({ amount: '1.00' })).status_version, expected);
    }
    // Another amount, null or not, is still refused.
    script((req) => (req.path === '/v1/store' ? { json: STORE } : { json: { payment_id: 'pay_x', source_amount: { kind: 'fiat', currency: 'USD', pricing_ref: null, amount_raw: '12801' } } }));
    await assert.rejects(api.createPayment({ amount: '128.00' }), (e) => e.code === 'created_payment_mismatch');
    // An answer that is no whole view and repeats a key (another amount hidden before the one
    // sent) is refused, retryable under the same key, never taken at its last value.
    script((req) => (req.path === '/v1/store' ? { json: STORE } : {
      text: '{"payment_id":"pay_d","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"99","amount_raw":"12800"}}',
    }));
    await assert.rejects(api.createPayment({ amount: '128.00' }, { idempotencyKey: 'create-d' }),
      (e) => e.code === 'invalid_response' && e.retryable === true && e.idempotencyKey === 'create-d' && /repeats a key/.test(e.message));
  });

  test('an attempt that got no answer, then a refusal: the refusal says the payment may exist and stays retryable under the same key', async () => {
    script((req, n) => {
      if (req.path === '/v1/store') return { json: STORE };
      return n === 1 ? { drop: true } : errorResponse(409, 'idempotency_key_in_use', 'a request with this key is in progress');
    });
    const error = await api.createPayment({ amount: '1.00' }, { idempotencyKey: 'intent-9' }).then(() => null, (e) => e);
    assert.deepEqual([error.code, error.status, error.retryable, error.idempotencyKey], ['idempotency_key_in_use', 409, true, 'intent-9']);
    assert.match(error.message, /may have succeeded: send the same request again with the same idempotencyKey/);
    // Another refusal after an unanswered attempt (a key revoked meanwhile) stays final: only
    // fixing it helps. The message still says the payment may exist, to keep the key.
    script((req, n) => {
      if (req.path === '/v1/store') return { json: STORE };
      return n === 1 ? { drop: true } : errorResponse(401, 'unauthorized', 'the key was revoked');
    });
    const revoked = await api.createPayment({ amount: '1.00' }, { idempotencyKey: 'intent-11' }).then(() => null, (e) => e);
    assert.deepEqual([revoked.code, revoked.status, revoked.retryable, revoked.idempotencyKey], ['unauthorized', 401, false, 'intent-11']);
    assert.match(revoked.message, /may have succeeded: once this is fixed, send the same request with the same idempotencyKey, never a new one$/);
    // Without an earlier unanswered attempt, a 409 is final as before.
    script((req) => (req.path === '/v1/store' ? { json: STORE } : errorResponse(409, 'idempotency_key_reused', 'another body')));
    const reused = await api.createPayment({ amount: '1.00' }, { idempotencyKey: 'intent-10' }).then(() => null, (e) => e);
    assert.deepEqual([reused.code, reused.retryable], ['idempotency_key_reused', false]);
  });

  test('GET /v1/store is read again when the kept one refuses a creation (a pricing source changed in the dashboard)', async () => {
    const eur = { primary_source: { kind: 'fiat', ref: 'EUR', decimals: 2 }, website_origin: 'https://shop.example' };
    let current = STORE;
    script((req) => (req.path === '/v1/store' ? { json: current } : { json: { payment_id: 'pay_s' } }));
    const fresh = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, timeoutMs: 400, retries: 0 });
    await fresh.createPayment({ source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' } });
    current = eur; // changed in the dashboard
    const created = await fresh.createPayment({ source_amount: { kind: 'fiat', currency: 'EUR', amount_raw: '100' } });
    assert.equal(created.payment_id, 'pay_s');
    assert.deepEqual(standin.requests.map((r) => `${r.method} ${r.path}`),
      ['GET /v1/store', 'POST /v1/payments', 'GET /v1/store', 'POST /v1/payments']);
    // Refused by the store read again too: the error, no creation.
    const before = standin.requests.length;
    await assert.rejects(fresh.createPayment({ source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' } }),
      (e) => e.code === 'source_currency_mismatch');
    assert.deepEqual(standin.requests.slice(before).map((r) => r.path), ['/v1/store']);
  });

  test('the store view getStore gives is the caller\'s: changing it never reaches the pricing of a later creation', async () => {
    script((req) => (req.path === '/v1/store' ? { json: STORE } : { json: { payment_id: 'pay_m' } }));
    const fresh = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, timeoutMs: 400, retries: 0 });
    const shown = await fresh.getStore();
    shown.primary_source.decimals = 0; // for display in whole dollars
    await fresh.createPayment({ order_ref: 'o', amount: '128', currency: 'USD' });
    const sent = JSON.parse(standin.requests.find((r) => r.path === '/v1/payments').body);
    assert.equal(sent.source_amount.amount_raw, '12800', 'priced with the store\'s 2 decimals, from the client\'s own copy');
    assert.deepEqual(standin.requests.map((r) => `${r.method} ${r.path}`), ['GET /v1/store', 'POST /v1/payments']);
  });

  test('an amount named in its currency is never priced in another: refused before sending when the store\'s source changed', async () => {
    const jpy = { primary_source: { kind: 'fiat', ref: 'JPY', decimals: 0 }, website_origin: 'https://shop.example' };
    const btc = { primary_source: { kind: 'crypto', ref: 'BTC', decimals: 8 }, website_origin: 'https://shop.example' };
    let current = STORE;
    script((req) => (req.path === '/v1/store' ? { json: current } : { json: { payment_id: 'pay_p' } }));
    const fresh = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, timeoutMs: 400, retries: 0 });
    const usd = await fresh.createPayment({ amount: '128.00', currency: 'USD' });
    assert.deepEqual(usd.source_amount, { kind: 'fiat', currency: 'USD', amount_raw: '12800' });
    current = jpy; // changed in the dashboard: the kept store still says USD, the service refuses
    script((req) => {
      if (req.path === '/v1/store') return { json: current };
      const sent = JSON.parse(req.body).source_amount;
      return (sent.currency ?? sent.pricing_ref) === current.primary_source.ref
        ? { json: { payment_id: 'pay_p' } } : errorResponse(400, 'source_currency_mismatch', 'not the store\'s currency');
    });
    await assert.rejects(fresh.createPayment({ amount: '128.00', currency: 'USD' }), (e) => e.code === 'source_currency_mismatch');
    // Sent again, the store read afresh: refused here, nothing sent (without currency: 128 yen).
    let before = standin.requests.length;
    await assert.rejects(fresh.createPayment({ amount: '128.00', currency: 'USD' }),
      (e) => e instanceof pkg.CryptoPayError && e.code === 'source_currency_mismatch' && /fiat JPY, not the USD/.test(e.message));
    assert.deepEqual(standin.requests.slice(before).map((r) => r.method), ['GET']);
    // The same currency in another letter case: said so, with the store's spelling.
    current = STORE;
    await fresh.getStore();
    await assert.rejects(fresh.createPayment({ amount: '128.00', currency: 'usd' }),
      (e) => e.code === 'source_currency_mismatch' && /currency is compared exactly, letter case included: .*, USD; nothing was sent/.test(e.message));
    current = jpy;
    await fresh.getStore(); // the kept store JPY again, as before this check
    current = btc;
    before = standin.requests.length;
    await assert.rejects(fresh.createPayment({ amount: '128.00', currency: 'USD' }), (e) => e.code === 'source_kind_mismatch');
    await assert.rejects(fresh.createPayment({ amount: '0.001', pricing_ref: 'ETH' }), (e) => e.code === 'source_pricing_ref_mismatch');
    assert.deepEqual((await fresh.createPayment({ amount: '0.001', pricing_ref: 'BTC' })).source_amount, { kind: 'crypto', pricing_ref: 'BTC', amount_raw: '100000' });
    assert.ok(standin.requests.slice(before).filter((r) => r.method === 'POST').length === 1, 'only the matching creation was sent');
    // Named wrongly: refused before any request.
    before = standin.requests.length;
    for (const input of [{ amount: '1', currency: '' }, { amount: '1', currency: 'USD', pricing_ref: 'BTC' },
      { source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '1' }, currency: 'USD' }, { amount: '1', currency: 840 }]) {
      await assert.rejects(fresh.createPayment(input), (e) => e.code === 'invalid_argument');
    }
    assert.equal(standin.requests.length, before);
  });

  test('an answer is read to 1 MiB at most; a fetch that ignores its signal still times out; a key echoed escaped is masked', async () => {
    // A 2xx over 1 MiB: refused, not buffered whole.
    script(() => ({ status: 200, text: `{"payment_id":"pay_big","pad":"${'x'.repeat(2 * 1024 * 1024)}"}` }));
    const big = await api.getPayment('pay_big').then(() => null, (e) => e);
    // A GET is safe to send again: retried, and retryable when every answer was too large.
    assert.deepEqual([big.code, big.retryable, standin.requests.length], ['invalid_response', true, 3]);
    assert.match(big.message, /over 1048576 bytes/);
    // A 502 page over 1 MiB: still a retryable 502, its text cut.
    script(() => ({ status: 502, text: 'y'.repeat(2 * 1024 * 1024) }));
    const page = await api.getPayment('pay_1').then(() => null, (e) => e);
    assert.deepEqual([page.code, page.retryable, page.text.length], ['http_502', true, 2000]);
    // Only its start is masked, with what masking it whole gives: the key echoed across the
    // 2000th character, far beyond it, and just past what is read of it to mask.
    const at = (spots) => {
      let text = 'y'.repeat(1024 * 1024);
      for (const spot of spots) text = text.slice(0, spot) + API_KEY + text.slice(spot + API_KEY.length);
      return text;
    };
    // And echoed 300 times from the start: masked, they leave the kept part to come from further on.
    const repeated = Array.from({ length: 300 }, (_, n) => n * API_KEY.length);
    for (const spots of [[1995], [0, 1990], [1000, 2000 + 9 * API_KEY.length + 8], [2100, 500_000], repeated, [...repeated, 6020]]) {
      const text = at(spots);
      script(() => ({ status: 502, text }));
      const echoed = await api.getPayment('pay_1').then(() => null, (e) => e);
      assert.equal(echoed.text, text.split(API_KEY).join('***').slice(0, 2000), String(spots));
    }
    // A URL's credentials across the 2000th character are masked whole, not cut to a part; an
    // indented page keeps 2000 characters once its white space is collapsed.
    for (const [text, check] of [
      [`${'y'.repeat(1981)} https://admin:hunter2pw@db.example/x ${'y'.repeat(8000)}`, (kept) => kept.length === 2000 && kept.includes(' https://***@db') && !/admin|hunter/.test(kept)],
      [`<html>${'<div>                                        </div>\n'.repeat(4000)}`, (kept) => kept.length === 2000 && !/\s\s/.test(kept)],
    ]) {
      script(() => ({ status: 502, text }));
      const page = await api.getPayment('pay_1').then(() => null, (e) => e);
      assert.ok(check(page.text), page.text.slice(-60));
    }
    // A fetch wrapper that drops the signal: the client's own deadline ends the attempt.
    const deaf = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, timeoutMs: 200, retries: 0, fetch: () => new Promise(() => {}) });
    const timedOut = await deaf.getPayment('pay_1').then(() => null, (e) => e);
    assert.deepEqual([timedOut.code, timedOut.status, timedOut.retryable], ['timeout', 0, true]);
    // One that answers after the deadline, its body streaming: the body is cancelled, not read
    // for nobody.
    let pulls = 0;
    let cancelled = false;
    const late = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, timeoutMs: 100, retries: 0, fetch: async () => {
      await new Promise((resolve) => { setTimeout(resolve, 300); });
      return new Response(new ReadableStream({
        pull: async (controller) => {
          pulls += 1;
          controller.enqueue(new TextEncoder().encode('{"pad":"'));
          await new Promise((resolve) => { setTimeout(resolve, 50); });
        },
        cancel: () => { cancelled = true; },
      }), { status: 200 });
    } });
    assert.equal((await late.getPayment('pay_1').then(() => null, (e) => e)).code, 'timeout');
    await new Promise((resolve) => { setTimeout(resolve, 700); });
    assert.ok(cancelled, 'the late answer\'s body cancelled');
    assert.ok(pulls <= 1, `the late answer's body read ${pulls} times`);
    // An ErrorResponse whose code echoes the key: not taken as the code, never shown.
    script(() => ({ status: 401, text: JSON.stringify({ error: { code: API_KEY, message: 'bad' } }) }));
    const echoed = await api.getPayment('pay_1').then(() => null, (e) => e);
    assert.equal(echoed.code, 'http_401');
    assert.ok(!exposed(echoed).includes('canary'), exposed(echoed));
    // A key with a slash and a quote, echoed JSON-escaped, with \/ and URL-encoded.
    const odd = 'sk_canary/"q"_9d';
    const echoing = createClient({ baseUrl: standin.baseUrl, apiKey: odd, timeoutMs: 400, retries: 0 });
    for (const echo of [JSON.stringify(odd), JSON.stringify(odd).replaceAll('/', '\\/'), encodeURIComponent(odd)]) {
      script(() => ({ status: 401, text: `{"detail":"bad key ${echo}"}` }));
      const error = await echoing.getPayment('pay_1').then(() => null, (e) => e);
      assert.ok(!exposed(error).includes('canary'), exposed(error));
    }
  });

  test('an error keeps what the service said: the ErrorResponse\'s text, its request id; an answer whose body broke off is no answer', async () => {
    script(() => ({ ...errorResponse(404, 'payment_not_found', 'no such payment'), headers: { 'x-request-id': 'req_9f2c' } }));
    const missing = await api.getPayment('pay_x').then(() => null, (e) => e);
    assert.deepEqual([missing.code, missing.requestId, JSON.parse(missing.text).error.message], ['payment_not_found', 'req_9f2c', 'no such payment']);
    // A header that is no short token is not taken as an id.
    script(() => ({ ...errorResponse(404, 'payment_not_found'), headers: { 'request-id': 'x'.repeat(129) } }));
    assert.equal((await api.getPayment('pay_x').then(() => null, (e) => e)).requestId, undefined);
    // A 404 whose body stops half way: no whole answer, a network error retried (status 0),
    // never taken as the 404 it began as.
    script(() => ({ ...errorResponse(404, 'payment_not_found', 'z'.repeat(64 * 1024)), cutBody: true }));
    const broken = await api.getPayment('pay_1').then(() => null, (e) => e);
    assert.deepEqual([broken.code, broken.status, broken.retryable, standin.requests.length], ['network_error', 0, true, 3]);
  });

  test('a store view whose primary_source cannot price is the service\'s invalid_response, not the caller\'s argument; nothing is sent', async () => {
    for (const decimals of ['2', 2.5, undefined]) {
      script((req) => (req.path === '/v1/store' ? { json: { primary_source: { kind: 'fiat', ref: 'USD', decimals } } } : { json: { payment_id: 'pay_s' } }));
      const fresh = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, timeoutMs: 400, retries: 0 });
      const error = await fresh.createPayment({ amount: '1.00' }).then(() => null, (e) => e);
      assert.ok(error instanceof CryptoPayApiError, String(error));
      assert.deepEqual([error.code, error.status, error.retryable], ['invalid_response', 200, false]);
      assert.match(error.message, /GET \/v1\/store's primary_source cannot price an amount \(store_source_invalid: .*nothing was sent/);
      assert.deepEqual(standin.requests.map((r) => r.path), ['/v1/store']);
    }
  });

  test('a 503\'s Retry-After, in seconds or as a date, is waited before the retry', async () => {
    // An HTTP date has whole seconds: three seconds ahead of the answer is at least two.
    for (const [after, least] of [[() => '1', 900], [() => new Date(Date.now() + 3000).toUTCString(), 1500]]) {
      script((req, n) => (n === 1 ? { status: 503, text: 'busy', headers: { 'retry-after': after() } } : { text: view() }));
      const started = Date.now();
      await api.getPayment('pay_1');
      const waited = standin.requests[1].at - standin.requests[0].at;
      assert.ok(waited >= least, `retried after ${waited} ms (at least ${least} expected)`);
      assert.ok(Date.now() - started < 8000);
    }
  });

  test('a Retry-After over 30 s ends the retries at once and is kept on the error; a shorter one is waited', async () => {
    const patient = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, timeoutMs: 400, retries: 5 });
    for (const status of [429, 503]) {
      script(() => ({ status, text: 'slow down', headers: { 'retry-after': '120' } }));
      const started = Date.now();
      const error = await patient.getPayment('pay_1').then(() => null, (e) => e);
      assert.equal(standin.requests.length, 1, 'not sent again sooner than asked');
      assert.deepEqual([error.status, error.retryable, error.retryAfterMs], [status, true, 120_000]);
      assert.match(error.message, /asks to wait 120 s/);
      assert.ok(Date.now() - started < 2000);
      standin.requests.length = 0;
    }
    script((req, n) => (n === 1 ? { status: 429, text: 'slow down', headers: { 'retry-after': '1' } } : { text: view() }));
    assert.equal((await patient.getPayment('pay_1')).payment_id, 'pay_1');
    assert.equal(standin.requests.length, 2);
    // Any retryable status's Retry-After is kept; a date years ahead says a day at most (a
    // timer holds it: setTimeout fires at once past 2^31 - 1 ms).
    standin.requests.length = 0;
    for (const [status, header, expected] of [[502, '90', 90_000], [504, 'Wed, 21 Oct 2099 07:28:00 GMT', 86_400_000]]) {
      script(() => ({ status, text: 'wait', headers: { 'retry-after': header } }));
      const error = await patient.getPayment('pay_1').then(() => null, (e) => e);
      assert.deepEqual([error.status, error.retryable, error.retryAfterMs, standin.requests.length], [status, true, expected, 1]);
    }
  });

  test('what a merchant\'s code passes as it is (an ObjectId order_ref, a getter) is sent, checked and compared as one JSON text', async () => {
    // A database id with toJSON, as Mongo's ObjectId: sent as its string, and the answer that
    // echoes it is the payment created, not created_payment_mismatch.
    class ObjectId { constructor(hex) { this.hex = hex; } toJSON() { return this.hex; } }
    script((req) => (req.path === '/v1/store' ? { json: STORE }
      : { json: { payment_id: 'pay_oid', order_ref: JSON.parse(req.body.toString()).order_ref, source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' } } }));
    const fresh = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, timeoutMs: 400, retries: 0 });
    const created = await fresh.createPayment({ order_ref: new ObjectId('65a1f0c2'), amount: '1.00' });
    assert.deepEqual([created.payment_id, created.order_ref], ['pay_oid', '65a1f0c2']);
    assert.equal(standin.requests.at(-1).body.toString(), '{"order_ref":"65a1f0c2","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"100"}}');
    // What JSON cannot write is refused before anything is sent.
    standin.requests.length = 0;
    await assert.rejects(fresh.createPayment({ order_ref: 1n, amount: '1.00' }), (e) => e.code === 'invalid_argument' && /never a BigInt/.test(e.message));
    // A value whose JSON is nothing would be left out of the body: refused, never sent without it.
    for (const key of ['order_ref', 'checkout_origin']) {
      await assert.rejects(fresh.createPayment({ [key]: { toJSON: () => undefined }, amount: '1.00' }),
        (e) => e.code === 'invalid_argument' && new RegExp(`${key} writes as no JSON value`).test(e.message), key);
    }
    assert.equal(standin.requests.filter((r) => r.method === 'POST').length, 0);
    // A field whose getter answers otherwise the second time is read once.
    let reads = 0;
    const flipping = { amount: '1.00', get currency() { reads += 1; return reads === 1 ? 'USD' : 42; } };
    await fresh.createPayment(flipping);
    assert.equal(reads, 1);
    assert.deepEqual(standin.requests.filter((r) => r.method === 'POST').length, 1);
  });

  test('a store website_origin in another form than an https origin is left to the service, not refused here', async () => {
    for (const website of ['shop.example', 'https://shop.example/']) {
      script((req) => (req.path === '/v1/store' ? { json: { ...STORE, website_origin: website } }
        : { json: { payment_id: 'pay_w', checkout_origin: 'https://shop.example' } }));
      const fresh = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, timeoutMs: 400, retries: 0 });
      const created = await fresh.createPayment({ amount: '1.00', checkout_origin: 'https://shop.example' });
      assert.equal(created.payment_id, 'pay_w', website);
    }
    // One that is an origin is still checked here: nothing sent for another origin.
    script((req) => (req.path === '/v1/store' ? { json: STORE } : { json: { payment_id: 'pay_x' } }));
    const fresh = createClient({ baseUrl: standin.baseUrl, apiKey: API_KEY, timeoutMs: 400, retries: 0 });
    await assert.rejects(fresh.createPayment({ amount: '1.00', checkout_origin: 'https://evil.example' }), (e) => e.code === 'origin_not_permitted');
    assert.equal(standin.requests.filter((r) => r.method === 'POST').length, 0);
  });

  test('answers in other shapes: a proxy\'s 200 page is retryable, an upper-case error code kept, a status_version no version is dropped', async () => {
    for (const text of ['<html>502 from the proxy</html>', '']) {
      script(() => ({ status: 200, text }));
      const page = await api.getPayment('pay_1').then(() => null, (e) => e);
      // Retryable: the caller's to ask again (as a creation's unreadable answer is).
      assert.deepEqual([page.code, page.retryable, standin.requests.length], ['invalid_response', true, 1], JSON.stringify(text));
    }
    for (const text of ['<html>', '', '  \n']) {
      script(() => ({ status: 200, text }));
      const store = await api.getStore().then(() => null, (e) => e);
      assert.deepEqual([store.code, store.retryable], ['invalid_response', true], JSON.stringify(text));
    }
    // A store view that repeats a key is what the service said, ambiguous: not retryable.
    script(() => ({ status: 200, text: '{"primary_source":{"kind":"fiat","ref":"USD","decimals":2},"primary_source":{"kind":"fiat","ref":"EUR","decimals":2}}' }));
    const repeated = await api.getStore().then(() => null, (e) => e);
    assert.deepEqual([repeated.code, repeated.retryable], ['invalid_response', false]);
    script(() => ({ status: 409, json: { error: { code: 'PAYMENT_NOT_CANCELLABLE', message: 'the payment is paid' } } }));
    const refused = await api.cancelPayment('pay_1').then(() => null, (e) => e);
    assert.deepEqual([refused.code, refused.retryable], ['PAYMENT_NOT_CANCELLABLE', false]);
    assert.match(refused.message, /the payment is paid/);
    for (const [version, kept] of [[true, undefined], [2.5, undefined], ['02', undefined], [-1, undefined], [7, '7'], ['8', '8']]) {
      script(() => ({ json: { payment_id: 'pay_1', status: 'cancelled', status_version: version } }));
      const answer = await api.cancelPayment('pay_1');
      assert.equal(answer.status_version, kept, JSON.stringify(version));
    }
  });

  test('an id of . or .. (it would leave the path) or with a lone surrogate is refused before any request', async () => {
    script(() => ({ json: {} }));
    for (const id of ['.', '..', 'pay_\uD800', '\uDC00']) {
      await assert.rejects(api.getPayment(id), (e) => e.code === 'invalid_argument');
      await assert.rejects(api.cancelPayment(id), (e) => e.code === 'invalid_argument');
      await assert.rejects(api.disableConsumerAccess(id), (e) => e.code === 'invalid_argument');
      await assert.rejects(api.verifyWebhookBinding(id, 'whsec_x'), (e) => e.code === 'invalid_argument');
    }
    assert.equal(standin.requests.length, 0);
    // A character outside the BMP is a pair, not a lone surrogate: sent, encoded (the stand-in's
    // empty answer is then refused as a view).
    await api.getPayment('pay_\u{1F600}').catch(() => {});
    assert.equal(standin.requests.length, 1);
    assert.equal(standin.requests[0].path, `/v1/payments/${encodeURIComponent('pay_\u{1F600}')}`);
  });
});
