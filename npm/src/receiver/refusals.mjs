// Why a delivery was refused, said once in the log and to onOutcome: a forgery, or an authentic
// delivery (or one the configuration kept from being read) refused for configuration reasons,
// each with what it costs (a 400 is final for the service) and the fix.

import { parseEvent } from 'cryptopay-verify';
import { underscoreHint } from '../api/hints.mjs';
import { answers } from './answers.mjs';
import { authentic } from './integrations.mjs';
import { bodyHint, headerNames, nearMisses, routeOf } from './observe.mjs';
import { lineThrottle } from './throttle.mjs';
import { EVICT_AFTER_MS } from './limits.mjs';

const encoder = new TextEncoder();

// Configuration errors: the service retries (5xx) while they are fixed.
const MISCONFIGURED = new Set(['body_not_raw', 'invalid_argument']);

// What brings back an event answered 400 once its cause is fixed.
const RECOVER = 'a 400 is final for the service (it does not retry it): once fixed, queue a replay from its webhook log, '
  + 'or let a fulfilment pass with recoverAfterSecs confirm the payment';

// Signature mismatches since the log last said so after which it says, at error level, what they
// cost if they are the service's; said at most once per QUIET_SECS, so that forged requests
// cannot fill the log at that level. The count never expires: a shop with a delivery an hour
// whose secret was rotated in the dashboard is told at its fifth.
const MISMATCHES_SAID = 5;
const QUIET_SECS = 600;
// A late delivery signed inside a rotation's overlap is said at most once per LATE_SECS.
const LATE_SECS = 60;
// A timestamp this far from the host's clock is said to be likelier a replay than a clock.
const REPLAY_LIKELY_SECS = 3600;

/** A body's size in bytes, whatever raw shape it came in (0 for none). */
export function sizeOf(body) {
  if (typeof body === 'string') return encoder.encode(body).byteLength;
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return body.byteLength;
  return 0;
}

/**
 * The receiver's refusals: `refuse(failure, delivery, integration, context)`,
 * `misconfigured(why, integration, delivery, kind)` (kind: a fixed name, the line's throttle), `lateInOverlap(match, context, delivery)`, each
 * answering; `verified()` after a delivery that verified.
 */
