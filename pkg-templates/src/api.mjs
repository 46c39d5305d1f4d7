// The public JavaScript API of cryptopay-verify, over the wasm exports.
//
// Every runtime entry (node, workerd, edge-light, browser) instantiates the same .wasm and
// hands the wasm-bindgen glue to `createApi`. This layer checks JavaScript types, turns
// bodies and header containers into bytes and strings, and calls the Rust core, which
// decides everything else. Every failure is a CryptoPayError with a stable `code`.
// Messages name fields and rules, never a secret, a signature or a byte of the body.

const KINDS = ['active', 'pending', 'retiring'];
const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
const MAX_MAX_BODY_BYTES = 64 * 1024 * 1024;
const MAX_SECRETS = 4;
// Body states passed to the core, which reports them at their place in the order of checks.
const BODY_RAW = 0;
const BODY_OVERSIZED = 1;
const BODY_NOT_RAW = 2;
const EMPTY = new Uint8Array(0);
// A header value that is never well-formed: a non-string timestamp or signature is then
// reported as malformed by the core, after the checks that come before it.
const NEVER_WELL_FORMED = '\u0000';

/** The error every function of the package throws. `code` is stable. */
export class CryptoPayError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'CryptoPayError';
    this.code = code;
  }
}

const tag = (v) => Object.prototype.toString.call(v);
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// Lone surrogates cannot be encoded as UTF-8 without changing them.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed = (s) =>
  typeof s.isWellFormed === 'function' ? s.isWellFormed() : !LONE_SURROGATE.test(s);

const encoder = new TextEncoder();
// ignoreBOM keeps the text byte for byte (the core already refuses an event that starts with a BOM).
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
// The wasm-bindgen glue, once the entry has started the instance.
let glue = null;
// The instance's memory, a view of it (renewed when the memory grows), and the error codes
// in the order the verifying exports number them (read at the first failure).
let memory = null;
let memoryView = new Uint8Array(0);
let codes = [];

function fail(code, detail) {
  const general = glue.codeMessage(code) ?? '';
  return new CryptoPayError(code, detail ? `${code}: ${detail}; ${general}` : `${code}: ${general}`);
}

/** Called by the runtime entry once the wasm instance has started. */
export function install(startedGlue, startedMemory) {
  glue = startedGlue;
  memory = startedMemory;
  glue.setErrorClass(CryptoPayError);
}

function assertReady() {
  if (glue === null) {
    throw new CryptoPayError(
      'invalid_argument',
      'invalid_argument: the WebAssembly module is not loaded yet; await init() before the first call',
    );
  }
}

// An unknown option key is never echoed (it could be a pasted secret); a near miss of a
// known option is named instead.
function options(value, allowed, what) {
  if (!isPlainObject(value)) throw fail('invalid_argument', `${what} takes an options object`);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      const near = allowed.find((name) => nearMiss(key, name));
      const hint = near ? `; did you mean "${near}"?` : '';
      throw fail('invalid_argument', `${what} was given an unknown option (options: ${allowed.join(', ')})${hint}`);
    }
  }
  return value;
}

// Same letters ignoring case, '_' and '-', or one edit apart.
function nearMiss(key, name) {
  const fold = (s) => s.toLowerCase().replace(/[_-]/g, '');
  const a = fold(key);
  const b = fold(name);
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1 || a.length > 40) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const tail = (x, y) => a.slice(i + x) === b.slice(i + y);
  return tail(1, 1) || tail(1, 0) || tail(0, 1);
}

// The two option objects of every request, checked without allocating or searching; when
// one says no, options() finds and explains the key (or accepts an inherited one).
const CALL_KEYS = ['body', 'timestamp', 'signature', 'nowSecs'];
const VERIFY_OPTIONS = ['body', 'timestamp', 'signature', 'secrets', 'nowSecs', 'maxSkewSecs', 'maxBodyBytes'];

// True when every key is one of a Verifier call's, or with `oneShot` of a one-shot call's.
function onlyKnownKeys(input, oneShot) {
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

function safeUint(value, name) {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw fail('invalid_argument', `${name} must be an integer from 0 to 2^53 - 1 (seconds, not milliseconds)`);
  }
  return value;
}

