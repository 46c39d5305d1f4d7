// memoryStore: FOR TESTS ONLY. It keeps events in this process's memory, which a restart
// loses and a second instance never sees. It decides with the package's decideEvent, and its
// maps mirror the tables' rows, so a test can read what a real store would hold. The merchant
// loop (orders, fulfilment, leases) runs on it too, with the process's clock.

import { compareStatusVersions, decideEvent } from 'cryptopay-verify';
import { inClaimOrder, storeOptions } from './common.mjs';
import { QUARANTINE_RECENT } from '../limits.mjs';

// A lease of `owner` that an order or a quarantine marked while it held it.
const markedFrom = (held, owner) => held !== null && held.startsWith(`${owner} (`);
// What a quarantine adds to the owner of a lease it marks (as the SQL's quarantine_due).
const QUARANTINED = ' (event quarantined)';

/** A store in process memory, for tests. Its `events`, `payments`, `quarantined`, `orders` and `fulfilment` are readable. */
export function memoryStore(options) {
  storeOptions(options, [], 'memoryStore');
  const events = new Map(); // event_id -> row of the events table
  const payments = new Map(); // payment_id -> row of the payments table
  const quarantined = []; // rows of the quarantine table
  const orders = new Map(); // payment_id -> row of the orders table
  const fulfilment = new Map(); // payment_id -> row of the fulfilment table
  const now = () => new Date().toISOString();
  const later = (secs) => new Date(Date.now() + secs * 1000).toISOString();
  const newer = (a, b) => b === null || b === undefined || compareStatusVersions(a, b) > 0;
  const unhandled = (payment) => newer(payment.status_version, payment.handled_version);
  // A retry is not waited for by facts applied since it was set (`retry` writes updated_at),
  // as the SQL's claim. As the SQLite family stamps them: facts later than their fulfilment
  // row (a millisecond ahead where the clock reads the same), a retry no earlier than the facts.
  const laterThan = (at) => (at === undefined ? now() : [now(), new Date(Date.parse(at) + 1).toISOString()].sort()[1]);
  const noEarlierThan = (at) => (at === undefined || at < now() ? now() : at);
  const news = (row) => {
    const payment = payments.get(row.payment_id);
    return payment !== undefined && unhandled(payment) && payment.updated_at > row.updated_at;
  };
  const free = (row, at) => (row.lease_until === null || row.lease_until < at)
    && (row.next_attempt_at === null || row.next_attempt_at <= at || news(row));
  const state = (paymentId) => ({
    payment_id: paymentId, handled_version: null, outcome: null, code: null, settled: false, seen_at: now(), attempts: 0,
    next_attempt_at: null, lease_owner: null, lease_until: null, updated_at: now(), fulfil_version: null, recheck_at: null,
  });
  // Closed (ended unpaid) and its late-money check due, as the SQL's closed_due: while the order
  // is younger than recheckClosedSecs, once its recheck_at (complete: as long after the last
  // look as the order had lived then) has come, and at least recoverAfterSecs after that look.
  const closedDue = (row, recoverAfterSecs, recheckClosedSecs) => {
    const order = orders.get(row.payment_id);
    if (!row.settled || row.outcome !== 'closed' || order === undefined || row.recheck_at === null) return false;
    const at = now();
    return order.created_at > later(-recheckClosedSecs) && row.seen_at <= later(-recoverAfterSecs) && row.recheck_at <= at;
  };
  const openDue = (row, recoverAfterSecs) => !row.settled && row.seen_at <= later(-recoverAfterSecs);
  // As far past now as `order` has lived (ms since the epoch): when complete puts a closed
  // payment's next check, and a payment held for review's next look.
  const livedAhead = (order) => Date.now() + Math.max(Date.now() - Date.parse(order.created_at), 0);
  // When complete leaves a closed (settled) row: its next late-money check, as long after now as
  // its order had lived, or null once that is recheckClosedSecs or more after the order was
  // recorded (as the SQL's `complete`).
  const recheckAt = (row, recheckClosedSecs) => {
    const order = orders.get(row.payment_id);
    if (row.outcome !== 'closed' || !row.settled || order === undefined) return null;
    const due = livedAhead(order);
    return due < Date.parse(order.created_at) + recheckClosedSecs * 1000 ? new Date(due).toISOString() : null;
  };
  // When complete leaves a row: now, or for one held for review (not settled) as far past now
  // as its order had lived, as the SQL's `complete` (recovery looks at it less and less often).
  const seenAt = (row) => {
    const order = orders.get(row.payment_id);
    if (row.outcome !== 'review' || row.settled || order === undefined) return now();
    return new Date(livedAhead(order)).toISOString();
  };
  const heldUnknown = (paymentId) => fulfilment.get(paymentId)?.outcome === 'needs_review' && fulfilment.get(paymentId)?.code === 'payment_unknown';

  return {
    kind: 'memory',
    events,
    payments,
    quarantined,
    orders,
    fulfilment,
    async ready() {},
    async record({ eventId, paymentId, statusVersion, data, body, integration = null, secretKind = null }) {
      const stored = payments.get(paymentId);
      // Another integration's (as the SQL's `foreign`; a stored null, from before the receiver
      // named its integrations, is anyone's): the event_id stored through another's secret, or
      // a new event whose payment's facts or order are another's. Nothing is written.
      const others = (row) => row !== undefined && row.integration !== null && row.integration !== integration;
      if (events.has(eventId) ? others(events.get(eventId)) : others(stored) || others(orders.get(paymentId))) {
        return 'integration_mismatch';
      }
      const decision = decideEvent({ eventId, paymentId, statusVersion },
        { eventSeen: events.has(eventId), statusVersion: stored?.status_version });
      if (decision === 'duplicate') return decision;
      events.set(eventId, {
        event_id: eventId, payment_id: paymentId, status_version: statusVersion, decision, received_at: now(), body: body.slice(),
        integration, secret_kind: secretKind,
      });
      if (decision === 'apply') {
        payments.set(paymentId, {
          payment_id: paymentId, status_version: statusVersion, event_id: eventId, data,
          updated_at: laterThan(fulfilment.get(paymentId)?.updated_at), integration,
          handled_version: stored?.handled_version ?? null,
        });
      }
      return decision;
    },
    async quarantine({ code, body, paymentId = null, integration = null }) {
      // As the SQL does (quarantine_due): the payment's row, where there is one, due at once;
      // not another integration's payment (its facts or its order under another name).
      const foreign = (row) => row !== undefined && row.integration !== null && row.integration !== integration;
      const theirs = paymentId !== null && (foreign(payments.get(paymentId)) || foreign(orders.get(paymentId)));
      const row = paymentId === null || theirs ? undefined : fulfilment.get(paymentId);
      if (row !== undefined) {
        const leaseOwner = row.lease_owner === null || row.lease_owner.endsWith(QUARANTINED) ? row.lease_owner : `${row.lease_owner}${QUARANTINED}`;
        Object.assign(row, { settled: false, seen_at: new Date(0).toISOString(), next_attempt_at: null, lease_owner: leaseOwner, updated_at: now() });
      }
      // As the SQL does: a body kept under the same code among the newest rows adds none.
      const same = (kept) => kept.code === code && kept.body.length === body.length && kept.body.every((byte, i) => byte === body[i]);
      if (!quarantined.slice(-QUARANTINE_RECENT).some(same)) {
        quarantined.push({ id: quarantined.length + 1, received_at: now(), code, body: body.slice() });
      }
    },
    async listQuarantined({ afterId, limit }) {
      return quarantined.filter((row) => row.id > afterId).slice(0, limit)
        .map((row) => ({ id: row.id, receivedAt: row.received_at, code: row.code, body: row.body.slice() }));
    },
    async recordOrder({ paymentId, orderRef, sourceAmount, integration }) {
      const inserted = !orders.has(paymentId);
      if (inserted) orders.set(paymentId, { payment_id: paymentId, order_ref: orderRef, source_amount: sourceAmount, integration, created_at: now() });
      const before = fulfilment.get(paymentId);
      if (heldUnknown(paymentId)) {
        const payment = payments.get(paymentId);
        if (payment) payment.handled_version = null;
        // As the SQL stores: the state reset, the first fulfil version kept.
        fulfilment.set(paymentId, { ...state(paymentId), fulfil_version: before?.fulfil_version ?? null });
      } else if (!fulfilment.has(paymentId)) {
        fulfilment.set(paymentId, state(paymentId));
      }
      // A pass holding the lease may have loaded the payment before the order existed: its
      // complete() then writes nothing, and the payment is handled again once the lease ends.
      // An order recorded again marks nothing (a pass that loaded the payment saw it).
      if (inserted && before !== undefined && before.lease_owner !== null) {
        Object.assign(fulfilment.get(paymentId), { lease_owner: `${before.lease_owner} (order recorded)`, lease_until: before.lease_until });
      }
      const row = orders.get(paymentId);
      return { inserted, stored: inserted ? null : { orderRef: row.order_ref, sourceAmount: row.source_amount, integration: row.integration } };
    },
    async claim({ owner, leaseSecs, batch, recoverAfterSecs, recheckClosedSecs = 0 }) {
      const at = now();
      const newer = new Set([...payments.values()].filter(unhandled).map((p) => p.payment_id));
      const due = new Set(newer);
      for (const row of fulfilment.values()) {
        if (openDue(row, recoverAfterSecs) || closedDue(row, recoverAfterSecs, recheckClosedSecs)) due.add(row.payment_id);
      }
      // Newer facts first, then the longest not looked at (as the SQL stores choose and order them).
      // (A seen_at ahead, of one held for review, counts as now.)
      const rows = (list) => list.map((row) => ({ payment_id: row.payment_id, seen_at: row.seen_at < at ? row.seen_at : at, newer: newer.has(row.payment_id) }));
      // A payment with newer facts and no row yet gets one first (looked at now), so that it
      // is taken with the other newer facts, ahead of every recovery check.
      for (const id of [...newer].filter((id) => !fulfilment.has(id)).sort().slice(0, batch)) fulfilment.set(id, state(id));
      const claimed = inClaimOrder(rows([...fulfilment.values()].filter((row) => due.has(row.payment_id) && free(row, at)))).slice(0, batch);
      for (const id of claimed) Object.assign(fulfilment.get(id), { lease_owner: owner, lease_until: later(leaseSecs), updated_at: at });
      return claimed;
    },
    async load({ paymentId, owner, recoverAfterSecs, leaseSecs, recheckClosedSecs = 0 }) {
      const row = fulfilment.get(paymentId);
      if (!row) return null;
      const payment = payments.get(paymentId);
      const order = orders.get(paymentId);
      // The lease renewed from now while it is this owner's, run out or not (no other pass
      // claimed it meanwhile, nor did recordCreated mark it).
      const leased = row.lease_owner === owner;
      if (leased) Object.assign(row, { lease_until: later(leaseSecs), updated_at: now() });
      return {
        handledVersion: row.handled_version,
        outcome: row.outcome,
        code: row.code,
        attempts: row.attempts,
        leased,
        eventDue: payment !== undefined && newer(payment.status_version, row.handled_version),
        recoverDue: openDue(row, recoverAfterSecs) || closedDue(row, recoverAfterSecs, recheckClosedSecs),
        eventVersion: payment?.status_version ?? null,
        eventIntegration: payment?.integration ?? null,
        eventId: payment?.event_id ?? null,
        hasPayment: payment !== undefined,
        order: order ? { orderRef: order.order_ref, sourceAmount: order.source_amount, integration: order.integration, createdAt: order.created_at } : null,
        fulfilVersion: row.fulfil_version,
      };
    },
    async intend({ paymentId, owner, version, leaseSecs }) {
      const row = fulfilment.get(paymentId);
      // While the lease is this owner's, run out or not (as sql/sqlite.sql's intend).
      if (!row || row.lease_owner !== owner) return null;
      row.fulfil_version ??= version;
      Object.assign(row, { lease_until: later(leaseSecs), updated_at: now() });
      return row.fulfil_version;
    },
    async renew({ paymentId, owner, leaseSecs, marked = false }) {
      const row = fulfilment.get(paymentId);
      if (!row || !(row.lease_owner === owner || (marked && markedFrom(row.lease_owner, owner)))) return false;
      Object.assign(row, { lease_until: later(leaseSecs), updated_at: now() });
      return true;
    },
    async complete({ paymentId, owner, version, outcome, code, settled, recheckClosedSecs = 0 }) {
      const row = fulfilment.get(paymentId);
      if (!row) return null;
      // Only while the lease is this owner's (not taken by another pass, nor marked by recordOrder);
      // one it marked is given back (complete_unmark). One a quarantine marked is written, but
      // left unsettled and due at once, as quarantineDue left it.
      const quarantined = row.lease_owner === `${owner}${QUARANTINED}`;
      if (row.lease_owner !== owner && !quarantined) {
        if (markedFrom(row.lease_owner, owner)) Object.assign(row, { lease_owner: null, lease_until: null, updated_at: now() });
        return row.handled_version;
      }
      if (row.handled_version === null || compareStatusVersions(row.handled_version, version) <= 0) {
        Object.assign(row, { outcome, code, settled });
      }
      if (quarantined) row.settled = false;
      if (newer(version, row.handled_version)) row.handled_version = version;
      Object.assign(row, {
        seen_at: quarantined ? new Date(0).toISOString() : seenAt(row), recheck_at: recheckAt(row, recheckClosedSecs),
        attempts: 0, next_attempt_at: null, updated_at: now(),
      });
      Object.assign(row, { lease_owner: null, lease_until: null });
      const payment = payments.get(paymentId);
      if (payment && newer(row.handled_version, payment.handled_version)) payment.handled_version = row.handled_version;
      return row.handled_version;
    },
    async retry({ paymentId, owner, delaySecs, code, loadedVersion }) {
      const row = fulfilment.get(paymentId);
      if (!row || row.lease_owner !== owner) return null;
      // As the SQL's retry: an outcome keeps its own code; facts applied while the attempt ran
      // (newer than it loaded) are taken up at once.
      const payment = payments.get(paymentId);
      const ranPast = loadedVersion !== undefined && payment !== undefined && (loadedVersion === null || newer(payment.status_version, loadedVersion));
      Object.assign(row, {
        attempts: row.attempts + 1, code: row.outcome === null ? code : row.code, next_attempt_at: later(ranPast ? 0 : delaySecs),
        lease_owner: null, lease_until: null, updated_at: noEarlierThan(payment?.updated_at),
      });
      return row.attempts;
    },
    async release({ owner }) {
      // Its leases, and those an order or a quarantine marked while it held them.
      for (const row of fulfilment.values()) {
        if (row.lease_owner === owner || markedFrom(row.lease_owner, owner)) Object.assign(row, { lease_owner: null, lease_until: null });
      }
    },
    async retryNow({ paymentId = null }) {
      // As the SQL's retry_now: backing off, and no live pass's.
      const at = now();
      let made = 0;
      for (const [id, row] of fulfilment) {
        if ((paymentId !== null && id !== paymentId) || !(row.next_attempt_at > at) || (row.lease_until !== null && row.lease_until >= at)) continue;
        Object.assign(row, { next_attempt_at: null, updated_at: at });
        made += 1;
      }
      return made;
    },
  };
}
