// What a receiver tells about itself: every answer and fulfilment outcome to `onOutcome` (a
// record of codes, ids, sizes: never a secret, a signature, a body or a message of the
// service's), counters readable at any time, and the names (never the values) of the headers
// a delivery carried when the configured ones were not among them.

import { SECRET_MIN_CHARS, hideKnown, longestFirst, oneLine } from '../api/redact.mjs';
import { describeError } from './stores/common.mjs';

/** The route a delivery came through, on the delivery handle() passes along (records name it). */
export const ROUTE = Symbol('route');
/** `{ route }` for a record of a delivery that came through a route, else {}. */
export const routeOf = (delivery) => (delivery?.[ROUTE] === undefined ? {} : { route: delivery[ROUTE] });

const DELIVERY_REASONS = ['recorded', 'quarantined', 'forgery', 'skew', 'headers', 'too_large', 'misconfigured',
  'store_unavailable', 'busy', 'body_timeout', 'method', 'internal'];
const DECISIONS = ['apply', 'duplicate', 'stale'];
const FULFILMENT_OUTCOMES = ['fulfil', 'review', 'wait', 'closed', 'needs_review', 'seen', 'retry', 'lease_lost'];

/**
 * The receiver's `warn(line)` and `error(line)` on the log given (console by default, null for
 * none). A log that throws (a logger's method passed unbound, its transport down) never
 * changes an answer nor ends the process: the line is dropped, and console says so once.
 * `hidden`: values never written (the receiver's secrets), each replaced by `***`.
 */
export function logLines(log, prefix, hidden = []) {
  let complained = false;
  // The receiver's own secrets, should a line ever hold one (a message the package did not
  // write: a handler's error quoting its configuration): replaced, the longest first.
  const secrets = longestFirst(hidden.filter((value) => typeof value === 'string' && value.length >= SECRET_MIN_CHARS));
  // One line each, whatever an id or a driver's message holds (a CR, ESC): escaped, not written.
  const hide = (line) => oneLine(hideKnown(line, secrets));
  const say = (method, line) => {
    try {
      log?.[method](hide(prefix + line));
    } catch (failure) {
      if (complained) return;
      complained = true;
      try {
        console.error(`${prefix}the log given to the receiver threw (${describeError(failure)}): its lines are dropped, the answers stand; `
          + 'pass methods bound to their logger, e.g. { warn: (line) => logger.warn(line), error: (line) => logger.error(line) }');
      } catch {
        // no console either
      }
    }
  };
  return { warn: (line) => say('warn', line), error: (line) => say('error', line) };
}

function zeros(names) {
  return Object.fromEntries(names.map((name) => [name, 0]));
}

/**
 * The receiver's counters and its `onOutcome` observer. `emit(record)` counts the record and
 * hands it to the observer; an observer that throws (or rejects) is logged once, never lets a
 * delivery fail.
 */
export function observer(onOutcome, error) {
  const deliveries = { total: 0, ...zeros(DELIVERY_REASONS), ...zeros(DECISIONS) };
  const fulfilment = { total: 0, ...zeros(FULFILMENT_OUTCOMES), passes: 0, failedPasses: 0, claimed: 0 };
  let complained = false;
  const complain = (failure) => {
    if (complained) return;
    complained = true;
    error(`onOutcome threw (${describeError(failure)}); the receiver goes on, and says this once`);
  };
  function emit(record) {
    const frozen = Object.freeze(record);
    if (record.kind === 'delivery') {
      deliveries.total += 1;
      if (record.reason in deliveries) deliveries[record.reason] += 1;
      if (record.decision in deliveries) deliveries[record.decision] += 1;
    } else if (record.kind === 'fulfilment') {
      fulfilment.total += 1;
      if (record.outcome in fulfilment) fulfilment[record.outcome] += 1;
    }
    if (typeof onOutcome !== 'function') return;
    try {
      const returned = onOutcome(frozen);
      if (returned !== null && typeof returned === 'object' && typeof returned.then === 'function') returned.then(undefined, complain);
    } catch (failure) {
      complain(failure);
    }
  }
  return {
    emit,
    pass(claimed) {
      fulfilment.passes += 1;
      fulfilment.claimed += claimed;
    },
    // A pass that failed (its claim, or the store between payments; one that claimed is in `passes` too).
    passFailed() {
      fulfilment.failedPasses += 1;
    },
    counters: () => ({ deliveries: { ...deliveries }, fulfilment: { ...fulfilment } }),
  };
}

// A header name as HTTP allows it (a token); anything else is shown as `?`.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const MAX_NAMES = 24;

