// One attempt at a time at what every call needs first (the store made ready, the receiver
// created), shared by the calls that arrive while it runs.

/** How long a call waits on an attempt before it looks again; twice that, and it gives up. */
export const PATIENCE_MS = 10_000;

// How long an attempt may run before a waiting call starts the next one, where a request's
// I/O is never cancelled: past the longest a store's ready() runs (postgresStore lets a
// migration run 10 minutes), it has hung (a query on a connection a failover left half-open).
const HUNG_MS = 11 * 60_000;

const LATE = Symbol('late');

// Where a request's pending I/O is cancelled with it (Cloudflare Workers: a client that went
// away): an attempt another request started may then never settle, and a call that has waited
// on it starts the next. Elsewhere an attempt runs to its end (a migration may take minutes,
// and a second one would only wait on the first's lock). Read at each call: the runtime's own.
const cancelsIo = () => globalThis.navigator?.userAgent === 'Cloudflare-Workers';

/**
 * `start()`, run once for all the calls that arrive while it runs: forgotten when it fails (the
 * calls waiting on it are told, the next call starts another), kept once one succeeds (every
 * call waiting is given it). `patiently()` waits as long as the attempt runs (an explicit
 * `ready()` at start); `briefly()` at most 2 × PATIENCE_MS, then rejects with
 * `stuck(waitedMs)` (a delivery, answered 503 meanwhile). A call that has waited PATIENCE_MS
 * starts the next attempt on Workers, and elsewhere once the attempt has run HUNG_MS. On
 * Workers `patiently()` is `briefly()`: a request must not wait on a cancelled one's attempt.
 * A call holds nothing once it is answered (no handler left on a promise that may never
 * settle).
 */
export function sharedAttempt(start, stuck) {
  let done = false;
  let value;
  let current = null;
  const waiters = new Set();
  function begin() {
    const attempt = { startedAt: Date.now() };
    current = attempt;
    Promise.resolve().then(start).then((result) => {
      // The first success is kept (an attempt given up on may still succeed, before or after
      // the one that replaced it), and every call waiting on any attempt is given it.
      if (!done) {
        done = true;
        value = result;
      }
      if (current === attempt) current = null;
      for (const waiter of waiters) waiter.settle(() => value);
      waiters.clear();
    }, (failure) => {
      if (current === attempt) current = null;
      for (const waiter of waiters) {
        if (waiter.attempt !== attempt) continue;
        waiters.delete(waiter);
        waiter.settle(() => { throw failure; });
      }
    });
    return attempt;
  }
  // The value, the attempt's failure, or LATE after `ms` (Infinity: never).
  function wait(attempt, ms) {
    return new Promise((resolve, reject) => {
      let timer;
      const waiter = {
        attempt,
        settle(outcome) {
          clearTimeout(timer);
          try {
            resolve(outcome());
          } catch (failure) {
            reject(failure);
          }
        },
      };
      waiters.add(waiter);
      if (ms === Infinity) return;
      timer = setTimeout(() => {
        waiters.delete(waiter);
        resolve(LATE);
      }, ms);
      timer?.unref?.();
    });
  }
  async function briefly() {
    for (let waits = 1; ; waits += 1) {
      if (done) return value;
      const attempt = current ?? begin();
      const outcome = await wait(attempt, PATIENCE_MS);
      if (outcome !== LATE) return outcome;
      if (done) return value;
      if (waits >= 2) throw stuck(waits * PATIENCE_MS);
      const hung = cancelsIo() || Date.now() - attempt.startedAt > HUNG_MS;
      if (hung && current === attempt) current = null; // the next to look starts another
    }
  }
  async function patiently() {
    if (done) return value;
    if (cancelsIo()) return briefly();
    return wait(current ?? begin(), Infinity);
  }
  return { patiently, briefly };
}