function maxBody(value) {
  if (value === undefined) return DEFAULT_MAX_BODY_BYTES;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_MAX_BODY_BYTES) {
    throw fail('invalid_argument', 'maxBodyBytes must be an integer from 1 to 67108864 (64 MiB)');
  }
  return value;
}

// Reads a body as bytes without copying where possible: [bytes, state].
function readBody(body, limit) {
  let bytes;
  if (typeof body === 'string') {
    if (!wellFormed(body)) return [EMPTY, BODY_NOT_RAW];
    // A UTF-8 encoding is never shorter than the string's length in UTF-16 units.
    if (body.length > limit) return [EMPTY, BODY_OVERSIZED];
    bytes = encoder.encode(body);
  } else if (ArrayBuffer.isView(body)) {
    try {
      bytes = body instanceof Uint8Array ? body : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      // A view over a detached or shrunk buffer reads as empty; slice throws for it.
      if (bytes.byteLength === 0) bytes.slice(0, 0);
    } catch {
      return [EMPTY, BODY_NOT_RAW];
    }
  } else if (tag(body) === '[object ArrayBuffer]' || tag(body) === '[object SharedArrayBuffer]') {
    try {
      bytes = new Uint8Array(body);
    } catch {
      return [EMPTY, BODY_NOT_RAW]; // a detached buffer
    }
  } else {
    return [EMPTY, BODY_NOT_RAW];
  }
  return bytes.byteLength > limit ? [EMPTY, BODY_OVERSIZED] : [bytes, BODY_RAW];
}

function bodyBytes(body, limit = Infinity) {
  const [bytes, state] = readBody(body, limit);
  if (state === BODY_NOT_RAW) {
    throw fail('body_not_raw', body === null || typeof body !== 'object' ? `the body is ${body === null ? 'null' : typeof body}` : 'the body is an object');
  }
  if (state === BODY_OVERSIZED) throw fail('body_too_large');
  return bytes;
}

// The longest header value the core reads (the signature's limit, 1024 bytes): anything
// longer is refused there without being copied into wasm memory in full.
const MAX_HEADER_VALUE = 1024;
const BLANK = /^[ \t]*$/;

function headerValue(value) {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') return NEVER_WELL_FORMED;
  if (value.length <= MAX_HEADER_VALUE) return value;
  return BLANK.test(value) ? '' : NEVER_WELL_FORMED;
}

// issue-14: a delivery's header value given as an array holds one value per occurrence of the
// header (Node's req.headersDistinct): none is an absent header, one is that value, and several
// are a header sent more than once. The core sees DUPLICATED as malformed at its place in the
// order of checks, and settled() names it header_duplicated.
const DUPLICATED = '\u0000\u0000';

function deliveryHeaderValue(value) {
  if (!Array.isArray(value)) return headerValue(value);
  if (value.length > 1) return DUPLICATED;
  return value.length === 0 ? '' : typeof value[0] === 'string' ? headerValue(value[0]) : NEVER_WELL_FORMED;
}

// secrets: a string, or an array of { secret, kind, acceptUntilSecs? }.
function secretLists(secrets) {
  const shape = 'secrets must be a string or an array of { secret, kind, acceptUntilSecs? }';
  // issue-14: process.env.NAME is undefined when the variable is not set.
  if (secrets === undefined) {
    throw fail('invalid_argument', 'secrets is undefined: is the environment variable set? Pass the signing Secret as a string (such as process.env.WEBHOOK_SECRET), or an array of { secret, kind, acceptUntilSecs? }');
  }
  if (typeof secrets === 'string') {
    if (!wellFormed(secrets)) throw fail('invalid_argument', 'a secret holds a lone UTF-16 surrogate');
    return [[secrets], ['active'], [-1]];
  }
  if (!Array.isArray(secrets)) throw fail('invalid_argument', shape);
  if (secrets.length > MAX_SECRETS) throw fail('invalid_argument', 'a secret set holds at most 4 entries');
  const list = [];
  const kinds = [];
  const until = [];
  for (const entry of secrets) {
    options(entry, ['secret', 'kind', 'acceptUntilSecs'], 'a secret entry');
    if (entry.secret === undefined) throw fail('invalid_argument', 'a secret entry has secret undefined: is the environment variable set?');
    if (typeof entry.secret !== 'string') throw fail('invalid_argument', 'a secret entry needs secret, a string');
    if (!wellFormed(entry.secret)) throw fail('invalid_argument', 'a secret holds a lone UTF-16 surrogate');
    if (!KINDS.includes(entry.kind)) throw fail('invalid_argument', 'a secret entry needs kind: "active", "pending" or "retiring"');
    list.push(entry.secret);
    kinds.push(entry.kind);
    until.push(entry.acceptUntilSecs === undefined ? -1 : safeUint(entry.acceptUntilSecs, 'acceptUntilSecs'));
  }
  return [list, kinds, until];
}