/** The [name, value] pairs of any container readDeliveryHeaders reads; [] when unreadable. */
function headerPairs(headers) {
  const pairs = [];
  try {
    if (headers === null || typeof headers !== 'object') return [];
    if (typeof headers.forEach === 'function' && typeof headers.get === 'function' && !(headers instanceof Map)) {
      headers.forEach((value, name) => pairs.push([name, value]));
    } else if (headers instanceof Map) {
      for (const pair of headers) pairs.push(pair);
    } else if (Array.isArray(headers)) {
      if (headers.every((item) => typeof item === 'string')) {
        for (let i = 0; i < headers.length; i += 2) pairs.push([headers[i], headers[i + 1]]);
      } else {
        for (const pair of headers) if (Array.isArray(pair)) pairs.push([pair[0], pair[1]]);
      }
    } else {
      pairs.push(...Object.entries(headers));
    }
  } catch {
    return [];
  }
  return pairs;
}

/**
 * Whether a request's headers, as a framework passes them whole (with the Host every request
 * carries), say it carried no body: no Content-Type, no Transfer-Encoding, and no
 * Content-Length or one of 0. A framework passes no body for such a request (Fastify runs no
 * content-type parser): it is an empty body, refused by its headers or its signature, not a
 * body a parser took (500 body_not_raw, which the service would retry). Headers picked by hand
 * (the two delivery headers alone) say nothing of the body.
 */
export function declaresNoBody(headers) {
  const pairs = headerPairs(headers);
  const named = (wanted) => pairs.filter(([name]) => typeof name === 'string' && name.toLowerCase() === wanted).map(([, value]) => value);
  if (named('host').length === 0 && named(':authority').length === 0) return false;
  return named('content-type').length === 0 && named('transfer-encoding').length === 0
    && named('content-length').every((value) => String(value).trim() === '0');
}

/**
 * The names of the headers in any container readDeliveryHeaders reads (Fetch Headers, Node's
 * rawHeaders or headers, a plain object, a Map, pairs), lower-cased, each once, sorted: for a
 * log line saying which headers a delivery did carry. Never a value.
 */
export function headerNames(headers) {
  const names = headerPairs(headers).map(([name]) => name);
  const shown = [...new Set(names.map((name) => (typeof name === 'string' && TOKEN.test(name) ? name.toLowerCase() : '?')))].sort();
  return shown.length > MAX_NAMES ? [...shown.slice(0, MAX_NAMES), `(${shown.length - MAX_NAMES} more)`] : shown;
}

/**
 * The headers of `carried` (lower-case names) whose name says it is the missing timestamp
 * header (`timestamp`), else the missing signature header: the name configured may be wrong.
 * Not a proxy's own (x-envoy-expected-rq-timeout-ms, x-request-start-time).
 */
export function nearMisses(carried, names, timestamp) {
  const [missing, other] = timestamp ? [names.timestampHeader, names.signatureHeader] : [names.signatureHeader, names.timestampHeader];
  const kind = timestamp ? /timestamp|(^|-)ts($|-)/ : /signature|(^|-)sig($|-)/;
  return carried.filter((name) => name !== other.toLowerCase() && name !== missing.toLowerCase() && kind.test(name)
    && !/^x-(envoy|amzn|forwarded)-|timeout/.test(name));
}

/**
 * For a delivery no secret verifies: what in the delivery itself says its body is not the
 * bytes the service signed (a Content-Encoding, gzip's magic bytes, a byte order mark the
 * service never sends), as '; ...' for the log line; '' when nothing does. Never a byte of
 * the body beyond those it names.
 */
export function bodyHint(headers, body) {
  const encoding = headerPairs(headers).find(([name]) => typeof name === 'string' && name.toLowerCase() === 'content-encoding')?.[1];
  const said = typeof encoding === 'string' && encoding.trim() !== '' && encoding.trim().toLowerCase() !== 'identity';
  const first = typeof body === 'string' ? [...new TextEncoder().encode(body.slice(0, 3))]
    : ArrayBuffer.isView(body) ? [...new Uint8Array(body.buffer, body.byteOffset, Math.min(3, body.byteLength))]
      : body instanceof ArrayBuffer ? [...new Uint8Array(body, 0, Math.min(3, body.byteLength))] : [];
  if (said || (first[0] === 0x1f && first[1] === 0x8b)) {
    const named = said && /^[A-Za-z0-9, -]{1,40}$/.test(encoding) ? ` (Content-Encoding: ${encoding.trim()})` : '';
    return `; the body is compressed${named}: the signature covers the bytes the service sent, so a proxy or middleware `
      + 'on this route must neither compress nor decompress the request body';
  }
  if (first[0] === 0xef && first[1] === 0xbb && first[2] === 0xbf) {
    return '; the body starts with a byte order mark (EF BB BF) the service does not send: something between the network '
      + 'and the receiver re-encoded it; pass the request\'s bytes untouched';
  }
  return '';
}
