// Reading the two delivery headers from any header container, and signing a delivery as
// the service does (for tests).

import { assertReady, fail } from './errors.mjs';
import { glue } from './instance.mjs';
import { NEVER_WELL_FORMED, bodyBytes, headerValue, isPlainObject, notHeader, options, tag, wellFormed } from './inputs.mjs';

// Turns any header container into parallel name and value lists.
function headerLists(headers) {
  const names = [];
  const values = [];
  const bad = () => fail('invalid_argument', 'a header name must be a string, and its value a string, a number or an array of strings');
  const text = (v) => {
    if (typeof v !== 'string') throw bad();
    // HTTP headers hold bytes: a lone surrogate can only come from a broken container.
    if (!wellFormed(v)) throw fail('invalid_argument', 'a header name or value holds a lone UTF-16 surrogate');
    return v;
  };
  const add = (name, value) => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) {
      for (const v of value) {
        names.push(text(name));
        values.push(text(v));
      }
      return;
    }
    names.push(text(name));
    values.push(typeof value === 'number' ? String(value) : text(value));
  };
  const kind = tag(headers);
  if (kind === '[object Map]') {
    for (const [name, value] of headers) add(name, value);
  } else if (Array.isArray(headers)) {
    if (headers.every((item) => typeof item === 'string')) {
      // Node's rawHeaders: [name, value, name, value, ...]
      if (headers.length % 2 !== 0) throw fail('invalid_argument', 'a flat rawHeaders array has an even length');
      for (let i = 0; i < headers.length; i += 2) add(headers[i], headers[i + 1]);
    } else if (headers.every((item) => Array.isArray(item) && item.length === 2)) {
      for (const [name, value] of headers) add(name, value);
    } else {
      throw fail('invalid_argument', 'headers given as an array must be [name, value] pairs or a flat rawHeaders array');
    }
  } else if (headers !== null && typeof headers === 'object' && typeof headers.forEach === 'function' && typeof headers.get === 'function') {
    // Fetch Headers (and look-alikes): duplicates arrive merged as "a, b".
    headers.forEach((value, name) => add(name, value));
  } else if (isPlainObject(headers)) {
    for (const name of Object.keys(headers)) add(name, headers[name]);
  } else {
    throw fail('invalid_argument', 'headers must be a Headers, a Map, an object, [name, value] pairs or rawHeaders');
  }
  return [names, values];
}

/** Reads the timestamp and signature header values from any header container. */
export function readDeliveryHeaders(headers, opts) {
  assertReady();
  options(opts, ['timestampHeader', 'signatureHeader'], 'readDeliveryHeaders');
  // Each read once: a getter may answer otherwise the second time.
  const { timestampHeader, signatureHeader } = opts;
  if (typeof timestampHeader !== 'string' || typeof signatureHeader !== 'string') {
    throw fail('invalid_argument', 'timestampHeader and signatureHeader are required header names');
  }
  const [names, values] = headerLists(headers);
  const [timestamp, signature] = glue.rawReadDeliveryHeaders(names, values, timestampHeader, signatureHeader);
  return { timestamp, signature };
}

/** Signs a body as the service does (for tests). */
export function signWebhook(input) {
  assertReady();
  options(input, ['secret', 'timestamp', 'body', 'encoding'], 'signWebhook');
  // Each read once: a getter may answer otherwise the second time.
  const { secret } = input;
  if (typeof secret !== 'string') throw fail('invalid_argument', 'secret must be a string (the signing Secret as saved)');
  if (!wellFormed(secret)) throw fail('invalid_argument', 'secret holds a lone UTF-16 surrogate, which no saved Secret has: give the Secret exactly as saved');
  const encoding = input.encoding ?? 'hex';
  if (encoding !== 'hex' && encoding !== 'base64') throw fail('invalid_argument', 'encoding must be "hex" or "base64"');
  // A timestamp may be given as a number here (the signer writes its digits); an array is
  // never a timestamp to sign.
  const ts = typeof input.timestamp === 'number' && Number.isSafeInteger(input.timestamp) && input.timestamp >= 0
    ? String(input.timestamp)
    : Array.isArray(input.timestamp) ? NEVER_WELL_FORMED : headerValue(input.timestamp);
  try {
    return glue.rawSignWebhook(secret, ts, bodyBytes(input.body), encoding === 'base64');
  } catch (error) {
    if (ts === NEVER_WELL_FORMED && error?.code === 'timestamp_malformed') {
      throw fail('timestamp_malformed', typeof input.timestamp === 'number'
        ? 'timestamp must be Unix seconds: a string of digits, or an integer number from 0'
        : Array.isArray(input.timestamp)
          ? 'timestamp is an array: signWebhook signs one timestamp, a string of Unix seconds such as \'1700000000\' (or an integer)'
          : notHeader('timestamp', input.timestamp));
    }
    throw error;
  }
}
