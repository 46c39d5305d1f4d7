// What the stores share: option checks, the table prefix, how a driver's error is described
// in a log line (never a URL's credentials, never more than a line), and the decision read
// from a record statement's rows (strictly).

import { CryptoPayError } from 'cryptopay-verify';

export const DEFAULT_PREFIX = 'cryptopay_';
// Unquoted identifiers, lower case (PostgreSQL folds them), short enough for the longest
// derived name (`<prefix>events_payment_id`) to stay within PostgreSQL's 63 bytes.
const PREFIX_SHAPE = /^[a-z_][a-z0-9_]{0,39}$/;

export const invalid = (detail) => new CryptoPayError('invalid_argument', `invalid_argument: ${detail}`);

/** Checks a store's options object; returns it with defaults. */
export function storeOptions(options, allowed, what) {
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalid(`${what} takes an options object`);
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) throw invalid(`${what} was given an unknown option (options: ${allowed.join(', ')})`);
  }
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (typeof prefix !== 'string' || !PREFIX_SHAPE.test(prefix)) {
    throw invalid(`${what}: prefix is up to 40 lower-case letters, digits and underscores, starting with a letter or underscore (default "cryptopay_")`);
  }
  const createTables = options.createTables ?? true;
  if (typeof createTables !== 'boolean') throw invalid(`${what}: createTables is true or false`);
  return { ...options, prefix, createTables };
}

/** The dialect's statements with the table prefix put in. */
export function withPrefix(statements, prefix) {
  const put = (text) => text.replace(/\bcryptopay_/g, prefix);
  return Object.fromEntries(Object.entries(statements)
    .map(([name, text]) => [name, Array.isArray(text) ? text.map(put) : put(text)]));
}

/** One line about a driver's error: its code and message, credentials in URLs masked. */
export function describeError(error) {
  const code = error?.code ?? error?.errcode ?? error?.name;
  const message = String(error?.message ?? error)
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1***@')
    .replace(/\s+/g, ' ')
    .slice(0, 300);
  return code && !message.includes(String(code)) ? `${code}: ${message}` : message;
}

/**
 * The decision in a record statement's rows: none when the event_id was stored already (a
 * duplicate), else one row saying apply or stale. Any other shape (a client that answers
 * something else) is an error, so the delivery is answered 503: never a guessed 200.
 */
export function decisionOf(rows, what) {
  if (!Array.isArray(rows)) throw new Error(`${what}: the record statement's result holds no rows array`);
  if (rows.length === 0) return 'duplicate';
  const decision = rows[0]?.decision;
  if (rows.length === 1 && (decision === 'apply' || decision === 'stale')) return decision;
  throw new Error(`${what}: the record statement returned an unexpected row`);
}