// Lengths of the header values writeDelivery last wrote.
let timestampLength = 0;
let signatureLength = 0;
// The core's input area as last sized, and a view of its start, where the header values go.
let areaAt = 0;
let areaSize = 0;
let headView = null;
// Room for two header values of at most MAX_HEADER_VALUE UTF-16 units, 3 bytes each in UTF-8.
const HEAD_ROOM = 2 * 3 * MAX_HEADER_VALUE;
// Above this, the area is given back once a smaller delivery comes (as the core does).
const KEEP_AREA = 1024 * 1024;

// Copies a delivery into the core's input area: timestamp value, signature value, body.
function writeDelivery(bytes, timestamp, signature) {
  const size = HEAD_ROOM + bytes.byteLength;
  if (size > areaSize || (areaSize > KEEP_AREA && size <= KEEP_AREA)) {
    areaAt = glue.inputArea(size);
    areaSize = size;
    headView = null;
  }
  if (memoryView.byteLength === 0) {
    memoryView = new Uint8Array(memory.buffer); // the memory grew
    headView = null;
  }
  headView ??= memoryView.subarray(areaAt, areaAt + HEAD_ROOM);
  // Both values in one step; UTF-8 takes as many bytes as UTF-16 units only for ASCII.
  if (encoder.encodeInto(timestamp + signature, headView).written === timestamp.length + signature.length) {
    timestampLength = timestamp.length;
    signatureLength = signature.length;
  } else {
    // Not ASCII (so malformed): encoded apart, a lone surrogate as U+FFFD.
    timestampLength = encoder.encodeInto(timestamp, headView).written;
    signatureLength = encoder.encodeInto(signature, headView.subarray(timestampLength)).written;
  }
  memoryView.set(bytes, areaAt + timestampLength + signatureLength);
}

// The answer of a verifying export: the result, or the failure it numbered (built here, so
// its stack is the caller's).
function settled(packed, bytes, parse, timestamp, signature) {
  if (packed < 0) {
    if (codes.length === 0) codes = glue.errorCodes();
    const code = codes[-1 - packed] ?? 'invalid_argument';
    if ((code === 'timestamp_malformed' && timestamp === DUPLICATED) || (code === 'signature_malformed' && signature === DUPLICATED)) {
      throw fail('header_duplicated', `${code === 'timestamp_malformed' ? 'timestamp' : 'signature'} was given as an array of several values (the header was sent more than once)`);
    }
    throw new CryptoPayError(code, glue.lastErrorMessage());
  }
  const out = { matchedSecret: KINDS[packed % 4], timestamp: Math.floor(packed / 8) };
  return parse ? { event: buildEvent(bytes, packed % 8 >= 4), ...out } : out;
}

function buildEvent(bytes, rewrite) {
  const envelope = JSON.parse(rewrite ? glue.eventText(bytes) : decoder.decode(bytes));
  const data = envelope.data;
  return {
    schemaVersion: String(envelope.schema_version),
    eventId: envelope.event_id,
    eventType: envelope.event_type,
    occurredAt: envelope.occurred_at,
    paymentId: data.payment_id,
    statusVersion: String(data.status_version),
    data,
    envelope,
  };
}

