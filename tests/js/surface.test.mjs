// JavaScript-only behaviour of the installed package that the shared vectors cannot express:
// body types, header containers, option validation, the Verifier's life cycle, the error
// class, the published types, the event's number/string exposure, and that no secret,
// signature or body byte ever reaches an error. Every suite runs against the ESM entry and
// against the CommonJS entry. Failures are checked by `code` and class, never by message text
// (except the canary, which checks what messages must NOT contain).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import { createContext, runInContext } from 'node:vm';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import {
  cjs,
  cjsEntryPath,
  consumerDir,
  entries,
  esm,
  esmEntryPath,
  packageDir,
  packageJson,
  sign,
  thrown,
  typesText,
} from './package-under-test.mjs';

// ---------------------------------------------------------------------------------------
// Fixtures

const SECRET = 'whsec_surface_secret';
const OTHER_SECRET = 'whsec_other_secret';
const TS = '1700000000';
const NOW = 1700000000;
const SKEW = 300;
const MIB = 1024 * 1024;

const EVENT_TEXT =
  '{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated",' +
  '"occurred_at":"2023-11-14T22:13:20Z","data":{"payment_id":"pay_1","status_version":"42"}}';

/** The error codes of the design contract's table, in its order (tests/vectors/error_codes.json). */
const CONTRACT_CODES = JSON.parse(readFileSync(new URL('../vectors/error_codes.json', import.meta.url), 'utf8')).tests.map((row) => row.code);

/** The JavaScript surface of the design contract. */
const CONTRACT_NAMES = [
  'verifyWebhook', 'verifySignature', 'Verifier', 'readDeliveryHeaders', 'signWebhook', 'parseEvent', 'decideEvent',
  'compareStatusVersions', 'validateAmountRaw', 'isValidAmountRaw', 'toAmountRaw', 'fromAmountRaw',
  'buildSourceAmount', 'validateSourceAmount', 'validateCreatePayment', 'validateCheckoutOrigin',
  'validateWebhookUrl', 'hostedCheckoutUrl', 'requestFingerprint', 'validateIdempotencyKey',
  'classifyDeliveryResponse', 'init', 'CryptoPayError',
];

const utf8 = (text) => new Uint8Array(Buffer.from(text, 'utf8'));

/** A complete, authentic one-shot input (body as a Uint8Array). */
function validInput(overrides = {}) {
  const body = overrides.bodyText ?? EVENT_TEXT;
  const secret = overrides.signWith ?? SECRET;
  const timestamp = overrides.timestamp ?? TS;
  const { bodyText, signWith, ...rest } = overrides;
  return {
    body: utf8(body),
    timestamp,
    signature: sign(secret, timestamp, body),
    secrets: SECRET,
    nowSecs: NOW,
    maxSkewSecs: SKEW,
    ...rest,
  };
}

const MISSING = Symbol('missing');
function withOverride(base, override) {
  const out = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === MISSING) delete out[key];
    else out[key] = value;
  }
  return out;
}

const CTOR_KEYS = ['secrets', 'maxSkewSecs', 'maxBodyBytes'];
const CALL_KEYS = ['body', 'timestamp', 'signature', 'nowSecs'];
function pick(object, keys) {
  const out = {};
  for (const key of keys) if (Object.hasOwn(object, key)) out[key] = object[key];
  return out;
}
const callInput = (input) => pick(input, CALL_KEYS);
const ctorInput = (input) => pick(input, CTOR_KEYS);

const describeError = (error) =>
  error !== null && typeof error === 'object'
    ? `${error.constructor?.name} code=${error.code} message=${error.message}`
    : String(error);

/** fn must throw the package's CryptoPayError with `code`. */
function expectCode(api, fn, code, where = '') {
  const error = thrown(fn);
  assert.ok(error instanceof Error, `${where}: threw a non-Error ${describeError(error)}`);
  assert.ok(error instanceof api.CryptoPayError, `${where}: threw ${describeError(error)}, not a CryptoPayError`);
  assert.equal(error.code, code, `${where}: expected ${code}, got ${describeError(error)}`);
  return error;
}

/** The one-shot verify functions and a Verifier built from the same options agree on `code`. */
function expectVerifyCode(api, input, code) {
  expectCode(api, () => api.verifySignature(input), code, 'verifySignature');
  expectCode(api, () => api.verifyWebhook(input), code, 'verifyWebhook');
  const verifier = new api.Verifier(ctorInput(input));
  try {
    expectCode(api, () => verifier.verifySignature(callInput(input)), code, 'Verifier.verifySignature');
    expectCode(api, () => verifier.verifyWebhook(callInput(input)), code, 'Verifier.verifyWebhook');
  } finally {
    verifier.free();
  }
}

/** verifySignature one-shot and through a Verifier: both ok, same result. */
function expectVerified(api, input, matchedSecret = 'active') {
  const want = { matchedSecret, timestamp: Number(input.timestamp) };
  assert.deepStrictEqual(api.verifySignature(input), want, 'verifySignature');
  const verifier = new api.Verifier(ctorInput(input));
  try {
    assert.deepStrictEqual(verifier.verifySignature(callInput(input)), want, 'Verifier.verifySignature');
  } finally {
    verifier.free();
  }
}

function detachedArrayBuffer() {
  const buffer = new ArrayBuffer(16);
  structuredClone(buffer, { transfer: [buffer] });
  assert.equal(buffer.byteLength, 0, 'the buffer is detached');
  return buffer;
}

/**
 * Sends one hand-written HTTP/1.1 request (so header names, case and repetition are exactly
 * as given) to a node:http server and returns what the server saw.
 */
async function nodeRequest(headerPairs, body) {
  let seen;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      seen = {
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        headersDistinct: req.headersDistinct,
        body: Buffer.concat(chunks),
      };
      res.end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const bytes = Buffer.from(body, 'utf8');
    const lines = [
      'POST /webhook HTTP/1.1',
      'Host: 127.0.0.1',
      'Connection: close',
      'Content-Type: application/json',
      `Content-Length: ${bytes.length}`,
      ...headerPairs.map(([name, value]) => `${name}: ${value}`),
    ];
    const socket = connect(server.address().port, '127.0.0.1');
    await once(socket, 'connect');
    socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]));
    socket.resume();
    await once(socket, 'close');
  } finally {
    server.close();
  }
  assert.ok(seen, 'the server received the request');
  return seen;
}

// ---------------------------------------------------------------------------------------
// Loading

test('the package is loaded from the consumer folder, through two different entries', () => {
  for (const path of [esmEntryPath, cjsEntryPath, packageDir]) {
    const rel = relative(consumerDir, path);
    assert.ok(rel.startsWith('node_modules'), `${path} is not inside ${consumerDir}/node_modules`);
  }
  assert.notEqual(esmEntryPath, cjsEntryPath, 'import and require resolve to different entries');
  assert.match(esmEntryPath, /\.mjs$/);
  assert.match(cjsEntryPath, /\.cjs$/);
  assert.notEqual(esm.CryptoPayError, cjs.CryptoPayError, 'two separately loaded module instances');
});

// ---------------------------------------------------------------------------------------
// Exports and types (entry-independent)

function declaredRuntimeNames(text) {
  const names = new Set();
  for (const m of text.matchAll(/export\s+declare\s+(?:function|class|const|let|var)\s+([A-Za-z_$][\w$]*)/g)) {
    names.add(m[1]);
  }
  return [...names].sort();
}

