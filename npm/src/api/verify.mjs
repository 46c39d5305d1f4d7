// Verifying deliveries: the one-shot functions and the keyed Verifier, over the core's
// RawVerifier. A refusal crosses as a number; its code and message are asked of the core once
// per distinct failure, and the CryptoPayError is built here (see `refusal`).
//
// A refusal is returned up to the public method, which throws it: measured in Node 20
// (a Verifier at 256 B, one process each), a forged delivery thrown from there costs 2.39 us
// against 2.77 thrown from `settle`, and the valid deliveries verified after forged ones
// 1.53 against 1.60 us.

import { assertReady, fail, refusal, refuse } from './errors.mjs';
import { buildEvent } from './event.mjs';
import { MILLISECONDS, PAST } from './hints.mjs';
import { forgetHostKeys, hostHashes, hostKeys, hostMac, hostTags } from './host-mac.mjs';
import { glue, limits } from './instance.mjs';
import {
  CALL_KEYS, DUPLICATED, NEVER_WELL_FORMED, VERIFY_OPTIONS, bodyBytes, headerValue, maxBody, maxSkew,
  notHeader, onlyKnownKeys, options, safeUint, secretLists, sentValue,
} from './inputs.mjs';

// The code, message and fault of each failure the core numbered, asked once.
const failures = [];
function failure(n) {
  return (failures[n] ??= { code: glue.failureCode(n), message: glue.failureMessage(n), receiverFault: glue.failureReceiverFault(n) });
}

// The answer of RawVerifier.verify: the result, or the CryptoPayError of the refusal it
// numbered (for the public method to throw).
function settle(outcome, bytes, parse, timestamp, signature, input) {
  if (outcome < 0) {
    const { code, message, receiverFault } = failure(-1 - outcome);
    const name = code === 'timestamp_malformed' ? 'timestamp' : code === 'signature_malformed' ? 'signature' : null;
    const value = name === 'timestamp' ? timestamp : signature;
    if (name !== null && value === DUPLICATED) {
      return refuse('header_duplicated', `${name} was given as an array of several values (the header was sent more than once)`);
    }
    // A value that is never a header's (a number, an object): the caller's own; a string
    // longer than the header ever holds is what the network sent, the delivery's.
    if (name !== null && value === NEVER_WELL_FORMED) {
      const sent = input[name];
      return typeof sentValue(sent) === 'string'
        ? refuse(code, notHeader(name, sent))
        : fail(code, notHeader(name, sent), true);
    }
    // No 12-digit timestamp is within a skew of a clock in milliseconds: say so.
    if (code === 'timestamp_too_old' && input.nowSecs >= MILLISECONDS) {
      return fail(code, 'nowSecs is in milliseconds (13 digits or more): pass Math.floor(Date.now() / 1000)', true);
    }
    // Nor of any authentic delivery with a clock before 2001 (one that failed, or never set).
    if (code === 'timestamp_in_future' && input.nowSecs < PAST) {
      return fail(code, `nowSecs is ${input.nowSecs}, before September 2001: not the current Unix time in seconds (a clock that failed or was never set, `
        + 'or seconds since the process started?): pass Math.floor(Date.now() / 1000)', true);
    }
    return refusal(code, message, receiverFault);
  }
  // The kind's index, below the event's flags (multiples of outcomeInexact).
  const matchedSecret = limits.kinds[outcome % limits.outcomeInexact];
  // The core accepted the timestamp as 1 to 12 ASCII digits: Number() reads it exactly.
  const seconds = Number(timestamp);
  return parse
    ? { event: buildEvent(bytes, outcome), matchedSecret, timestamp: seconds }
    : { matchedSecret, timestamp: seconds };
}

const EMPTY = new Uint8Array(0);