// The one-shot functions keep the last secret set they were given keyed, so that calling
// them with the same secrets and options (the usual receiver) costs what a Verifier does.
// { lists, single, skew, limit, raw }: the set as read by secretLists (copies of the values),
// the string it came from if it was one, the options, the keyed verifier.
let lastSet = null;

const sameLists = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

// The keyed verifier for this set, or null when the set does not key one (then the
// uncached call reports the error in the contract's order of checks).
function keyedFor(lists, single, skew, limit) {
  if (lastSet !== null && lastSet.skew === skew && lastSet.limit === limit
    && lastSet.lists.every((list, i) => sameLists(list, lists[i]))) {
    return lastSet.raw;
  }
  let raw;
  try {
    raw = new glue.RawVerifier(lists[0], lists[1], lists[2], skew, limit);
  } catch {
    return null;
  }
  if (lastSet !== null) lastSet.raw.free(); // zeroizes the previous keys
  lastSet = { lists, single, skew, limit, raw };
  return raw;
}

function verifyOnce(input, what, parse) {
  assertReady();
  if (!onlyKnownKeys(input, true)) options(input, VERIFY_OPTIONS, what);
  const now = safeUint(input.nowSecs, 'nowSecs');
  if (input.maxSkewSecs === undefined) {
    throw fail('invalid_argument', 'maxSkewSecs is required (300 seconds is the usual choice)');
  }
  const skew = safeUint(input.maxSkewSecs, 'maxSkewSecs');
  const limit = maxBody(input.maxBodyBytes);
  let raw;
  let lists = null;
  if (lastSet !== null && typeof input.secrets === 'string' && lastSet.single === input.secrets
    && lastSet.skew === skew && lastSet.limit === limit) {
    raw = lastSet.raw; // the same secret string as last time: nothing to read again
  } else {
    lists = secretLists(input.secrets);
    raw = keyedFor(lists, typeof input.secrets === 'string' ? input.secrets : null, skew, limit);
  }
  const [bytes, state] = readBody(input.body, limit);
  const timestamp = deliveryHeaderValue(input.timestamp);
  const signature = deliveryHeaderValue(input.signature);
  writeDelivery(bytes, timestamp, signature);
  const packed = raw !== null
    ? raw.verifyArea(bytes.byteLength, timestampLength, signatureLength, state, now, parse)
    : glue.verifyArea(lists[0], lists[1], lists[2], skew, limit,
      bytes.byteLength, timestampLength, signatureLength, state, now, parse);
  return settled(packed, bytes, parse, timestamp, signature);
}

/** Verifies a delivery without parsing it. */
export function verifySignature(input) {
  return verifyOnce(input, 'verifySignature', false);
}

/** Verifies a delivery, then parses its event from the same bytes. */
export function verifyWebhook(input) {
  return verifyOnce(input, 'verifyWebhook', true);
}

/** A verifier keyed once and reused for every delivery. */
class Verifier {
  #raw;
  #limit;

  // A method called on something else (detached from its Verifier, or on the prototype).
  static #own(receiver, method) {
    if (receiver === null || typeof receiver !== 'object' || !(#raw in receiver)) {
      throw fail('invalid_argument', `${method} must be called on a Verifier (keep it as verifier.${method}(...))`);
    }
    return receiver;
  }

  constructor(init) {
    assertReady();
    options(init, ['secrets', 'maxSkewSecs', 'maxBodyBytes'], 'new Verifier');
    if (init.maxSkewSecs === undefined) {
      throw fail('invalid_argument', 'maxSkewSecs is required (300 seconds is the usual choice)');
    }
    const skew = safeUint(init.maxSkewSecs, 'maxSkewSecs');
    this.#limit = maxBody(init.maxBodyBytes);
    const [list, kinds, until] = secretLists(init.secrets);
    this.#raw = new glue.RawVerifier(list, kinds, until, skew, this.#limit);
  }

