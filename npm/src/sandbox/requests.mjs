// What the API's request handlers share: reading a JSON object body, the Idempotency-Key rule,
// and the ids the sandbox issues.

import { randomBytes } from 'node:crypto';
import { validateIdempotencyKey } from 'cryptopay-verify';
import { refusal } from './rules.mjs';

/** A random id with the service's kind of prefix (pay_, evt_, we_). */
export const randomId = (prefix) => `${prefix}_${randomBytes(12).toString('hex')}`;

// JSON is UTF-8 text: a body that is not is refused, not read with replacement characters
// (an order_ref stored as "M\uFFFDller" would never link to the merchant's own).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** What a body that is not UTF-8 is told. */
export const NOT_UTF8 = 'the body is not UTF-8 text (JSON is UTF-8): send it encoded as UTF-8';

/** The body's text, or request_invalid when it is not UTF-8. */
export function bodyText(body) {
  const text = utf8Text(body);
  if (text === null) throw refusal('request_invalid', NOT_UTF8);
  return text;
}

/** The body's text, or null when it is not UTF-8. */
export function utf8Text(body) {
  try {
    return utf8.decode(body);
  } catch {
    return null;
  }
}

/** The request's JSON object, or request_invalid naming what was expected. */
export function parseJsonObject(body, what) {
  const text = bodyText(body);
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    throw refusal('request_invalid', `the body is not JSON (${what})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw refusal('request_invalid', `the body must be a JSON object (${what})`);
  return value;
}

/**
 * unsupported_media_type unless the request says its body is JSON: `application/json`, in any
 * case, with parameters such as `charset` or not (the spec's header for a creation).
 */
export function requireJsonContentType(value) {
  const type = String(value ?? '').split(';', 1)[0].trim().toLowerCase();
  if (type !== 'application/json') throw refusal('unsupported_media_type');
}

/** idempotency_key_missing when there is none; the package's idempotency_key_invalid when it is not a valid key. */
export function requireIdempotencyKey(key) {
  if (key === undefined || key === '') throw refusal('idempotency_key_missing');
  validateIdempotencyKey(key); // idempotency_key_invalid
}
