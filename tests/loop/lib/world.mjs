// Where fulfilment's views come from, as one parameter of the scenarios (suite.mjs). This one
// is scripted: payments live in this process, each change bumps status_version and is
// delivered to the receiver as a signed payment.updated event, and `confirm(paymentId)`
// answers the exact text of the view as GET /v1/payments/{payment_id} would. The other world
// (sandbox-world.mjs: create through the client, pay through the sandbox, confirm =
// getPayment) gives the scenarios the same functions, except `change` (any status, any
// version), which only a script can do: `supports('status')` says whether a world has it.
//
// What every world has: receiverOptions (what the receiver is created with), attach(receiver),
// create, pay, hold (paid, its confirmations held), settleHeld (they complete), review,
// expire, cancel (each { silent?, again? }: its deliveries lost, or each delivered twice),
// settle() (every delivery made), redeliver, view, viewWith, override, confirm, confirmed,
// close().

import { signedHeaders } from '../../receiver/lib/helpers.mjs';

let worlds = 0;

/**
 * fulfil's confirm, and the answers a test puts in the service's mouth: override(paymentId,
 * text) makes confirm answer `text` (a promise of it, or a function called at each confirm,
 * which may throw), override(paymentId) the world's own again; `answer(paymentId)` is the
 * world's own. `confirmed` lists every payment confirmed.
 */
export function confirmation(answer) {
  const overrides = new Map();
  const confirmed = [];
  return {
    confirmed,
    overridden: (paymentId) => overrides.get(paymentId),
    override(paymentId, text) {
      if (text === undefined) overrides.delete(paymentId);
      else overrides.set(paymentId, text);
    },
    async confirm(paymentId) {
      confirmed.push(paymentId);
      const text = overrides.get(paymentId);
      if (typeof text === 'function') return text();
      if (text !== undefined) return text;
      return answer(paymentId);
    },
  };
}

/**
 * receiver: where events are delivered (receiver.handle), now or later by attach(receiver).
 * secret: signs them (default: the tests' secret).
 */
export function scriptedWorld(receiver, { secret, prefix = `w${(worlds += 1)}` } = {}) {
  const payments = new Map();
  const confirming = confirmation((paymentId) => {
    const p = payments.get(paymentId);
    if (!p) throw Object.assign(new Error('payment_not_found'), { status: 404, code: 'payment_not_found' });
    return viewOf(p);
  });
  let events = 0;
  let ids = 0;

  const viewOf = (p) => {
    const view = { payment_id: p.payment_id };
    if (p.order_ref !== undefined) view.order_ref = p.order_ref;
    view.source_amount = p.source_amount;
    view.status = p.status;
    // A JSON number while it is a safe integer, a digit string beyond (as DESIGN.md says).
    view.status_version = p.version <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(p.version) : String(p.version);
    view.amount_received_raw = p.received;
    view.expires_at = '2026-11-22T11:00:00Z';
    return JSON.stringify(view);
  };

  async function deliver(p) {
    events += 1;
    const body = Buffer.from(JSON.stringify({
      schema_version: '1',
      event_id: `evt_${prefix}_${events}`,
      event_type: 'payment.updated',
      occurred_at: '2026-11-22T10:00:00Z',
      data: JSON.parse(viewOf(p)),
    }));
    const answer = await receiver.handle({ body, headers: signedHeaders(body, secret === undefined ? {} : { secret }) });
    if (answer.status !== 200) throw new Error(`the receiver answered ${answer.status} ${answer.body}`);
    return { body, answer: JSON.parse(answer.body) };
  }

  // As the sandbox pays (the core's rules): confirming with the new total (hold stops there),
  // then (settleHeld) paid, partially_paid or overpaid by that total against the source amount.
  async function hold(paymentId, amountRaw, options = {}) {
    const p = payments.get(paymentId);
    return world.change(paymentId, { ...options, status: 'confirming', received: String(BigInt(p.received) + BigInt(amountRaw)) });
  }
  async function settleHeld(paymentId, options = {}) {
    const p = payments.get(paymentId);
    const received = BigInt(p.received);
    const due = BigInt(p.source_amount.amount_raw);
    const status = received === due ? 'paid' : received < due ? 'partially_paid' : 'overpaid';
    return world.change(paymentId, { ...options, status, received: String(received) });
  }
  async function pay(paymentId, amountRaw, options = {}) {
    await hold(paymentId, amountRaw, options);
    return settleHeld(paymentId, options);
  }

  const world = {
    confirmed: confirming.confirmed,
    receiverOptions: secret === undefined ? {} : { secrets: secret },
    attach(next) {
      receiver = next;
    },
    supports: () => true,
    settle: async () => {},
    close: async () => {},
    /** A new payment, open at version 1 (creation sends no event): what createPayment answers. */
    create({ orderRef, amountRaw = '12800', currency = 'USD' } = {}) {
      ids += 1;
      const p = {
        payment_id: `pay_${prefix}_${ids}`,
        order_ref: orderRef,
        source_amount: { kind: 'fiat', currency, amount_raw: amountRaw },
        status: 'open',
        version: 1n,
        received: '0',
      };
      payments.set(p.payment_id, p);
      const created = { payment_id: p.payment_id, source_amount: { ...p.source_amount } };
      if (orderRef !== undefined) created.order_ref = orderRef;
      return created;
    },
    /**
     * A change of the payment: status (and the total received), version + 1; delivered as an
     * event unless `silent` (a lost delivery). `again`: delivered twice. Resolves the event's answer.
     */
    async change(paymentId, { status, received, silent = false, again = false, version }) {
      const p = payments.get(paymentId);
      p.version = version === undefined ? p.version + 1n : BigInt(version);
      p.status = status;
      if (received !== undefined) p.received = received;
      else if (status === 'paid') p.received = p.source_amount.amount_raw;
      if (silent) return null;
      const first = await deliver(p);
      if (again) {
        // The same bytes again (a retry): acknowledged as the duplicate it is, nothing applied.
        const repeat = await receiver.handle({ body: first.body, headers: signedHeaders(first.body, secret === undefined ? {} : { secret }) });
        if (repeat.status !== 200 || JSON.parse(repeat.body).decision !== 'duplicate') {
          throw new Error(`the receiver answered the delivery again ${repeat.status} ${repeat.body}, not 200 duplicate`);
        }
      }
      return first.answer;
    },
    pay,
    hold,
    settleHeld,
    review: (paymentId, options) => world.change(paymentId, { ...options, status: 'review_required' }),
    expire: (paymentId, options) => world.change(paymentId, { ...options, status: 'expired' }),
    cancel: (paymentId, options) => world.change(paymentId, { ...options, status: 'cancelled' }),
    /** Delivers the payment's current facts again, as a new event of the same version. */
    redeliver: (paymentId) => deliver(payments.get(paymentId)),
    /** The exact text of GET /v1/payments/{payment_id}. */
    view: (paymentId) => confirming.overridden(paymentId) ?? viewOf(payments.get(paymentId)),
    /** The service says something else than what was delivered (or fails: a function that throws). */
    override: confirming.override,
    /** fulfil's confirm. */
    confirm: confirming.confirm,
    /** A view text of this payment with these fields changed (for overrides). */
    viewWith(paymentId, fields) {
      return JSON.stringify({ ...JSON.parse(viewOf(payments.get(paymentId))), ...fields });
    },
  };
  return world;
}
