// What the API's request handlers share: reading a JSON object body, the Idempotency-Key rule,
// and the ids the sandbox issues.

import { randomBytes } from 'node:crypto';
import { validateIdempotencyKey } from 'cryptopay-verify';
import { refusal } from './rules.mjs';

/** A random id with the service's kind of prefix (pay_, evt_, we_). */
export const randomId = (prefix) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** The request's JSON object, or request_invalid naming what was expected. */
export function parseJsonObject(body, what) {
  let value;
  try {
    value = JSON.parse(Buffer.from(body).toString('utf8'));
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
