// createReceiver: verify a delivery, then record it in a store in one transaction, and say
// what to answer. It sits on the package's public API (Verifier, readDeliveryHeaders, the
// event's fields) as a user's code would, and adds only I/O through the store it is given:
// it never opens a connection and never reads the environment.

import { CryptoPayError, Verifier, init, readDeliveryHeaders } from 'cryptopay-verify';
import { RECORDABLE } from '../api/brand.mjs';
import { answers } from './answers.mjs';
import { sharedAttempt } from './attempt.mjs';
import { readBudget } from './body.mjs';
import { deadlined } from './deadline.mjs';
import { dueNow } from './due.mjs';
import { droppedRotation } from './env.mjs';
import { merchantLoop } from './fulfil.mjs';
import { fetchHandler, misplacedNodeRequest, nodeHandler } from './http.mjs';
import { readable } from './quarantine.mjs';
import {
  Refusal, alteredMatch, checkRotationEnds, endedRotations, integrationsOf, lateInOverlapMatcher, makeVerifiers, overlapEnded, readsSwapped,
  readsMisnamed, secretStrings, secretWarnings, mismatchMessage, trimmedMatcher, verifyAny,
} from './integrations.mjs';
import { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_BUFFERED_BYTES, MAX_ID_BYTES, MILLISECONDS, PAST } from './limits.mjs';
import { checkOptions, skewWarnings, storeMaxBody } from './options.mjs';
import { ROUTE, declaresNoBody, logLines, observer, routeOf } from './observe.mjs';
import { refusals, sizeOf } from './refusals.mjs';
import { integrationFaces, routing, shownRoute } from './routes.mjs';
import { lineThrottle } from './throttle.mjs';
import { describeError, invalid, shownError, stuckFix, transientHint } from './stores/common.mjs';

const CANONICAL_VERSION = /^(?:0|[1-9][0-9]*)$/;
const PREFIX = 'cryptopay-verify/receiver: ';
const encoder = new TextEncoder();

const systemClock = () => Math.floor(Date.now() / 1000);

// Whether a text's UTF-8 form is over `max` bytes (encoded only when its length cannot tell).
const overBytes = (text, max) => text.length > max || (text.length * 3 > max && encoder.encode(text).byteLength > max);

// An id as every store can hold it (MAX_ID_BYTES of UTF-8 at most, no NUL, no lone surrogate),
// else null: a stored row can have no other.
const storableId = (id) => (typeof id === 'string' && !id.includes('\u0000') && !/\p{Cs}/u.test(id) && !overBytes(id, MAX_ID_BYTES) ? id : null);

/**
 * Why a valid event cannot be recorded in this store, as the code it is quarantined under, or
 * null: an id over MAX_ID_BYTES or holding a NUL (event_malformed, on every store), a version
 * longer than the store holds exactly (status_version_invalid), a data text over the store's
 * largest value (body_too_large). Checked before anything is written.
 */
function unrecordable(event, data, store, maxBody) {
  for (const id of [event.eventId, event.paymentId]) {
    // A verified event's ids hold no lone surrogate (the core refuses the event): NUL and size.
    if (storableId(id) === null) return 'event_malformed';
  }
  const digits = store.maxStatusVersionDigits;
  if (typeof digits === 'number' && event.statusVersion.length > digits) return 'status_version_invalid';
  if (overBytes(data, maxBody)) return 'body_too_large';
  return null;
}

