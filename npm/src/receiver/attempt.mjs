// One attempt at a time at what every call needs first (the store made ready, the receiver
// created), shared by the calls that arrive while it runs.

/** How long a call waits on an attempt before it starts the next one itself. */
export const PATIENCE_MS = 10_000;

const LATE = Symbol('late');

/**
 * `start()`, run once for all the calls that arrive while it runs: forgotten when it fails (the
 * next call starts another), kept once it succeeds. A call that has waited `PATIENCE_MS` on an
 * attempt that has not settled starts the next one (the calls waiting with it take that one
 * up), and after waiting on two rejects with `stuck(waitedMs)`. A Worker request whose client
 * went away leaves the attempt it started pending for ever (its I/O cancelled), and a driver
 * without timeouts can hang: neither may hold every later call of the isolate or process.
 * An attempt given up on still counts when it succeeds.
 */
export function sharedAttempt(start, stuck) {
  let done = false;
  let value;
  let current = null;
  function begin() {
    const attempt = Promise.resolve().then(start).then((result) => {
      done = true;
      value = result;
      if (current === attempt) current = null;
      return result;
    }, (failure) => {
      if (current === attempt) current = null;
      throw failure;
    });
    attempt.catch(() => {}); // one given up on may fail with no call left to hear it
    current = attempt;
    return attempt;
  }
  return async function get() {
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
        outcome = await Promise.race([attempt, late]);
      } finally {
        clearTimeout(timer);
      }
      if (outcome !== LATE) return outcome;
      if (done) return value;
      if (waits >= 2) throw stuck(waits * PATIENCE_MS);
      if (current === attempt) current = null; // the next to look starts another
    }
  };
}
