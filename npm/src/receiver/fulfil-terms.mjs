// The terms of the merchant loop (fulfil.mjs): its options and their limits, its backoff, and
// the pieces of its lines, apart from the loop's own flow.

import { checkKeys, integer, invalid } from './stores/common.mjs';

export const ACTIONS = new Set(['fulfil', 'review', 'wait', 'closed']);
export const DIGITS = /^(?:0|[1-9][0-9]*)$/;
// Outcomes after which a payment is not checked again for a lost delivery (a new event still
// brings it back): paid and handled, ended unpaid, or held for a person as not linked. One
// that ended unpaid (closed) is still checked for money that came late, less and less often,
// for recheckClosedSecs after its order was recorded (the store's claim says when); one held
// for review, less and less often for as long as it stays in review (the store's complete sets
// its seen_at ahead).
export const SETTLED = new Set(['fulfil', 'closed', 'needs_review']);
export const FULFIL_OPTIONS = ['confirm', 'handle', 'policy', 'batch', 'leaseSecs', 'recoverAfterSecs', 'recheckClosedSecs'];
const DEFAULTS = { batch: 20, leaseSecs: 300, recoverAfterSecs: 900, recheckClosedSecs: 604_800 };
const LIMITS = { batch: [1, 1000], leaseSecs: [1, 86_400], recoverAfterSecs: [1, 31_536_000], recheckClosedSecs: [0, 31_536_000] };
// A failed attempt is tried again after 1, 2, 4, ... seconds, at most an hour apart.
const MAX_DELAY_SECS = 3600;
// A payment whose work failed in the loop itself (its stored order unreadable, the store
// refusing its outcome) is set aside this long, so that the rest of the batch goes on; one
// whose handle had run (and is called again at the next attempt) twice as long each attempt,
// at most an hour.
export const FAILED_DELAY_SECS = 60;
// Lines a pass writes for retries with one code and one cause (the service down: a line per
// payment would bury the rest); the others are counted in one line at the pass's end, and each
// goes to onOutcome. A cause of its own (a handler's error for one order) always has its line.
export const LINES_PER_CAUSE = 3;

export const delaySecs = (attempts) => Math.min(2 ** Math.max(attempts - 1, 0), MAX_DELAY_SECS);
export const failedDelaySecs = (attempts) => Math.min(FAILED_DELAY_SECS * delaySecs(attempts), MAX_DELAY_SECS);

// A version in a line: its first digits, should it be long.
const shownVersion = (version) => {
  const text = String(version);
  return text.length > 24 ? `${text.slice(0, 24)}... (${text.length} digits)` : text;
};

/**
 * Why a view behind the applied event is fetched again: a lagging read catches up within a few
 * attempts; one still behind after STALE_SUSPECT attempts means the store holds a version the
 * service never sent. (An object with a message alone: describeError writes no name before it.)
 */
export function staleView(viewVersion, storeVersion, attempts) {
  const versions = `the service's view is at version ${shownVersion(viewVersion)}, the applied event at ${shownVersion(storeVersion)}`;
  if (attempts < STALE_SUSPECT) return { message: versions };
  return { message: `${versions}: still behind after ${attempts} attempts, the applied event is one the service never sent (signed with `
    + 'your Secret elsewhere: a leaked Secret, to rotate), and every later genuine event is recorded stale; set the payment\'s '
    + 'status_version back to \'0\' and call receiver.retryNow() (docs/receiver.md, "Operating it")' };
}
const STALE_SUSPECT = 5;

// The start of the lines about a handle call that ran past its lease, and why no renewal kept it.
export const handleCall = (paymentId, action, idempotencyKey) => `fulfilment: handle for payment ${paymentId} (action ${action}, key ${idempotencyKey})`;
export const tookPastLease = (took, leaseSecs) => `took ${took.toFixed(1)} s, past its lease (leaseSecs ${leaseSecs})`;
export const BLOCKED = 'the event loop was blocked past the lease, so no renewal ran';
let owners = 0;
// A pass's lease owner: unique enough among the instances of one database (no secret).
export const ownerId = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}-${(owners += 1)}`;

export const viewText = (answer) => {
  if (typeof answer === 'string') return answer;
  if (answer !== null && typeof answer === 'object' && typeof answer.responseText === 'string') return answer.responseText;
  return null;
};

/** The options of fulfil and startFulfilment (`what` names the call), checked, defaults filled in. */
export function fulfilOptions(options, what) {
  checkKeys(options, FULFIL_OPTIONS, what);
  for (const name of ['confirm', 'handle']) {
    if (typeof options[name] !== 'function') {
      throw invalid(`${what} needs ${name}: ${name === 'confirm' ? 'async (paymentId) => the exact text of GET /v1/payments/{payment_id} (the client\'s getPayment)'
        : 'async ({ action, view, order, idempotencyKey }) => what fulfilling means for you'}`);
    }
  }
  if (options.policy !== undefined && typeof options.policy !== 'function') {
    throw invalid(`${what}: policy is a function (view, order, { fulfilledBefore, fulfilKey }) => 'fulfil' | 'review' | 'wait' | 'closed'`);
  }
  const chosen = { confirm: options.confirm, handle: options.handle, policy: options.policy };
  for (const [name, fallback] of Object.entries(DEFAULTS)) {
    chosen[name] = options[name] === undefined ? fallback : integer(options[name], name, LIMITS[name]);
  }
  return chosen;
}
