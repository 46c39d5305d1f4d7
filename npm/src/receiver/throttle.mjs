// Log lines anyone can cause (a forged, unsigned, oversized or replayed request each gets one)
// are said at most LINES_PER_WINDOW times per kind in a window of WINDOW_SECS: a flood of
// requests must not fill the log, or page someone once a request. The rest are counted: when
// the window ends, the last of them is said with the count (a flood that stops still says how
// big it was), where a timer can wait without keeping the process alive (Node and Bun:
// `unref`); elsewhere (Deno, whose test sanitizer would report a pending timer; Workers and
// other serverless runtimes, which may drop it once the response is sent), and when it did not
// run, the first line of a later window says it. onOutcome still gets every refusal.

export const LINES_PER_WINDOW = 5;
export const WINDOW_SECS = 60;

/**
 * A sayer of lines by kind: `say(kind, log, line)` calls `log(line)` for the first
 * LINES_PER_WINDOW lines of `kind` in each window, and counts the others. The kinds are a
 * fixed set of the caller's (never a value from a request), so the map stays small.
 */
export function lineThrottle(nowMs = () => Date.now()) {
  const kinds = new Map(); // kind -> { from (ms), said, unsaid, last: [log, line] of the latest unsaid, timer }

  // The window of `state` has ended: its last unsaid line, with the count.
  function summarize(state) {
    state.timer = null;
    if (state.unsaid === 0) return;
    const [log, line] = state.last;
    const count = state.unsaid;
    state.unsaid = 0;
    state.last = null;
    log(`${line} (the last of ${count} like it in ${WINDOW_SECS} s that were counted, not said)`);
  }

  return function say(kind, log, line) {
    const now = nowMs();
    let state = kinds.get(kind);
    let before = '';
    if (state === undefined || now < state.from || now - state.from >= WINDOW_SECS * 1000) {
      if (state !== undefined) {
        if (state.timer !== null) clearTimeout(state.timer);
        if (state.unsaid > 0) before = ` (${state.unsaid} more like it were counted, not said, in the window before)`;
      }
      state = { from: now, said: 0, unsaid: 0, last: null, timer: null };
      kinds.set(kind, state);
    }
    if (state.said >= LINES_PER_WINDOW) {
      state.unsaid += 1;
      state.last = [log, line];
      if (state.timer === null) state.timer = windowEnd(() => summarize(state), state.from + WINDOW_SECS * 1000 - now);
      return;
    }
    state.said += 1;
    const last = state.said === LINES_PER_WINDOW ? `; more like it in the next ${WINDOW_SECS} s are counted, not said` : '';
    log(`${line}${before}${last}`);
  };
}

// Whether this runtime's timers can be unref'd: false once one could not (then no more are made).
let unrefable = typeof setTimeout === 'function';

// A timer for the end of a window that never keeps the process alive (unref'd); null where
// the runtime's timers cannot be (their ids are numbers), or it has none.
function windowEnd(run, ms) {
  if (!unrefable) return null;
  const timer = setTimeout(() => {
    try {
      run();
    } catch {
      // A log that throws loses only this line.
    }
  }, Math.max(0, ms));
  if (typeof timer?.unref === 'function') {
    timer.unref();
    return timer;
  }
  clearTimeout(timer);
  unrefable = false;
  return null;
}