  #verify(input, what, parse) {
    if (!onlyKnownKeys(input, false)) options(input, CALL_KEYS, what);
    if (this.#raw === null) throw fail('invalid_argument', 'this Verifier was freed');
    const now = safeUint(input.nowSecs, 'nowSecs');
    const [bytes, state] = readBody(input.body, this.#limit);
    const timestamp = deliveryHeaderValue(input.timestamp);
    const signature = deliveryHeaderValue(input.signature);
    writeDelivery(bytes, timestamp, signature);
    const packed = this.#raw.verifyArea(bytes.byteLength, timestampLength, signatureLength, state, now, parse);
    return settled(packed, bytes, parse, timestamp, signature);
  }

  verifySignature(input) {
    return Verifier.#own(this, 'verifySignature').#verify(input, 'verifySignature', false);
  }

  verifyWebhook(input) {
    return Verifier.#own(this, 'verifyWebhook').#verify(input, 'verifyWebhook', true);
  }

  /** Releases the keyed state now (it is also reclaimed when garbage-collected). */
  free() {
    Verifier.#own(this, 'free');
    if (this.#raw !== null) {
      this.#raw.free();
      this.#raw = null;
    }
  }
}
if (typeof Symbol.dispose === 'symbol') {
  Verifier.prototype[Symbol.dispose] = Verifier.prototype.free;
}

// Exported behind a Proxy only so that calling it without `new` is a CryptoPayError too.
const VerifierExport = new Proxy(Verifier, {
  apply() {
    throw fail('invalid_argument', 'Verifier is a class: create it with new Verifier({ secrets, maxSkewSecs })');
  },
});
export { VerifierExport as Verifier };

// Turns any header container into parallel name and value lists.
function headerLists(headers) {
  const names = [];
  const values = [];
  const bad = () => fail('invalid_argument', 'a header name must be a string, and its value a string or an array of strings');
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
  if (typeof opts.timestampHeader !== 'string' || typeof opts.signatureHeader !== 'string') {
    throw fail('invalid_argument', 'timestampHeader and signatureHeader are required header names');
  }
  const [names, values] = headerLists(headers);
  const [timestamp, signature] = glue.readDeliveryHeaders(names, values, opts.timestampHeader, opts.signatureHeader);
  return { timestamp, signature };
}

/** Signs a body as the service does (for tests). */
export function signWebhook(input) {
  assertReady();
  options(input, ['secret', 'timestamp', 'body', 'encoding'], 'signWebhook');
  if (typeof input.secret !== 'string' || !wellFormed(input.secret)) {
    throw fail('invalid_argument', 'secret must be a string (the signing Secret as saved)');
  }
  const encoding = input.encoding ?? 'hex';
  if (encoding !== 'hex' && encoding !== 'base64') throw fail('invalid_argument', 'encoding must be "hex" or "base64"');
  const ts = typeof input.timestamp === 'number' && Number.isSafeInteger(input.timestamp) && input.timestamp >= 0
    ? String(input.timestamp)
    : headerValue(input.timestamp);
  return glue.signWebhook(input.secret, ts, bodyBytes(input.body), encoding === 'base64');
}

/** Parses a body that already verified. */
export function parseEvent(verifiedBody) {
  assertReady();
  const bytes = bodyBytes(verifiedBody);
  return buildEvent(bytes, glue.checkEvent(bytes) === 1);
}

function versionText(value) {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  return '';
}

/** Compares two status versions exactly: -1, 0 or 1. */
export function compareStatusVersions(a, b) {
  assertReady();
  return glue.compareStatusVersions(versionText(a), versionText(b));
}

/** apply, duplicate or stale. */
export function decideEvent(incoming, stored) {
  assertReady();
  // Data, not options: extra fields are fine, so the event from verifyWebhook (or a stored
  // row) can be passed as it is.
  if (!isPlainObject(incoming)) throw fail('invalid_argument', 'decideEvent takes the incoming event { eventId, paymentId, statusVersion }');
  if (!isPlainObject(stored)) throw fail('invalid_argument', 'decideEvent takes what is stored { eventSeen, statusVersion? }');
  for (const key of ['eventId', 'paymentId']) {
    if (typeof incoming[key] !== 'string' || incoming[key] === '') {
      throw fail('invalid_argument', `incoming.${key} must be a non-empty string`);
    }
  }
  if (typeof stored.eventSeen !== 'boolean') throw fail('invalid_argument', 'stored.eventSeen must be a boolean');
  const storedVersion = stored.statusVersion === undefined || stored.statusVersion === null
    ? undefined
    : versionText(stored.statusVersion);
  return glue.decideEvent(versionText(incoming.statusVersion), stored.eventSeen, storedVersion);
}

const text = (value) => (typeof value === 'string' ? value : '');

function decimalsArg(value) {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw fail('decimals_invalid');
  return value;
}

export function validateAmountRaw(value) {
  assertReady();
  glue.validateAmountRaw(text(value));
}

export function isValidAmountRaw(value) {
  try {
    validateAmountRaw(value);
    return true;
  } catch (error) {
    if (error instanceof CryptoPayError && error.code === 'amount_raw_invalid') return false;
    throw error;
  }
}

export function toAmountRaw(decimal, decimals) {
  assertReady();
  return glue.toAmountRaw(text(decimal), decimalsArg(decimals));
}

export function fromAmountRaw(raw, decimals) {
  assertReady();
  return glue.fromAmountRaw(text(raw), decimalsArg(decimals));
}

// Objects that mirror the service's JSON cross into the core as JSON text.
function json(value) {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return 'null'; // a BigInt or a cycle: reported as the value's own shape error
  }
}