function errorCodeUnion(text) {
  // The members carry JSDoc comments (generated from the core's docs): read past them.
  const m = /export\s+type\s+ErrorCode\s*=([^;]*);/.exec(text.replace(/\/\*[\s\S]*?\*\//g, ''));
  assert.ok(m, 'the types declare `export type ErrorCode = ...;`');
  return [...m[1].matchAll(/'([^']*)'|"([^"]*)"/g)].map((x) => x[1] ?? x[2]);
}

describe('exports and types', () => {
  test('the ESM and CJS entries export the same names', () => {
    const esmNames = Object.keys(esm).sort();
    const cjsNames = Object.keys(cjs).filter((name) => name !== '__esModule').sort();
    assert.deepStrictEqual(cjsNames, esmNames);
  });

  test('the exported names are exactly the functions and classes declared in dist/index.d.ts', () => {
    const declared = declaredRuntimeNames(typesText('index.d.ts'));
    assert.deepStrictEqual(Object.keys(esm).sort(), declared, 'ESM exports vs index.d.ts');
    assert.deepStrictEqual(Object.keys(cjs).filter((n) => n !== '__esModule').sort(), declared, 'CJS exports vs index.d.ts');
    for (const name of declared) {
      assert.equal(typeof esm[name], 'function', `ESM ${name} is callable`);
      assert.equal(typeof cjs[name], 'function', `CJS ${name} is callable`);
    }
  });

  test('every export keeps its own name (util.inspect and TypeErrors show it; a bundler must not rename it)', async () => {
    const consumerRequire = createRequire(join(consumerDir, 'package.json'));
    const receiverCjs = consumerRequire('cryptopay-verify/receiver');
    const receiverEsm = await import(pathToFileURL(consumerRequire.resolve('cryptopay-verify/receiver')).href.replace(/\.cjs$/, '.mjs'));
    assert.equal(typeof receiverEsm.createReceiver, 'function');
    for (const [label, entry] of [['ESM', esm], ['CJS', cjs], ['receiver ESM', receiverEsm], ['receiver CJS', receiverCjs]]) {
      for (const [name, value] of Object.entries(entry)) {
        if (name !== '__esModule') assert.equal(value.name, name, `${label} ${name}.name`);
      }
    }
    const verifier = new esm.Verifier({ secrets: 'whsec_name', maxSkewSecs: 300 });
    assert.match(inspect(verifier), /^Verifier /);
    assert.throws(() => esm.Verifier({ secrets: 'whsec_name', maxSkewSecs: 300 }), /Class constructor Verifier cannot be invoked without 'new'/);
    verifier.free();
  });

  test('every name of the contract\'s JavaScript surface is exported by both entries', () => {
    for (const name of CONTRACT_NAMES) {
      assert.equal(typeof esm[name], 'function', `ESM exports ${name}`);
      assert.equal(typeof cjs[name], 'function', `CJS exports ${name}`);
    }
  });

  test('the ErrorCode union of the installed dist/index.d.ts equals errorCodes(), same order', () => {
    const union = errorCodeUnion(typesText('index.d.ts'));
    assert.deepStrictEqual(union, esm.errorCodes(), 'ESM errorCodes()');
    assert.deepStrictEqual(union, cjs.errorCodes(), 'CJS errorCodes()');
  });

  test('the CommonJS types (the `require` condition\'s types file) declare the same ErrorCode and names', () => {
    const dot = packageJson.exports?.['.'];
    const requireTypes = dot?.node?.require?.types ?? dot?.require?.types;
    assert.equal(typeof requireTypes, 'string', 'package.json names a types file for require');
    const text = readFileSync(join(packageDir, requireTypes), 'utf8');
    assert.deepStrictEqual(errorCodeUnion(text), cjs.errorCodes());
    assert.deepStrictEqual(declaredRuntimeNames(text), declaredRuntimeNames(typesText('index.d.ts')));
  });

  test('errorCodes() lists every code of the contract, once, in the contract\'s order', () => {
    const codes = esm.errorCodes();
    assert.ok(Array.isArray(codes));
    assert.equal(new Set(codes).size, codes.length, 'no code twice');
    for (const code of codes) assert.match(code, /^[a-z][a-z0-9_]*$/);
    const positions = CONTRACT_CODES.map((code) => codes.indexOf(code));
    for (const [i, pos] of positions.entries()) assert.ok(pos >= 0, `errorCodes() lacks ${CONTRACT_CODES[i]}`);
    for (let i = 1; i < positions.length; i += 1) {
      assert.ok(positions[i - 1] < positions[i], `${CONTRACT_CODES[i - 1]} comes before ${CONTRACT_CODES[i]}`);
    }
  });
});

// ---------------------------------------------------------------------------------------
// Per-entry suites

for (const [label, api] of entries) {
  describe(`${label}: init and CryptoPayError`, () => {
    test('init() returns a promise of undefined and the package works after it', async () => {
      const pending = api.init();
      assert.ok(pending instanceof Promise || typeof pending?.then === 'function');
      assert.equal(await pending, undefined);
      assert.equal(api.classifyDeliveryResponse(200), 'acknowledged');
    });

    test('CryptoPayError is exported, extends Error, is named CryptoPayError', () => {
      const { CryptoPayError } = api;
      assert.equal(typeof CryptoPayError, 'function');
      const made = new CryptoPayError('invalid_argument', 'made by hand');
      assert.ok(made instanceof Error);
      assert.ok(made instanceof CryptoPayError);
      assert.equal(made.name, 'CryptoPayError');
      assert.equal(made.code, 'invalid_argument');
      assert.equal(made.message, 'made by hand');
      assert.equal(typeof made.stack, 'string');
      assert.ok(Object.prototype.isPrototypeOf.call(Error.prototype, CryptoPayError.prototype));
    });

    test('errors thrown by JS checks and by the wasm core are CryptoPayErrors with a listed code', () => {
      const codes = api.errorCodes();
      const cases = [
        [() => api.verifySignature({ ...validInput(), nowSecs: -1 }), 'invalid_argument'],
        [() => api.verifySignature({ ...validInput(), body: {} }), 'body_not_raw'],
        [() => api.verifySignature(validInput({ signWith: OTHER_SECRET })), 'signature_mismatch'],
        [() => api.verifySignature({ ...validInput(), nowSecs: NOW + 301 }), 'timestamp_too_old'],
        [() => api.parseEvent('not json'), 'event_not_json'],
        [() => api.toAmountRaw('1.005', 2), 'amount_too_precise'],
        [() => api.validateWebhookUrl('http://x.example'), 'webhook_url_not_https'],
        [() => api.validateIdempotencyKey(''), 'idempotency_key_invalid'],
      ];
      for (const [fn, code] of cases) {
        const error = expectCode(api, fn, code, code);
        assert.equal(error.name, 'CryptoPayError', `${code}: name`);
        assert.ok(codes.includes(error.code), `${code} is in errorCodes()`);
        assert.equal(typeof error.message, 'string');
        assert.ok(error.message.length > 0, `${code}: a message says what to fix`);
        assert.equal(typeof error.stack, 'string');
      }
    });

    test('messages name the JavaScript options, types and frameworks; the core\'s Rust names never show', () => {
      // The core words its messages in Rust (max_skew_secs, now_secs, the body bytes); the
      // binding words them for JavaScript. The wire's own names (amount_raw) stay as they are.
      const RUST_NAMES = /\b(max_skew_secs|now_secs|max_body_bytes|accept_until_secs|timestamp_header|signature_header|website_origin|to_amount_raw|from_amount_raw|build_source_amount)\b/;
      const store = { kind: 'fiat', ref: 'USD', decimals: 2 };
      const rotated = [{ secret: OTHER_SECRET, kind: 'active' }, { secret: SECRET, kind: 'retiring', acceptUntilSecs: NOW - 1 }];
      const cases = [
        ['too old', () => api.verifySignature({ ...validInput(), nowSecs: NOW + 301 }), 'timestamp_too_old', ['maxSkewSecs', 'nowSecs']],
        ['in the future', () => api.verifySignature({ ...validInput(), nowSecs: NOW - 301 }), 'timestamp_in_future', ['maxSkewSecs', 'nowSecs']],
        ['too large', () => api.verifySignature({ ...validInput(), maxBodyBytes: 10 }), 'body_too_large', ['maxBodyBytes']],
        ['too large (Verifier)', () => new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW, maxBodyBytes: 10 }).verifySignature(callInput(validInput())), 'body_too_large', ['maxBodyBytes']],
        ['a parsed body', () => api.verifyWebhook({ ...validInput(), body: JSON.parse(EVENT_TEXT) }), 'body_not_raw',
          ['Uint8Array, ArrayBuffer, Buffer or string', "express.raw({ type: () => true, limit: '4mb' })", 'Fastify', 'Next.js and Hono: await request.arrayBuffer()', 'bodyParser: false', 'Workers']],
        ['the same header twice', () => api.readDeliveryHeaders({}, { timestampHeader: 'x-a', signatureHeader: 'X-A' }), 'invalid_argument', ['timestampHeader', 'signatureHeader']],
        ['a name no header has', () => api.readDeliveryHeaders({ 'X Timestamp': '1', 'x-sig': 'v1=ab' }, { timestampHeader: 'X Timestamp', signatureHeader: 'x-sig' }), 'invalid_argument', ['timestampHeader is not a header name', 'letters, digits']],
        ['an ended overlap', () => api.verifySignature({ ...validInput(), secrets: rotated }), 'signature_mismatch', ['acceptUntilSecs', 'overlap ended']],
        ['a whitespace secret', () => api.verifySignature({ ...validInput(), secrets: `${SECRET}\n` }), 'signature_mismatch', ['whitespace']],
        ['a retiring entry without a bound', () => new api.Verifier({ secrets: [{ secret: SECRET, kind: 'active' }, { secret: OTHER_SECRET, kind: 'retiring' }], maxSkewSecs: SKEW }), 'invalid_argument', ['acceptUntilSecs']],
        ['amount_raw 0', () => api.validateAmountRaw('0'), 'amount_raw_invalid', ['toAmountRaw', 'amount_raw']],
        ['an unknown SourceAmount key', () => api.validateSourceAmount({ kind: 'fiat', currency: 'USD', amount_raw: '1', memo: 'x' }, store), 'source_amount_invalid',
          ['buildSourceAmount', 'amount_raw', 'pricing_ref']],
      ];
      for (const [where, fn, code, needles] of cases) {
        const error = expectCode(api, fn, code, where);
        for (const needle of needles) assert.ok(error.message.includes(needle), `${where}: the message names ${needle}: ${error.message}`);
        assert.ok(!RUST_NAMES.test(error.message), `${where}: a Rust name in ${error.message}`);
        assert.ok(error.message.startsWith(`${code}: `), `${where}: the message starts with the code`);
      }
    });

    test('a numeric amount_raw is amount_raw_invalid, alone and inside a CreatePayment', () => {
      const primarySource = { kind: 'fiat', ref: 'USD', decimals: 2 };
      const numeric = { kind: 'fiat', currency: 'USD', amount_raw: 12800 };
      expectCode(api, () => api.validateSourceAmount(numeric, primarySource), 'amount_raw_invalid', 'validateSourceAmount');
      expectCode(api, () => api.validateCreatePayment({ source_amount: numeric }, { primarySource }), 'amount_raw_invalid', 'validateCreatePayment');
      // Missing is a shape error of the SourceAmount, as before.
      expectCode(api, () => api.validateSourceAmount({ kind: 'fiat', currency: 'USD' }, primarySource), 'source_amount_invalid', 'missing');
      assert.equal(api.validateSourceAmount({ ...numeric, amount_raw: '12800' }, primarySource), undefined);
    });
  });

  describe(`${label}: body types`, () => {
    // An even number of UTF-8 bytes, so a Uint16Array can view it exactly; non-ASCII included.
    const TEXT = '{"note":"caf\u00e9 \u20ac \ud83d\ude00","n":12}';
    const BYTES = Buffer.from(TEXT, 'utf8');
    const SIG = sign(SECRET, TS, BYTES);
    const base = { timestamp: TS, signature: SIG, secrets: SECRET, nowSecs: NOW, maxSkewSecs: SKEW };

    test('fixture: the body has an even byte length and non-ASCII characters', () => {
      assert.equal(BYTES.length % 2, 0);
      assert.notEqual(BYTES.length, TEXT.length);
    });

    test('a Uint8Array body verifies', () => {
      expectVerified(api, { ...base, body: new Uint8Array(BYTES) });
    });

    test('a Node Buffer body verifies', () => {
      expectVerified(api, { ...base, body: Buffer.from(BYTES) });
    });

    test('an ArrayBuffer body verifies', () => {
      const copy = new Uint8Array(BYTES);
      expectVerified(api, { ...base, body: copy.buffer });
    });

    test('a Uint8Array view at an offset of a larger buffer verifies only its own bytes', () => {
      const big = new Uint8Array(BYTES.length + 10).fill(0x41);
      big.set(BYTES, 5);
      expectVerified(api, { ...base, body: big.subarray(5, 5 + BYTES.length) });
    });

    test('a DataView over part of a buffer verifies its bytes', () => {
      const big = new Uint8Array(BYTES.length + 9).fill(0x20);
      big.set(BYTES, 3);
      expectVerified(api, { ...base, body: new DataView(big.buffer, 3, BYTES.length) });
    });

    test('a Uint16Array view over part of a buffer verifies its bytes (not its elements)', () => {
      const big = new Uint8Array(BYTES.length + 8).fill(0x7b);
      big.set(BYTES, 4);
      const view = new Uint16Array(big.buffer, 4, BYTES.length / 2);
      assert.equal(view.byteLength, BYTES.length);
      expectVerified(api, { ...base, body: view });
    });

    test('a Uint8Array and an ArrayBuffer from another realm (node:vm, as in Jest) verify', () => {
      const realm = createContext({});
      const bytes = runInContext(`new Uint8Array([${[...BYTES].join(',')}])`, realm);
      assert.ok(!(bytes instanceof Uint8Array), 'the view is from another realm');
      expectVerified(api, { ...base, body: bytes });
      expectVerified(api, { ...base, body: runInContext(`new Uint8Array([${[...BYTES].join(',')}]).buffer`, realm) });
    });

    test('a string body is taken as its UTF-8 bytes', () => {
      expectVerified(api, { ...base, body: TEXT });
      // A MAC over another encoding of the same text (UTF-16LE) does not verify.
      const utf16 = sign(SECRET, TS, Buffer.from(TEXT, 'utf16le'));
      expectVerifyCode(api, { ...base, body: TEXT, signature: utf16 }, 'signature_mismatch');
    });

    const notRaw = [
      ['a parsed JSON object', () => JSON.parse(EVENT_TEXT)],
      ['null', () => null],
      ['undefined', () => undefined],
      ['a number', () => 42],
      ['a boolean', () => true],
      ['an array of numbers', () => [...BYTES]],
      ['an empty array', () => []],
      ['a string with a lone high surrogate', () => '{"a":"\ud800"}'],
      ['a string with a lone low surrogate', () => '\udc00{"a":1}'],
      ['a detached ArrayBuffer', () => detachedArrayBuffer()],
    ];
    for (const [name, make] of notRaw) {
      test(`a body that is ${name} is body_not_raw`, () => {
        expectVerifyCode(api, { ...base, body: make() }, 'body_not_raw');
      });
    }

    test('a view past the end of a shrunk resizable buffer is told apart from a detached one', () => {
      const buffer = new ArrayBuffer(16, { maxByteLength: 32 });
      const view = new Uint8Array(buffer, 0, 16);
      buffer.resize(4);
      assert.throws(() => api.verifySignature({ ...base, body: view }), (error) => error.code === 'body_not_raw'
        && /resizable ArrayBuffer that shrank/.test(error.message) && !/detached/.test(error.message));
      const detached = new Uint8Array(new ArrayBuffer(16));
      structuredClone(detached.buffer, { transfer: [detached.buffer] });
      assert.throws(() => api.verifySignature({ ...base, body: detached }), (error) => error.code === 'body_not_raw'
        && /detached/.test(error.message));
    });

    test('a view whose length, byteLength or buffer a subclass or the instance redefines: the engine\'s own are read, the core\'s memory untouched', () => {
      // Made before: a copy into the core sized by a lying length would overwrite their keys.
      const before = Array.from({ length: 8 }, () => new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW }));
      try {
        class Lying extends Uint8Array {
          get length() { return 1; }
          get byteLength() { return 1; }
        }
        const lying = new Lying(BYTES.length + 4096).subarray(0, BYTES.length);
        lying.set(BYTES);
        let reads = 0;
        class Changing extends Uint8Array {
          get length() { reads += 1; return reads % 2 === 1 ? 4 : 64 * 1024; }
        }
        const changing = new Changing(BYTES.length);
        changing.set(BYTES);
        const own = new Uint8Array(BYTES);
        for (const [name, get] of [['length', () => 2], ['byteLength', () => 2], ['buffer', () => new ArrayBuffer(2)], ['byteOffset', () => 1]]) {
          Object.defineProperty(own, name, { get });
        }
        for (let round = 0; round < 200; round += 1) {
          for (const body of [lying, changing, own]) {
            assert.deepStrictEqual(api.verifySignature({ ...base, body }), { matchedSecret: 'active', timestamp: NOW });
          }
        }
        assert.equal(api.requestFingerprint(lying), api.requestFingerprint(new Uint8Array(BYTES)));
        for (const verifier of before) {
          assert.deepStrictEqual(verifier.verifySignature(callInput({ ...base, body: BYTES })), { matchedSecret: 'active', timestamp: NOW });
        }
        // A byteLength getter that would free the Verifier mid-call is never run.
        const freeing = new Uint8Array(BYTES);
        let freed = false;
        Object.defineProperty(freeing, 'byteLength', { get: () => { freed = true; before[0].free(); return 2; } });
        assert.deepStrictEqual(before[0].verifySignature(callInput({ ...base, body: freeing })), { matchedSecret: 'active', timestamp: NOW });
        assert.equal(freed, false);
      } finally {
        for (const verifier of before) verifier.free();
      }
    });

    test('a header given as a Proxy whose answers change from one read to the next is read once: no endless recursion', () => {
      let reads = 0;
      const proxy = new Proxy([TS], { get: (target, key) => (key === '0' ? (reads += 1) % 2 === 1 ? TS : proxy : Reflect.get(target, key)) });
      assert.deepStrictEqual(api.verifySignature({ ...base, body: BYTES, timestamp: proxy }), { matchedSecret: 'active', timestamp: NOW });
    });

    test('parseEvent, requestFingerprint and signWebhook refuse a parsed object as body_not_raw', () => {
      expectCode(api, () => api.parseEvent(JSON.parse(EVENT_TEXT)), 'body_not_raw', 'parseEvent');
      expectCode(api, () => api.requestFingerprint({ a: 1 }), 'body_not_raw', 'requestFingerprint');
      expectCode(api, () => api.signWebhook({ secret: SECRET, timestamp: TS, body: { a: 1 } }), 'body_not_raw', 'signWebhook');
      expectCode(api, () => api.parseEvent(null), 'body_not_raw', 'parseEvent(null)');
    });

    test('body_not_raw comes after the options and before the timestamp', () => {
      expectCode(api, () => api.verifySignature({ ...base, body: null, nowSecs: -1 }), 'invalid_argument', 'bad nowSecs');
      expectVerifyCode(api, { ...base, body: null, timestamp: '' }, 'body_not_raw');
      expectVerifyCode(api, { ...base, body: JSON.parse(EVENT_TEXT), signature: '' }, 'body_not_raw');
    });

    test('a body of maxBodyBytes + 1 bytes is body_too_large; maxBodyBytes bytes pass', () => {
      expectVerifyCode(api, { ...base, body: new Uint8Array(BYTES), maxBodyBytes: BYTES.length - 1 }, 'body_too_large');
      expectVerified(api, { ...base, body: new Uint8Array(BYTES), maxBodyBytes: BYTES.length });
    });

    test('a string body is measured in UTF-8 bytes', () => {
      // TEXT has fewer UTF-16 units than UTF-8 bytes: a limit between the two rejects it.
      expectVerifyCode(api, { ...base, body: TEXT, maxBodyBytes: TEXT.length }, 'body_too_large');
      expectVerified(api, { ...base, body: TEXT, maxBodyBytes: BYTES.length });
    });

    test('a string whose length alone exceeds the limit is body_too_large', () => {
      const long = 'x'.repeat(1001);
      expectVerifyCode(api, { ...base, body: long, signature: sign(SECRET, TS, long), maxBodyBytes: 1000 }, 'body_too_large');
    });

    test('a lone-surrogate string longer than the limit is body_not_raw (type before size)', () => {
      expectVerifyCode(api, { ...base, body: `${'x'.repeat(50)}\ud800`, maxBodyBytes: 10 }, 'body_not_raw');
    });

    test('the default limit is 4 MiB: 4 MiB pass, 4 MiB + 1 is body_too_large', () => {
      const exact = new Uint8Array(4 * MIB).fill(0x61);
      expectVerified(api, { ...base, body: exact, signature: sign(SECRET, TS, exact) });
      const over = new Uint8Array(4 * MIB + 1).fill(0x61);
      expectVerifyCode(api, { ...base, body: over, signature: sign(SECRET, TS, over) }, 'body_too_large');
    });

    test('a 64 MiB body verifies with maxBodyBytes at the 64 MiB cap', () => {
      const body = new Uint8Array(64 * MIB).fill(0x62);
      const input = { ...base, body, signature: sign(SECRET, TS, body), maxBodyBytes: 64 * MIB };
      assert.deepStrictEqual(api.verifySignature(input), { matchedSecret: 'active', timestamp: NOW });
      // and the instance keeps working afterwards
      expectVerified(api, { ...base, body: new Uint8Array(BYTES) });
    });
  });

  describe(`${label}: header containers (readDeliveryHeaders)`, () => {
    const names = { timestampHeader: 'X-CryptoPay-Timestamp', signatureHeader: 'X-CryptoPay-Signature' };
    const sig = sign(SECRET, TS, EVENT_TEXT);
    const want = { timestamp: TS, signature: sig };
    const read = (headers, options = names) => api.readDeliveryHeaders(headers, options);

    test('Fetch Headers', () => {
      const headers = new Headers({ 'content-type': 'application/json', 'X-CryptoPay-Timestamp': TS });
      headers.set('x-cryptopay-signature', sig);
      assert.deepStrictEqual(read(headers), want);
    });

    test('Fetch Headers with the timestamp missing / the signature missing', () => {
      expectCode(api, () => read(new Headers({ 'x-cryptopay-signature': sig })), 'timestamp_missing');
      expectCode(api, () => read(new Headers({ 'x-cryptopay-timestamp': TS })), 'signature_missing');
    });

    test('a merged Fetch timestamp "t1, t2" is returned as is and verify gives timestamp_malformed', () => {
      const headers = new Headers();
      headers.append('X-CryptoPay-Timestamp', TS);
      headers.append('x-cryptopay-timestamp', TS);
      headers.append('X-CryptoPay-Signature', sig);
      const found = read(headers);
      assert.equal(found.timestamp, `${TS}, ${TS}`);
      expectVerifyCode(api, { ...validInput(), ...found }, 'timestamp_malformed');
    });

    test('a merged Fetch signature is a candidate list: each candidate is verified', () => {
      const wrong = sign(OTHER_SECRET, TS, EVENT_TEXT);
      const headers = new Headers({ 'x-cryptopay-timestamp': TS });
      headers.append('x-cryptopay-signature', `v1=${wrong}`);
      headers.append('x-cryptopay-signature', `v1=${sig}`);
      const found = read(headers);
      assert.equal(found.signature, `v1=${wrong}, v1=${sig}`);
      expectVerified(api, { ...validInput(), ...found });
      const bothWrong = new Headers({ 'x-cryptopay-timestamp': TS });
      bothWrong.append('x-cryptopay-signature', wrong);
      bothWrong.append('x-cryptopay-signature', sign(SECRET, TS, 'other body'));
      expectVerifyCode(api, { ...validInput(), ...read(bothWrong) }, 'signature_mismatch');
    });

    test('a Node IncomingHttpHeaders-like object (lowercase keys, some array values)', () => {
      const headers = {
        host: 'shop.example',
        'set-cookie': ['a=1', 'b=2'],
        'x-cryptopay-timestamp': TS,
        'x-cryptopay-signature': sig,
        'x-absent': undefined,
      };
      assert.deepStrictEqual(read(headers), want);
    });

    test('IncomingHttpHeaders with an array value for the timestamp or signature is header_duplicated', () => {
      expectCode(api, () => read({ 'x-cryptopay-timestamp': [TS, TS], 'x-cryptopay-signature': sig }), 'header_duplicated');
      expectCode(api, () => read({ 'x-cryptopay-timestamp': TS, 'x-cryptopay-signature': [sig, sig] }), 'header_duplicated');
    });

    test('Node\'s flat rawHeaders array', () => {
      const raw = ['Host', 'shop.example', 'X-CryptoPay-Timestamp', TS, 'Accept', '*/*', 'x-cryptopay-signature', sig];
      assert.deepStrictEqual(read(raw), want);
    });

    test('rawHeaders with a name twice in different case is header_duplicated', () => {
      const raw = ['X-CryptoPay-Timestamp', TS, 'x-cryptopay-signature', sig, 'x-cryptopay-timestamp', TS];
      expectCode(api, () => read(raw), 'header_duplicated');
      const raw2 = ['X-CryptoPay-Timestamp', TS, 'X-CRYPTOPAY-SIGNATURE', sig, 'x-cryptopay-signature', sig];
      expectCode(api, () => read(raw2), 'header_duplicated');
    });

    test('a plain object with mixed-case keys, configured names in another case', () => {
      const headers = { 'X-Cryptopay-TIMESTAMP': TS, 'x-CryptoPay-signature': sig, 'Content-Type': 'application/json' };
      assert.deepStrictEqual(read(headers, { timestampHeader: 'x-cryptopay-timestamp', signatureHeader: 'X-CRYPTOPAY-SIGNATURE' }), want);
    });

    test('a plain object holding the same header under two spellings is header_duplicated', () => {
      expectCode(api, () => read({ 'X-CryptoPay-Timestamp': TS, 'x-cryptopay-timestamp': TS, 'x-cryptopay-signature': sig }), 'header_duplicated');
    });

    test('a Map', () => {
      const headers = new Map([['X-CryptoPay-Timestamp', TS], ['x-cryptopay-signature', sig], ['accept', '*/*']]);
      assert.deepStrictEqual(read(headers), want);
    });

    test('a Map with names differing in case is header_duplicated', () => {
      const headers = new Map([['X-CryptoPay-Timestamp', TS], ['x-cryptopay-timestamp', TS], ['x-cryptopay-signature', sig]]);
      expectCode(api, () => read(headers), 'header_duplicated');
    });

    test('[name, value] pairs', () => {
      assert.deepStrictEqual(read([['x-cryptopay-signature', sig], ['X-CRYPTOPAY-TIMESTAMP', TS]]), want);
    });

    test('the values read verify as a delivery', () => {
      const found = read(new Headers({ 'x-cryptopay-timestamp': TS, 'x-cryptopay-signature': sig }));
      expectVerified(api, { ...validInput(), ...found });
    });

    // A body with spaces and non-ASCII text: re-serializing it changes its bytes.
    const WIRE_BODY = '{"schema_version": 1, "event_id": "evt_w", "event_type": "payment.updated", ' +
      '"occurred_at": "2023-11-14T22:13:20Z", "data": {"payment_id": "pay_w", "status_version": "3", "note": "caf\u00e9"}}';
    const wireSig = sign(SECRET, TS, WIRE_BODY);
    const verifyAs = (found, body) => ({ body, ...found, secrets: SECRET, nowSecs: NOW, maxSkewSecs: SKEW });

    test('a real node:http request: req.headers, req.rawHeaders and req.headersDistinct with the raw body', async () => {
      const seen = await nodeRequest([['X-CryptoPay-Timestamp', TS], ['x-cryptopay-SIGNATURE', `v1=${wireSig}`]], WIRE_BODY);
      const wantWire = { timestamp: TS, signature: `v1=${wireSig}` };
      assert.deepStrictEqual(read(seen.headers), wantWire, 'req.headers');
      assert.deepStrictEqual(read(seen.rawHeaders), wantWire, 'req.rawHeaders');
      assert.deepStrictEqual(read(seen.headersDistinct), wantWire, 'req.headersDistinct');
      const result = api.verifyWebhook(verifyAs(read(seen.headers), seen.body));
      assert.equal(result.event.eventId, 'evt_w');
      assert.equal(result.event.data.note, 'caf\u00e9');
      // the parsed body, or the body re-serialized, never verifies
      expectVerifyCode(api, verifyAs(read(seen.headers), JSON.parse(seen.body)), 'body_not_raw');
      expectVerifyCode(api, verifyAs(read(seen.headers), JSON.stringify(JSON.parse(seen.body))), 'signature_mismatch');
    });

    test('a real node:http request with the timestamp header twice (names in different case)', async () => {
      const seen = await nodeRequest(
        [['X-CryptoPay-Timestamp', TS], ['X-CryptoPay-Signature', wireSig], ['x-cryptopay-timestamp', TS]],
        WIRE_BODY,
      );
      // req.headers merges the two into "t1, t2": it verifies as timestamp_malformed
      const merged = read(seen.headers);
      assert.equal(merged.timestamp, `${TS}, ${TS}`);
      expectVerifyCode(api, verifyAs(merged, seen.body), 'timestamp_malformed');
      // containers that keep them apart report header_duplicated
      expectCode(api, () => read(seen.rawHeaders), 'header_duplicated', 'req.rawHeaders');
      expectCode(api, () => read(seen.headersDistinct), 'header_duplicated', 'req.headersDistinct');
    });

    test('a real node:http request with the signature header twice', async () => {
      const wrong = sign(OTHER_SECRET, TS, WIRE_BODY);
      const seen = await nodeRequest(
        [['X-CryptoPay-Timestamp', TS], ['X-CryptoPay-Signature', wrong], ['X-CRYPTOPAY-SIGNATURE', wireSig]],
        WIRE_BODY,
      );
      // merged into a candidate list: the right candidate still verifies
      const merged = read(seen.headers);
      assert.equal(merged.signature, `${wrong}, ${wireSig}`);
      expectVerified(api, verifyAs(merged, seen.body));
      expectCode(api, () => read(seen.rawHeaders), 'header_duplicated', 'req.rawHeaders');
    });

    test('a Fetch Request: request.headers with await request.arrayBuffer() / text()', async () => {
      const make = () => new Request('https://shop.example/webhook', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-CryptoPay-Timestamp': TS, 'X-CryptoPay-Signature': wireSig },
        body: WIRE_BODY,
      });
      const first = make();
      const found = read(first.headers);
      assert.deepStrictEqual(found, { timestamp: TS, signature: wireSig });
      assert.equal(api.verifyWebhook(verifyAs(found, await first.arrayBuffer())).event.paymentId, 'pay_w');
      assert.equal(api.verifyWebhook(verifyAs(found, await make().text())).event.paymentId, 'pay_w');
      expectVerifyCode(api, verifyAs(found, await make().json()), 'body_not_raw');
    });

    test('missing or wrong options are invalid_argument', () => {
      const headers = [['x-cryptopay-timestamp', TS], ['x-cryptopay-signature', sig]];
      expectCode(api, () => api.readDeliveryHeaders(headers), 'invalid_argument', 'no options');
      expectCode(api, () => read(headers, { timestampHeader: 'x-cryptopay-timestamp' }), 'invalid_argument', 'no signatureHeader');
      expectCode(api, () => read(headers, { ...names, timestampHeader: 7 }), 'invalid_argument', 'numeric name');
      expectCode(api, () => read(headers, { ...names, signatureHeadr: 'x' }), 'invalid_argument', 'unknown key');
    });

    test('a value that is no header container is invalid_argument', () => {
      for (const bad of [null, undefined, 42, 'x-cryptopay-timestamp: 1700000000']) {
        expectCode(api, () => read(bad), 'invalid_argument', String(bad));
      }
    });
  });

  describe(`${label}: an unset environment variable and header value arrays`, () => {
    test('secrets undefined (process.env.NAME unset) is invalid_argument asking whether the variable is set', () => {
      const input = { ...validInput(), secrets: undefined };
      for (const [where, fn] of [
        ['new Verifier', () => new api.Verifier({ secrets: undefined, maxSkewSecs: SKEW })],
        ['new Verifier, an entry', () => new api.Verifier({ secrets: [{ secret: undefined, kind: 'active' }], maxSkewSecs: SKEW })],
        ['verifySignature', () => api.verifySignature(input)],
        ['verifyWebhook', () => api.verifyWebhook(input)],
      ]) {
        const error = expectCode(api, fn, 'invalid_argument', where);
        assert.match(error.message, /is the environment variable set\?/, `${where}: ${error.message}`);
      }
      // A secret of another type keeps its own message.
      const other = expectCode(api, () => new api.Verifier({ secrets: 42, maxSkewSecs: SKEW }), 'invalid_argument');
      assert.doesNotMatch(other.message, /environment variable/);
    });

    test('an array of one header value verifies; two are header_duplicated, with a message that says so', () => {
      const input = validInput();
      const verifier = new api.Verifier(ctorInput(input));
      const arrays = { ...input, timestamp: [input.timestamp], signature: [input.signature] };
      assert.equal(api.verifyWebhook(arrays).event.eventId, api.verifyWebhook(input).event.eventId);
      assert.equal(verifier.verifySignature(callInput(arrays)).matchedSecret, 'active');
      for (const [field, twice] of [['timestamp', [input.timestamp, input.timestamp]], ['signature', [input.signature, input.signature]]]) {
        const doubled = { ...input, [field]: twice };
        for (const [where, fn] of [['one-shot', () => api.verifySignature(doubled)], ['Verifier', () => verifier.verifyWebhook(callInput(doubled))]]) {
          const error = expectCode(api, fn, 'header_duplicated', `${field} ${where}`);
          assert.match(error.message, new RegExp(`^header_duplicated: ${field} was given as an array of several values`), error.message);
        }
      }
      verifier.free();
    });
  });

  describe(`${label}: option validation`, () => {
    const base = validInput();
    // [name, override, code, where the Verifier sees it: 'ctor' | 'call' | 'both']
    const cases = [
      ['an unknown option key (maxSkew)', { maxSkew: 300 }, 'invalid_argument', 'both'],
      ['a misspelled nowSecs (nowSec)', { nowSecs: MISSING, nowSec: NOW }, 'invalid_argument', 'both'],
      ['maxSkewSecs missing', { maxSkewSecs: MISSING }, 'invalid_argument', 'ctor'],
      ['maxSkewSecs undefined', { maxSkewSecs: undefined }, 'invalid_argument', 'ctor'],
      ['maxSkewSecs NaN', { maxSkewSecs: NaN }, 'invalid_argument', 'ctor'],
      ['maxSkewSecs Infinity', { maxSkewSecs: Infinity }, 'invalid_argument', 'ctor'],
      ['maxSkewSecs -1', { maxSkewSecs: -1 }, 'invalid_argument', 'ctor'],
      ['maxSkewSecs 1.5', { maxSkewSecs: 1.5 }, 'invalid_argument', 'ctor'],
      ['maxSkewSecs 2**53', { maxSkewSecs: 2 ** 53 }, 'invalid_argument', 'ctor'],
      ['maxSkewSecs a string', { maxSkewSecs: '300' }, 'invalid_argument', 'ctor'],
      ['maxSkewSecs null', { maxSkewSecs: null }, 'invalid_argument', 'ctor'],
      ['nowSecs missing', { nowSecs: MISSING }, 'invalid_argument', 'call'],
      ['nowSecs NaN', { nowSecs: NaN }, 'invalid_argument', 'call'],
      ['nowSecs Infinity', { nowSecs: Infinity }, 'invalid_argument', 'call'],
      ['nowSecs -Infinity', { nowSecs: -Infinity }, 'invalid_argument', 'call'],
      ['nowSecs -1', { nowSecs: -1 }, 'invalid_argument', 'call'],
      ['nowSecs 1.5', { nowSecs: 1.5 }, 'invalid_argument', 'call'],
      ['nowSecs 2**53', { nowSecs: 2 ** 53 }, 'invalid_argument', 'call'],
      ['nowSecs in milliseconds as a string', { nowSecs: '1700000000' }, 'invalid_argument', 'call'],
      ['nowSecs a BigInt', { nowSecs: 1700000000n }, 'invalid_argument', 'call'],
      ['nowSecs a Date', { nowSecs: new Date(NOW * 1000) }, 'invalid_argument', 'call'],
      ['maxBodyBytes 0', { maxBodyBytes: 0 }, 'invalid_argument', 'ctor'],
      ['maxBodyBytes 64 MiB + 1', { maxBodyBytes: 64 * MIB + 1 }, 'invalid_argument', 'ctor'],
      ['maxBodyBytes 1.5', { maxBodyBytes: 1.5 }, 'invalid_argument', 'ctor'],
      ['maxBodyBytes -1', { maxBodyBytes: -1 }, 'invalid_argument', 'ctor'],
      ['maxBodyBytes NaN', { maxBodyBytes: NaN }, 'invalid_argument', 'ctor'],
      ['maxBodyBytes Infinity', { maxBodyBytes: Infinity }, 'invalid_argument', 'ctor'],
      ['maxBodyBytes a string', { maxBodyBytes: '1000' }, 'invalid_argument', 'ctor'],
      ['maxBodyBytes null', { maxBodyBytes: null }, 'invalid_argument', 'ctor'],
      ['secrets missing', { secrets: MISSING }, 'invalid_argument', 'ctor'],
      ['secrets null', { secrets: null }, 'invalid_argument', 'ctor'],
      ['secrets a number', { secrets: 12345 }, 'invalid_argument', 'ctor'],
      ['secrets a Buffer', { secrets: Buffer.from(SECRET) }, 'invalid_argument', 'ctor'],
      ['secrets a single entry object, not an array', { secrets: { secret: SECRET, kind: 'active' } }, 'invalid_argument', 'ctor'],
      ['secrets an array of strings', { secrets: [SECRET] }, 'invalid_argument', 'ctor'],
      ['secrets an array holding null', { secrets: [null] }, 'invalid_argument', 'ctor'],
      ['secrets a Map', { secrets: new Map([[SECRET, 'active']]) }, 'invalid_argument', 'ctor'],
      ['a secret entry without kind', { secrets: [{ secret: SECRET }] }, 'invalid_argument', 'ctor'],
      ['a secret entry with an unknown key', { secrets: [{ secret: SECRET, kind: 'active', note: 'x' }] }, 'invalid_argument', 'ctor'],
      ['a secret entry whose secret is a Buffer', { secrets: [{ secret: Buffer.from(SECRET), kind: 'active' }] }, 'invalid_argument', 'ctor'],
      ['a secret entry whose secret is null', { secrets: [{ secret: null, kind: 'active' }] }, 'invalid_argument', 'ctor'],
      ['5 secret entries', {
        secrets: [
          { secret: SECRET, kind: 'active' },
          { secret: 'p1', kind: 'pending' },
          { secret: 'p2', kind: 'pending' },
          { secret: 'p3', kind: 'pending' },
          { secret: 'r1', kind: 'retiring', acceptUntilSecs: NOW + 60 },
        ],
      }, 'invalid_argument', 'ctor'],
      ['two active entries', { secrets: [{ secret: SECRET, kind: 'active' }, { secret: OTHER_SECRET, kind: 'active' }] }, 'invalid_argument', 'ctor'],
      ['no active entry', { secrets: [{ secret: SECRET, kind: 'pending' }] }, 'invalid_argument', 'ctor'],
      ['a lone-surrogate secret string', { secrets: `${SECRET}\ud800` }, 'invalid_argument', 'ctor'],
      ['a lone-surrogate secret in an entry', { secrets: [{ secret: `\udc00${SECRET}`, kind: 'active' }] }, 'invalid_argument', 'ctor'],
      ['acceptUntilSecs 1.5 on a retiring entry', {
        secrets: [{ secret: SECRET, kind: 'active' }, { secret: OTHER_SECRET, kind: 'retiring', acceptUntilSecs: 1.5 }],
      }, 'invalid_argument', 'ctor'],
      ['acceptUntilSecs NaN on a retiring entry', {
        secrets: [{ secret: SECRET, kind: 'active' }, { secret: OTHER_SECRET, kind: 'retiring', acceptUntilSecs: NaN }],
      }, 'invalid_argument', 'ctor'],
      ['acceptUntilSecs a string on a retiring entry', {
        secrets: [{ secret: SECRET, kind: 'active' }, { secret: OTHER_SECRET, kind: 'retiring', acceptUntilSecs: String(NOW) }],
      }, 'invalid_argument', 'ctor'],
      ['acceptUntilSecs on the active entry', {
        secrets: [{ secret: SECRET, kind: 'active', acceptUntilSecs: NOW }],
      }, 'invalid_argument', 'ctor'],
      ['a number timestamp', { timestamp: NOW }, 'timestamp_malformed', 'call'],
      ['a BigInt timestamp', { timestamp: BigInt(NOW) }, 'timestamp_malformed', 'call'],
      ['a Buffer timestamp', { timestamp: Buffer.from(TS) }, 'timestamp_malformed', 'call'],
      ['an array holding a number as timestamp', { timestamp: [NOW] }, 'timestamp_malformed', 'call'],
      ['a timestamp sent twice (an array of two values)', { timestamp: [TS, TS] }, 'header_duplicated', 'call'],
      ['an empty array timestamp (no occurrence)', { timestamp: [] }, 'timestamp_missing', 'call'],
      ['an object timestamp', { timestamp: { toString: () => TS } }, 'timestamp_malformed', 'call'],
      ['a null timestamp', { timestamp: null }, 'timestamp_missing', 'call'],
      ['an undefined timestamp', { timestamp: undefined }, 'timestamp_missing', 'call'],
      ['a missing timestamp', { timestamp: MISSING }, 'timestamp_missing', 'call'],
      ['a number signature', { signature: 12345 }, 'signature_malformed', 'call'],
      ['a Buffer signature', { signature: Buffer.from(sign(SECRET, TS, EVENT_TEXT)) }, 'signature_malformed', 'call'],
      ['a signature sent twice (an array of two values)', { signature: [sign(SECRET, TS, EVENT_TEXT), sign(SECRET, TS, EVENT_TEXT)] }, 'header_duplicated', 'call'],
      ['an array holding a Buffer as signature', { signature: [Buffer.from(sign(SECRET, TS, EVENT_TEXT))] }, 'signature_malformed', 'call'],
      ['a null signature', { signature: null }, 'signature_missing', 'call'],
      ['a missing signature', { signature: MISSING }, 'signature_missing', 'call'],
      ['an empty secret list (after every header check)', { secrets: [] }, 'no_secrets', 'none'],
      ['an empty secret (after every header check)', { secrets: '' }, 'secret_empty', 'none'],
    ];

    for (const [name, override, code, where] of cases) {
      test(`${name}: ${code}`, () => {
        const input = withOverride(base, override);
        expectCode(api, () => api.verifySignature(input), code, 'verifySignature');
        expectCode(api, () => api.verifyWebhook(input), code, 'verifyWebhook');
        const unknown = Object.fromEntries(
          Object.entries(input).filter(([key]) => !CTOR_KEYS.includes(key) && !CALL_KEYS.includes(key)),
        );
        if (where === 'ctor' || where === 'both') {
          expectCode(api, () => new api.Verifier({ ...ctorInput(input), ...unknown }), code, 'new Verifier');
        }
        if (where === 'call' || where === 'both') {
          const verifier = new api.Verifier(ctorInput(base));
          try {
            expectCode(api, () => verifier.verifySignature({ ...callInput(input), ...unknown }), code, 'Verifier.verifySignature');
            expectCode(api, () => verifier.verifyWebhook({ ...callInput(input), ...unknown }), code, 'Verifier.verifyWebhook');
          } finally {
            verifier.free();
          }
        }
      });
    }

    test('an unknown option is never named (it may be a pasted secret); a near miss of one is', () => {
      const misspelt = thrown(() => api.verifyWebhook(withOverride(base, { nowSecs: MISSING, nowSec: NOW })));
      assert.match(misspelt.message, /unknown option .*; did you mean "nowSecs"\?/);
      for (const cut of ['maxSkew', 'maxSkewSeconds', 'max_skew_secs']) {
        const error = thrown(() => api.verifyWebhook(withOverride(base, { maxSkewSecs: MISSING, [cut]: 300 })));
        assert.match(error.message, /; did you mean "maxSkewSecs"\?/, cut);
      }
      const pasted = 'whsec_pasted_Canary_91f2';
      for (const error of [thrown(() => api.verifyWebhook({ ...base, [pasted]: 1 })), thrown(() => new api.Verifier({ ...ctorInput(base), [pasted]: 1 }))]) {
        assert.equal(error.code, 'invalid_argument');
        assert.ok(!error.message.includes('Canary'), error.message);
        assert.doesNotMatch(error.message, /did you mean/);
      }
    });

    test('a header value that is not the header\'s text says what it is and what to pass', () => {
      const long = 'a'.repeat(2000);
      const verifier = new api.Verifier(ctorInput(base));
      try {
        // A value no header has is the receiver's own (5xx); one longer than the service ever
        // sends is what the network sent: the delivery's (400), so that no sender turns a
        // refusal into a 5xx without the secret.
        for (const [override, code, says, fault] of [
          [{ timestamp: NOW }, 'timestamp_malformed', /timestamp is a number, not the header's text: pass the timestamp header's value exactly as received: a string of Unix seconds/, true],
          [{ timestamp: [NOW] }, 'timestamp_malformed', /timestamp is a number, not the header's text/, true],
          [{ timestamp: Buffer.from(TS) }, 'timestamp_malformed', /timestamp is an object, not the header's text/, true],
          [{ timestamp: '1'.repeat(2000) }, 'timestamp_malformed', /timestamp is longer than \d+ characters, more than the service ever sends/, false],
          [{ timestamp: ['1'.repeat(2000)] }, 'timestamp_malformed', /timestamp is longer than \d+ characters/, false],
          [{ signature: 12345 }, 'signature_malformed', /signature is a number, not the header's text: pass the signature header's value exactly as received, as a string/, true],
          [{ signature: long }, 'signature_malformed', /signature is longer than \d+ characters/, false],
        ]) {
          const input = withOverride(base, override);
          for (const error of [thrown(() => api.verifyWebhook(input)), thrown(() => verifier.verifySignature(callInput(input)))]) {
            assert.deepEqual([error.code, error.receiverFault], [code, fault], JSON.stringify(override).slice(0, 60));
            assert.match(error.message, says);
            assert.doesNotMatch(error.message, /other than an ASCII digit|not visible ASCII/);
          }
        }
      } finally {
        verifier.free();
      }
      // A blank value gets the same code at any length: longer than the header ever holds is
      // not copied into the core, and must not change the verdict (a blank timestamp is
      // malformed, a blank signature missing, as the core says of short ones).
      for (const blank of [' ', '\t', '  \t ']) {
        for (const [field, code] of [['timestamp', 'timestamp_malformed'], ['signature', 'signature_missing']]) {
          for (const value of [blank, blank.repeat(2000)]) {
            const error = thrown(() => api.verifyWebhook(withOverride(base, { [field]: value })));
            assert.equal(error.code, code, `${field} of ${value.length} blank characters`);
          }
        }
      }
      // NUL characters given as the value are the core's own refusal (what JavaScript hands
      // the core for a value it must refuse can never be a caller's string).
      for (const nul of ['\u0000', '\u0000\u0000']) {
        for (const [field, code] of [['timestamp', 'timestamp_malformed'], ['signature', 'signature_malformed']]) {
          const error = thrown(() => api.verifyWebhook(withOverride(base, { [field]: nul })));
          assert.equal(error.code, code, `${field} ${JSON.stringify(nul)}`);
          assert.doesNotMatch(error.message, /longer than|array of several values/);
        }
        const signed = thrown(() => api.signWebhook({ secret: SECRET, timestamp: nul, body: EVENT_TEXT }));
        assert.equal(signed.code, 'timestamp_malformed');
        assert.doesNotMatch(signed.message, /longer than/);
      }
      const millis = thrown(() => api.verifyWebhook(withOverride(base, { nowSecs: NOW * 1000 })));
      assert.equal(millis.code, 'timestamp_too_old');
      assert.match(millis.message, /nowSecs is in milliseconds \(13 digits or more\): pass Math\.floor\(Date\.now\(\) \/ 1000\)/);
      const signed = thrown(() => api.signWebhook({ secret: SECRET, timestamp: -1, body: EVENT_TEXT }));
      assert.equal(signed.code, 'timestamp_malformed');
      assert.match(signed.message, /timestamp must be Unix seconds: a string of digits, or an integer number from 0/);
    });

    test('the two header values swapped: timestamp_malformed says the names may be swapped, and shows neither value; the receiver\'s fault only when the delivery verifies read the other way round', () => {
      // A body node:crypto hashes once the first 2 MiB of such bodies were hashed in
      // WebAssembly: repeated, both HMAC paths of the node entry.
      const large = EVENT_TEXT.replace('"status_version":"42"}', `"status_version":"42","pad":"${'x'.repeat(600_000)}"}`);
      for (const bodyText of [EVENT_TEXT, large, large, large, large, large]) {
        const input = validInput({ bodyText });
        const swapped = { ...input, timestamp: input.signature, signature: input.timestamp };
        const tag = input.signature.slice(3);
        const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW });
        for (const call of [api.verifyWebhook, api.verifySignature, ({ body, timestamp, signature, nowSecs }) => verifier.verifyWebhook({ body, timestamp, signature, nowSecs })]) {
          const error = thrown(() => call(swapped));
          assert.deepEqual([error.code, error.receiverFault], ['timestamp_malformed', true]);
          assert.match(error.message, /the timestamp reads as a signature, and the delivery verifies with the two headers read the other way round: when every delivery is refused so, the timestamp and signature header names are swapped in this receiver's configuration \(exchange them\); when only some are, they are captured deliveries replayed with their two header values exchanged/);
          assert.ok(!error.message.includes(tag.slice(0, 16)), error.message);
          // Without the secret, no sender makes it a 5xx: a made-up tag, another secret's.
          for (const forged of [{ ...swapped, timestamp: 'v1=hello' }, { ...swapped, timestamp: `v1=${'0'.repeat(64)}` },
            { ...swapped, timestamp: sign(OTHER_SECRET, input.timestamp, bodyText) }]) {
            const refused = thrown(() => call(forged));
            assert.deepEqual([refused.code, refused.receiverFault], ['timestamp_malformed', false]);
            assert.match(refused.message, /the timestamp reads as a signature \(v1=, sha256= or 64 hex digits\): are the timestamp and signature header names swapped\?/);
          }
        }
        verifier.free();
      }
      // Not for any value that is not digits: a date is not called a signature.
      const date = thrown(() => api.verifyWebhook({ ...input, timestamp: '2026-11-30T10:00:00Z' }));
      assert.doesNotMatch(date.message, /swapped/);
      // A header sent twice: which one, by its role.
      const twice = thrown(() => api.readDeliveryHeaders([['X-Webhook-Timestamp', '1'], ['X-Webhook-Timestamp', '2'], ['X-Webhook-Signature', 'v1=ab']],
        { timestampHeader: 'X-Webhook-Timestamp', signatureHeader: 'X-Webhook-Signature' }));
      assert.equal(twice.code, 'header_duplicated');
      assert.match(twice.message, /timestamp header/);
    });

    test('a missing or non-object options argument is invalid_argument', () => {
      for (const bad of [undefined, null, 'x', 42, [validInput()]]) {
        expectCode(api, () => api.verifySignature(bad), 'invalid_argument', `verifySignature(${String(bad)})`);
        expectCode(api, () => api.verifyWebhook(bad), 'invalid_argument', `verifyWebhook(${String(bad)})`);
        expectCode(api, () => new api.Verifier(bad), 'invalid_argument', `new Verifier(${String(bad)})`);
      }
      const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW });
      try {
        expectCode(api, () => verifier.verifySignature(), 'invalid_argument', 'Verifier.verifySignature()');
        expectCode(api, () => verifier.verifyWebhook(null), 'invalid_argument', 'Verifier.verifyWebhook(null)');
      } finally {
        verifier.free();
      }
    });

    test('a Verifier method refuses the one-shot options (secrets, maxSkewSecs, maxBodyBytes)', () => {
      const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW });
      try {
        for (const extra of [{ secrets: SECRET }, { maxSkewSecs: SKEW }, { maxBodyBytes: 100 }]) {
          expectCode(api, () => verifier.verifySignature({ ...callInput(base), ...extra }), 'invalid_argument', Object.keys(extra)[0]);
        }
      } finally {
        verifier.free();
      }
    });

    test('new Verifier refuses the per-delivery inputs (nowSecs, body)', () => {
      expectCode(api, () => new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW, nowSecs: NOW }), 'invalid_argument', 'nowSecs');
      expectCode(api, () => new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW, body: base.body }), 'invalid_argument', 'body');
    });

    test('an unknown key wins over every later failure', () => {
      const input = { ...base, body: null, timestamp: '', signature: '', secrets: [], maxSkewSec: 1 };
      expectCode(api, () => api.verifySignature(input), 'invalid_argument');
    });

    test('the extreme valid values are accepted', () => {
      // nowSecs = 2^53 - 1 is valid (then the delivery is simply too old)
      expectVerifyCode(api, { ...base, nowSecs: Number.MAX_SAFE_INTEGER }, 'timestamp_too_old');
      // and so is maxSkewSecs = 2^53 - 1
      expectVerified(api, { ...base, nowSecs: Number.MAX_SAFE_INTEGER, maxSkewSecs: Number.MAX_SAFE_INTEGER });
      // nowSecs 0 is valid (the delivery is then in the future)
      expectVerifyCode(api, { ...base, nowSecs: 0 }, 'timestamp_in_future');
      // maxSkewSecs 0: the timestamp must equal nowSecs
      expectVerified(api, { ...base, maxSkewSecs: 0 });
      expectVerifyCode(api, { ...base, maxSkewSecs: 0, nowSecs: NOW + 1 }, 'timestamp_too_old');
      // maxBodyBytes given as undefined means the default
      expectVerified(api, { ...base, maxBodyBytes: undefined });
      // maxBodyBytes 1 with an empty body
      expectVerified(api, { ...base, body: new Uint8Array(0), signature: sign(SECRET, TS, ''), maxBodyBytes: 1 });
      // acceptUntilSecs 10^12 - 1 on a retiring secret (the last second of 12 digits)
      const secrets = [
        { secret: OTHER_SECRET, kind: 'active' },
        { secret: SECRET, kind: 'retiring', acceptUntilSecs: 999_999_999_999 },
      ];
      expectVerified(api, { ...base, secrets }, 'retiring');
    });

    test('an acceptUntilSecs in milliseconds (13 digits or more) is refused: the old secret would verify for ever', () => {
      for (const acceptUntilSecs of [1_000_000_000_000, NOW * 1000, Number.MAX_SAFE_INTEGER]) {
        const secrets = [{ secret: OTHER_SECRET, kind: 'active' }, { secret: SECRET, kind: 'retiring', acceptUntilSecs }];
        const error = thrown(() => api.verifySignature({ ...base, secrets }));
        assert.equal(error?.code, 'invalid_argument', String(acceptUntilSecs));
        assert.match(error.message, /acceptUntilSecs has 13 digits or more: a time in milliseconds\? give the last Unix second/);
        assert.equal(thrown(() => new api.Verifier({ secrets, maxSkewSecs: 300 }))?.code, 'invalid_argument');
      }
    });

    test('a secret of well-formed non-BMP text (an emoji) is used as its UTF-8 bytes', () => {
      const secret = 'whsec_\ud83d\ude00_caf\u00e9';
      expectVerified(api, { ...base, secrets: secret, signature: sign(secret, TS, EVENT_TEXT) });
    });

    // The core hands JavaScript its limits as one array, named by position in api/instance.mjs:
    // each name must carry the core's value (src/options.rs, src/secret_set.rs).
    test('the limits JavaScript quotes are the core\'s (4 secrets at most, maxBodyBytes up to 64 MiB)', () => {
      const entries = (n) => Array.from({ length: n }, (_, i) => ({ secret: `${SECRET}-${i}`, kind: i === 0 ? 'active' : 'pending' }));
      assert.ok(new api.Verifier({ secrets: entries(4), maxSkewSecs: SKEW }));
      const tooMany = expectCode(api, () => new api.Verifier({ secrets: entries(5), maxSkewSecs: SKEW }), 'invalid_argument');
      assert.match(tooMany.message, /at most 4 entries/);
      const fraction = expectCode(api, () => new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW, maxBodyBytes: 1.5 }), 'invalid_argument');
      assert.match(fraction.message, new RegExp(`from 1 to ${64 * MIB} `));
    });
  });

  describe(`${label}: Verifier reuse and free()`, () => {
    test('a refused delivery is a CryptoPayError without a stack; an argument error keeps its stack', () => {
      const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW });
      try {
        for (const input of [validInput({ signWith: OTHER_SECRET }), { ...validInput(), nowSecs: NOW + 301 }, { ...validInput(), signature: 'v1=zz' }]) {
          const refused = thrown(() => verifier.verifySignature(callInput(input)));
          assert.ok(refused instanceof api.CryptoPayError && refused instanceof Error);
          assert.ok(['signature_mismatch', 'timestamp_too_old', 'signature_malformed'].includes(refused.code), refused.code);
          assert.equal(refused.stack, `CryptoPayError: ${refused.message}`, 'the stack is the first line only');
          const again = expectCode(api, () => api.verifyWebhook(input), refused.code, 'verifyWebhook');
          assert.equal(again.message, refused.message, 'the same failure, the same message');
        }
        // What JavaScript itself refuses in the network's input is stackless too: a body over
        // maxBodyBytes, a header sent twice (given as an array of two values).
        const small = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW, maxBodyBytes: 16 });
        try {
          const { signature } = validInput();
          for (const [input, code] of [[callInput(validInput()), 'body_too_large'],
            [{ ...callInput(validInput()), body: 'x'.repeat(17) }, 'body_too_large'],
            [{ ...callInput(validInput({ bodyText: '{}' })), signature: [signature, signature] }, 'header_duplicated']]) {
            const refused = thrown(() => small.verifyWebhook(input));
            assert.equal(refused?.code, code);
            assert.equal(refused.stack, `CryptoPayError: ${refused.message}`, `${code}: the stack is the first line only`);
          }
        } finally {
          small.free();
        }
        const wrong = expectCode(api, () => verifier.verifySignature({ ...callInput(validInput()), nowSecs: -1 }), 'invalid_argument', 'nowSecs -1');
        assert.match(wrong.stack, /\n\s+at /, 'an argument error has its stack');
        // The limit the package lowers for a refusal is restored.
        assert.equal(Error.stackTraceLimit, 10);
      } finally {
        verifier.free();
      }
    });

    test('Verifier is a class: without new it is the language\'s TypeError, and builds nothing', () => {
      assert.equal(typeof api.Verifier, 'function');
      assert.throws(() => api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW }), (error) => error instanceof TypeError && !(error instanceof api.CryptoPayError));
      const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW });
      try {
        assert.ok(verifier instanceof api.Verifier);
        assert.equal(verifier.verifySignature(callInput(validInput())).matchedSecret, 'active');
      } finally {
        verifier.free();
      }
    });

    test('one Verifier answers a sequence of deliveries as the one-shot function does', () => {
      const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW });
      try {
        const deliveries = [
          validInput(),
          validInput({ signWith: OTHER_SECRET }),
          { ...validInput(), nowSecs: NOW + 301 },
          validInput({ bodyText: '{"other":true}', timestamp: '1700000100' }),
          { ...validInput(), body: EVENT_TEXT },
          { ...validInput(), signature: 'v1=zz' },
          validInput({ timestamp: '1699999800' }),
          { ...validInput(), body: {} },
          validInput(),
        ];
        for (const [i, input] of deliveries.entries()) {
          for (const method of ['verifySignature', 'verifyWebhook']) {
            let oneShot;
            let keyed;
            try {
              oneShot = { value: api[method](input) };
            } catch (error) {
              oneShot = { code: error.code };
            }
            try {
              keyed = { value: verifier[method](callInput(input)) };
            } catch (error) {
              assert.ok(error instanceof api.CryptoPayError);
              keyed = { code: error.code };
            }
            assert.deepStrictEqual(keyed, oneShot, `delivery ${i}, ${method}`);
          }
        }
        assert.deepStrictEqual(verifier.verifySignature(callInput(validInput())), { matchedSecret: 'active', timestamp: NOW });
      } finally {
        verifier.free();
      }
    });

    test('a Verifier is keyed once: changing the secrets afterwards changes nothing', () => {
      const secrets = [{ secret: SECRET, kind: 'active' }];
      const verifier = new api.Verifier({ secrets, maxSkewSecs: SKEW });
      try {
        secrets[0].secret = OTHER_SECRET;
        secrets.push({ secret: 'whsec_third', kind: 'pending' });
        assert.deepStrictEqual(verifier.verifySignature(callInput(validInput())), { matchedSecret: 'active', timestamp: NOW });
        expectCode(api, () => verifier.verifySignature(callInput(validInput({ signWith: OTHER_SECRET }))), 'signature_mismatch');
        expectCode(api, () => verifier.verifySignature(callInput(validInput({ signWith: 'whsec_third' }))), 'signature_mismatch');
      } finally {
        verifier.free();
      }
    });

    test('the one-shot functions answer for the secrets and options of each call, whatever came before', () => {
      // They keep the last secret set keyed: a change of any part of the set or of the
      // options must take effect on the next call, and a set that cannot be keyed must
      // still be reported in the contract's order.
      const rotation = [
        { secret: OTHER_SECRET, kind: 'active' },
        { secret: SECRET, kind: 'retiring', acceptUntilSecs: NOW + 10 },
      ];
      const steps = [
        [validInput(), { matchedSecret: 'active', timestamp: NOW }],
        [validInput({ secrets: OTHER_SECRET }), 'signature_mismatch'],
        [validInput({ secrets: rotation }), { matchedSecret: 'retiring', timestamp: NOW }],
        [validInput({ secrets: rotation.map((e) => ({ ...e, acceptUntilSecs: e.acceptUntilSecs && NOW - 1 })) }), 'signature_mismatch'],
        [validInput({ secrets: rotation }), { matchedSecret: 'retiring', timestamp: NOW }],
        [validInput({ secrets: `${SECRET} ` }), 'signature_mismatch'],
        [validInput({ secrets: '' }), 'secret_empty'],
        [{ ...validInput({ secrets: '' }), signature: 'v1=zz' }, 'signature_malformed'],
        [validInput(), { matchedSecret: 'active', timestamp: NOW }],
        [validInput({ maxBodyBytes: 10 }), 'body_too_large'],
        [{ ...validInput(), nowSecs: NOW + 200 }, { matchedSecret: 'active', timestamp: NOW }],
        [{ ...validInput(), nowSecs: NOW + 200, maxSkewSecs: 100 }, 'timestamp_too_old'],
        [validInput({ signWith: OTHER_SECRET, secrets: OTHER_SECRET }), { matchedSecret: 'active', timestamp: NOW }],
        [validInput(), { matchedSecret: 'active', timestamp: NOW }],
      ];
      for (const method of ['verifySignature', 'verifyWebhook']) {
        for (const [i, [input, expected]] of steps.entries()) {
          if (typeof expected === 'string') {
            expectCode(api, () => api[method](input), expected);
          } else {
            const { event, ...rest } = api[method](input);
            assert.deepStrictEqual(rest, expected, `step ${i}, ${method}`);
            assert.equal(event === undefined, method === 'verifySignature', `step ${i}, ${method}`);
          }
        }
      }
    });

    test('deliveries keep verifying while the wasm memory grows between and during calls', () => {
      // The package writes each delivery into one reused area of wasm memory through a view
      // that must be renewed whenever the memory grows (the old buffer is then detached).
      const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW, maxBodyBytes: 16 * MIB });
      const held = [];
      try {
        const small = callInput(validInput());
        const bigText = `{"pad":"${'x'.repeat(9 * MIB)}"}`;
        const big = callInput(validInput({ bodyText: bigText }));
        const tampered = { ...small, body: utf8(EVENT_TEXT.replace('"', ' "')) };
        const expected = { matchedSecret: 'active', timestamp: NOW };
        assert.deepStrictEqual(verifier.verifySignature(small), expected);
        // Grow the memory from elsewhere: verifiers holding 64 KiB secrets.
        for (let i = 0; i < 64; i++) {
          held.push(new api.Verifier({ secrets: `${i}`.padEnd(64 * 1024, 's'), maxSkewSecs: SKEW }));
        }
        assert.deepStrictEqual(verifier.verifySignature(small), expected);
        expectCode(api, () => verifier.verifySignature(tampered), 'signature_mismatch');
        // A body larger than the area so far: the area and the memory grow in the call.
        assert.deepStrictEqual(verifier.verifySignature(big), expected);
        assert.deepStrictEqual(api.verifySignature({ ...big, secrets: SECRET, maxSkewSecs: SKEW, maxBodyBytes: 16 * MIB }), expected);
        // Back to small deliveries (the core gives the large area back).
        assert.deepStrictEqual(verifier.verifyWebhook(small).matchedSecret, 'active');
        expectCode(api, () => verifier.verifySignature(tampered), 'signature_mismatch');
        assert.deepStrictEqual(api.verifySignature(validInput()), expected);
      } finally {
        verifier.free();
        for (const v of held) v.free();
      }
    });

    test('a Verifier applies its own maxSkewSecs and maxBodyBytes', () => {
      const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: 10, maxBodyBytes: 20 });
      try {
        const small = validInput({ bodyText: '{"a":1}' });
        assert.deepStrictEqual(verifier.verifySignature({ ...callInput(small), nowSecs: NOW + 10 }), { matchedSecret: 'active', timestamp: NOW });
        expectCode(api, () => verifier.verifySignature({ ...callInput(small), nowSecs: NOW + 11 }), 'timestamp_too_old');
        expectCode(api, () => verifier.verifySignature(callInput(validInput({ bodyText: '{"a":"123456789012345"}' }))), 'body_too_large');
      } finally {
        verifier.free();
      }
    });

    test('a Verifier has the 4 MiB default limit', () => {
      const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW });
      try {
        const over = new Uint8Array(4 * MIB + 1);
        expectCode(api, () => verifier.verifySignature({ body: over, timestamp: TS, signature: sign(SECRET, TS, over), nowSecs: NOW }), 'body_too_large');
      } finally {
        verifier.free();
      }
    });

    test('a Verifier with a rotation set reports the kind that matched', () => {
      const verifier = new api.Verifier({
        secrets: [
          { secret: 'whsec_new', kind: 'active' },
          { secret: 'whsec_next', kind: 'pending' },
          { secret: 'whsec_old', kind: 'retiring', acceptUntilSecs: NOW + 60 },
        ],
        maxSkewSecs: SKEW,
      });
      try {
        for (const [secret, kind] of [['whsec_new', 'active'], ['whsec_next', 'pending'], ['whsec_old', 'retiring']]) {
          assert.equal(verifier.verifySignature(callInput(validInput({ signWith: secret }))).matchedSecret, kind);
        }
        // the retiring secret stops at its bound, judged by each call's nowSecs
        expectCode(api, () => verifier.verifySignature({ ...callInput(validInput({ signWith: 'whsec_old' })), nowSecs: NOW + 61 }), 'signature_mismatch');
      } finally {
        verifier.free();
      }
    });

    test('after free() every call is invalid_argument, other verifiers keep working', () => {
      const freed = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW });
      const other = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW });
      try {
        assert.deepStrictEqual(freed.verifySignature(callInput(validInput())), { matchedSecret: 'active', timestamp: NOW });
        assert.equal(freed.free(), undefined);
        expectCode(api, () => freed.verifySignature(callInput(validInput())), 'invalid_argument', 'verifySignature after free');
        expectCode(api, () => freed.verifyWebhook(callInput(validInput())), 'invalid_argument', 'verifyWebhook after free');
        expectCode(api, () => freed.verifySignature(callInput(validInput({ signWith: OTHER_SECRET }))), 'invalid_argument', 'a bad delivery after free');
        // a second free() must not break anything (it may be a no-op or invalid_argument)
        try {
          freed.free();
        } catch (error) {
          assert.ok(error instanceof api.CryptoPayError, `second free threw ${describeError(error)}`);
          assert.equal(error.code, 'invalid_argument');
        }
        expectCode(api, () => freed.verifySignature(callInput(validInput())), 'invalid_argument', 'after a second free');
        assert.deepStrictEqual(other.verifySignature(callInput(validInput())), { matchedSecret: 'active', timestamp: NOW });
        assert.deepStrictEqual(api.verifySignature(validInput()), { matchedSecret: 'active', timestamp: NOW });
      } finally {
        other.free();
      }
    });

    test('many verifiers created, used and freed in turn', () => {
      for (let i = 0; i < 300; i += 1) {
        const secret = `whsec_${i}`;
        const verifier = new api.Verifier({ secrets: secret, maxSkewSecs: SKEW });
        assert.equal(verifier.verifySignature(callInput(validInput({ signWith: secret }))).matchedSecret, 'active');
        verifier.free();
      }
    });
  });

  describe(`${label}: event exposure`, () => {
    const BIG = '18446744073709551617'; // 2^64 + 1
    const BIG_EVENT =
      '{"schema_version":1,"event_id":"evt_big","event_type":"payment.updated",' +
      `"occurred_at":${BIG},` +
      '"data":{"payment_id":"pay_1","status_version":9007199254740993,' +
      '"amount_minor":123456789012345678901234567890,' +
      `"negative":-${BIG},"small":7,"ratio":1.5,"flag":true,"none":null,` +
      '"sum":0.30000000000000004,"rounded":9007199254740993.0,"cut":1.00000000000000000001,"rate":0.123456789012345,' +
      `"nested":{"n":${BIG},"s":"${BIG}"},"list":[1,${BIG},"x"]},` +
      '"x_extra":{"k":[1,2]},"delivery_attempt":2}';

    const viaWebhook = () => api.verifyWebhook(validInput({ bodyText: BIG_EVENT })).event;

    test('a 2^53 + 1 status_version arrives as the exact string', () => {
      const event = viaWebhook();
      assert.equal(event.statusVersion, '9007199254740993');
      assert.equal(event.data.status_version, '9007199254740993');
    });

    test('a number JS cannot hold exactly inside data arrives as its decimal string', () => {
      const { data } = viaWebhook();
      assert.equal(data.amount_minor, '123456789012345678901234567890');
      assert.equal(data.nested.n, BIG);
      assert.deepStrictEqual(data.list, [1, BIG, 'x']);
    });

    test('a fraction of more than 15 significant digits arrives as its decimal string', () => {
      const { data } = viaWebhook();
      assert.equal(data.rounded, '9007199254740993.0'); // JSON.parse: 9007199254740992
      assert.equal(data.cut, '1.00000000000000000001'); // JSON.parse: 1
      assert.equal(data.sum, '0.30000000000000004'); // a double's own text, but 17 digits
    });

    test('a negative number JS cannot hold exactly inside data arrives as its decimal string', () => {
      assert.equal(viaWebhook().data.negative, `-${BIG}`);
    });

    test('numbers JS holds exactly stay numbers; other JSON values are as parsed', () => {
      const { data } = viaWebhook();
      assert.equal(data.small, 7);
      assert.equal(data.ratio, 1.5);
      assert.equal(data.rate, 0.123456789012345); // 15 significant digits
      assert.equal(data.flag, true);
      assert.equal(data.none, null);
      assert.equal(data.nested.s, BIG);
      assert.equal(data.payment_id, 'pay_1');
    });

    test('an occurred_at JS cannot hold exactly arrives as its decimal string', () => {
      assert.equal(viaWebhook().occurredAt, BIG);
    });

    test('the typed fields are strings', () => {
      const event = viaWebhook();
      assert.deepStrictEqual(
        [event.schemaVersion, event.eventId, event.eventType, event.paymentId],
        ['1', 'evt_big', 'payment.updated', 'pay_1'],
      );
    });

    test('envelope holds the whole top-level object, unknown fields included', () => {
      const event = viaWebhook();
      assert.deepStrictEqual(event.envelope.x_extra, { k: [1, 2] });
      assert.equal(event.envelope.delivery_attempt, 2);
      assert.equal(event.envelope.event_id, 'evt_big');
      assert.equal(event.envelope.event_type, 'payment.updated');
      assert.deepStrictEqual(event.envelope.data, event.data);
    });

    test('a plain event: data is the parsed data object, snake_case as received', () => {
      const text =
        '{"schema_version":"2024-01","event_id":"evt_2","event_type":"payment.updated","occurred_at":1700000000,' +
        '"data":{"payment_id":"pay_9","status_version":42,"status":"paid","amount":{"amount_raw":"12800"}},"x":[]}';
      const event = api.verifyWebhook(validInput({ bodyText: text })).event;
      assert.equal(event.schemaVersion, '2024-01');
      assert.equal(event.occurredAt, 1700000000);
      assert.equal(event.statusVersion, '42');
      assert.deepStrictEqual(event.data, { payment_id: 'pay_9', status_version: 42, status: 'paid', amount: { amount_raw: '12800' } });
      assert.deepStrictEqual(event.envelope, JSON.parse(text));
    });

    test('dataText: the data text byte for byte, read once, outside JSON.stringify and spreads', () => {
      const data = '{ "payment_id":"pay_9", "status_version":42,"amount":128.10,"big":12345678901234567890 }';
      const text = `{"schema_version":"1","event_id":"evt_3","event_type":"payment.updated","occurred_at":1,"data":${data}}`;
      const event = api.verifyWebhook(validInput({ bodyText: text })).event;
      assert.equal(event.dataText, data);
      assert.equal(event.dataText, event.dataText);
      assert.ok(!Object.keys(event).includes('dataText'));
      assert.ok(!('dataText' in JSON.parse(JSON.stringify(event))));
      assert.ok(!('dataText' in { ...event }));
      assert.deepStrictEqual(Object.keys(event), ['schemaVersion', 'eventId', 'eventType', 'occurredAt', 'paymentId', 'statusVersion', 'data', 'envelope']);
      assert.throws(() => { 'use strict'; event.dataText = 'x'; }, TypeError);
      assert.equal(api.parseEvent(text).dataText, data);
    });

    test('dataText: what was verified, though the body buffer is reused or detached after', () => {
      // ASCII, text outside ASCII, and a number a double cannot hold: each way the event's
      // text is made. The caller's buffer then changes (a pooled buffer reused) or is detached
      // (an ArrayBuffer valid only during a callback); dataText is read only after that.
      const datas = [
        '{"payment_id":"pay_9","status_version":3,"status":"partially_paid"}',
        '{"payment_id":"pay_9","status_version":3,"status":"partially_paid","note":"caf\u00e9 \u2713"}',
        '{"payment_id":"pay_9","status_version":3,"status":"partially_paid","big":123456789012345678901234567890}',
      ];
      for (const data of datas) {
        const text = `{"schema_version":"1","event_id":"evt_4","event_type":"payment.updated","occurred_at":1,"data":${data}}`;
        const forged = text.replace('partially_paid', 'paid__________');
        assert.equal(utf8(forged).length, utf8(text).length);
        for (const verify of [
          (input) => api.verifyWebhook(input).event,
          (input) => {
            const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW });
            try {
              return verifier.verifyWebhook(callInput(input)).event;
            } finally {
              verifier.free();
            }
          },
        ]) {
          const reused = validInput({ bodyText: text });
          const event = verify(reused);
          reused.body.set(utf8(forged));
          assert.equal(event.dataText, data, 'a reused buffer');
          const detached = validInput({ bodyText: text });
          const later = verify(detached);
          structuredClone(detached.body.buffer, { transfer: [detached.body.buffer] });
          assert.equal(detached.body.byteLength, 0);
          assert.equal(later.dataText, data, 'a detached buffer');
        }
        const parsed = utf8(text);
        const event = api.parseEvent(parsed);
        parsed.fill(0x20);
        assert.equal(event.dataText, data, 'parseEvent');
      }
    });

    test('parseEvent and Verifier.verifyWebhook expose the same event as verifyWebhook', () => {
      const event = viaWebhook();
      assert.deepStrictEqual(api.parseEvent(utf8(BIG_EVENT)), event, 'parseEvent(bytes)');
      assert.deepStrictEqual(api.parseEvent(BIG_EVENT), event, 'parseEvent(string)');
      const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW });
      try {
        assert.deepStrictEqual(verifier.verifyWebhook(callInput(validInput({ bodyText: BIG_EVENT }))).event, event);
      } finally {
        verifier.free();
      }
    });

    test('a schema_version JS cannot hold exactly arrives as its exact decimal text', () => {
      const text = EVENT_TEXT.replace('"schema_version":1', '"schema_version":123456789012345678901234567890');
      assert.equal(api.verifyWebhook(validInput({ bodyText: text })).event.schemaVersion, '123456789012345678901234567890');
    });

    test('decideEvent accepts the event verifyWebhook returned (it has eventId, paymentId, statusVersion)', () => {
      const { event } = api.verifyWebhook(validInput({ bodyText: BIG_EVENT }));
      assert.equal(api.decideEvent(event, { eventSeen: false }), 'apply');
      assert.equal(api.decideEvent(event, { eventSeen: false, statusVersion: '9007199254740992' }), 'apply');
      assert.equal(api.decideEvent(event, { eventSeen: false, statusVersion: '9007199254740993' }), 'stale');
      assert.equal(api.decideEvent(event, { eventSeen: true, statusVersion: '1' }), 'duplicate');
    });

    test('decideEvent reads what is stored once: a getter answering differently the second time cannot turn a stale event into apply', () => {
      const reads = { statusVersion: 0, eventSeen: 0 };
      const stored = {
        get eventSeen() { reads.eventSeen += 1; return reads.eventSeen === 1 ? false : true; },
        get statusVersion() { reads.statusVersion += 1; return reads.statusVersion === 1 ? '9' : undefined; },
      };
      assert.equal(api.decideEvent({ eventId: 'evt_1', paymentId: 'pay_1', statusVersion: '5' }, stored), 'stale');
      assert.deepStrictEqual(reads, { statusVersion: 1, eventSeen: 1 });
    });

    test('verifyWebhook returns event, matchedSecret and timestamp', () => {
      const result = api.verifyWebhook(validInput());
      assert.deepStrictEqual(Object.keys(result).sort(), ['event', 'matchedSecret', 'timestamp']);
      assert.equal(result.matchedSecret, 'active');
      assert.equal(result.timestamp, NOW);
      assert.deepStrictEqual(Object.keys(api.verifySignature(validInput())).sort(), ['matchedSecret', 'timestamp']);
    });
  });

  describe(`${label}: other JS-only inputs`, () => {
    test('signWebhook: hex by default, padded standard base64 on request, a number timestamp', () => {
      const hex = sign(SECRET, TS, EVENT_TEXT);
      assert.equal(api.signWebhook({ secret: SECRET, timestamp: TS, body: EVENT_TEXT }), hex);
      assert.equal(api.signWebhook({ secret: SECRET, timestamp: NOW, body: utf8(EVENT_TEXT) }), hex);
      assert.equal(
        api.signWebhook({ secret: SECRET, timestamp: TS, body: utf8(EVENT_TEXT).buffer, encoding: 'base64' }),
        sign(SECRET, TS, EVENT_TEXT, 'base64'),
      );
      expectVerified(api, { ...validInput(), signature: api.signWebhook({ secret: SECRET, timestamp: TS, body: EVENT_TEXT, encoding: 'base64' }) });
    });

    test('signWebhook: an unknown encoding, a non-string secret or an unknown key is invalid_argument', () => {
      expectCode(api, () => api.signWebhook({ secret: SECRET, timestamp: TS, body: '', encoding: 'base64url' }), 'invalid_argument');
      expectCode(api, () => api.signWebhook({ secret: Buffer.from(SECRET), timestamp: TS, body: '' }), 'invalid_argument');
      expectCode(api, () => api.signWebhook({ secret: SECRET, timestamp: TS, body: '', key: SECRET }), 'invalid_argument');
    });

    test('signWebhook: a timestamp given as an array is named as one (never "a string")', () => {
      for (const timestamp of [[TS], [TS, TS], []]) {
        const error = expectCode(api, () => api.signWebhook({ secret: SECRET, timestamp, body: '' }), 'timestamp_malformed');
        assert.match(error.message, /^timestamp_malformed: timestamp is an array: signWebhook signs one timestamp/);
      }
    });

    test('requestFingerprint hashes the exact bytes of any raw body type', () => {
      const text = '{"source_amount":{"kind":"fiat","currency":"EUR","amount_raw":"100"},"order_ref":"\u00e9"}';
      const want = createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');
      assert.equal(api.requestFingerprint(text), want);
      assert.equal(api.requestFingerprint(utf8(text)), want);
      assert.equal(api.requestFingerprint(utf8(text).buffer), want);
      assert.equal(api.requestFingerprint(Buffer.from(text)), want);
    });

    test('classifyDeliveryResponse: a status that is not an integer number is invalid_argument', () => {
      for (const bad of ['200', 200.5, NaN, Infinity, null, undefined, 200n]) {
        expectCode(api, () => api.classifyDeliveryResponse(bad), 'invalid_argument', String(bad));
      }
    });

    test('decimals that are not an integer are decimals_invalid; non-string amounts have their own codes', () => {
      for (const bad of [1.5, NaN, Infinity, '2', null, undefined, 2n]) {
        expectCode(api, () => api.toAmountRaw('1', bad), 'decimals_invalid', `toAmountRaw decimals ${String(bad)}`);
        expectCode(api, () => api.fromAmountRaw('1', bad), 'decimals_invalid', `fromAmountRaw decimals ${String(bad)}`);
      }
      expectCode(api, () => api.fromAmountRaw(12800, 2), 'amount_raw_invalid', 'fromAmountRaw(number)');
      expectCode(api, () => api.toAmountRaw(1.5, 2), 'amount_decimal_invalid', 'toAmountRaw(number)');
      expectCode(api, () => api.validateAmountRaw(12800n), 'amount_raw_invalid', 'validateAmountRaw(bigint)');
      for (const bad of [12800, null, undefined, {}, 12800n]) {
        assert.equal(api.isValidAmountRaw(bad), false, `isValidAmountRaw(${String(bad)})`);
      }
      assert.equal(api.isValidAmountRaw('12800'), true);
    });

    test('compareStatusVersions and decideEvent take safe integer numbers as versions', () => {
      assert.equal(api.compareStatusVersions(10, 9), 1);
      assert.equal(api.compareStatusVersions('9', 10), -1);
      assert.equal(api.compareStatusVersions(0, '0'), 0);
      assert.equal(api.decideEvent({ eventId: 'e', paymentId: 'p', statusVersion: 43 }, { eventSeen: false, statusVersion: '42' }), 'apply');
      assert.equal(api.decideEvent({ eventId: 'e', paymentId: 'p', statusVersion: '1' }, { eventSeen: false, statusVersion: null }), 'apply');
      expectCode(api, () => api.compareStatusVersions(1.5, '1'), 'status_version_invalid');
      expectCode(api, () => api.compareStatusVersions(-1, '1'), 'status_version_invalid');
    });

    test('a body that is not raw bytes says what it is, and for containers of bytes how to read them', async () => {
      const { Readable } = await import('node:stream');
      for (const [body, says] of [
        [42, /the body is a number;/],
        [undefined, /the body is undefined;/],
        [new Blob(['{}']), /the body is a Blob: pass await body\.arrayBuffer\(\)/],
        [new Response('{}'), /the body is a Response object: pass await response\.arrayBuffer\(\), read once/],
        [new ReadableStream(), /the body is a stream: read it to the end first/],
        [Readable.from(['{}']), /the body is a stream: read it to the end first \(Node: collect its Buffers/],
        [{ event_id: 'e' }, /the body is an object;/],
      ]) {
        const error = thrown(() => api.verifyWebhook({ ...validInput(), body }));
        assert.equal(error.code, 'body_not_raw');
        assert.match(error.message, says);
      }
    });

    test('a status_version_invalid of compareStatusVersions or decideEvent names the argument', () => {
      const unsafe = thrown(() => api.decideEvent({ eventId: 'e', paymentId: 'p', statusVersion: 2 ** 53 + 2 }, { eventSeen: false }));
      assert.equal(unsafe.code, 'status_version_invalid');
      assert.match(unsafe.message, /incoming\.statusVersion is a number over 2\^53 - 1, which JavaScript cannot hold exactly: pass event\.statusVersion, the exact string/);
      assert.match(thrown(() => api.compareStatusVersions('1', 2 ** 60)).message, /the second argument is a number over 2\^53 - 1/);
      assert.match(thrown(() => api.compareStatusVersions('1.0', '1')).message, /the first argument of compareStatusVersions/);
      assert.match(thrown(() => api.compareStatusVersions('1', '01')).message, /the second argument of compareStatusVersions/);
      const incoming = { eventId: 'e', paymentId: 'p', statusVersion: '2' };
      assert.match(thrown(() => api.decideEvent({ ...incoming, statusVersion: '2e3' }, { eventSeen: false })).message, /incoming\.statusVersion is not a status version/);
      assert.match(thrown(() => api.decideEvent(incoming, { eventSeen: false, statusVersion: '1.5' })).message, /stored\.statusVersion is not a status version: store event\.statusVersion as the exact string/);
    });

    test('an error of a function that takes no delivery is never authentic; decideEvent\'s is the receiver\'s fault', () => {
      const view = '{"payment_id":"p","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"1"},"status":"paid","status_version":1.5}';
      // decideEvent's and compareStatusVersions' values are the receiver's own (a stored
      // version a number column gave back): its fault, answered 5xx; the service's view is not.
      for (const [what, call, receiverFault] of [
        ['decideEvent', () => api.decideEvent({ eventId: 'e', paymentId: 'p', statusVersion: '2' }, { eventSeen: false, statusVersion: '1.5' }), true],
        ['decideEvent, a float column', () => api.decideEvent({ eventId: 'e', paymentId: 'p', statusVersion: '2' }, { eventSeen: false, statusVersion: '1.8446744073709552e19' }), true],
        ['compareStatusVersions', () => api.compareStatusVersions('1', '01'), true],
        ['parsePaymentView', () => api.parsePaymentView(view), false],
        ['defaultPolicy', () => api.defaultPolicy(view), false],
        ['linkEvent', () => api.linkEvent(null, view), false],
      ]) {
        const error = thrown(call);
        assert.deepEqual([error.code, error.authentic, error.receiverFault], ['status_version_invalid', false, receiverFault], what);
      }
      // The message says what a stored value's refusal is answered, not only an event's 2xx.
      assert.match(thrown(() => api.decideEvent({ eventId: 'e', paymentId: 'p', statusVersion: '2' }, { eventSeen: false, statusVersion: '7.00' })).message,
        /a value read back from your store is answered 5xx/);
      // A delivery's: authentic (its signature verified).
      const bodyText = '{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z",'
        + '"data":{"payment_id":"p","status_version":"01"}}';
      const delivered = thrown(() => api.verifyWebhook(validInput({ bodyText })));
      assert.deepEqual([delivered.code, delivered.authentic], ['status_version_invalid', true]);
    });

    test('validateCheckoutOrigin / validateCreatePayment / buildSourceAmount option checks', () => {
      const primarySource = { kind: 'fiat', ref: 'USD', decimals: 2 };
      const body = { source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '12800' } };
      expectCode(api, () => api.validateCheckoutOrigin('https://shop.example', { websiteOrigin: 42 }), 'invalid_argument', 'numeric websiteOrigin');
      expectCode(api, () => api.validateCheckoutOrigin('https://shop.example', { websiteorigin: 'https://shop.example' }), 'invalid_argument', 'unknown key');
      assert.equal(api.validateCheckoutOrigin('https://shop.example', { websiteOrigin: 'https://SHOP.example:443' }), undefined);
      expectCode(api, () => api.validateCreatePayment(body), 'invalid_argument', 'validateCreatePayment without options');
      expectCode(api, () => api.validateCreatePayment(body, { primarySource, websiteorigin: 'x' }), 'invalid_argument', 'unknown key');
      assert.equal(api.validateCreatePayment(body, { primarySource }), undefined);
      expectCode(api, () => api.buildSourceAmount(), 'invalid_argument', 'buildSourceAmount()');
      expectCode(api, () => api.buildSourceAmount({ primarySource, amount: '1', decimals: 2 }), 'invalid_argument', 'unknown key');
    });

    test('an object JSON cannot carry keeps its own code and says why, in the core\'s order', () => {
      const primarySource = { kind: 'fiat', ref: 'USD', decimals: 2 };
      const view = '{"payment_id":"pay_1","order_ref":"o1","source_amount":{"kind":"fiat","currency":"USD","amount_raw":"12800"},'
        + '"status":"paid","status_version":3,"amount_received_raw":"12800"}';
      const cyclic = { kind: 'fiat' };
      cyclic.self = cyclic;
      const throwing = { kind: 'fiat', get ref() { throw new Error('a getter of the caller'); }, decimals: 2 };
      for (const [what, call, code, says] of [
        ['a BigInt inside order.sourceAmount', () => api.linkEvent({ paymentId: 'pay_1', sourceAmount: { kind: 'fiat', currency: 'USD', amount_raw: 12800n } }, view),
          'source_amount_invalid', /order\.sourceAmount cannot be written as JSON: it holds a BigInt/],
        ['decimals as a BigInt', () => api.buildSourceAmount({ primarySource: { ...primarySource, decimals: 2n }, amount: '1' }),
          'store_source_invalid', /primarySource cannot be written as JSON: it holds a BigInt/],
        ['a getter that throws', () => api.buildSourceAmount({ primarySource: throwing, amount: '1' }),
          'store_source_invalid', /primarySource cannot be written as JSON: reading one of its values threw/],
        ['a cycle', () => api.validateSourceAmount(cyclic, primarySource), 'source_amount_invalid', /the source amount cannot be written as JSON: it refers to itself/],
        ['a BigInt in the body', () => api.validateCreatePayment({ a: 1n }, { primarySource }), 'create_payment_invalid', /the body cannot be written as JSON/],
      ]) {
        const error = thrown(call);
        assert.equal(error.code, code, what);
        assert.match(error.message, says, what);
        assert.doesNotMatch(error.message, /not an object|a getter of the caller/, what);
      }
      // Both objects wrong: the core's order (the store's source first) is kept.
      const both = thrown(() => api.validateCreatePayment({ a: 1n }, { primarySource: { decimals: 2n } }));
      assert.equal(both.code, 'store_source_invalid');
      // A well-formed object that is wrong is still worded by the core.
      assert.doesNotMatch(thrown(() => api.linkEvent({ paymentId: 'pay_1', sourceAmount: null }, view)).message, /cannot be written as JSON/);
    });

    test('hostedCheckoutUrl: a payment id that is not a string is invalid_argument', () => {
      for (const bad of [123, null, undefined, {}]) {
        expectCode(api, () => api.hostedCheckoutUrl('https://pay.example.com', bad), 'invalid_argument', String(bad));
      }
    });
  });

  describe(`${label}: canary (nothing secret reaches an error)`, () => {
    test('no secret, full signature or body marker appears in any error of any failing path', () => {
      const rawSecret = randomBytes(32);
      const secret = rawSecret.toString('hex');
      const marker = `CANARY${randomBytes(12).toString('hex')}`;
      const needles = new Set([
        secret,
        secret.slice(0, 16),
        secret.slice(-16),
        rawSecret.toString('base64').replace(/=+$/, ''),
        rawSecret.toString('base64url'),
        Buffer.from(secret, 'utf8').toString('hex'),
        Buffer.from(secret, 'utf8').toString('base64').replace(/=+$/, ''),
        Buffer.from(secret, 'utf8').toString('base64url'),
        marker,
      ]);
      const addSignature = (mac) => {
        const bytes = Buffer.from(mac, 'hex');
        needles.add(mac);
        needles.add(bytes.toString('base64').replace(/=+$/, ''));
        needles.add(bytes.toString('base64url'));
      };

      const eventWith = (fields) =>
        JSON.stringify({
          schema_version: 1,
          event_id: `evt_${marker}`,
          event_type: 'payment.updated',
          occurred_at: `at ${marker}`,
          data: { payment_id: `pay_${marker}`, status_version: '7', note: marker },
          ...fields,
        });
      const goodBody = eventWith({});
      const goodSig = sign(secret, TS, goodBody);
      addSignature(goodSig);
      const signed = (bodyText, timestamp = TS) => {
        const mac = sign(secret, timestamp, bodyText);
        addSignature(mac);
        return { body: utf8(bodyText), timestamp, signature: mac, secrets: secret, nowSecs: NOW, maxSkewSecs: SKEW };
      };
      const wrongSig = sign(secret, TS, `${goodBody} `);
      addSignature(wrongSig);
      const otherSig = sign(OTHER_SECRET, TS, goodBody);
      addSignature(otherSig);
      const good = signed(goodBody);

      const paths = [
        ['mismatch (hex)', () => api.verifySignature({ ...good, signature: wrongSig }), 'signature_mismatch'],
        ['mismatch (base64)', () => api.verifyWebhook({ ...good, signature: Buffer.from(wrongSig, 'hex').toString('base64') }), 'signature_mismatch'],
        ['mismatch (Stripe style, several candidates)', () => api.verifySignature({ ...good, signature: `t=${TS},v1=${wrongSig},v1=${otherSig}` }), 'signature_mismatch'],
        ['stale', () => api.verifySignature({ ...good, nowSecs: NOW + 301 }), 'timestamp_too_old'],
        ['future', () => api.verifyWebhook({ ...good, nowSecs: NOW - 301 }), 'timestamp_in_future'],
        ['malformed: 63 hex digits of the right MAC', () => api.verifySignature({ ...good, signature: goodSig.slice(0, 63) }), 'signature_malformed'],
        ['malformed: 65 hex digits', () => api.verifySignature({ ...good, signature: `${goodSig}0` }), 'signature_malformed'],
        ['malformed: unknown marker beside the right MAC', () => api.verifySignature({ ...good, signature: `v1=${goodSig},v0=${goodSig}` }), 'signature_malformed'],
        ['malformed: t= differs', () => api.verifySignature({ ...good, signature: `t=1,v1=${goodSig}` }), 'signature_malformed'],
        ['malformed: newline after the right MAC', () => api.verifySignature({ ...good, signature: `${goodSig}\n` }), 'signature_malformed'],
        ['malformed: 9 candidates', () => api.verifySignature({ ...good, signature: Array(9).fill(goodSig).join(' ') }), 'signature_malformed'],
        ['malformed timestamp beside the right MAC', () => api.verifySignature({ ...good, timestamp: '17e8' }), 'timestamp_malformed'],
        ['whitespace hint: leading space', () => api.verifySignature({ ...good, secrets: ` ${secret}` }), 'signature_mismatch'],
        ['whitespace hint: trailing newline', () => api.verifySignature({ ...good, secrets: `${secret}\n` }), 'signature_mismatch'],
        ['whitespace hint: in a rotation set', () => api.verifySignature({ ...good, secrets: [{ secret: `\t${secret} `, kind: 'active' }] }), 'signature_mismatch'],
        ['expired retiring secret', () => api.verifySignature({
          ...good,
          secrets: [{ secret: OTHER_SECRET, kind: 'active' }, { secret, kind: 'retiring', acceptUntilSecs: NOW - 1 }],
        }), 'signature_mismatch'],
        ['body_not_raw: the parsed event', () => api.verifyWebhook({ ...good, body: JSON.parse(goodBody) }), 'body_not_raw'],
        ['body_not_raw: an array', () => api.verifySignature({ ...good, body: [marker, secret] }), 'body_not_raw'],
        ['body_not_raw: a lone surrogate', () => api.verifySignature({ ...good, body: `${goodBody}\ud800` }), 'body_not_raw'],
        ['body_too_large', () => api.verifySignature({ ...good, maxBodyBytes: 10 }), 'body_too_large'],
        ['parseEvent: body_not_raw (the parsed event)', () => api.parseEvent(JSON.parse(goodBody)), 'body_not_raw'],
        ['requestFingerprint: body_not_raw', () => api.requestFingerprint({ secret, note: marker }), 'body_not_raw'],
        ['signWebhook: body_not_raw', () => api.signWebhook({ secret, timestamp: TS, body: JSON.parse(goodBody) }), 'body_not_raw'],
        ['Verifier: body_not_raw', () => {
          const verifier = new api.Verifier({ secrets: secret, maxSkewSecs: SKEW });
          try {
            return verifier.verifyWebhook({ ...callInput(good), body: [marker] });
          } finally {
            verifier.free();
          }
        }, 'body_not_raw'],
        ['event_not_json', () => api.verifyWebhook(signed(`not json ${marker}`)), 'event_not_json'],
        ['event_not_json: invalid UTF-8', () => {
          const bytes = Buffer.concat([Buffer.from(`{"a":"${marker}`), Buffer.from([0xff]), Buffer.from('"}')]);
          const mac = sign(secret, TS, bytes);
          addSignature(mac);
          return api.verifyWebhook({ ...good, body: bytes, signature: mac });
        }, 'event_not_json'],
        ['event_malformed', () => api.verifyWebhook(signed(eventWith({ data: marker }))), 'event_malformed'],
        ['event_duplicate_key', () => api.verifyWebhook(signed(goodBody.replace('{', `{"event_id":"${marker}",`))), 'event_duplicate_key'],
        ['event_type_unknown', () => api.verifyWebhook(signed(eventWith({ event_type: `payment.${marker}` }))), 'event_type_unknown'],
        ['status_version_invalid', () => api.verifyWebhook(signed(eventWith({ data: { payment_id: 'p', status_version: `0${marker}` } }))), 'status_version_invalid'],
        ['parseEvent: event_type_unknown', () => api.parseEvent(eventWith({ event_type: marker })), 'event_type_unknown'],
        ['parseEvent: event_not_json', () => api.parseEvent(`${marker} ${secret}`), 'event_not_json'],
        ['header_duplicated (signature)', () => api.readDeliveryHeaders(
          [['x-sig', goodSig], ['X-Sig', wrongSig], ['x-ts', TS]], { timestampHeader: 'x-ts', signatureHeader: 'x-sig' },
        ), 'header_duplicated'],
        ['header_duplicated (rawHeaders)', () => api.readDeliveryHeaders(
          ['x-ts', TS, 'x-sig', goodSig, 'X-SIG', goodSig], { timestampHeader: 'x-ts', signatureHeader: 'x-sig' },
        ), 'header_duplicated'],
        ['invalid_argument: two active entries', () => api.verifySignature({
          ...good, secrets: [{ secret, kind: 'active' }, { secret: `${secret}2`, kind: 'active' }],
        }), 'invalid_argument'],
        ['invalid_argument: 5 entries', () => api.verifySignature({
          ...good,
          secrets: [{ secret, kind: 'active' }, ...[1, 2, 3, 4].map((i) => ({ secret: `${secret}${i}`, kind: 'pending' }))],
        }), 'invalid_argument'],
        ['invalid_argument: unknown kind', () => api.verifySignature({ ...good, secrets: [{ secret, kind: secret }] }), 'invalid_argument'],
        ['invalid_argument: lone surrogate in the secret', () => api.verifySignature({ ...good, secrets: `${secret}\ud800` }), 'invalid_argument'],
        ['invalid_argument: secrets an object', () => api.verifySignature({ ...good, secrets: { secret, kind: 'active' } }), 'invalid_argument'],
        ['invalid_argument: retiring without a bound', () => api.verifySignature({
          ...good, secrets: [{ secret: OTHER_SECRET, kind: 'active' }, { secret, kind: 'retiring' }],
        }), 'invalid_argument'],
        ['invalid_argument: an unknown option', () => api.verifySignature({ ...good, maxSkew: 300 }), 'invalid_argument'],
        // A secret pasted as an option's name: never echoed.
        ['invalid_argument: a secret as an unknown option', () => api.verifySignature({ ...good, [secret]: 1 }), 'invalid_argument'],
        ['new Verifier: a secret as an unknown option', () => new api.Verifier({ secrets: OTHER_SECRET, maxSkewSecs: SKEW, [secret]: true }), 'invalid_argument'],
        ['new Verifier: two active entries', () => new api.Verifier({
          secrets: [{ secret, kind: 'active' }, { secret, kind: 'active' }], maxSkewSecs: SKEW,
        }), 'invalid_argument'],
        ['Verifier: mismatch', () => {
          const verifier = new api.Verifier({ secrets: ` ${secret}`, maxSkewSecs: SKEW });
          try {
            return verifier.verifyWebhook(callInput(good));
          } finally {
            verifier.free();
          }
        }, 'signature_mismatch'],
        ['Verifier: stale', () => {
          const verifier = new api.Verifier({ secrets: secret, maxSkewSecs: SKEW });
          try {
            return verifier.verifySignature({ ...callInput(good), nowSecs: NOW + 1000 });
          } finally {
            verifier.free();
          }
        }, 'timestamp_too_old'],
        ['Verifier: after free', () => {
          const verifier = new api.Verifier({ secrets: secret, maxSkewSecs: SKEW });
          verifier.free();
          return verifier.verifyWebhook(callInput(good));
        }, 'invalid_argument'],
        ['signWebhook: bad encoding', () => api.signWebhook({ secret, timestamp: TS, body: goodBody, encoding: secret }), 'invalid_argument'],
        ['signWebhook: lone surrogate in the secret', () => api.signWebhook({ secret: `${secret}\udc00`, timestamp: TS, body: goodBody }), 'invalid_argument'],
      ];

      const leaks = [];
      for (const [name, fn, code] of paths) {
        const error = expectCode(api, fn, code, name);
        const views = {
          message: error.message,
          stack: error.stack,
          'String(err)': String(error),
          'JSON.stringify(err)': JSON.stringify(error),
          'util.inspect(err)': inspect(error),
          'util.inspect(err, {showHidden})': inspect(error, { showHidden: true, depth: null }),
        };
        for (const [where, text] of Object.entries(views)) {
          assert.equal(typeof text, 'string', `${name}: ${where} is a string`);
          const lower = text.toLowerCase();
          for (const needle of needles) {
            if (lower.includes(needle.toLowerCase())) leaks.push(`${name}: ${where} contains ${needle === marker ? 'the body marker' : 'a secret or signature'}`);
          }
        }
      }
      assert.deepStrictEqual(leaks, []);
    });

    test('a secret passed where an option name goes never appears in the error either', () => {
      const secret = randomBytes(32).toString('hex');
      const needles = [secret, secret.slice(0, 16), secret.slice(16, 32), secret.slice(32, 48), secret.slice(-16)];
      const good = validInput();
      const paths = [
        ['a secret entry keyed by the secret ({ [secret]: "active" })', () => api.verifySignature({ ...good, secrets: [{ [secret]: 'active' }] })],
        ['new Verifier with an entry keyed by the secret', () => new api.Verifier({ secrets: [{ [secret]: 'active' }], maxSkewSecs: SKEW })],
        ['the secret as an option key of verifySignature', () => api.verifySignature({ ...good, [secret]: true })],
        ['the secret as an option key of new Verifier', () => new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW, [secret]: true })],
        ['the secret as an option key of signWebhook', () => api.signWebhook({ secret: SECRET, timestamp: TS, body: '', [secret]: true })],
      ];
      const leaks = [];
      for (const [name, fn] of paths) {
        const error = expectCode(api, fn, 'invalid_argument', name);
        for (const [where, text] of Object.entries({
          message: error.message,
          stack: error.stack,
          'String(err)': String(error),
          'JSON.stringify(err)': JSON.stringify(error),
          'util.inspect(err)': inspect(error, { showHidden: true, depth: null }),
        })) {
          if (needles.some((needle) => text.toLowerCase().includes(needle))) leaks.push(`${name}: ${where}`);
        }
      }
      assert.deepStrictEqual(leaks, []);
    });
  });
}

