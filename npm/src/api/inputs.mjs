// JavaScript's side of every input: types and containers only. A value of the right
// JavaScript type goes to the core, which applies the rules (ranges, grammars, limits) and
// words the failure; what the core cannot see (a parsed object where bytes belong, a number
// that is not a safe integer, a lone UTF-16 surrogate) is refused here.

import { CryptoPayError, fail, refuse } from './errors.mjs';
import { bindingHint, unknownOption } from './hints.mjs';
import { limits } from './instance.mjs';

export const tag = (v) => Object.prototype.toString.call(v);
export const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// Lone surrogates cannot be encoded as UTF-8 without changing them.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const wellFormed = (s) =>
  typeof s.isWellFormed === 'function' ? s.isWellFormed() : !LONE_SURROGATE.test(s);

/** A string argument as given; any other value as '', which the core refuses with its code. */
export const text = (value) => (typeof value === 'string' ? value : '');

const encoder = new TextEncoder();

/**
 * Checks an options object's keys. An unknown key is never echoed (it could be a pasted
 * secret); a near miss of a known option is named instead.
 */
export function options(value, allowed, what) {
  if (!isPlainObject(value)) throw fail('invalid_argument', `${what} takes an options object`);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw fail('invalid_argument', unknownOption(key, allowed, what));
  }
  return value;
}


export const CALL_KEYS = ['body', 'timestamp', 'signature', 'nowSecs'];
export const VERIFY_OPTIONS = [...CALL_KEYS, 'secrets', 'maxSkewSecs', 'maxBodyBytes'];

/**
 * True when every key is one of a Verifier call's (with `oneShot`, of a one-shot call's),
 * checked without allocating; when it says no, options() finds and explains the key.
 */
export function onlyKnownKeys(input, oneShot) {
  if (!isPlainObject(input)) return false;
  for (const key in input) {
    switch (key) {
      case 'body':
      case 'timestamp':
      case 'signature':
      case 'nowSecs':
        break;
      case 'secrets':
      case 'maxSkewSecs':
      case 'maxBodyBytes':
        if (oneShot) break;
        return false;
      default:
        return false;
    }
  }
  return true;
}

/** A number of seconds: a JavaScript safe integer >= 0. */
export function safeUint(value, name) {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw fail('invalid_argument', `${name} must be an integer from 0 to 2^53 - 1 (seconds, not milliseconds)`);
  }
  return value;
}

/** `maxSkewSecs`, required (no hidden default). */
export function maxSkew(value) {
  if (value === undefined) throw fail('invalid_argument', 'maxSkewSecs is required (300 seconds is the usual choice)');
  return safeUint(value, 'maxSkewSecs');
}

/** `maxBodyBytes`: the core's default when left out; its range is the core's to check. */
export function maxBody(value) {
  if (value === undefined) return limits.defaultMaxBodyBytes;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw fail('invalid_argument', `maxBodyBytes must be an integer from 1 to ${limits.maxMaxBodyBytes} (${limits.maxMaxBodyBytes / 1048576} MiB)`);
  }
  return value;
}

// An ArrayBuffer or SharedArrayBuffer, by the engine's own brand check (its byteLength getter
// throws for anything else), never by a Symbol.toStringTag an object may claim.
const byteLengthOf = (proto) => (proto === undefined ? undefined : Object.getOwnPropertyDescriptor(proto, 'byteLength')?.get);
const AB_LENGTH = byteLengthOf(ArrayBuffer.prototype);
const SAB_LENGTH = byteLengthOf(globalThis.SharedArrayBuffer?.prototype);
function branded(get, value) {
  if (get === undefined) return false;
  try {
    get.call(value);
    return true;
  } catch {
    return false;
  }
}
const isBuffer = (value) => value !== null && typeof value === 'object' && (branded(AB_LENGTH, value) || branded(SAB_LENGTH, value));
const AB_RESIZABLE = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'resizable')?.get;

// A view's buffer, offset and length by the engine's own getters (a typed array's, else a
// DataView's), never by properties a subclass or the instance may define: the copy into the
// core is sized by the view's length, and one that lied would write past what was allocated.
const viewGetters = (proto) => ['buffer', 'byteOffset', 'byteLength'].map((name) => Object.getOwnPropertyDescriptor(proto, name).get);
const TYPED_ARRAY = viewGetters(Object.getPrototypeOf(Uint8Array.prototype));
const DATA_VIEW = viewGetters(DataView.prototype);
const gettersOf = (view) => (branded(TYPED_ARRAY[0], view) ? TYPED_ARRAY : DATA_VIEW);
// %TypedArray%.prototype.keys: validates the view, and unlike slice calls no constructor the
// view's class may define.
const TYPED_KEYS = Object.getPrototypeOf(Uint8Array.prototype).keys;
function viewBytes(view) {
  // The typed-array buffer getter is the brand check too (it throws for a DataView), read once.
  let getters = TYPED_ARRAY;
  let buffer;
  try {
    buffer = TYPED_ARRAY[0].call(view);
  } catch {
    getters = DATA_VIEW;
    buffer = DATA_VIEW[0].call(view);
  }
  const length = getters[2].call(view);
  // A typed array over a detached buffer, or past the end of a shrunk one, reads as empty:
  // validating it throws (a DataView's getters already threw).
  if (length === 0 && getters === TYPED_ARRAY) TYPED_KEYS.call(view);
  const bytes = new Uint8Array(buffer, getters[1].call(view), length);
  return changeable(buffer) ? bytes.slice() : bytes;
}

