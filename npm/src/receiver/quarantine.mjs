// The quarantine read back: the authentic deliveries that were no recordable event (an
// unreadable status_version, a body that is no payment.updated), kept whole by the store, listed
// in the order they came with what can be read of each body.

import { needs } from './orders.mjs';
import { checkKeys, integer } from './stores/common.mjs';

const decoder = new TextDecoder();

/**
 * What can be read of a quarantined body: its event_id and data.payment_id, when it is JSON
 * holding them as strings (else null).
 */
export function readable(body) {
  try {
    const value = JSON.parse(decoder.decode(body));
    const text = (v) => (typeof v === 'string' ? v : null);
    return { eventId: text(value?.event_id), paymentId: text(value?.data?.payment_id) };
  } catch {
    return { eventId: null, paymentId: null };
  }
}

/** The receiver's `quarantined({ afterId?, limit? })` over `store`. */
export function quarantineList({ store, ready }) {
  async function quarantined(options) {
    needs(store, ['listQuarantined'], 'quarantined');
    let afterId = 0;
    let limit = 100;
    if (options !== undefined) {
      checkKeys(options, ['afterId', 'limit'], 'quarantined');
      if (options.afterId !== undefined) afterId = integer(options.afterId, 'afterId', [0, Number.MAX_SAFE_INTEGER]);
      if (options.limit !== undefined) limit = integer(options.limit, 'limit', [1, 10_000]);
    }
    await ready();
    const rows = await store.listQuarantined({ afterId, limit });
    return rows.map((row) => ({ ...row, ...readable(row.body) }));
  }
  return { quarantined };
}
