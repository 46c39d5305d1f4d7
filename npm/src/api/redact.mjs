// Masking what may be a credential in a message the package did not write (a driver's error,
// a store's failure) before it goes into a log line or an error of ours. One place, used by
// the receiver's log and the client's record_failed.

// A word that names a credential, with what comes before or after it in a name
// (`PGPASSWORD`, `DB_PASSWORD`, `X_API_KEY`, `authToken`, `client_credentials`, `PGPASS`), and
// the value after `=` or `:`: quoted, or up to a separator. A quote may close the name
// (`{"password":"x"}`, `'secret': 'x'`). Anchored at a word's start: unanchored, \w* made a
// long word cost quadratic time.
const SECRET_WORDS = String.raw`\b\w*(?:password|passwd|pwd|secret|token|api[-_]?key|private[-_]?key|credentials?)\w*`;
const SECRET_NAME = String.raw`${SECRET_WORDS}|\b\w*pass\b`;
// Not a label (`credentials: ENOENT: no such file`: a short word of letters and a colon), nor a URL whose user
// information is masked already (`credentials: http://***@host`: the rest names where, not
// who); any other URL is (a capability URL holds its secret in its path).
const SECRET_VALUE = String.raw`"[^"]*"|'[^']*'|(?![a-z_]{2,12}:(?:\s|$))(?![a-z][a-z0-9+.-]*:\/\/\*\*\*@)[^\s&;,'")]+`;
const NAMED_SECRET = new RegExp(`(${SECRET_NAME})(["']?\\s*[=:]\\s*)(?:${SECRET_VALUE})`, 'gi');
// A value that looks like a credential: 12 characters or more with a letter and a digit.
const LOOKS_SECRET = String.raw`(?=[\w.~+/=-]{12,})(?=[\w.~+/=-]*[0-9])(?=[\w.~+/=-]*[a-z])[\w.~+/=-]+`;
// After a space: a quoted value (`password "hunter2"`, `pass 'x'`), or an unquoted one that
// looks like a credential (`token Sup3rS3cretPw`), so that `password authentication failed`
// keeps its words (and `PASS` in prose its neighbour).
const QUOTED_SECRET = new RegExp(`(${SECRET_NAME})(\\s+)(?:"[^"]*"|'[^']*')`, 'gi');
const LOOKS_NAMED = new RegExp(`(${SECRET_WORDS}|\\b\\w+pass\\b)(\\s+)${LOOKS_SECRET}`, 'gi');
// An HTTP credential as a header writes it: `Bearer <token>`, `Basic <base64>`; after
// `Authorization:` whatever follows a scheme's word (`Bot`, `SharedKey`, `AWS4-HMAC-SHA256`), or
// the value alone (`Authorization: invalid signature` is masked too: a credential cannot be
// told from words); a cookie's pairs.
const SCHEME_CREDENTIAL = /\b(Bearer|Basic)\s+[\w.~+/=-]+/gi;
const AUTHORIZATION = /\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?)((?:[a-z][\w-]*\s+)?)[^\s"',;]+/gi;
const COOKIE = /\b((?:set-)?cookie["']?\s*[:=]\s*)[^\s;"']+(?:;\s*[^\s;"']+)*;?/gi;

// The shortest known secret looked for inside a text (the receiver's log lines, the command
// line's output): a shorter value, a password such as "pass", would mask common words.
export const SECRET_MIN_CHARS = 12;

/**
 * `text` with each of the known `values` replaced by `***`, in the order given: longest first
 * (see `longestFirst`), so that a value holding another is replaced whole.
 */
export function hideKnown(text, values) {
  let out = text;
  for (const value of values) out = out.split(value).join('***');
  return out;
}

/** The distinct strings of `values`, longest first, for `hideKnown`. */
export const longestFirst = (values) => [...new Set(values)].sort((a, b) => b.length - a.length);

// What is read of a message, white space collapsed first: its callers show its first
// MESSAGE_CHARS characters at most, and a pattern that backtracks (a URL's user information up to its last
// @) stays bounded on a long, odd message (40,000 letters took 2.9 s; 4,096, about 30 ms).
export const MAX_READ = 4096;

// The longest a driver's or a store's message is quoted in a line or an error of ours: long
// enough for the fix a store's own message ends with.
export const MESSAGE_CHARS = 1000;

// What a terminal or a log viewer acts on rather than shows: C0 controls (a line break, ESC),
// DEL, C1 controls (CSI), the line and paragraph separators and the bidirectional overrides.
const UNSHOWN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `line` with each character a terminal or a log viewer would act on written as `\uXXXX`: an
 * id an authentic event carries (any text the service accepts) cannot start a line of its own
 * or colour the ones after it.
 */
export const oneLine = (line) => line.replace(UNSHOWN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * `value` as text, never throwing: a driver or a store may reject with a value String() cannot
 * print (an object without a prototype, a toString that throws), and a failure is described
 * inside the catch that answers 503.
 */
export function printable(value) {
  try {
    return String(value);
  } catch {
    return `an unprintable ${value === null ? 'null' : typeof value} value`;
  }
}

/**
 * `text` (white space collapsed, its first MAX_READ characters) with what may be a credential
 * masked (`***`): a URL's user information (up to its last @, whatever it holds; all of a URL
 * the cut ends before its @), `user:password@` without a scheme (a password with `/` too),
 * `password=` (and the like: `PGPASSWORD=`, `DB_PASSWORD:`, `"password":`) in a connection
 * string or JSON, a quoted value (or one that looks like a credential) after such a word,
 * `Bearer` and `Basic` credentials, whatever follows `Authorization:`, a cookie's pairs, a
 * webhook signing secret's `whsec_` form, an API key's `sk_`/`rk_` form (a payment API's key
 * in a handler's error), and every query value.
 */
export function maskCredentials(text) {
  const whole = printable(text).replace(/\s+/g, ' ');
  // A scheme is tried from the first letter of a run of letters only (not again at each).
  let read = whole.slice(0, MAX_READ).replace(/(?<![a-z])([a-z][a-z0-9+.-]*:\/\/)\S*@/gi, '$1***@');
  if (whole.length > MAX_READ) read = read.replace(/(?<![a-z])([a-z][a-z0-9+.-]*:\/\/)[^\s@]*$/i, '$1***');
  return read
    .replace(/(^|[\s(<'"=/])[^\s:/@'"]+:(?!\/)[^\s@'"]+@/g, '$1***@')
    .replace(NAMED_SECRET, '$1$2***')
    .replace(QUOTED_SECRET, '$1$2***')
    .replace(LOOKS_NAMED, '$1$2***')
    .replace(SCHEME_CREDENTIAL, '$1 ***')
    .replace(AUTHORIZATION, '$1$2***')
    .replace(COOKIE, '$1***')
    .replace(/\bwhsec_[\w+/=.-]+/gi, 'whsec_***')
    .replace(/\b(sk|rk)_(?=[\w-]*\d)[\w-]{8,}/gi, '$1_***')
    .replace(/([?&][^=\s&#]+)=[^\s&#]*/g, '$1=***');
}

/**
 * An error of ours standing for `failure` (a driver's or a store's), as a caller and
 * console.error see it: its message (`message`, else the failure's, masked), name and code
 * masked, the errors an AggregateError holds and its cause likewise (two deep), and its stack's
 * frames; never the original: a driver's error may name its database's credentials, and
 * console.error prints a cause whole.
 */
export function maskedCopy(failure, message, depth = 0) {
  const copy = new Error(message ?? maskCredentials(failure?.message ?? failure));
  if (typeof failure?.name === 'string') copy.name = maskCredentials(failure.name).slice(0, 80);
  for (const key of ['code', 'errno']) {
    const value = failure?.[key];
    if (typeof value === 'number') copy[key] = value;
    else if (typeof value === 'string') copy[key] = maskCredentials(value).slice(0, 80);
  }
  // The frames (file and function names, no values) under the copy's own first line.
  const frames = typeof failure?.stack === 'string' ? failure.stack.split('\n').filter((line) => /^\s+at /.test(line)) : [];
  copy.stack = [`${copy.name}: ${copy.message}`, ...frames].join('\n');
  if (depth < 2) {
    if (Array.isArray(failure?.errors)) copy.errors = failure.errors.slice(0, 8).map((error) => maskedCopy(error, undefined, depth + 1));
    if (failure?.cause !== undefined && failure.cause !== null) copy.cause = maskedCopy(failure.cause, undefined, depth + 1);
  }
  return copy;
}