/**
 * Objects that mirror the service's JSON cross into the core as JSON text. One that JSON cannot
 * carry (a BigInt, a cycle, nesting past the stack, a getter or toJSON that throws) crosses as
 * null, which the core refuses with the object's own code; `run` then words that refusal by
 * its cause, not as "not an object". Each object has its own code, so the core's order of
 * checks is kept.
 */
export function jsonArgs() {
  const causes = new Map();
  return {
    text(value, code, name) {
      try {
        return JSON.stringify(value) ?? 'null';
      } catch (error) {
        if (!causes.has(code)) causes.set(code, `${name} cannot be written as JSON: ${unwritable(error)}`);
        return 'null';
      }
    },
    run(call) {
      try {
        return call();
      } catch (error) {
        const cause = error instanceof CryptoPayError ? causes.get(error.code) : undefined;
        throw cause === undefined ? error : fail(error.code, cause);
      }
    },
  };
}

function unwritable(error) {
  if (error instanceof RangeError) return 'it is nested too deeply';
  const said = error instanceof TypeError ? String(error.message) : '';
  if (/BigInt/.test(said)) return 'it holds a BigInt: amounts are decimal strings, decimals a number';
  if (/circular/i.test(said)) return 'it refers to itself';
  return 'reading one of its values threw';
}

// Memory another thread may write (SharedArrayBuffer) or the caller may resize while the core
// reads it: copied once, so that the bytes hashed are the bytes parsed (and TextDecoder, which
// refuses such memory in browsers, reads the copy). A plain ArrayBuffer is told at once.
// Told by the engine's getters, never by a constructor or property the buffer may claim.
const changeable = (buffer) => !branded(AB_LENGTH, buffer)
  || (AB_RESIZABLE !== undefined && AB_RESIZABLE.call(buffer) === true);

/**
 * A body as bytes, without copying where possible; refused when it is not raw or is over
 * `limit` (checked before any copy into wasm memory, a string by its UTF-16 length first:
 * its UTF-8 encoding is never shorter). By default the limit is the largest maxBodyBytes any
 * verification takes: a body past WebAssembly's reach would trap in the glue instead.
 */
export function bodyBytes(body, limit = limits.maxMaxBodyBytes) {
  let bytes;
  if (typeof body === 'string') {
    if (!wellFormed(body)) throw fail('body_not_raw', 'the body is a string holding a lone UTF-16 surrogate');
    if (body.length > limit) throw refuse('body_too_large');
    bytes = encoder.encode(body);
  } else if (ArrayBuffer.isView(body)) {
    try {
      bytes = viewBytes(body);
    } catch {
      throw fail('body_not_raw', changeable(gettersOf(body)[0].call(body))
        ? 'the body is a view past the end of a resizable ArrayBuffer that shrank: pass the bytes it holds now'
        : 'the body is a view of a detached buffer');
    }
  } else if (isBuffer(body)) {
    try {
      bytes = new Uint8Array(body);
    } catch {
      throw fail('body_not_raw', 'the body is a detached ArrayBuffer');
    }
    if (changeable(body)) bytes = bytes.slice();
  } else {
    throw fail('body_not_raw', notRaw(body));
  }
  if (bytes.byteLength > limit) throw refuse('body_too_large');
  return bytes;
}

// What a body that is not raw bytes is, and for the containers of bytes, how to read them.
function notRaw(body) {
  if (body === null || body === undefined) return `the body is ${body}`;
  if (typeof body !== 'object') return `the body is a ${typeof body}`;
  const kind = tag(body).slice(8, -1);
  if (kind === 'Blob' || kind === 'File') return `the body is a ${kind}: pass await body.arrayBuffer()`;
  if (kind === 'Request' || kind === 'Response') return `the body is a ${kind} object: pass await ${kind.toLowerCase()}.arrayBuffer(), read once`;
  if (kind === 'ReadableStream' || typeof body.pipe === 'function') {
    return 'the body is a stream: read it to the end first (Node: collect its Buffers and Buffer.concat them; Fetch: await new Response(stream).arrayBuffer())';
  }
  return 'the body is an object';
}

