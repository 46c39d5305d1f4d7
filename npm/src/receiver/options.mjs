// createReceiver's options checked before anything is made, and what they imply: the
// start-up warnings on a skew, the largest body a store records.

import { HEADER_NAME, RESERVED_HEADERS } from '../api/hints.mjs';
import { secretStrings } from './integrations.mjs';
import { BODY_TIMEOUT_RANGE_MS, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_BUFFERED_BYTES } from './limits.mjs';
import { checkKeys, clientKind, invalid } from './stores/common.mjs';

const OPTIONS = ['secrets', 'maxSkewSecs', 'timestampHeader', 'signatureHeader', 'store', 'maxBodyBytes', 'maxBufferedBytes',
  'bodyTimeoutMs', 'nowSecs', 'log', 'onOutcome'];

/** Throws invalid_argument, naming the fix, for the first option that is wrong. */
export function checkOptions(options) {
  // A near miss of an option (max_skew_secs, TimestampHeader, maxSkewSec) is named.
  checkKeys(options, OPTIONS, 'createReceiver', 'createReceiver takes { secrets, maxSkewSecs, timestampHeader, signatureHeader, store }');
  for (const name of ['timestampHeader', 'signatureHeader']) {
    if (options[name] === undefined) {
      throw invalid(`${name} is undefined: is the environment variable set? It is the name of the delivery header, as the service sends it`);
    }
    if (typeof options[name] !== 'string' || options[name] === '') {
      throw invalid(`${name} is required: the name of the delivery header, as the service sends it`);
    }
    // Checked here, not per delivery: a name no header can have (a pasted space, newline or
    // colon) would answer every delivery 400, which the service never retries. Never echoed:
    // what was given may be a secret pasted into the wrong variable.
    if (!HEADER_NAME.test(options[name])) {
      throw invalid(`${name} is not a header name (letters, digits and !#$%&'*+-.^_\`|~, no space or colon): give the name of the delivery header as the service sends it, such as X-Webhook-Timestamp`);
    }
    if (RESERVED_HEADERS.has(options[name].toLowerCase())) {
      throw invalid(`${name} names a header HTTP itself uses (${options[name]}): give the name of the delivery header as the service sends it, such as X-Webhook-Signature`);
    }
    if (secretStrings(options.secrets).includes(options[name])) {
      throw invalid(`${name} holds one of the secrets: give the header's name there, and the secret in secrets`);
    }
  }
  if (options.timestampHeader.toLowerCase() === options.signatureHeader.toLowerCase()) {
    throw invalid('timestampHeader and signatureHeader name the same header: they are two headers of each delivery');
  }
  const { store } = options;
  if (store === null || typeof store !== 'object'
    || !['ready', 'record', 'quarantine'].every((m) => typeof store[m] === 'function')) {
    throw invalid(`store ${notAStore(store)}: postgresStore(pool), sqliteStore(db), d1Store(env.DB), libsqlStore(client), or an object with ready, record and quarantine`);
  }
  const most = storeMaxBody(store);
  if (typeof options.maxBodyBytes === 'number' && options.maxBodyBytes > most) {
    const name = typeof store.kind === 'string' ? `${store.kind}Store` : 'the store';
    throw invalid(`maxBodyBytes is ${options.maxBodyBytes}, over the largest body ${name} records (${most} bytes): leave it out (the default is then at most ${most}) or lower it`);
  }
  const buffered = options.maxBufferedBytes;
  if (buffered !== undefined && !(Number.isSafeInteger(buffered) && buffered > 0)) {
    throw invalid(`maxBufferedBytes is a positive integer, the bytes of bodies the receiver holds while it reads them across its deliveries in flight (default ${DEFAULT_BUFFERED_BYTES}, 64 MiB)`);
  }
  const [shortest, longest] = BODY_TIMEOUT_RANGE_MS;
  const timeout = options.bodyTimeoutMs;
  if (timeout !== undefined && !(Number.isSafeInteger(timeout) && timeout >= shortest && timeout <= longest)) {
    throw invalid(`bodyTimeoutMs is how long a delivery's body may take to arrive, in milliseconds, from ${shortest} to ${longest} (default ${DEFAULT_BODY_TIMEOUT_MS}, 30 s)`);
  }
  if (options.nowSecs !== undefined && typeof options.nowSecs !== 'function') {
    throw invalid('nowSecs is a function returning the current Unix time in seconds');
  }
  const log = options.log;
  if (log !== undefined && log !== false && log !== null
    && (typeof log !== 'object' || typeof log.warn !== 'function' || typeof log.error !== 'function')) {
    throw invalid('log is an object with warn(line) and error(line) (console is the default), or false');
  }
  if (options.onOutcome !== undefined && typeof options.onOutcome !== 'function') {
    throw invalid('onOutcome is a function, called with a record of each answer and fulfilment outcome');
  }
}

/**
 * Start-up warnings on a skew the Verifier takes but that is likely a mistake: under 5 s an
 * authentic delivery delayed by the network or a retry queue is refused (a 400 the service
 * never retries); over an hour a captured delivery stays replayable that long, and over a day
 * it is likely milliseconds.
 */
export function skewWarnings(skew) {
  if (typeof skew !== 'number' || !Number.isFinite(skew)) return [];
  if (skew < 5) {
    return [`maxSkewSecs is ${skew}: a delivery the network or a queue delayed by ${skew === 0 ? 'a second' : `over ${skew} s`} is refused with a 400, `
      + 'which the service never retries: 300 is the usual choice'];
  }
  if (skew > 86_400) return [`maxSkewSecs is ${skew}, over a day: is it in milliseconds? It is seconds (300 is the usual choice)`];
  if (skew > 3600) return [`maxSkewSecs is ${skew}: a captured delivery can be replayed for that long: 300 is the usual choice`];
  return [];
}


// What was given where a store belongs, for the message.
function notAStore(store) {
  if (store === undefined || store === null) return 'is required';
  if (typeof store === 'function') return `is a function (${store.name || 'anonymous'}), not a store: call it with your client, as in`;
  if (clientKind(store) !== null) {
    return 'is a database client, not a store: wrap it, as in';
  }
  return 'is not a store: give one of';
}

// The largest body (and data text) the store records, when it declares one (d1Store does).
export const storeMaxBody = (store) => (Number.isSafeInteger(store.maxBodyBytes) && store.maxBodyBytes > 0 ? store.maxBodyBytes : Infinity);
