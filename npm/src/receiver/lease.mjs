// A payment's lease kept while its handler runs: renewed every third of leaseSecs, so that a
// handle slower than the lease keeps the payment from every other pass. Without it, another
// instance takes the payment once the lease runs out and calls handle again while the first
// call still runs, and again at each lease after that: the same fulfil, under one key, for as
// long as handle stays slower than the lease. A lease that an order or a quarantine marked
// meanwhile is renewed too (the mark kept: the outcome is not written, and the payment is
// handled again once this pass gives it back). The price: a handle that never settles holds
// its payment until its process ends, which the caller says once it has run past the lease.
// A renewal that never settles (a store connection hung) is waited for a third of the lease at
// most: the lease is then taken as possibly lost, and the pass goes on (a renewal that
// settles after the outcome was written finds the lease released, and renews nothing).

/**
 * Starts renewing. `renew()` resolves whether the lease is still this pass's (a rejection is a
 * store that failed this once: asked again at the next renewal, the lease may run out
 * meanwhile); `pastLease(secs)` is called once, when the handler has run leaseSecs with its
 * lease held. Returns `stop()`, which resolves once no renewal is in flight (or one has hung
 * for a third of the lease), so that the outcome written after it is not raced by one, to
 * whether every renewal renewed the lease and one did within leaseSecs of now (when not, it
 * may have run out while the handler ran). `misanswered(error)` is called when `renew()` threw a
 * `StoreAnswerError`; the lease is then not renewed again.
 */
export function keepLease({ renew, leaseSecs, pastLease, misanswered }) {
  const started = Date.now();
  let stopped = false;
  let held = true;
  let kept = true;
  // When the lease was last known to be this pass's. No renewal runs while the event loop is
  // blocked (a synchronous handler, a long pause): past leaseSecs from here, another pass may
  // have taken the payment meanwhile, though no renewal said so.
  let heldAt = started;
  let told = false;
  let timer = null;
  let inFlight = Promise.resolve();
  const tick = () => {
    inFlight = (async () => {
      try {
        held = (await renew()) === true;
        if (held) heldAt = Date.now();
        else kept = false;
      } catch (failure) {
        // The store failed this time: the next renewal asks again. One that answered what the
        // contract does not allow is not asked again: nothing says whether it holds the lease.
        kept = false;
        if (failure instanceof StoreAnswerError) {
          held = false;
          misanswered?.(failure);
        }
      }
      const secs = (Date.now() - started) / 1000;
      if (held && !told && !stopped && secs >= leaseSecs) {
        told = true;
        pastLease(secs);
      }
      if (held && !stopped) schedule();
    })();
  };
  function schedule() {
    timer = setTimeout(tick, (leaseSecs * 1000) / 3);
    // The renewals alone do not keep a process alive (a number in browsers and workerd).
    timer?.unref?.();
  }
  schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    let wait;
    const hung = new Promise((resolve) => { wait = setTimeout(() => resolve(true), (leaseSecs * 1000) / 3); });
    const stuck = await Promise.race([inFlight.then(() => false), hung]);
    clearTimeout(wait);
    return !stuck && kept && Date.now() - heldAt < leaseSecs * 1000;
  };
}

/**
 * The lease on a payment renewed while it is still this owner's, run out or not (with `marked`,
 * also once an order or a quarantine marked it): the store's `renew`, or for a store without
 * one (written before it), `load`, which renews it too (never a marked one).
 */
export async function renewed(store, paymentId, owner, { recoverAfterSecs, leaseSecs, recheckClosedSecs }, marked = false) {
  if (typeof store.renew === 'function') {
    const held = await store.renew({ paymentId, owner, leaseSecs, marked });
    if (typeof held !== 'boolean') throw storeAnswer('renew', held, 'true or false (whether the lease is still this owner\'s)');
    return held;
  }
  const state = await store.load({ paymentId, owner, recoverAfterSecs, leaseSecs, recheckClosedSecs });
  return state !== null && state.leased;
}

/** A store's answer that its contract (docs/receiver.md, the store contract) does not allow. */
export class StoreAnswerError extends TypeError {}

/**
 * The error for store.`member` resolving `value` where the loop takes `expected`: named with the
 * value's kind (a custom store's answer may hold anything, so never its text).
 */
export function storeAnswer(member, value, expected) {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'number' || typeof value === 'boolean' ? String(value) : `a value of type ${typeof value}`;
  return new StoreAnswerError(`fulfilment: the store's ${member} resolved ${kind}, not ${expected}. A custom store answers as the `
    + 'store contract says (docs/receiver.md; the typings, ReceiverStore)');
}
