// Log lines anyone can cause (a forged, unsigned, oversized or replayed request each gets one)
// are said at most LINES_PER_WINDOW times per kind in a window of WINDOW_SECS: a flood of
// requests must not fill the log, or page someone once a request. The rest are counted, and the
// first line of the next window says how many were left unsaid. onOutcome still gets every
// refusal.

export const LINES_PER_WINDOW = 5;
export const WINDOW_SECS = 60;

/**
 * A sayer of lines by kind: `say(kind, log, line)` calls `log(line)` for the first
 * LINES_PER_WINDOW lines of `kind` in each window, and counts the others. The kinds are a
 * fixed set of the caller's (never a value from a request), so the map stays small.
 */
export function lineThrottle(nowMs = () => Date.now()) {
  const kinds = new Map(); // kind -> { from (ms), said, unsaid }
  return function say(kind, log, line) {
    const now = nowMs();
    let state = kinds.get(kind);
    let before = '';
    if (state === undefined || now < state.from || now - state.from >= WINDOW_SECS * 1000) {
      if (state !== undefined && state.unsaid > 0) before = ` (${state.unsaid} more like it were counted, not said, in the window before)`;
      state = { from: now, said: 0, unsaid: 0 };
      kinds.set(kind, state);
    }
    if (state.said >= LINES_PER_WINDOW) {
      state.unsaid += 1;
      return;
    }
    state.said += 1;
    const last = state.said === LINES_PER_WINDOW ? `; more like it in the next ${WINDOW_SECS} s are counted, not said` : '';
    log(`${line}${before}${last}`);
  };
}