// One delivery through a keyed RawVerifier, after its options were checked: the result, or
// the refusal to throw (see `settle`). `hostKeysOf()` gives the host's keys of the same
// secrets, or null: a body of `minBody` bytes or more (`hostMac.minBodyBytes`) is then hashed
// by the host (once the first `hostMac.deferBytes` of such bodies were hashed here: see
// `hostHashes`) and the core decides with its tags (it still reads the headers first and
// reports a malformed one with its own code). A delivery missing a header is left to the
// core, which refuses it without hashing its body; so is one the host fails to hash (the
// WebAssembly HMAC gives the same answers).
function verifyWith(rawOf, limit, input, now, parse, minBody, hostKeysOf) {
  // The header values first: a getter of one may detach the body's buffer, which must then be
  // seen by bodyBytes (body_not_raw), never found detached by the copy into the core.
  const timestamp = headerValue(input.timestamp);
  const signature = headerValue(input.signature);
  const bytes = bodyBytes(input.body, limit);
  // Taken once every value of the call was read: a getter of the input may have freed the
  // Verifier, and a freed one must be refused here, never reach the core.
  const raw = rawOf();
  if (raw === null) return fail('invalid_argument', 'this Verifier was freed');
  const tags = hostMac.key !== null && bytes.byteLength >= minBody && timestamp !== '' && signature !== ''
    && hostHashes(bytes.byteLength)
    ? hostTagsOf(hostKeysOf, timestamp, bytes)
    : null;
  let outcome = tags === null
    ? raw.verify(bytes, timestamp, signature, now, parse)
    : raw.verifyTags(timestamp, signature, now, parse, parse ? bytes : EMPTY, tags, hostMac.inner);
  // A timestamp that reads as a signature is the receiver's fault only when the delivery
  // verifies with its two header values read the other way round, which the core checks with
  // its own HMAC over the body: the host's tags are of the headers as given.
  if (tags !== null && outcome < 0 && failure(-1 - outcome).code === 'timestamp_malformed') {
    outcome = raw.verify(bytes, timestamp, signature, now, parse);
  }
  return settle(outcome, bytes, parse, timestamp, signature, input);
}

// The host's tags of a delivery, or null where it has no keys for the set or fails.
function hostTagsOf(hostKeysOf, timestamp, bytes) {
  try {
    const keys = hostKeysOf();
    return keys === null ? null : hostTags(keys, timestamp, bytes);
  } catch {
    return null;
  }
}

// The one-shot functions take the secrets with every call. Keying them (the HMAC's inner and
// outer states, the host's keys) cost more than verifying a small delivery, and a receiver
// calls with the same secrets every time: so the keyed sets of the last ONE_SHOT_KEPT distinct
// calls are kept, most recent last, and the oldest is freed (its states wiped) when another
// comes. A set is found by its exact secrets, kinds, bounds and options (the caller's own
// values, never the network's, so comparing them as text leaks nothing). A receiver verifying
// many deliveries still does best with one Verifier, which it can free().
const ONE_SHOT_KEPT = 4;
const keptOnce = new Map();

// The cache key: every input that keys the set, unambiguously. One secret as given, after
// `=`; a list after `[`, its kinds and secrets each prefixed by its length (a kind is any text
// until the core refuses it: joined by a separator, a bad kind could spell another set's key
// and take its keyed states without the set's checks).
const sized = (text) => `${text.length}:${text}`;
const listKey = (list, kinds, until) => `[${kinds.map(sized).join('')}|${until.join(',')}|${list.map(sized).join('')}`;

// The newest call's secret (one string), bounds and set: the usual receiver passes the same
// secret every time, which is then found with three comparisons, no key built and no change
// to the map (it is the map's newest entry already). Measured: about a tenth of a one-shot
// verifyWebhook at 1 KiB.
let newest = { secrets: null, skew: -1, limit: -1, kept: null };

// An evicted set's keyed states freed (wiped in the core) and its host keys forgotten.
function release(kept) {
  kept.raw.free();
  forgetHostKeys(kept.keys);
}

// The kept set for these secrets, made (and the oldest freed) when it is not kept yet. Only a
// string is matched by identity: after a list, `newest.secrets` is null, and a null (or any
// other value) given next must be refused by secretLists, never take the list's set.
function keyedOnce(secrets, skew, limit) {
  if (typeof secrets === 'string' && secrets === newest.secrets && skew === newest.skew && limit === newest.limit) return newest.kept;
  const key = typeof secrets === 'string' ? `${skew}|${limit}|=${secrets}` : null;
  let kept = key === null ? undefined : keptOnce.get(key);
  let at = key;
  if (kept === undefined) {
    const [list, kinds, until] = secretLists(secrets);
    at ??= `${skew}|${limit}|${listKey(list, kinds, until)}`;
    kept = keptOnce.get(at);
    // The set's material (no_secrets, secret_empty) is reported after the delivery's checks.
    kept ??= { raw: new glue.RawVerifier(list, kinds, until, skew, limit, true), list, keys: undefined, calls: 0, evicted: false };
  }
  keptOnce.delete(at);
  if (keptOnce.size >= ONE_SHOT_KEPT) {
    const [oldest, evicted] = keptOnce.entries().next().value;
    keptOnce.delete(oldest);
    // A set a call is still using (a getter of its input made other one-shot calls) is freed
    // when that call ends.
    if (evicted.calls === 0) release(evicted);
    else evicted.evicted = true;
  }
  keptOnce.set(at, kept);
  newest = { secrets: typeof secrets === 'string' ? secrets : null, skew, limit, kept };
  return kept;
}