describe('inputs that change as they are read, and two copies of the package in one process', () => {
  // A JavaScript exception thrown inside a call into WebAssembly leaves that call's stack
  // space taken: a few thousand of them and the instance traps for good. These inputs once
  // threw there; each must now be refused (or taken) in JavaScript, however often.
  const ROUNDS = 20_000;
  const stillWorks = (api) => assert.equal(api.verifyWebhook(validInput()).event.eventId, JSON.parse(EVENT_TEXT).event_id);

  for (const [label, api] of entries) {
    test(`${label}: a secret entry whose getter answers otherwise at each read is read once`, () => {
      let n = 0;
      const entry = { kind: 'active' };
      Object.defineProperty(entry, 'secret', { enumerable: true, get: () => ((n += 1) % 4 ? SECRET : 42) });
      const codes = new Map();
      for (let i = 0; i < ROUNDS; i += 1) {
        try {
          new api.Verifier({ secrets: [entry], maxSkewSecs: SKEW }).free();
          codes.set('made', (codes.get('made') ?? 0) + 1);
        } catch (error) {
          assert.ok(error instanceof api.CryptoPayError, describeError(error));
          codes.set(error.code, (codes.get(error.code) ?? 0) + 1);
        }
      }
      assert.deepStrictEqual([...codes.keys()].sort(), ['invalid_argument', 'made']);
      stillWorks(api);
    });

    test(`${label}: a view copied with { ...view } (its responseText left out) is refused, and the message says why`, () => {
      const text = JSON.stringify({ payment_id: 'pay_1', status: 'paid', status_version: 3, source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' }, amount_received_raw: '100' });
      const view = Object.defineProperty(JSON.parse(text), 'responseText', { value: text, enumerable: false });
      assert.equal(api.defaultPolicy(view), 'fulfil');
      for (const call of [() => api.defaultPolicy({ ...view }), () => api.linkEvent({ ...view }, { paymentId: 'pay_1', statusVersion: '3' }, null)]) {
        assert.throws(call, (error) => error.code === 'invalid_argument' && /copied with \{ \.\.\.view \}, which leave responseText out/.test(error.message));
      }
    });

    test(`${label}: every option a getter could change between a check and its use is read once`, () => {
      // Each getter answers a valid value at its first read, then one that would trap the glue
      // (a number or null where a string crosses) or cross as another text (a lone surrogate).
      const flipping = (first, then) => {
        let n = 0;
        return () => ((n += 1) === 1 ? first : then);
      };
      const withGetter = (object, key, get) => Object.defineProperty(object, key, { enumerable: true, get });
      const view = JSON.stringify({ payment_id: 'pay_1', status: 'paid', status_version: 3, source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' }, amount_received_raw: '100' });
      const calls = [
        () => api.readDeliveryHeaders({ 'x-ts': '1', 'x-sig': 'a' }, withGetter({ signatureHeader: 'x-sig' }, 'timestampHeader', flipping('x-ts', 5))),
        () => api.signWebhook(withGetter({ timestamp: '1', body: 'x' }, 'secret', flipping('s', null))),
        () => api.signWebhook(withGetter({ timestamp: '1', body: 'x' }, 'secret', flipping('k', 'k\ud800'))),
        () => api.validateCheckoutOrigin('https://shop.example', withGetter({}, 'websiteOrigin', flipping('https://shop.example', 7))),
        () => api.linkEvent(withGetter({}, 'responseText', flipping(view, 7)), { paymentId: 'pay_1', statusVersion: '3' }, null),
        () => api.linkEvent(view, { paymentId: 'pay_1', statusVersion: '3' },
          withGetter({ sourceAmount: { kind: 'fiat', currency: 'USD', amount_raw: '100' } }, 'paymentId', flipping('pay_1', null))),
      ];
      for (const [i, call] of calls.entries()) {
        for (let round = 0; round < 200; round += 1) {
          try {
            call();
          } catch (error) {
            assert.ok(error instanceof api.CryptoPayError, `call ${i}: ${describeError(error)}`);
          }
        }
      }
      // Read once, the first value is the one used: signed with 'k', not 'k' and a U+FFFD.
      const once = { timestamp: '1', body: 'x' };
      withGetter(once, 'secret', flipping('k', 'k\ud800'));
      assert.equal(api.signWebhook(once), api.signWebhook({ secret: 'k', timestamp: '1', body: 'x' }));
      stillWorks(api);
    });

    test(`${label}: a body past the largest maxBodyBytes is body_too_large where no limit is given, never a trap`, () => {
      const over = new Uint8Array(64 * 1048576 + 1).fill(0x61);
      for (const call of [() => api.signWebhook({ secret: 's', timestamp: '1', body: over }), () => api.parseEvent(over), () => api.requestFingerprint(over)]) {
        assert.equal(thrown(call)?.code, 'body_too_large');
      }
      stillWorks(api);
    });

    test(`${label}: a getter of the input that frees its Verifier: invalid_argument, never the freed state`, () => {
      for (let i = 0; i < ROUNDS; i += 1) {
        const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW });
        const input = callInput(validInput());
        const { timestamp } = input;
        Object.defineProperty(input, 'timestamp', { enumerable: true, get: () => { verifier.free(); return timestamp; } });
        const error = thrown(() => verifier.verifyWebhook(input));
        assert.equal(error.code, 'invalid_argument');
        assert.match(error.message, /this Verifier was freed/);
      }
      stillWorks(api);
    });

    test(`${label}: a getter of a header value that detaches the body's buffer: body_not_raw, never a TypeError`, () => {
      const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: SKEW });
      try {
        for (const [name, call, shape] of [['one-shot', (input) => api.verifyWebhook(input), (input) => input],
          ['Verifier', (input) => verifier.verifyWebhook(input), callInput]]) {
          for (const field of ['timestamp', 'signature']) {
            const input = shape(validInput());
            const { body } = input; // a view over a buffer of its own
            const value = input[field];
            Object.defineProperty(input, field, { enumerable: true, get: () => { structuredClone(body.buffer, { transfer: [body.buffer] }); return value; } });
            const error = thrown(() => call(input));
            assert.ok(error instanceof api.CryptoPayError, `${name}, ${field}: ${error}`);
            assert.equal(error.code, 'body_not_raw', `${name}, ${field}`);
            assert.match(error.message, /detached/, `${name}, ${field}`);
          }
        }
      } finally {
        verifier.free();
      }
      stillWorks(api);
    });

    test(`${label}: a getter making one-shot calls with other secrets: the outer call's set stays keyed`, () => {
      for (let i = 0; i < 2_000; i += 1) {
        const input = validInput();
        const { timestamp } = input;
        Object.defineProperty(input, 'timestamp', {
          enumerable: true,
          get: () => {
            for (let k = 0; k < 5; k += 1) {
              assert.equal(api.verifySignature(validInput({ signWith: `whsec_inner_${k}`, secrets: `whsec_inner_${k}` })).matchedSecret, 'active');
            }
            return timestamp;
          },
        });
        assert.equal(api.verifyWebhook(input).matchedSecret, 'active');
      }
      stillWorks(api);
    });

    test(`${label}: an object that only claims to be an ArrayBuffer (Symbol.toStringTag) is body_not_raw`, () => {
      for (const claimed of ['ArrayBuffer', 'SharedArrayBuffer']) {
        const body = { [Symbol.toStringTag]: claimed };
        assert.equal(thrown(() => api.verifySignature({ ...validInput({ bodyText: '' }), body })).code, 'body_not_raw', claimed);
      }
    });
  }

  test('instanceof CryptoPayError holds for an error of the other copy (ESM and CommonJS bundles)', () => {
    const fromCjs = thrown(() => cjs.verifySignature(validInput({ signWith: OTHER_SECRET })));
    const fromEsm = thrown(() => esm.verifySignature(validInput({ signWith: OTHER_SECRET })));
    assert.notEqual(esm.CryptoPayError, cjs.CryptoPayError, 'two copies, each its own instance');
    for (const error of [fromCjs, fromEsm]) {
      assert.ok(error instanceof esm.CryptoPayError && error instanceof cjs.CryptoPayError && error instanceof Error);
    }
    for (const other of [new Error('x'), { code: 'signature_mismatch' }, null, 'CryptoPayError']) {
      assert.ok(!(other instanceof esm.CryptoPayError) && !(other instanceof cjs.CryptoPayError));
    }
  });
});

