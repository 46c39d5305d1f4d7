// Masking what may be a credential in a message the package did not write (a driver's error,
// a store's failure) before it goes into a log line or an error of ours. One place, used by
// the receiver's log and the client's record_failed.

// A word that names a credential, with what comes before or after it in a name
// (`PGPASSWORD`, `DB_PASSWORD`, `X_API_KEY`, `authToken`), and the value after it: quoted, or
// up to a separator. A quote may close the name (`{"password":"x"}`, `'secret': 'x'`).
// Anchored at a word's start: unanchored, \w* made a long word cost quadratic time.
const SECRET_NAME = String.raw`\b\w*(?:password|passwd|pwd|secret|token|api[-_]?key)\w*`;
const SECRET_VALUE = String.raw`"[^"]*"|'[^']*'|[^\s&;,'")}]+`;
const NAMED_SECRET = new RegExp(`(${SECRET_NAME})(["']?\\s*[=:]\\s*)(?:${SECRET_VALUE})`, 'gi');
// `password "hunter2"`: a quoted value after a space only (`password authentication failed`
// keeps its words).
const QUOTED_SECRET = new RegExp(`(${SECRET_NAME})(\\s+)(?:"[^"]*"|'[^']*')`, 'gi');
// An HTTP credential as a header writes it: `Authorization: Bearer <token>`, `Basic <base64>`.
const SCHEME_CREDENTIAL = /\b(Bearer|Basic)\s+[\w.~+/=-]+/gi;

// What is read of a message: its callers show its first 300 characters at most, and a
// pattern that backtracks (a URL's user information up to its last @) stays bounded on a long,
// odd message (measured before the cut: 40,000 letters took 2.9 s).
const MAX_READ = 4096;

/**
 * `text` (its first MAX_READ characters) with what may be a credential masked (`***`): a URL's
 * user information (up to its last @, whatever it holds), `user:password@` without a scheme (a
 * password with `/` too), `password=` (and the like: `PGPASSWORD=`, `DB_PASSWORD:`,
 * `"password":`) in a connection string or JSON, a quoted value after such a word, `Bearer` and
 * `Basic` credentials, and every query value.
 */
export function maskCredentials(text) {
  return String(text).slice(0, MAX_READ)
    // A scheme is read from its first letter only (a run of letters is not tried at each).
    .replace(/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)\S*@/gi, '$1***@')
    .replace(/(^|[\s(<'"=])[^\s:/@'"]+:(?!\/)[^\s@'"]+@/g, '$1***@')
    .replace(NAMED_SECRET, '$1$2***')
    .replace(QUOTED_SECRET, '$1$2***')
    .replace(SCHEME_CREDENTIAL, '$1 ***')
    .replace(/([?&][^=\s&#]+)=[^\s&#]*/g, '$1=***');
}
