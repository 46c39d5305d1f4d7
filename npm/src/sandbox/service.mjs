// The payment service's operations on the sandbox's state: API keys and scopes, payments
// (create, query, cancel, disable checkout, pay (held or not), settle, review, expire, open
// checkout), the store view and the events; with the webhook's (webhook.mjs) in one object.
// Each operation asks the core's rules (rules.mjs) and the package's public API what to do,
// then writes the result in one step of the store; the events it makes go to the delivery
// engine in the same step.
// No HTTP here: http.mjs and startSandbox's methods both call these.

import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { CryptoPayError, hostedCheckoutUrl, requestFingerprint } from 'cryptopay-verify';
import { NOT_UTF8, randomId, requireIdempotencyKey, utf8Text } from './requests.mjs';
import { applyPaymentAction, checkIdempotency, newPaymentState, refusal, validateCreatePaymentText } from './rules.mjs';
import { SandboxError } from './errors.mjs';
import { createWebhooks } from './webhook.mjs';

/** The three standard scopes, as the dashboard issues them. */
export const SCOPES = ['payment:write', 'payment:read', 'webhook:bootstrap'];
/** The actions after which a payment may expire sooner or later than before. */
const PAYING = new Set(['pay', 'pay_held', 'settle']);

/** How long a payment stays payable: its expires_at is this long after its creation. */
export const PAYMENT_TTL_MS = 60 * 60 * 1000;
const EXPIRABLE = new Set(['open', 'partially_paid']);

/** status_version as the sandbox writes it: a JSON number while it is a safe integer, else digits. */
export function versionJson(digits) {
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : digits;
}

/**
 * The service over `store`. options: the checked startSandbox options; origin(): the base
 * URL (also the checkout origin); delivery: the engine events go to; log(line, entry).
 */
