// cryptopay-verify/client against the sandbox (not a stand-in): a creation whose answer was lost
// (a loopback TCP proxy cuts the first connection once the request reached the sandbox) is sent
// again with the same Idempotency-Key and the same body bytes, and the sandbox holds one payment;
// the service's refusals as CryptoPayApiError (idempotency_key_reused, insufficient_scope with a
// restricted key from POST /sandbox/keys, payment_not_cancellable, webhook_exists); a repeated
// webhook setup without a secret; verifyWebhookBinding's secret_kind through a rotation, and
// deliveries verified by a receiver with the matching secret set. No key or secret in any error
// or log line.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Database, rx, receiverOptions, tempDir } from '../receiver/lib/helpers.mjs';
import {
  CryptoPayApiError, canaries, createClient, droppingProxy, serveReceiver, settled, startSandbox,
} from './lib/sandbox.mjs';

/**
 * The HTTP requests a client sent on one of the proxy's connections, each with `seq`, the
 * order in which it began among every connection's: [{ line, headers, body, seq }].
 */
function requestsIn({ sent, marks }) {
  const out = [];
  let at = 0;
  while (at < sent.length) {
    const end = sent.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const [line, ...fields] = sent.subarray(at, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    const { seq } = marks.findLast((m) => m.offset <= at);
    out.push({ line, headers, body: sent.subarray(end + 4, end + 4 + length), seq });
    at = end + 4 + length;
  }
  return out;
}

/** The error a promise rejects with (kept for the canaries), or a failure if it resolves. */
async function refusal(promise, watch) {
  const error = await promise.then(() => null, (e) => e);
  assert.ok(error instanceof CryptoPayApiError, `expected a CryptoPayApiError, got ${error}`);
  return watch.keep(error);
}

describe('the client against the sandbox', () => {
  const watch = canaries();
  const secrets = [];
  let sandbox;
  let api;
  let file;
  before(async () => {
    file = join(tempDir(), 'sandbox.sqlite');
    sandbox = await startSandbox({ port: 0, data: file, retryDelaysMs: [20, 40], log: watch.sandboxLog });
    api = createClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, timeoutMs: 5000, retries: 2 });
    secrets.push(sandbox.apiKey);
  });
  after(async () => {
    await sandbox?.close();
    watch.check(...secrets);
  });

  test('a creation whose answer was lost is sent again with the same Idempotency-Key and body bytes: the sandbox holds one payment', async () => {
    const proxy = await droppingProxy(sandbox.baseUrl, /(^|\r\n)POST \/v1\/payments HTTP/);
    try {
      const through = createClient({ baseUrl: proxy.url, apiKey: sandbox.apiKey, timeoutMs: 5000, retries: 2 });
      const created = await through.createPayment({ order_ref: 'answer lost', amount: '12.34' });
      const posts = proxy.connections.flatMap((c) => requestsIn(c).map((r) => ({ ...r, dropped: c.dropped, received: c.received })))
        .filter((r) => r.line.startsWith('POST /v1/payments ')).sort((a, b) => a.seq - b.seq);
      assert.equal(posts.length, 2, 'sent twice');
      assert.deepEqual(posts.map((p) => p.dropped), [true, false], 'the first connection was cut');
      assert.equal(posts[0].headers['idempotency-key'], posts[1].headers['idempotency-key'], 'the same Idempotency-Key');
      assert.ok(posts[0].body.equals(posts[1].body), 'the same body bytes');
      assert.equal(posts[0].body.toString(), '{"order_ref":"answer lost","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"1234"}}');
      // The sandbox did create it the first time (its answer, cut on the way, names the same payment) ...
      const lost = posts[0].received.toString('latin1');
      assert.match(lost, /^HTTP\/1\.1 200 /);
      assert.ok(lost.includes(`"payment_id": "${created.payment_id}"`), 'the lost answer named the same payment');
      // ... and holds one payment: the retry was answered as a replay.
      const db = new Database(file, { readonly: true });
      try {
        const rows = db.prepare("SELECT id FROM sandbox_records WHERE kind = 'payment'").all();
        assert.deepEqual(rows.map((r) => r.id), [created.payment_id]);
      } finally {
        db.close();
      }
      assert.equal(watch.lines.filter((l) => /^sandbox POST \/v1\/payments 200/.test(l)).length, 2);
    } finally {
      await proxy.close();
    }
  });

  test('the same Idempotency-Key with another body is idempotency_key_reused (409, not retried); with the same body, the same payment', async () => {
    const first = await api.createPayment({ order_ref: 'k', amount: '1.00' }, { idempotencyKey: 'create-k-1' });
    const again = await api.createPayment({ order_ref: 'k', amount: '1.00' }, { idempotencyKey: 'create-k-1' });
    assert.equal(again.payment_id, first.payment_id);
    const reused = await refusal(api.createPayment({ order_ref: 'k', amount: '2.00' }, { idempotencyKey: 'create-k-1' }), watch);
    assert.deepEqual([reused.code, reused.status, reused.retryable, reused.idempotencyKey], ['idempotency_key_reused', 409, false, 'create-k-1']);
    assert.match(reused.message, /^idempotency_key_reused: the service answered 409: /);
  });

  test('a key without the scope: insufficient_scope (403), never retried; what its scopes allow works', async () => {
    const issued = await fetch(`${sandbox.baseUrl}/sandbox/keys`, { method: 'POST', body: JSON.stringify({ scopes: ['payment:read'] }) });
    assert.equal(issued.status, 200);
    const { api_key: readOnly, scopes } = await issued.json();
    secrets.push(readOnly);
    assert.deepEqual(scopes, ['payment:read']);
    const reader = createClient({ baseUrl: sandbox.baseUrl, apiKey: readOnly, retries: 2 });
    const created = await api.createPayment({ amount: '3.00' });
    assert.equal((await reader.getPayment(created.payment_id)).status, 'open');
    const before = watch.lines.length;
    for (const call of [
      () => reader.createPayment({ amount: '3.00' }),
      () => reader.cancelPayment(created.payment_id),
      () => reader.bootstrapWebhook('http://127.0.0.1:9/webhook'),
    ]) {
      const error = await refusal(call(), watch);
      assert.deepEqual([error.code, error.status, error.retryable], ['insufficient_scope', 403, false]);
    }
    const requests = watch.lines.slice(before).filter((l) => / 403 insufficient_scope /.test(l));
    assert.equal(requests.length, 3, 'each sent once');
    const unknown = await refusal(createClient({ baseUrl: sandbox.baseUrl, apiKey: `${readOnly}x` }).getPayment(created.payment_id), watch);
    assert.deepEqual([unknown.code, unknown.status], ['unauthorized', 401]);
    // The service's fix reaches the caller whole: no part of it read as a credential and masked.
    assert.match(unknown.message, /send a secret key of this store in the Authorization header \(scheme Bearer\)/);
    assert.ok(!unknown.message.includes('***'), unknown.message);
  });

  test('cancel: an open payment once (a repeat reads it, no second event); one with funds is payment_not_cancellable (409)', async () => {
    const open = await api.createPayment({ order_ref: 'cancel me', amount: '5.00' });
    const cancelled = await api.cancelPayment(open.payment_id);
    assert.deepEqual([cancelled.status, cancelled.status_version], ['cancelled', '2']);
    const repeat = await api.cancelPayment(open.payment_id);
    assert.deepEqual([repeat.status, repeat.status_version], ['cancelled', '2']);
    assert.equal((await sandbox.events(open.payment_id)).length, 1, 'one event');
    const paid = await api.createPayment({ order_ref: 'partly paid', amount: '5.00' });
    await sandbox.pay(paid.payment_id, '100');
    const refused = await refusal(api.cancelPayment(paid.payment_id), watch);
    assert.deepEqual([refused.code, refused.status, refused.retryable], ['payment_not_cancellable', 409, false]);
    assert.equal((await api.getPayment(paid.payment_id)).status, 'partially_paid');
  });

  test('the webhook: set up once with its secret; a repeat without it says to rotate; another URL is webhook_exists; secret_kind through a rotation', async () => {
    const door = await serveReceiver();
    const db = new Database(join(tempDir(), 'rotation.sqlite'));
    try {
      const setup = await api.bootstrapWebhook(door.url, { idempotencyKey: 'webhook-1' });
      secrets.push(setup.secret);
      assert.deepEqual([setup.url, setup.secret_kind], [door.url, 'active']);
      for (const key of ['webhook-1', 'webhook-2']) {
        const repeat = await refusal(api.bootstrapWebhook(door.url, { idempotencyKey: key }), watch);
        assert.deepEqual([repeat.code, repeat.resourceId, repeat.retryable], ['webhook_secret_not_returned', setup.resource_id, false]);
        assert.match(repeat.message, /If you saved it then, use it .* rotate the secret/);
      }
      const other = await refusal(api.bootstrapWebhook('http://127.0.0.1:9/elsewhere'), watch);
      assert.deepEqual([other.code, other.status], ['webhook_exists', 409]);

      // A receiver that knows the active secret; deliveries verify with it.
      const records = [];
      const receiverWith = (secretSet) => rx.createReceiver(receiverOptions(rx.sqliteStore(db), {
        secrets: secretSet, log: watch.receiverLog, onOutcome: (r) => { records.push(r); watch.onOutcome(r); },
      }));
      door.attach(receiverWith(setup.secret));
      const kinds = async () => {
        const p = await api.createPayment({ amount: '1.00' });
        await sandbox.pay(p.payment_id, '100');
        await settled(sandbox);
        return [...new Set(records.splice(0).map((r) => `${r.status} ${r.secretKind}`))];
      };
      assert.deepEqual(await kinds(), ['200 active']);
      assert.equal((await api.verifyWebhookBinding(setup.resource_id, setup.secret)).secret_kind, 'active');

      // Rotate: a pending secret, returned once; deliveries stay signed with the active one.
      const { secret: pending } = await sandbox.rotate();
      secrets.push(pending);
      assert.deepEqual((await api.verifyWebhookBinding(setup.resource_id, pending)).secret_kind, 'pending');
      assert.deepEqual((await api.verifyWebhookBinding(setup.resource_id, setup.secret)).secret_kind, 'active');
      door.attach(receiverWith([{ secret: setup.secret, kind: 'active' }, { secret: pending, kind: 'pending' }]));
      assert.deepEqual(await kinds(), ['200 active'], 'before activation: signed with the active secret');

      // Activate: the pending secret signs from now on; the old one no longer binds. The
      // request in flight at the switch comes signed with the old one (active for this receiver).
      await sandbox.activate();
      assert.deepEqual((await kinds()).sort(), ['200 active', '200 pending'],
        'after activation: the request in flight with the old secret, then the new secret, still pending for this receiver');
      assert.equal((await api.verifyWebhookBinding(setup.resource_id, pending)).secret_kind, 'active');
      const old = await refusal(api.verifyWebhookBinding(setup.resource_id, setup.secret), watch);
      assert.deepEqual([old.code, old.status], ['secret_mismatch', 400]);
      door.attach(receiverWith([{ secret: pending, kind: 'active' }, { secret: setup.secret, kind: 'retiring', acceptUntilSecs: Math.floor(Date.now() / 1000) + 60 }]));
      assert.deepEqual(await kinds(), ['200 active']);
      const unknown = await refusal(api.verifyWebhookBinding('we_unknown', pending), watch);
      assert.deepEqual([unknown.code, unknown.status], ['webhook_not_found', 404]);
    } finally {
      await door.close();
      db.close();
    }
  });
});