/**
 * The shipped module's binding on an instance of its own, under no JavaScript layer (a copy of
 * the glue, so that the package's own instance is left alone): for what only the binding checks.
 */
async function rawGlue(tag) {
  const dist = join(packageDir, 'dist');
  const glue = await import(`${pathToFileURL(join(dist, 'cryptopay_verify_bg.js')).href}?${tag}`);
  const instance = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(join(dist, 'cryptopay_verify_bg.wasm'))),
    { './cryptopay_verify_bg.js': glue });
  glue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return glue;
}

describe('the binding under the JavaScript layer', () => {
  test('parallel lists of two lengths, which the layer never passes, are refused, not paired short', async () => {
    const glue = await rawGlue('lists-test');
    const refused = (what) => (error) => error.code === 'invalid_argument' && error.message.includes(what);
    const names = ['x-timestamp', 'x-signature'];
    assert.deepStrictEqual(glue.rawReadDeliveryHeaders(names, ['1700000000', 'v1=ab'], ...names), ['1700000000', 'v1=ab']);
    for (const values of [['1700000000'], ['1700000000', 'v1=ab', 'extra'], []]) {
      assert.throws(() => glue.rawReadDeliveryHeaders(names, values, ...names), refused('lists of one length'), `${values.length} values`);
    }
    const kind = glue.secretKinds().split(',')[0];
    const keyed = new glue.RawVerifier(['whsec_one'], [kind], [-1], 300, 1024, false);
    keyed.free();
    for (const [secrets, kinds, until] of [
      [['whsec_one', 'whsec_two'], [kind], [-1, -1]],
      [['whsec_one'], [kind, kind], [-1]],
      [['whsec_one'], [kind], []],
    ]) {
      assert.throws(() => new glue.RawVerifier(secrets, kinds, until, 300, 1024, false),
        refused('lists of one length'), `${secrets.length} secrets, ${kinds.length} kinds, ${until.length} bounds`);
    }
  });
});