// Stand-ins handed to the core in place of a header value it must refuse as malformed, at its
// place in the order of checks; JavaScript then says why. Each is longer than any string
// headerValue passes through (limits.maxHeaderValueBytes, the core's MAX_SIGNATURE_HEADER_BYTES:
// 1024), so that no caller's value can be taken for one ('\u0000' given as a timestamp is the
// core's own refusal, not a stand-in's).
const STAND_IN = 4096;
// A value that is never well-formed: a non-string timestamp or signature, or one longer than
// the header ever holds; `notHeader` says which.
export const NEVER_WELL_FORMED = '\u0000'.repeat(STAND_IN);
// A header value given as an array of several values (the header was sent more than once):
// the verify module names it header_duplicated.
export const DUPLICATED = '\u0000'.repeat(STAND_IN + 1);
const BLANK = /^[ \t]*$/;

/**
 * A delivery header's value for the core: absent (undefined, null, []) as '', a string as
 * it is unless longer than the core ever reads (then never copied: blank as its first space or
 * tab, which the core judges as it judges any blank value of that header, anything else as
 * malformed), an array of one value as that value, of several as DUPLICATED.
 */
export function headerValue(value) {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') {
    if (value.length <= limits.maxHeaderValueBytes) return value;
    return BLANK.test(value) ? value.slice(0, 1) : NEVER_WELL_FORMED;
  }
  if (!Array.isArray(value)) return NEVER_WELL_FORMED;
  // Each read once: a Proxy's answers may change from one read to the next.
  const { length } = value;
  if (length > 1) return DUPLICATED;
  if (length === 0) return '';
  const first = value[0];
  return typeof first === 'string' ? headerValue(first) : NEVER_WELL_FORMED;
}

/** A header value as the caller gave it: the one value of a one-element array, else itself. */
export const sentValue = (value) => (Array.isArray(value) && value.length === 1 ? value[0] : value);

/**
 * Why a header value given as `value` was handed to the core as NEVER_WELL_FORMED: the detail
 * of its `timestamp_malformed` or `signature_malformed`, in place of the stand-in's.
 */
export function notHeader(name, value) {
  const fix = name === 'timestamp'
    ? "pass the timestamp header's value exactly as received: a string of Unix seconds such as '1700000000'"
    : "pass the signature header's value exactly as received, as a string";
  const one = sentValue(value);
  if (typeof one === 'string') {
    return `${name} is longer than ${limits.maxHeaderValueBytes} characters, more than the service ever sends: if it is `
      + "the header's value as received, the delivery is not the service's; else " + fix;
  }
  const kind = one === null || one === undefined ? String(one) : Array.isArray(one) ? 'an array'
    : typeof one === 'object' ? 'an object' : `a ${typeof one}`;
  return `${name} is ${kind}, not the header's text: ${fix}`;
}

/**
 * `secrets` (a string, or an array of { secret, kind, acceptUntilSecs? }) as the parallel
 * lists the core reads: [secrets, kinds, until], `until` -1 where absent and NaN where not a
 * number >= 0 (the core refuses it). The core checks the set's rules.
 */
export function secretLists(secrets) {
  if (secrets === undefined) {
    throw fail('invalid_argument', 'secrets is undefined: is the environment variable set? Pass the signing Secret as a string (such as process.env.CRYPTOPAY_WEBHOOK_SECRET, or env.CRYPTOPAY_WEBHOOK_SECRET in a Worker), or an array of { secret, kind, acceptUntilSecs? }');
  }
  if (typeof secrets === 'string') {
    if (!wellFormed(secrets)) throw fail('invalid_argument', 'a secret holds a lone UTF-16 surrogate');
    return [[secrets], ['active'], [-1]];
  }
  if (!Array.isArray(secrets)) {
    throw fail('invalid_argument', `secrets must be a string or an array of { secret, kind, acceptUntilSecs? }${bindingHint(secrets)}`);
  }
  if (secrets.length > limits.maxSecrets) throw fail('invalid_argument', `a secret set holds at most ${limits.maxSecrets} entries`);
  const list = [];
  const kinds = [];
  const until = [];
  for (const entry of secrets) {
    options(entry, ['secret', 'kind', 'acceptUntilSecs'], 'a secret entry');
    // Each property read once: a getter answering otherwise at a second read must not get a
    // value past these checks into the core (a conversion failing there throws through its
    // frames, which WebAssembly does not unwind).
    const { secret, kind, acceptUntilSecs: bound } = entry;
    if (secret === undefined) throw fail('invalid_argument', 'a secret entry has secret undefined: is the environment variable set?');
    if (typeof secret !== 'string') throw fail('invalid_argument', `a secret entry needs secret, a string${bindingHint(secret)}`);
    if (!wellFormed(secret)) throw fail('invalid_argument', 'a secret holds a lone UTF-16 surrogate');
    list.push(secret);
    kinds.push(text(kind));
    until.push(bound === undefined ? -1 : typeof bound === 'number' && bound >= 0 ? bound : NaN);
  }
  return [list, kinds, until];
}