export function createService({ store, options, origin, delivery, log }) {
  const website = options.website;
  let expiryTimer = null;
  let closed = false;

  // --- API keys --------------------------------------------------------------------------

  function issueKey(scopes) {
    if (!Array.isArray(scopes) || scopes.some((s) => !SCOPES.includes(s))) {
      throw refusal('request_invalid', `scopes must be an array of ${SCOPES.join(', ')}`);
    }
    const key = `sk_sandbox_${randomBytes(24).toString('hex')}`;
    const unique = SCOPES.filter((s) => scopes.includes(s));
    store.atomic(() => store.put('key', key, { scopes: unique, created_at: new Date().toISOString() }));
    return { api_key: key, scopes: unique };
  }

  /**
   * Revokes `key` (the last step of the spec's key replacement): every request with it is 401
   * from now on, across restarts on a data file. The key printed at start may be revoked too:
   * the next start issues another.
   */
  function revokeKey(key) {
    const record = typeof key === 'string' ? store.keys.get(key) : undefined;
    if (record === undefined) throw refusal('key_not_found');
    store.atomic(() => store.remove('key', key));
    return { revoked: true, scopes: record.scopes };
  }

  /** The key with every scope, kept across restarts on a data file. */
  function primaryKey() {
    const kept = store.meta.primary_key;
    if (typeof kept === 'string' && store.keys.has(kept)) return kept;
    const { api_key: key } = issueKey(SCOPES);
    store.atomic(() => store.setMeta('primary_key', key));
    return key;
  }

  /** The key of an `Authorization: Bearer <key>` header with `scope`, or the refusal. */
  // The key of an Authorization header (401 unauthorized for none or an unknown one), then,
  // with a scope, that the key has it (403 insufficient_scope).
  function authorize(header, scope = null) {
    const match = typeof header === 'string' ? /^Bearer[ ]+(\S+)[ ]*$/i.exec(header) : null;
    const record = match ? store.keys.get(match[1]) : undefined;
    if (record === undefined && match && !store.durable) {
      // Revoked, or a key of an earlier start: a sandbox in memory issues a new one each time.
      throw refusal('unauthorized', 'this sandbox knows no such key (revoked, or from an earlier start: without a data file, '
        + '--data FILE or the data option, it issues a new key at each start, which its banner prints)');
    }
    if (record === undefined) throw refusal('unauthorized');
    if (scope !== null && !record.scopes.includes(scope)) throw refusal('insufficient_scope', `this endpoint needs ${scope}`);
  }

  // --- views -----------------------------------------------------------------------------

  function storeView() {
    return {
      primary_source: { ...options.primarySource },
      website_origin: website ?? null,
      website_domain: website === undefined ? null : new URL(website).hostname,
    };
  }

  /**
   * The facts of `data` in every event, and of the views. An optional field the creation did
   * not give (order_ref) is left out, never null: the package's readers (parsePaymentView,
   * the merchant loop) refuse a null where the service's field is a string.
   */
  function facts(payment, state = payment.state) {
    return {
      payment_id: payment.payment_id,
      ...(typeof payment.order_ref === 'string' ? { order_ref: payment.order_ref } : {}),
      source_amount: payment.source_amount,
      status: state.status,
      status_version: versionJson(state.statusVersion),
      amount_received_raw: state.amountReceivedRaw,
      checkout_origin: payment.checkout_origin,
      expires_at: payment.expires_at,
    };
  }

  /** MerchantPaymentView: the facts, and whether the customer's checkout is enabled. */
  const paymentView = (payment) => ({ ...facts(payment), consumer_access: payment.state.consumerAccess });
  /** CreatedPayment: the view and the hosted checkout's address. */
  const createdView = (payment) => ({
    ...paymentView(payment),
    checkout_url: `${payment.checkout_origin}/#payment_id=${encodeURIComponent(payment.payment_id)}`,
  });

  function payment(id) {
    sweep();
    const found = typeof id === 'string' ? store.payments.get(id) : undefined;
    if (found === undefined) throw refusal('payment_not_found');
    return found;
  }

  // --- payments --------------------------------------------------------------------------

  /**
   * POST /v1/payments. Resolves { payment (CreatedPayment), replay }: an identical replay
   * (same key, same body bytes) answers the payment the key created, never a second one.
   */
  function createPayment({ idempotencyKey, body }) {
    requireIdempotencyKey(idempotencyKey);
    const fingerprint = requestFingerprint(body);
    const record = store.idempotency.get(`payment\n${idempotencyKey}`);
    const check = checkIdempotency(record?.fingerprint, fingerprint);
    if (check === 'replay') return { payment: createdView(payment(record.payment_id)), replay: true }; // as a read answers it: expired once its time is up
    if (check === 'reused') throw refusal('idempotency_key_reused');
    // The core reads the text as received (a repeated key is refused), then it is parsed.
    // Not UTF-8: refused as the core refuses a body that is no JSON object.
    const text = utf8Text(body);
    if (text === null) throw new CryptoPayError('create_payment_invalid', `create_payment_invalid: ${NOT_UTF8}`);
    validateCreatePaymentText(text, options.primarySource, website);
    const request = JSON.parse(text);
    // A checkout_origin is for Embedded Checkout, on the origin Website permits: with no
    // website configured, none is (hosted checkout needs none: leave it out; the sandbox's own
    // http origin is refused by the check above, as the service refuses any http origin).
    if (website === undefined && request.checkout_origin !== undefined) {
      throw new CryptoPayError('origin_not_permitted', 'origin_not_permitted: this store has no website configured (sandbox --website), '
        + 'so no checkout_origin is permitted: leave it out for hosted checkout, or configure the website for Embedded Checkout');
    }
    const state = newPaymentState(request.source_amount.amount_raw);
    const created = Date.now();
    const paymentId = randomId('pay');
    const stored = {
      payment_id: paymentId,
      order_ref: request.order_ref ?? null,
      source_amount: request.source_amount,
      // A given origin (validated above) as browsers write it, as hostedCheckoutUrl does:
      // lowercase scheme and host, no :443.
      checkout_origin: request.checkout_origin === undefined ? origin() : hostedCheckoutUrl(request.checkout_origin, 'p').slice(0, -'/#payment_id=p'.length),
      expires_at: new Date(created + PAYMENT_TTL_MS).toISOString(),
      created_at: new Date(created).toISOString(),
      activated_at: null,
      state,
    };
    store.atomic(() => {
      store.put('payment', paymentId, stored);
      store.put('idempotency', `payment\n${idempotencyKey}`, { fingerprint, payment_id: paymentId });
    });
    scheduleExpiry();
    return { payment: createdView(stored), replay: false };
  }

  /**
   * Applies an action to a payment: the new state and one event per change, written
   * together, the events queued for delivery. Returns the payment's view.
   */
  function act(id, action, extra = {}) {
    const current = payment(id);
    let applied;
    try {
      applied = applyPaymentAction(current.state, action); // throws the service's answer
    } catch (error) {
      // A state that takes no such action: which state it is (an expiry a test's faked clock
      // brought about, say) is what the refusal's reader needs.
      if (error instanceof SandboxError && error.status === 409 && error.code.startsWith('payment_not_')) {
        error.message += ` (this payment is ${current.state.status})`;
      }
      throw error;
    }
    const next = { ...current, ...extra, state: applied.state };
    let events = [];
    store.atomic(() => {
      store.put('payment', next.payment_id, next);
      events = applied.events.map((state) => {
        const event = eventRecord(next, state);
        store.put('event', event.event_id, event);
        return event;
      });
      delivery.enqueue(events);
    });
    for (const event of events) log(`event ${event.event_id}: ${next.payment_id} ${event.status} (status_version ${event.status_version})`, { type: 'event', ...summary(event) });
    delivery.wake();
    // What may expire changed: a payment paid in part, or held confirming (which does not).
    if (PAYING.has(action.action)) scheduleExpiry();
    return paymentView(next);
  }

  // status_version as the API writes it: a JSON number while a double holds it, digits beyond.
  const summary = ({ event_id, payment_id, number, status, status_version, occurred_at }) =>
    ({ event_id, payment_id, number, status, status_version: versionJson(status_version), occurred_at });

  /**
   * One payment.updated: the envelope's bytes are fixed here, for every attempt and replay.
   * Indented, as many services send them, so that a receiver that verifies JSON it parsed and
   * serialized again (JSON.stringify writes it without spaces) fails here as it would there.
   */
  function eventRecord(payment, state) {
    const eventId = randomId('evt');
    const occurredAt = new Date().toISOString();
    const body = JSON.stringify({
      schema_version: '1',
      event_id: eventId,
      event_type: 'payment.updated',
      occurred_at: occurredAt,
      data: facts(payment, state),
    }, null, 2);
    return {
      event_id: eventId,
      payment_id: payment.payment_id,
      number: store.next('events'),
      status: state.status,
      status_version: state.statusVersion,
      occurred_at: occurredAt,
      body,
    };
  }

  const getPayment = (id) => paymentView(payment(id));
  const cancel = (id) => act(id, { action: 'cancel' });
  const disableConsumerAccess = (id) => act(id, { action: 'disable_consumer_access' });
  // hold: the payment stays confirming (its confirmations held) until settle.
  const pay = (id, amountRaw, hold = false) => act(id, { action: hold ? 'pay_held' : 'pay', amountRaw });
  const settle = (id) => act(id, { action: 'settle' });
  const review = (id) => act(id, { action: 'review' });
  const expire = (id) => act(id, { action: 'expire' });

  /** The customer opens checkout: the first activation is noted; nothing is emitted. */
  function openCheckout(id) {
    const current = payment(id);
    return act(id, { action: 'open_checkout' }, { activated_at: current.activated_at ?? new Date().toISOString() });
  }

  /** The customer's view of a payment at checkout (no merchant-only fields). */
  function checkoutView(id) {
    const p = payment(id);
    return {
      payment_id: p.payment_id,
      source_amount: p.source_amount,
      status: p.state.status,
      amount_received_raw: p.state.amountReceivedRaw,
      expires_at: p.expires_at,
    };
  }

  /** The payment's checkout_origin (the merchant's website for Embedded Checkout), or null. */
  function checkoutOrigin(id) {
    return payment(id).checkout_origin ?? null;
  }

  // --- expiry ----------------------------------------------------------------------------

  /** Expires every payable payment whose expires_at has passed (one event each). */
  function sweep() {
    const now = Date.now();
    for (const p of store.payments.values()) {
      if (EXPIRABLE.has(p.state.status) && Date.parse(p.expires_at) <= now) {
        const applied = applyPaymentAction(p.state, { action: 'expire' });
        store.atomic(() => {
          const next = { ...p, state: applied.state };
          store.put('payment', p.payment_id, next);
          const events = applied.events.map((state) => eventRecord(next, state));
          for (const event of events) store.put('event', event.event_id, event);
          delivery.enqueue(events);
        });
        log(`payment ${p.payment_id} expired (expires_at ${p.expires_at})`, { type: 'expired', payment_id: p.payment_id });
      }
    }
    delivery.wake();
  }

  /** How long a failed expiry waits before the next try. */
  const EXPIRY_RETRY_MS = 1000;

  /** A timer for the next expiry, so that an idle sandbox still expires (and announces) payments. */
  function scheduleExpiry() {
    if (closed) return;
    clearTimeout(expiryTimer);
    let next = Infinity;
    for (const p of store.payments.values()) {
      if (EXPIRABLE.has(p.state.status)) next = Math.min(next, Date.parse(p.expires_at));
    }
    if (next === Infinity) return;
    expiryTimer = setTimeout(() => {
      try {
        sweep();
      } catch (error) {
        // A store refusing for a moment (the data file locked by another connection) must not
        // end the process: said, and tried again a second later, never at once.
        log(`expiry: ${error?.message ?? error}; tried again in ${EXPIRY_RETRY_MS} ms`, { type: 'internal_error' });
        expiryTimer = setTimeout(scheduleExpiry, EXPIRY_RETRY_MS);
        expiryTimer.unref?.();
        return;
      }
      scheduleExpiry();
    }, Math.min(Math.max(0, next - Date.now()), 2 ** 31 - 1));
    expiryTimer.unref?.();
  }

  /** Every event, in the order they occurred (optionally one payment's). */
  function listEvents(paymentId) {
    const events = [...store.events.values()]
      .filter((e) => paymentId === undefined || e.payment_id === paymentId)
      .sort((a, b) => a.number - b.number);
    return events.map((e) => ({ ...summary(e), body: e.body }));
  }

  function close() {
    closed = true;
    clearTimeout(expiryTimer);
  }

  return {
    issueKey, revokeKey, primaryKey, authorize, storeView, createPayment, getPayment, cancel, disableConsumerAccess, pay, settle, review,
    expire, openCheckout, checkoutView, checkoutOrigin, listEvents, sweep, scheduleExpiry, close,
    ...createWebhooks({ store, options, delivery, log }),
  };
}