export function refusals({ warn, error, emit, names, keep, storeMaxBody, oneSecret = 0 }) {
  // The lines a request can cause, a few per kind a minute (throttle.mjs).
  const say = lineThrottle();
  // The mismatches and verified deliveries since the line was last said, and when it was: for
  // the receiver's own faces, and for each integration's route (receiver.integration(name),
  // whose names are secrets' own: the map holds at most one entry per integration).
  // A route's tally keeps, too, when a delivery last verified there (lastVerified, seconds).
  const fresh = () => ({ since: { from: null, mismatches: 0, verified: 0, changed: 0 }, saidAt: null, lastVerified: null });
  const tallies = new Map([[null, fresh()]]);
  const tallyOf = (route) => {
    let tally = tallies.get(route);
    if (tally === undefined) tallies.set(route, (tally = fresh()));
    return tally;
  };

  // Ids of an authentic delivery refused for its timestamp (its signature verified): for the
  // record, so that the replays to queue can be listed. {} when it has none.
  function idsOf(body) {
    try {
      const event = parseEvent(body);
      return { eventId: event.eventId, paymentId: event.paymentId };
    } catch {
      return {};
    }
  }

  async function refuse(failure, delivery, integration, context) {
    const { code } = failure;
    // A delivery whose signature verified (authentic): how far its timestamp was from this clock.
    const age = Number(context.now) - Number(context.timestamp);
    const aged = authentic(failure) && Number.isSafeInteger(age) ? { ageSecs: age } : {};
    const seen = { kind: 'delivery', integration, ...routeOf(delivery), bodyBytes: sizeOf(delivery.body), ...aged };
    if (failure.authentic) return keep(code, delivery.body, 'that is not a readable event', seen);
    if (code === 'body_too_large') {
      tooLarge(`of ${seen.bodyBytes} bytes`);
      emit({ ...seen, status: 413, reason: 'too_large', code });
      return answers.tooLarge();
    }
    if (MISCONFIGURED.has(code)) {
      // A configuration error: the message says how to fix it (never a secret or the body).
      // Any request may cause it (every delivery fails so): said as the refusals are.
      say(`misconfigured ${code}`, error, failure.message);
      emit({ ...seen, status: 500, reason: 'misconfigured', code });
      return answers.misconfigured(code);
    }
    if (authentic(failure)) {
      // The signature verified (skew is checked after it): the clock, not a forger. Its ids go
      // to onOutcome (the replays to queue), not into the line (no byte of a body is logged).
      const ids = idsOf(delivery.body);
      const behind = Number(context.timestamp) - Number(context.now);
      const gap = Number.isSafeInteger(behind) ? ` (its timestamp is ${Math.abs(behind)} s ${behind < 0 ? 'behind' : 'ahead of'} this host's clock)` : '';
      // Far behind any skew, a replay of a captured delivery is likelier than a clock that far
      // off. Ahead, none is (a captured delivery is old): the clocks disagree, and a 500 is
      // retried once they agree, where a 400 would lose the event.
      const future = code === 'timestamp_in_future';
      const replay = !future && Number.isSafeInteger(behind) && Math.abs(behind) > REPLAY_LIKELY_SECS
        ? ` (more than ${REPLAY_LIKELY_SECS} s: if this host's clock is right, a replay of a captured delivery, refused as it should be)` : '';
      // Replays apart from clocks: replays of one captured delivery must not use up the lines of
      // a clock that is off, which loses every event.
      say(replay === '' ? 'skew' : 'replay', error, `refused an authentic delivery (its signature verified${integration === null ? '' : ` with integration "${integration}"'s secret`}): `
        + `${code}${gap}${replay}, over maxSkewSecs: check this host's clock (NTP) and maxSkewSecs`
        + `${future || replay !== '' ? '' : ' (if the clock is right, a captured delivery sent again, refused as it should be: a larger maxSkewSecs widens the window one is accepted in)'}; `
        + `${future ? 'answered 500, so the service retries it: no replay comes from the future, this host\'s clock is behind (or the service\'s ahead)' : RECOVER}`);
      emit({ ...seen, ...ids, status: future ? 500 : 400, reason: 'skew', code });
      return future ? answers.misconfigured(code) : answers.rejected(code);
    }
    if (code === 'timestamp_missing' || code === 'signature_missing') {
      const carried = headerNames(delivery.headers);
      const timestamp = code === 'timestamp_missing';
      const [missing, other, option] = timestamp
        ? [names.timestampHeader, names.signatureHeader, 'timestampHeader'] : [names.signatureHeader, names.timestampHeader, 'signatureHeader'];
      const likely = nearMisses(carried, names, timestamp);
      let guess = '';
      if (carried.includes(missing.toLowerCase())) {
        // It came, with nothing in it: the name is right; something blanked the value.
        guess = `; ${missing} arrived empty: the name is right, and a proxy, gateway or middleware in front may blank its value`;
      } else if (likely.length > 0) {
        guess = `; it carried ${likely.join(', ')}: if that is the service's ${timestamp ? 'timestamp' : 'signature'} header, set ${option} to it`;
      }
      if (carried.includes(other.toLowerCase()) && !carried.includes(missing.toLowerCase())) {
        // The other one arrived: with the names right, something on the way removed this one.
        guess += `; ${other} arrived and ${missing} did not, so ${likely.length > 0 ? 'if the names are right, ' : 'the names are likely right: '}`
          + `a proxy, load balancer, API gateway or middleware in front may drop ${missing}`;
      }
      // Requests with a guess apart from the rest: scanners sending no such header must not use
      // up the lines that name the header the service sent.
      say(guess === '' ? 'headers' : 'headers guessed', warn, `rejected: ${failure.message}; the delivery carried the headers ${carried.length === 0 ? '(none)' : carried.join(', ')} `
        + `(expected ${names.timestampHeader} and ${names.signatureHeader}): if the service names them otherwise, set `
        + `timestampHeader and signatureHeader${guess}${underscoreHint(Object.values(names))}; ${RECOVER}`);
      emit({ ...seen, status: 400, reason: 'headers', code, headerNames: carried });
      return answers.rejected(code);
    }
    // A mismatch is a forgery, or the service's delivery under another secret: what that costs
    // is said from the first (a shop with a delivery an hour would wait hours for the fifth).
    // Without a body changed on the way to explain it, the secret: in a rotation, the new
    // Secret set as active before its activation, or the old one dropped at it.
    const changed = code === 'signature_mismatch' ? bodyHint(delivery.headers, delivery.body) : '';
    // A receiver given its secret as one string (the shortest examples' process.env.CRYPTOPAY_WEBHOOK_SECRET)
    // holds no pending or retiring one, whatever the environment holds: a rotation done by the
    // variables alone refuses every delivery from the activation on.
    // oneSecret counts the integrations when each was given one string, and is 0 otherwise.
    // receiverOptionsFromEnv reads one integration's: several are given their lists in code.
    const held = oneSecret === 1 ? '; this receiver holds one Secret, no pending or retiring one: receiverOptionsFromEnv reads them '
      + 'from CRYPTOPAY_WEBHOOK_SECRET_PENDING and _RETIRING, a secrets option given as one string holds that one alone'
      : oneSecret > 1 ? `; each of this receiver's ${oneSecret} integrations holds one Secret, no pending or retiring one: `
        + 'during a rotation give that integration\'s secrets as a list with the pending or retiring one ({ secret, kind })' : '';
    const secret = changed === '' ? 'the Secret configured is not the one it signs with (during a rotation: the new Secret is '
      + `pending until its activation, then active with the old one retiring${held}), and ` : '';
    const cost = code === 'signature_mismatch' ? `${changed}; if the service sent it, ${secret}${RECOVER}` : '';
    const at = context.route === null || context.route === undefined ? '' : ` at the route of integration "${context.route}"`;
    say(`rejected ${code}`, warn, `rejected${at}: ${failure.message}${cost}`);
    if (code === 'signature_mismatch') mismatched(context.now, changed !== '', context.route ?? null);
    emit({ ...seen, status: 400, reason: 'forgery', code });
    return answers.rejected(code);
  }

  // Signature mismatches: forgeries, or the service's own deliveries under a secret this
  // receiver does not hold (rotated and activated in the dashboard, another webhook's or
  // environment's), which deliveries of other integrations verifying between them do not rule out.
  // A route's (an integration's) tally is its own: one merchant whose Secret changed is said
  // while the others' deliveries verify.
  function mismatched(now, changed, route) {
    if (!Number.isSafeInteger(now)) return;
    const tally = tallyOf(route);
    const { since } = tally;
    since.from ??= now;
    since.mismatches += 1;
    if (changed) since.changed += 1;
    const { saidAt } = tally;
    if (since.mismatches < MISMATCHES_SAID || (saidAt !== null && now >= saidAt && now - saidAt < QUIET_SECS)) return;
    const others = since.verified === 0 ? 'none verified'
      : route !== null ? `${since.verified} verified (forgeries, or a Secret that changed after those)`
        : `${since.verified} verified (forgeries, or, with several integrations, one whose secret changed while the others verify)`;
    const over = saidAt === null ? '' : ' since this was last said';
    const where = route === null ? '' : ` to the route of integration "${route}"`;
    // At a route: when one last verified there. A Secret changed goes on failing with each retry
    // of each payment, with nothing verifying since; forged requests come while a flood lasts.
    const last = route === null ? '' : tally.lastVerified === null ? '; none has verified at this route since this receiver started'
      : `; the last that verified at this route came ${Math.max(0, now - tally.lastVerified)} s ago`;
    // Bodies changed on the way (compressed, a byte order mark: their own lines say so) point at
    // what is in front of the receiver, not at the secret.
    const cause = since.changed === since.mismatches
      ? 'their bodies were changed on the way (compressed, or a byte order mark added, as each of their lines says): a proxy, gateway or '
        + 'middleware in front of the receiver changes the request body, and every such event is lost until replayed. Let the body '
        + 'through unchanged'
      : `${since.changed > 0 ? `${since.changed} of them with bodies changed on the way, as their lines say; for the others, ` : ''}`
        + 'the secret configured is not its signing Secret (rotated and activated in the dashboard? another webhook\'s or environment\'s? '
        + 'this instance alone, of several?), or something in front re-serializes the JSON (a gateway, a parser: compare a body kept '
        + 'as docs/receiver.md says, "A refused delivery, checked by hand", with the service\'s webhook log), and every such event '
        + 'is lost until replayed. Set the signing Secret (during a rotation, the new one as pending first, then active), or let the '
        + 'body through unchanged';
    // Each route's with a throttle of its own (its name is one of secrets', never a request's):
    // forged requests at other routes cannot use up the line of the one whose Secret changed.
    const sayIt = route === null ? error : (line) => say(`mismatches ${route}`, error, line);
    sayIt(`${since.mismatches} deliveries${where} failed to verify (signature_mismatch) over ${Math.max(0, now - since.from)} s${over}, ${others}${last}: `
      + `if the service sent them (its webhook log shows them answered 400), ${cause}; ${RECOVER}; said at most once per ${QUIET_SECS} s`
      + `${route === null ? '' : ' for each integration (forged requests at this route read the same while they last)'}`);
    Object.assign(tally, fresh(), { saidAt: now, lastVerified: tally.lastVerified });
  }

  // The 413 line, here and for a body the HTTP faces stopped reading (`size`: "of N bytes",
  // "of at least N bytes", "declaring N bytes (its Content-Length)").
  function tooLarge(size) {
    // A store with a ceiling of its own (D1's row): raising maxBodyBytes past it is refused.
    const ceiling = Number.isSafeInteger(storeMaxBody)
      ? ` (this store records at most ${storeMaxBody} bytes: past that, record on one that holds more, such as postgresStore)` : '';
    say('too_large', warn, `refused a delivery ${size} (413 body_too_large), unverified: over maxBodyBytes; `
      + `the service does not retry a 413: if it sends bodies this large, raise maxBodyBytes${ceiling}, then replay the event from its webhook log`);
  }

  // The 503 line for a delivery not read because the bodies being read held maxBufferedBytes.
  // `evicted`: a read still arriving after EVICT_AFTER_MS, ended for a newer one's room.
  function busy(heldBytes, max, evicted) {
    if (evicted) {
      say('busy evicted', warn, `ended a delivery still arriving after ${EVICT_AFTER_MS / 1000} s, answered 503 busy (the service retries `
        + `it), to read a newer one: the bodies being read held maxBufferedBytes (${max}). Many senders each holding part of a `
        + 'body and sending no more is an attack on that limit, not the service (an event arrives at once): a reverse proxy '
        + 'that reads whole request bodies before passing them on (nginx does by default) takes it in front of the receiver');
      return;
    }
    say('busy', warn, `answered a delivery 503 busy, unread: the bodies being read held ${heldBytes} bytes, at maxBufferedBytes `
      + `(${max}); the service retries it. Senders that send slowly hold their bodies meanwhile: where this process runs the HTTP `
      + 'server, give it timeouts (node:http: createServer({ requestTimeout: 30_000, headersTimeout: 10_000 })); if the service sends this many large '
      + 'deliveries at once, raise maxBufferedBytes; many senders each holding part of a body is a flood, not the service (an '
      + 'event arrives at once): a reverse proxy that reads whole request bodies first takes it');
  }

  // The 408 line for a delivery whose body did not arrive within bodyTimeoutMs.
  function bodyTimedOut(bytes, ms) {
    say('body_timeout', warn, `answered a delivery 408 body_timeout, unread: its body did not arrive within bodyTimeoutMs `
      + `(${ms} ms; ${bytes} bytes came); the service retries it. A sender holding a connection open, or a network `
      + 'this slow: if the service\'s deliveries are among them, raise bodyTimeoutMs');
  }

  function verified(route = null, now = null) {
    const tally = route === null ? tallies.get(null) : tallyOf(route);
    if (tally.since.from !== null) tally.since.verified += 1;
    if (route !== null && Number.isSafeInteger(now)) tally.lastVerified = now;
  }

  // A delivery that verifies only once the configuration is corrected (a secret without the
  // white space or quotes around it, the two header names swapped): the configuration is
  // wrong, and a 400 (final for the service) would lose the event; a 500 is retried once it is
  // fixed. `why` says what verified it and the fix.
  function misconfigured(why, integration, delivery, kind) {
    // A captured delivery can be sent again with its body or headers changed this way: while
    // others are recorded, that is likelier than a configuration that changed.
    const replay = kind === 'secret padded' ? '' : '. If other deliveries are recorded meanwhile, this may instead be a captured '
      + 'delivery sent again with that change, within maxSkewSecs of its timestamp: nothing of it was accepted';
    say(`misconfigured ${kind}`, error, `${why}; answered 500 (a 400 is never retried) so that the service retries meanwhile${replay}`);
    emit({ kind: 'delivery', integration, ...routeOf(delivery), bodyBytes: sizeOf(delivery.body), status: 500, reason: 'misconfigured', code: 'invalid_argument' });
    return answers.misconfigured('invalid_argument');
  }

  // A delivery the service signed with the retiring secret inside its overlap that arrived
  // after the overlap ended: its retry, signed with the active secret, verifies, so a 500
  // (retried) rather than a 400 (final) keeps the event.
  // Said at most once per LATE_SECS (a replay of one such delivery, within maxSkewSecs of its
  // timestamp, gets the same answer), with how many came since the last line.
  let lateSaidAt = null;
  let lateSince = 0;
  function lateInOverlap({ name, until }, { timestamp, now }, delivery) {
    if (lateSaidAt !== null && now >= lateSaidAt && now - lateSaidAt < LATE_SECS) {
      lateSince += 1;
    } else {
      const more = lateSince === 0 ? '' : ` (and ${lateSince} more such since the last line)`;
      lateSaidAt = now;
      lateSince = 0;
      error(`a delivery signed with the retiring secret${name === null ? '' : ` of integration "${name}"`} inside its overlap (its `
        + `timestamp ${timestamp}, acceptUntilSecs ${until}) arrived ${now - until} s after the overlap ended${more}: answered 500 (a 400 `
        + 'is never retried) so that the service retries it, signed with the active secret; end the next overlap later than the '
        + `service's retries take; said once per ${LATE_SECS} s`);
    }
    emit({ kind: 'delivery', integration: name, ...routeOf(delivery), bodyBytes: sizeOf(delivery.body), status: 500, reason: 'misconfigured', code: 'signature_mismatch' });
    return answers.misconfigured('signature_mismatch');
  }

  return { refuse, misconfigured, lateInOverlap, verified, tooLarge, busy, bodyTimedOut };
}