describe('the facts the build wrote from the core', () => {
  test('dist/api/core-facts.mjs holds what the shipped module answers', async () => {
    const glue = await rawGlue('facts-test');
    const facts = await import(pathToFileURL(join(packageDir, 'dist', 'api', 'core-facts.mjs')).href);
    assert.deepStrictEqual(facts.CONSTANTS, [...glue.constants()]);
    assert.equal(facts.SECRET_KINDS, glue.secretKinds());
    assert.equal(facts.ERROR_CODES, glue.rawErrorCodes());
    assert.equal(facts.EVENT_ERROR_CODES, glue.rawEventErrorCodes());
    assert.deepStrictEqual(esm.errorCodes(), facts.ERROR_CODES.split(","));
  });
});

test('loaded where there is no TextDecoder (Jest\'s jsdom environment): an error naming the fix, from both Node entries', async () => {
  const { spawnSync } = await import('node:child_process');
  const entries = [['-e', `globalThis.TextDecoder = undefined; require(${JSON.stringify(join(packageDir, 'dist', 'entry', 'node.cjs'))})`],
    ['--input-type=module', '-e', `globalThis.TextDecoder = undefined; await import(${JSON.stringify(pathToFileURL(join(packageDir, 'dist', 'entry', 'node.mjs')).href)})`]];
  for (const args of entries) {
    const run = spawnSync(process.execPath, args, { encoding: 'utf8' });
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /cryptopay-verify: TextDecoder is not defined here, and the package needs it: .*Jest's jsdom.*\/\*\* @jest-environment node \*\//);
  }
});
