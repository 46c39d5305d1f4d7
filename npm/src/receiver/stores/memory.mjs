// memoryStore: FOR TESTS ONLY. It keeps events in this process's memory, which a restart
// loses and a second instance never sees. It decides with the package's decideEvent, and its
// maps mirror the tables' rows, so a test can read what a real store would hold.

import { decideEvent } from 'cryptopay-verify';
import { storeOptions } from './common.mjs';

/** A store in process memory, for tests. Its `events`, `payments` and `quarantined` are readable. */
export function memoryStore(options) {
  storeOptions(options, [], 'memoryStore');
  const events = new Map(); // event_id -> row of the events table
  const payments = new Map(); // payment_id -> row of the payments table
  const quarantined = []; // rows of the quarantine table
  const now = () => new Date().toISOString();
  return {
    kind: 'memory',
    events,
    payments,
    quarantined,
    async ready() {},
    async record({ eventId, paymentId, statusVersion, data, body }) {
      const stored = payments.get(paymentId);
      const decision = decideEvent({ eventId, paymentId, statusVersion },
        { eventSeen: events.has(eventId), statusVersion: stored?.status_version });
      if (decision === 'duplicate') return decision;
      events.set(eventId, {
        event_id: eventId, payment_id: paymentId, status_version: statusVersion, decision, received_at: now(), body: body.slice(),
      });
      if (decision === 'apply') {
        payments.set(paymentId, { payment_id: paymentId, status_version: statusVersion, event_id: eventId, data, updated_at: now() });
      }
      return decision;
    },
    async quarantine({ code, body }) {
      quarantined.push({ id: quarantined.length + 1, received_at: now(), code, body: body.slice() });
    },
  };
}