export function buildSourceAmount(input) {
  assertReady();
  options(input, ['primarySource', 'amount'], 'buildSourceAmount');
  return JSON.parse(glue.buildSourceAmount(json(input.primarySource), text(input.amount)));
}

export function validateSourceAmount(sourceAmount, primarySource) {
  assertReady();
  glue.validateSourceAmount(json(sourceAmount), json(primarySource));
}

function websiteOriginArg(opts, what) {
  if (opts === undefined) return undefined;
  options(opts, what === 'validateCreatePayment' ? ['primarySource', 'websiteOrigin'] : ['websiteOrigin'], what);
  if (opts.websiteOrigin !== undefined && typeof opts.websiteOrigin !== 'string') {
    throw fail('invalid_argument', 'websiteOrigin must be a string such as https://shop.example');
  }
  return opts.websiteOrigin;
}

export function validateCreatePayment(body, opts) {
  assertReady();
  options(opts, ['primarySource', 'websiteOrigin'], 'validateCreatePayment');
  const website = websiteOriginArg(opts, 'validateCreatePayment');
  glue.validateCreatePayment(json(body), json(opts.primarySource), website);
}

export function validateCheckoutOrigin(origin, opts) {
  assertReady();
  glue.validateCheckoutOrigin(text(origin), websiteOriginArg(opts, 'validateCheckoutOrigin'));
}

export function validateWebhookUrl(url) {
  assertReady();
  glue.validateWebhookUrl(text(url));
}

export function hostedCheckoutUrl(checkoutOrigin, paymentId) {
  assertReady();
  const id = typeof paymentId === 'string' && wellFormed(paymentId) ? paymentId : '';
  return glue.hostedCheckoutUrl(text(checkoutOrigin), id);
}

export function requestFingerprint(body) {
  assertReady();
  return glue.requestFingerprint(bodyBytes(body));
}

export function validateIdempotencyKey(key) {
  assertReady();
  glue.validateIdempotencyKey(text(key));
}

export function classifyDeliveryResponse(status) {
  assertReady();
  if (typeof status !== 'number') throw fail('invalid_argument', 'status must be an HTTP status number');
  return glue.classifyDeliveryResponse(status);
}

export function errorCodes() {
  assertReady();
  return glue.errorCodes();
}

/**
 * Starts the package from a compiled module: instantiated synchronously (Workers and edge
 * runtimes forbid compiling at run time, and need no `instanceof WebAssembly.Module`), the
 * exports handed to the glue, the externref table set up by `__wbindgen_start`.
 */
export function startFromModule(bgGlue, wasmModule) {
  startFromInstance(bgGlue, new WebAssembly.Instance(wasmModule, { './cryptopay_verify_bg.js': bgGlue }));
}

/** Starts the package from an instance of the module. */
export function startFromInstance(bgGlue, instance) {
  bgGlue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  install(bgGlue, instance.exports.memory);
}
