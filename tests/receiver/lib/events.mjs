// The receiver tests' event bodies and seeded generator, with no other import: the test
// scripts that run under Bun (lib/bunsql-driver.mjs) load this file too, and helpers.mjs
// re-exports it.

/** A payment.updated body; statusVersion given as a JSON number when it is a JS number, else as a string. */
export function eventBody({ eventId, paymentId, statusVersion, status = 'open', eventType = 'payment.updated', note = 'Müller – 5 €' }) {
  return Buffer.from(JSON.stringify({
    schema_version: '1',
    event_id: eventId,
    event_type: eventType,
    occurred_at: '2026-11-22T10:00:00Z',
    data: { payment_id: paymentId, status_version: statusVersion, status, order_ref: note },
  }));
}

/** A seeded pseudo-random generator (mulberry32): reproducible runs, the seed printed. */
export function random(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  return {
    next,
    int,
    pick: (list) => list[int(list.length)],
    shuffle(list) {
      for (let i = list.length - 1; i > 0; i -= 1) {
        const j = int(i + 1);
        [list[i], list[j]] = [list[j], list[i]];
      }
      return list;
    },
  };
}

/**
 * The one-delivery-at-a-time cases of the PostgreSQL client tests (postgresjs.test.mjs, and
 * bunsql.test.mjs through lib/bunsql-driver.mjs): bodies given as a Buffer, a string, a
 * Uint8Array view into a larger buffer and a DataView; versions of 2^64 and of numeric's
 * 131072 digits (one more is quarantined); an unknown event type. Returns `huge` (the
 * 131072-digit version), `bodies` by event id, and `deliveries`: [the body as given, its
 * bytes, the decision or quarantine code expected], in order.
 */
export function oneByOne() {
  const huge = `1${'0'.repeat(131071)}`;
  const bodies = {
    evt_0: eventBody({ eventId: 'evt_0', paymentId: 'pay_1', statusVersion: 1, status: 'created' }),
    evt_1: eventBody({ eventId: 'evt_1', paymentId: 'pay_1', statusVersion: 2, status: 'open' }),
    evt_2: eventBody({ eventId: 'evt_2', paymentId: 'pay_1', statusVersion: String(2n ** 64n), status: 'paid' }),
    evt_3: eventBody({ eventId: 'evt_3', paymentId: 'pay_2', statusVersion: huge }),
    evt_4: eventBody({ eventId: 'evt_4', paymentId: 'pay_2', statusVersion: `${huge}0` }),
    evt_q: Buffer.from('{"schema_version":"1","event_id":"evt_q","event_type":"payment.refunded","occurred_at":1,"data":{"x":"\\u0000 €"}}'),
  };
  const { evt_0: older, evt_1: first, evt_2: newer, evt_3: longest, evt_4: tooLong, evt_q: unknown } = bodies;
  const inside = Buffer.concat([Buffer.from('junk before'), newer, Buffer.from('junk after')]);
  const deliveries = [
    [first, first, 'apply'],
    [first.toString('utf8'), first, 'duplicate'],
    [new Uint8Array(older.buffer, older.byteOffset, older.length), older, 'stale'],
    [inside.subarray(11, 11 + newer.length), newer, 'apply'],
    [new DataView(longest.buffer, longest.byteOffset, longest.length), longest, 'apply'],
    [tooLong, tooLong, 'status_version_invalid'],
    [unknown, unknown, 'event_type_unknown'],
    [newer, newer, 'duplicate'],
  ];
  return { huge, bodies, deliveries };
}
