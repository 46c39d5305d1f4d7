// What the command line may print. It never echoes a value typed where a variable or file
// name belongs, never a secret, and prints a URL's credentials as ***. Every line it writes
// goes through `write`, which also replaces any secret or URL credential it was told about
// (a second line of defence: the first is never to format them at all).

import { SECRET_MIN_CHARS, hideKnown, longestFirst } from '../api/redact.mjs';

const sensitive = new Set();

// Shorter values are not replaced (SECRET_MIN_CHARS): they are never formatted anyway; this
// is the second line of defence.
const MIN_LENGTH = SECRET_MIN_CHARS;

// Every such value, however short: a whole answer field equal to one is never printed.
const exact = new Set();

// Shorter values are too common to look for inside a text (a password "abc").
const MIN_HELD = 4;

/**
 * Whether `text` is a value that must never be printed, or holds one of 4 characters or more
 * anywhere (a receiver's error code that embeds its secret).
 */
export function holdsNeverPrinted(text) {
  if (exact.has(text)) return true;
  for (const value of exact) if (value.length >= MIN_HELD && text.includes(value)) return true;
  return false;
}

/** Remembers a value that must never be printed (a secret, a URL's user name or password). */
export function neverPrint(value, minLength = MIN_LENGTH) {
  if (typeof value === 'string' && value !== '') exact.add(value);
  if (typeof value !== 'string' || value.length < minLength) return;
  sensitive.add(value);
  try {
    const decoded = decodeURIComponent(value);
    if (decoded.length >= minLength) sensitive.add(decoded);
  } catch {
    // not percent-encoded: the value itself is enough
  }
}

/** `text` with every remembered value replaced by ***. */
export function scrub(text) {
  return hideKnown(String(text), longestFirst(sensitive));
}

/** Writes to stdout or stderr, scrubbed. */
export const write = {
  out: (text) => process.stdout.write(scrub(text)),
  err: (text) => process.stderr.write(scrub(text)),
};

/**
 * The URL as it may be printed: user name and password as ***, a query string as ?*** and a
 * fragment as #*** (either may carry a token); scheme, host, port and path as given.
 */
export function displayUrl(url) {
  const auth = url.username !== '' || url.password !== '' ? '***@' : '';
  const search = url.search === '' ? '' : '?***';
  const hash = url.hash === '' ? '' : '#***';
  return `${url.protocol}//${auth}${url.host}${url.pathname}${search}${hash}`;
}

/** A value marked as a secret by its form: a webhook secret (`whsec_`) or an API key (`sk_`...). */
export const SECRET_MARK = /whsec_|^(sk|rk|pk)_/i;

/**
 * Whether a value given for a path looks like a secret pasted in the wrong place: a
 * `whsec_` value, or a long run of letters and digits with no path separator or extension.
 * Such a value is never echoed, even where a path would be.
 */

export function looksLikeSecret(text) {
  if (SECRET_MARK.test(text)) return true;
  if (/[/\\.]/.test(text) || text.length < 20) return false;
  return /^[A-Za-z0-9+=_-]+$/.test(text) && /[0-9]/.test(text) && /[A-Za-z]/.test(text);
}