function verifyOnce(input, what, parse) {
  assertReady();
  if (!onlyKnownKeys(input, true)) options(input, VERIFY_OPTIONS, what);
  const now = safeUint(input.nowSecs, 'nowSecs');
  const skew = maxSkew(input.maxSkewSecs);
  const limit = maxBody(input.maxBodyBytes);
  const kept = keyedOnce(input.secrets, skew, limit);
  kept.calls += 1;
  try {
    return verifyWith(() => kept.raw, limit, input, now, parse, hostMac.minBodyBytes, () => {
      kept.keys ??= hostKeys(kept.list);
      return kept.keys;
    });
  } finally {
    kept.calls -= 1;
    if (kept.evicted && kept.calls === 0) release(kept);
  }
}

/** Verifies a delivery without parsing it. */
export function verifySignature(input) {
  const result = verifyOnce(input, 'verifySignature', false);
  if (result instanceof Error) throw result; // the refusal (a CryptoPayError), else the result
  return result;
}

/** Verifies a delivery, then parses its event from the same bytes. */
export function verifyWebhook(input) {
  const result = verifyOnce(input, 'verifyWebhook', true);
  if (result instanceof Error) throw result; // the refusal (a CryptoPayError), else the result
  return result;
}

// The brand check, set by Verifier's static block. The class never names itself in its body:
// a bundler renames a class that does (esbuild: `class _Verifier`), and V8's TypeError for a
// call without `new` would then name `_Verifier`.
let isVerifier;

// A method called on something else (detached from its Verifier, or on the prototype).
function own(receiver, method) {
  if (!isVerifier(receiver)) {
    throw fail('invalid_argument', `${method} must be called on a Verifier (keep it as verifier.${method}(...))`);
  }
  return receiver;
}

/**
 * A verifier keyed once and reused for every delivery. A class: `Verifier(...)` without
 * `new` is JavaScript's own TypeError (a programming error TypeScript reports).
 */
export class Verifier {
  #raw;
  #limit;
  // The host's keys of the same secrets (keyed node:crypto hashes in Node and Deno, keyed
  // CryptoHashers in Bun), or null; made at the first body the host hashes (until then
  // `#list` holds the secrets' strings).
  #keys;
  #list;

  static {
    isVerifier = (value) => value !== null && typeof value === 'object' && #raw in value;
  }

  constructor(init) {
    assertReady();
    options(init, ['secrets', 'maxSkewSecs', 'maxBodyBytes'], 'new Verifier');
    const skew = maxSkew(init.maxSkewSecs);
    const limit = maxBody(init.maxBodyBytes);
    const [list, kinds, until] = secretLists(init.secrets);
    this.#raw = new glue.RawVerifier(list, kinds, until, skew, limit, false);
    this.#limit = limit;
    this.#list = list;
  }

  #hostKeys() {
    if (this.#keys === undefined) {
      this.#keys = hostKeys(this.#list);
      this.#list = null;
    }
    return this.#keys;
  }

  #verify(input, what, parse) {
    if (!onlyKnownKeys(input, false)) options(input, CALL_KEYS, what);
    if (this.#raw === null) throw fail('invalid_argument', 'this Verifier was freed');
    const now = safeUint(input.nowSecs, 'nowSecs');
    return verifyWith(() => this.#raw, this.#limit, input, now, parse, hostMac.minBodyBytes, () => this.#hostKeys());
  }

  verifySignature(input) {
    const result = own(this, 'verifySignature').#verify(input, 'verifySignature', false);
    if (result instanceof Error) throw result; // the refusal (a CryptoPayError), else the result
    return result;
  }

  verifyWebhook(input) {
    const result = own(this, 'verifyWebhook').#verify(input, 'verifyWebhook', true);
    if (result instanceof Error) throw result; // the refusal (a CryptoPayError), else the result
    return result;
  }

  /** The largest body this verifier takes, in bytes: maxBodyBytes as given, else the default. */
  get maxBodyBytes() {
    return own(this, 'maxBodyBytes').#limit;
  }

  /** Releases the keyed state now (it is also reclaimed when garbage-collected). */
  free() {
    own(this, 'free');
    if (this.#raw !== null) {
      this.#raw.free();
      this.#raw = null;
      forgetHostKeys(this.#keys);
      this.#keys = null;
      this.#list = null;
    }
  }
}
if (typeof Symbol.dispose === 'symbol') {
  Verifier.prototype[Symbol.dispose] = Verifier.prototype.free;
}
