// retryNow: the payments waiting out the backoff of a failed attempt made due at once, for a
// merchant who fixed what failed (a handler, an API key, a service that was down) and would
// rather not wait up to an hour for the next try.

import { needs } from './orders.mjs';
import { checkKeys, invalid } from './stores/common.mjs';

/** The receiver's `retryNow({ paymentId? })` over `store`: how many payments were made due. */
export function dueNow({ store, ready }) {
  async function retryNow(options) {
    needs(store, ['retryNow'], 'retryNow');
    let paymentId = null;
    if (options !== undefined) {
      checkKeys(options, ['paymentId'], 'retryNow', 'retryNow takes an options object: { paymentId? }');
      if (options.paymentId !== undefined) {
        if (typeof options.paymentId !== 'string' || options.paymentId === '') {
          throw invalid('retryNow: paymentId is a payment_id, a non-empty string (leave it out for every payment backing off)');
        }
        paymentId = options.paymentId;
      }
    }
    await ready();
    return store.retryNow({ paymentId });
  }
  return { retryNow };
}