// The verified body as bytes (it verified, so it is one of the raw shapes).
function bytesOf(body) {
  if (body instanceof Uint8Array) return body;
  if (typeof body === 'string') return encoder.encode(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  return new Uint8Array(body);
}

/**
 * Creates a receiver. See the typings (receiver.d.ts) for the contract; in short:
 * `fetch(request)`, `node(req, res)`, `handle({ body, headers })` and `ready()`.
 */
export function createReceiver(options) {
  checkOptions(options);
  const store = deadlined(options.store);
  const names = { timestampHeader: options.timestampHeader, signatureHeader: options.signatureHeader };
  const maxBody = storeMaxBody(store);
  const clock = options.nowSecs ?? systemClock;
  const integrations = integrationsOf(options.secrets);
  const held = secretStrings(options.secrets);
  const { warn, error } = logLines(options.log === undefined ? console : options.log || null, PREFIX, held);
  const observed = observer(options.onOutcome, error);
  const { emit } = observed;
  checkRotationEnds(integrations);

  // The verifiers, one per integration, keyed with maxBodyBytes as given, else the package's
  // default, lowered to the largest body the store records (d1Store declares one).
  function keyFor(secrets) {
    const keys = { secrets, maxSkewSecs: options.maxSkewSecs, maxBodyBytes: options.maxBodyBytes };
    const made = new Verifier(keys);
    if (made.maxBodyBytes <= maxBody) return made;
    made.free();
    return new Verifier({ ...keys, maxBodyBytes: maxBody });
  }
  const makeAll = () => makeVerifiers(integrations, keyFor);

  // Keyed now, so a wrong secret set or skew throws here, at start. Only where the package
  // loads its WebAssembly asynchronously (browsers) is it keyed at ready() instead.
  let verifiers = null;
  try {
    verifiers = makeAll();
  } catch (failure) {
    if (!(failure instanceof CryptoPayError) || !/await init\(\)/.test(failure.message)) throw failure;
  }
  for (const line of secretWarnings(integrations)) warn(line);
  for (const line of droppedRotation(options, held)) warn(line);
  for (const line of Array.isArray(store.warnings) ? store.warnings : []) if (typeof line === 'string') warn(line);
  let startedAt = null;
  try {
    startedAt = clock();
  } catch {
    // a clock that fails now fails at the first delivery, where it is answered
  }
  for (const line of endedRotations(integrations, startedAt)) warn(line);
  for (const line of skewWarnings(options.maxSkewSecs)) warn(line);

  const trimmedMatch = trimmedMatcher(integrations, keyFor);
  const lateMatch = lateInOverlapMatcher(integrations, keyFor);

  // The store's tables, made ready once; a failure is forgotten so the next delivery retries,
  // and one that has not settled is not waited on for ever by a delivery (attempt.mjs).
  const storeReady = sharedAttempt(() => store.ready(), (ms) => new Error(`the store's ready() has not settled in ${ms / 1000} s `
    + '(a migration still running, or a connection that never answers: give the driver connect and query timeouts); '
    + 'the next delivery tries again'));

  async function keyed() {
    if (verifiers === null) {
      await init();
      verifiers ??= makeAll();
    }
    return verifiers;
  }

  // ready(): as long as the store's takes (a call at start, a migration included); a
  // delivery's, the loop's and recordCreated's: at most 20 s (readyForCall).
  async function ready() {
    await keyed();
    await storeReady.patiently();
  }
  async function readyForCall() {
    await keyed();
    await storeReady.briefly();
  }

  async function stored(write, what) {
    try {
      await storeReady.briefly();
      return await write();
    } catch (failure) {
      const fix = stuckFix(failure);
      const look = fix ? null : transientHint(failure);
      error(`store_unavailable: could not record ${what} (${describeError(failure)}); answered 503 so the service retries${fix ? `, but every retry will fail the same way: ${fix}` : ''}${look ? `; ${look}` : ''}`);
      return null;
    }
  }

  // Lines of kept deliveries, a few per code a minute: a captured one sent again within
  // maxSkewSecs is kept once (the stores compare it with the newest rows) but answered each time.
  const sayKept = lineThrottle();
  // An authentic delivery kept in quarantine, never applied; 200 once committed. Its payment,
  // where the body names one the store knows, is made due for the next fulfilment pass: the
  // authoritative view then stands in for the facts this event could not give.
  async function keep(code, body, what, seen) {
    const kept = await stored(async () => {
      const bytes = bytesOf(body);
      await store.quarantine({ code, body: bytes, paymentId: storableId(readable(bytes).paymentId), integration: seen.integration ?? null });
      return true;
    }, `a ${code} delivery in quarantine`);
    if (kept === null) {
      emit({ ...seen, status: 503, reason: 'store_unavailable', code });
      return answers.storeUnavailable();
    }
    sayKept(code, warn, `quarantined an authentic delivery ${what}: ${code}`);
    emit({ ...seen, status: 200, reason: 'quarantined', code });
    return answers.quarantined(code);
  }

  const { refuse, misconfigured, lateInOverlap, verified: verifiedOne, tooLarge, busy, bodyTimedOut } = refusals({
    warn, error, emit, names, keep, storeMaxBody: maxBody, oneSecret: integrations.every(({ secrets }) => typeof secrets === 'string') ? integrations.length : 0,
  });

  // The delivery's two headers; when they cannot be read, the body's type and size are still
  // reported first, in the order of checks: a body a framework parsed is 500 body_not_raw,
  // which the service retries, even with a header missing too (a 400 is final).
  function headersOf(keys, delivery) {
    try {
      // None given (a Lambda event without headers, a property misnamed): the caller's
      // invalid_argument, answered 500 and retried, never a delivery's 400.
      return readDeliveryHeaders(delivery.headers, names);
    } catch (failure) {
      if (!(failure instanceof CryptoPayError)) throw failure;
      try {
        keys[0].verifier.verifySignature({ body: delivery.body, timestamp: undefined, signature: undefined, nowSecs: 0 });
      } catch (bodyFailure) {
        if (bodyFailure instanceof CryptoPayError && bodyFailure.code.startsWith('body_')) throw bodyFailure;
      }
      throw failure;
    }
  }

  // The clock for a second look at a refused delivery: null when it throws (the refusal stands).
  const clockOrNull = () => {
    try {
      return clock();
    } catch {
      return null;
    }
  };

  // The time a delivery arrived, for `fetch` and `node` to read before its body: a body that
  // took a while to come (bodyTimeoutMs may be ten minutes) is judged by the skew from when it
  // came, not refused as stale (a 400 the service never retries). A clock that throws throws
  // where handle reads it.
  const arrival = () => {
    try {
      const now = clock();
      return () => now;
    } catch (failure) {
      return () => { throw failure; };
    }
  };

  const routes = routing({ integrations, warn, error, emit });

  // `route`: the integration receiver.integration(name) chose, whose secrets alone verify.
  async function handle(delivery, arrived = clock, route = undefined) {
    if (delivery === null || typeof delivery !== 'object') throw invalid('handle takes { body, headers }');
    // No body passed for a request whose headers say it had none (an empty POST: Fastify runs
    // no parser for it): an empty body, not a parsed one.
    if (delivery.body === undefined && declaresNoBody(delivery.headers)) delivery = { ...delivery, body: new Uint8Array(0) };
    let verified;
    let integration;
    const context = { timestamp: null, now: null, signature: null };
    let keys = null;
    try {
      keys = verifiers ?? await keyed();
      if (route !== undefined) {
        delivery = { ...delivery, [ROUTE]: shownRoute(route) };
        keys = routes.keysOf(keys, route);
        if (keys === null) return routes.unknown(route, delivery);
      }
      const { timestamp, signature } = headersOf(keys, delivery);
      const now = arrived();
      // Every delivery would be too old (or from the future), and a 400 is final for the
      // service: a 500 is retried.
      if (typeof now === 'number' && now >= MILLISECONDS) {
        throw invalid('nowSecs() returned a time in milliseconds (13 digits or more): return Math.floor(Date.now() / 1000)');
      }
      if (typeof now === 'number' && now < PAST) {
        throw invalid(`nowSecs() returned ${Number.isFinite(now) ? now : String(now)}, before September 2001: not the current Unix time in seconds `
          + '(seconds since the process started, or a part of the date?): return Math.floor(Date.now() / 1000)');
      }
      Object.assign(context, { timestamp, now, signature });
      const call = { body: delivery.body, timestamp, signature, nowSecs: now };
      try {
        ({ verified, integration } = verifyAny(keys, call));
      } catch (failure) {
        const answer = route === undefined ? null : routes.elsewhere(verifiers, route, call, failure, delivery);
        if (answer === null) throw failure;
        return answer;
      }
      verifiedOne(route, now);
    } catch (failure) {
      if (failure instanceof Refusal && failure.failure.code === 'signature_mismatch') {
        const call = { body: delivery.body, timestamp: context.timestamp, signature: context.signature, nowSecs: context.now };
        const match = trimmedMatch(call);
        if (match !== null) {
          return misconfigured(`a delivery failed to verify, but verifies with the secret${match.name === null ? '' : ` of integration "${match.name}"`} `
            + 'once the white space or quotes around it are removed: the configured secret holds a pasted space or newline, or quotes an '
            + 'env file or YAML value kept. Remove them where the secret is configured', match.name, delivery, 'secret padded');
        }
        if (overlapEnded(failure.failure)) {
          const late = lateMatch(call);
          if (late !== null) return lateInOverlap(late, context, delivery);
        }
        const altered = keys === null ? null : alteredMatch(keys, { ...call, body: bytesOf(delivery.body) });
        if (altered !== null) {
          return misconfigured(`a delivery verifies only once what its body picked up on the way is undone: it ${altered.join(' and ')}. `
            + 'A proxy, gateway or middleware in front of the receiver, or the code that hands it the body, changes the request body, '
            + 'and the signature covers the bytes the service sent: let the body through unchanged (the service retries this one)', null, delivery, 'body altered');
        }
      }
      const code = failure instanceof Refusal ? failure.failure.code : failure?.code;
      if (code === 'timestamp_malformed' && keys !== null && readsSwapped(keys, delivery.body, context)) {
        return misconfigured(`a delivery verifies only with its two headers read the other way round: ${names.timestampHeader} holds the `
          + `signature and ${names.signatureHeader} the timestamp, so timestampHeader and signatureHeader are swapped in the configuration. `
          + 'Swap them', null, delivery, 'headers swapped');
      }
      const missing = code === 'timestamp_missing' || code === 'signature_missing';
      const misnamed = missing && keys !== null ? readsMisnamed(keys, delivery, names, clockOrNull(), code === 'timestamp_missing') : null;
      if (misnamed !== null) {
        const renamed = Object.entries(misnamed);
        const what = (option) => (option === 'timestampHeader' ? 'timestamp' : 'signature');
        return misconfigured(`a delivery verifies only with its ${renamed.map(([option, name]) => `${what(option)} read from ${name}`).join(' and ')}, `
          + `which it carried instead of ${renamed.map(([option]) => names[option]).join(' and ')}: `
          + `set ${renamed.map(([option, name]) => `${option} to ${name}`).join(' and ')}`, null, delivery, 'headers misnamed');
      }
      const routed = { ...context, route: route ?? null };
      if (failure instanceof Refusal) return refuse(failure.failure, delivery, failure.integration ?? route ?? null, routed);
      if (!(failure instanceof CryptoPayError)) throw failure;
      return refuse(failure, delivery, route ?? null, routed);
    }
    const { event, matchedSecret } = verified;
    if (!CANONICAL_VERSION.test(event.statusVersion)) throw new Error('status_version is not canonical digits');
    // The data object's exact text, as it arrived (never re-serialized: 128.10 stays 128.10).
    const data = event.dataText;
    const seen = {
      kind: 'delivery', integration, ...routeOf(delivery), secretKind: matchedSecret, eventId: event.eventId, paymentId: event.paymentId,
      statusVersion: event.statusVersion, bodyBytes: sizeOf(delivery.body), ageSecs: context.now - Number(context.timestamp),
    };
    // Valid, but more than this store can hold (an id of 3 KB, a version of 200000 digits):
    // quarantined now, rather than a write that fails at every retry.
    const limited = unrecordable(event, data, store, maxBody);
    if (limited !== null) {
      const kept = { kind: 'delivery', integration, ...routeOf(delivery), secretKind: matchedSecret, bodyBytes: seen.bodyBytes, ageSecs: seen.ageSecs };
      return keep(limited, delivery.body, 'that this store cannot record as an event', kept);
    }
    const decision = await stored(() => store.record({
      eventId: event.eventId,
      paymentId: event.paymentId,
      statusVersion: event.statusVersion,
      data,
      body: bytesOf(delivery.body),
      integration,
      secretKind: matchedSecret,
    }), 'an event');
    if (decision === null) {
      emit({ ...seen, status: 503, reason: 'store_unavailable' });
      return answers.storeUnavailable();
    }
    if (decision === 'integration_mismatch') {
      // Nothing written: the service retries a 500, so a receiver configured wrong loses
      // nothing once fixed; a holder of one integration's secret moves no other's payment.
      error(mismatchMessage(event.paymentId, integration));
      emit({ ...seen, status: 500, reason: 'misconfigured', code: decision });
      return answers.misconfigured(decision);
    }
    if (decision !== 'apply' && decision !== 'stale' && decision !== 'duplicate') {
      error('store_unavailable: the store answered something other than apply, stale, duplicate or integration_mismatch');
      emit({ ...seen, status: 503, reason: 'store_unavailable' });
      return answers.storeUnavailable();
    }
    emit({ ...seen, status: 200, reason: 'recorded', decision });
    return answers.received(decision);
  }

  // What the HTTP faces answered without handle(): 405, 413 read from the stream, a body a
  // framework read first, an unexpected failure.
  // The fourth argument, the body read's result, says what the line adds to the record:
  // `declared`, a 413 for the length the request's Content-Length declared, none of it read (a
  // sender may declare any length: said as declared, not as bytes sent); `evicted`, a read
  // ended for a newer one (readBudget).
  function answered(status, reason, detail = {}, { declared = false, evicted = false } = {}) {
    if (reason === 'too_large') tooLarge(`${declared ? 'declaring' : 'of at least'} ${detail.bodyBytes} bytes${declared ? ' (its Content-Length)' : ''}`);
    if (reason === 'busy') busy(detail.bufferedBytes, budget.max, evicted);
    if (reason === 'body_timeout') bodyTimedOut(detail.bodyBytes, bodyTimeoutMs);
    emit({ kind: 'delivery', status, reason, integration: null, ...detail });
  }

  // The largest body read, once the verifiers are keyed (each has the same limit).
  const limit = async () => (verifiers ?? await keyed())[0].verifier.maxBodyBytes;
  // The bytes of bodies being read, across this receiver's deliveries in flight.
  const budget = readBudget(options.maxBufferedBytes ?? DEFAULT_BUFFERED_BYTES);
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  // The error lines a request can cause on either face (a body a parser took, an internal
  // failure), said at most five times a minute for each kind, as the refusals' lines are.
  const sayHttp = lineThrottle();
  const http = { handle, arrival, limit, budget, bodyTimeoutMs, error: (line, kind) => sayHttp(kind, error, line), warn, answered };
  const loop = merchantLoop({
    store,
    ready: readyForCall,
    integrations: integrations.map((i) => i.name),
    emit,
    pass: observed.pass,
    passFailed: observed.passFailed,
    warn,
    error,
  });
  const { retryNow } = dueNow({ store, ready: readyForCall });
  // The methods that reject with what the store failed with: never the driver's own error.
  const masking = (method) => async (...args) => {
    try {
      return await method(...args);
    } catch (failure) {
      throw shownError(failure);
    }
  };
  return {
    ready: masking(ready),
    handle: async (delivery, res) => misplacedNodeRequest('handle', delivery, res, http) ?? handle(delivery),
    fetch: fetchHandler(http),
    node: nodeHandler(http),
    integration: integrationFaces(routes, http, (delivery, arrived, name) => handle(delivery, arrived ?? clock, name)),
    recordCreated: masking(loop.recordCreated),
    [RECORDABLE]: loop.checkRecordable,
    fulfil: masking(loop.fulfil),
    startFulfilment: loop.startFulfilment,
    quarantined: masking(loop.quarantined),
    retryNow: masking(retryNow),
    counters: observed.counters,
  };
}
