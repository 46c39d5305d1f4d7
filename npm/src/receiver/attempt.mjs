// One attempt at a time at what every call needs first (the store made ready, the receiver
// created), shared by the calls that arrive while it runs.

/** How long a call waits on an attempt before it looks again; twice that, and it gives up. */
export const PATIENCE_MS = 10_000;

const LATE = Symbol('late');

// Where a request's pending I/O is cancelled with it (Cloudflare Workers: a client that went
// away): an attempt another request started may then never settle, and a call that has waited
// on it starts the next. Elsewhere an attempt runs to its end (a migration may take minutes,
// and a second one would only wait on the first's lock). Read at each call: the runtime's own.
const cancelsIo = () => globalThis.navigator?.userAgent === 'Cloudflare-Workers';

/**
 * `start()`, run once for all the calls that arrive while it runs: forgotten when it fails (the
 * next call starts another), kept once one succeeds. `patiently()` waits for it as long as it
 * runs (an explicit `ready()` at start); `briefly()` at most 2 × PATIENCE_MS, then rejects with
 * `stuck(waitedMs)` (a delivery, answered 503 meanwhile), and on Workers starts the next
 * attempt after PATIENCE_MS. A driver without timeouts may hang for ever: no delivery then
 * waits on it for ever.
 */
export function sharedAttempt(start, stuck) {
  let done = false;
  let value;
  let current = null;
  let wake;
  const settled = new Promise((resolve) => { wake = resolve; });
  function begin() {
    const attempt = Promise.resolve().then(start).then((result) => {
      // The first success is kept (an attempt given up on may still succeed, before or after
      // the one that replaced it), and every call waiting on any attempt is woken by it.
      if (!done) {
        done = true;
        value = result;
        wake(result);
      }
      if (current === attempt) current = null;
      return value;
    }, (failure) => {
      if (current === attempt) current = null;
      throw failure;
    });
    attempt.catch(() => {}); // one given up on may fail with no call left to hear it
    current = attempt;
    return attempt;
  }
  async function briefly() {
    for (let waits = 1; ; waits += 1) {
      if (done) return value;
      const attempt = current ?? begin();
      let timer;
      const late = new Promise((resolve) => {
        timer = setTimeout(resolve, PATIENCE_MS, LATE);
        timer?.unref?.();
      });
      let outcome;
      try {
        outcome = await Promise.race([attempt, settled, late]);
      } finally {
        clearTimeout(timer);
      }
      if (outcome !== LATE) return outcome;
      if (done) return value;
      if (waits >= 2) throw stuck(waits * PATIENCE_MS);
      if (cancelsIo() && current === attempt) current = null; // the next to look starts another
    }
  }
  async function patiently() {
    if (done) return value;
    if (cancelsIo()) return briefly();
    return current ?? begin();
  }
  return { patiently, briefly };
}
