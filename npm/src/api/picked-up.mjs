// What a body commonly picks up between the service and the bytes verified, each with how to
// undo it: a final newline, Windows line endings, a byte order mark, a base64 encoding left
// undecoded. Added by an editor or `echo` to a body saved in a file (the CLI's `verify`), or by
// a proxy, gateway or middleware in front of a receiver (AWS Lambda and API Gateway hand a
// body over as base64, with isBase64Encoded: true, for the handler to decode). When the
// signature matches once they are undone, the delivery was authentic and the bytes are not the
// ones the service sent: said so, never accepted.

const LF = 0x0a;
const CR = 0x0d;

/** Whether `bytes` holds CR LF somewhere. */
function hasCrlf(bytes) {
  for (let i = bytes.indexOf(CR); i !== -1 && i < bytes.length - 1; i = bytes.indexOf(CR, i + 1)) {
    if (bytes[i + 1] === LF) return true;
  }
  return false;
}

// The base64 alphabet (standard and URL-safe) and its padding, in lines or not (a MIME encoder
// wraps them at 76 columns; decoding skips the line breaks).
const BASE64 = /^[A-Za-z0-9+/_\r\n-]+={0,2}[\r\n]*$/;

/**
 * Whether `bytes` reads as the base64 of a JSON object: `{` then `"` or a space encodes as `ey`,
 * `{` then a line break as `ew`. Those two bytes are checked first, so that a body that is no
 * base64 (any JSON one) is not scanned.
 */
function isBase64Json(bytes) {
  if (bytes.length < 8 || bytes[0] !== 0x65 || (bytes[1] !== 0x79 && bytes[1] !== 0x77)) return false;
  return BASE64.test(new TextDecoder().decode(bytes));
}

/**
 * The bytes `bytes` (base64 text, either alphabet) encode; `bytes` when they are no base64. The
 * URL-safe alphabet is mapped byte by byte, not by replacing text: a forged body of a million
 * `-` cost a text replace about 70 ms a MiB, a byte loop about 3.
 */
function fromBase64(bytes) {
  const standard = bytes.slice();
  for (let i = 0; i < standard.length; i += 1) {
    if (standard[i] === 0x2d) standard[i] = 0x2b; // - to +
    else if (standard[i] === 0x5f) standard[i] = 0x2f; // _ to /
  }
  const text = new TextDecoder().decode(standard).trim();
  let binary;
  try {
    binary = atob(text);
  } catch {
    return bytes; // a length no base64 has: verified as it is, which failed already
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) out[i] = binary.charCodeAt(i);
  return out;
}

/** `bytes` with each CR that precedes a LF removed. */
function withoutCr(bytes) {
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i += 1) {
    if (!(bytes[i] === CR && bytes[i + 1] === LF)) {
      out[n] = bytes[i];
      n += 1;
    }
  }
  return out.subarray(0, n);
}

/**
 * The changes, in the order they are undone: `said` completes "the body ...", `file` is how a
 * file gets it (the CLI adds it), `applies(bytes)` and `undo(bytes)` work on a Uint8Array.
 */
export const PICKED_UP = [
  {
    said: 'ends with a newline the delivery did not have',
    file: 'an editor or echo adds one',
    applies: (b) => b.at(-1) === LF,
    undo: (b) => b.subarray(0, b.length - (b.at(-2) === CR ? 2 : 1)),
  },
  { said: 'has Windows line endings (CRLF) where the delivery had LF', file: null, applies: hasCrlf, undo: withoutCr },
  {
    said: 'starts with a byte order mark the delivery did not have',
    file: null,
    applies: (b) => b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf,
    undo: (b) => b.subarray(3),
  },
  {
    said: 'is still base64-encoded, as a platform hands over a body it marks so (AWS Lambda: isBase64Encoded: true): decode it '
      + 'before verifying',
    file: null,
    applies: isBase64Json,
    undo: fromBase64,
  },
];

/**
 * Every set of the changes `bytes` shows, fewest first (each set's changes in PICKED_UP's
 * order), with `undone()` giving the bytes with them undone (made only when asked: a body may
 * be megabytes, and a caller stops at the first set that verifies). One change is the usual case; two or three together
 * come from one tool (a Windows editor saves CRLF and a final newline; Notepad a BOM and a
 * newline).
 */
export function undoings(bytes) {
  const found = PICKED_UP.filter(({ applies }) => applies(bytes));
  const sets = [];
  for (let mask = 1; mask < 1 << found.length; mask += 1) sets.push(found.filter((_, i) => mask & (1 << i)));
  sets.sort((a, b) => a.length - b.length);
  return sets.map((changes) => ({ changes, undone: () => changes.reduce((body, { undo }) => undo(body), bytes) }));
}
