// The hostile-input catalogue (hostile_*.json) and a sweep of hostile values through every
// entry point of the INSTALLED package, once through its ESM entry and once through its CJS
// entry (tests/js/package-under-test.mjs; CONSUMER_DIR, default target/consumer).
//
//   node --test tests/hostile/*.test.mjs    (after `make consumer`)
//
// For every catalogue row: the call's outcome is the expected result, or a CryptoPayError of
// this entry with the expected `code`; the one-shot verify rows are replayed through a Verifier
// built from the same secrets and options (same answer when it constructs); after the row, no
// wasm instance was replaced and the same instance still verifies a good delivery (one-shot and
// through a Verifier keyed before the first row). The sweep passes ~50 hostile values into every
// argument slot (and the receiver) of every export; only a normal return or a CryptoPayError
// with a known code may come out. The last test of each entry proves that no
// WebAssembly.RuntimeError, TypeError, RangeError (or any other foreign exception) escaped.
//
// Wasm instances are observed by wrapping WebAssembly.Instance (and WebAssembly.instantiate)
// before the package is loaded: the glue keeps its instance private.

import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHmac } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { decode, describe as show } from './decode.mjs';

// ---------------------------------------------------------------------------------------
// Observe every wasm instance the package creates.

const instances = [];
const NativeInstance = WebAssembly.Instance;
WebAssembly.Instance = new Proxy(NativeInstance, {
  construct(target, args, newTarget) {
    const instance = Reflect.construct(target, args, newTarget);
    instances.push(instance);
    return instance;
  },
});
const nativeInstantiate = WebAssembly.instantiate;
WebAssembly.instantiate = async function instantiate(...args) {
  const result = await nativeInstantiate.apply(this, args);
  instances.push(result instanceof NativeInstance ? result : result.instance);
  return result;
};

const { entries, repoRoot } = await import('../js/package-under-test.mjs');
const loadedInstances = [...instances];
let loadedBytes = 0;
const wasmBytes = () => instances.reduce((sum, i) => sum + (i.exports.memory?.buffer.byteLength ?? 0), 0);
loadedBytes = wasmBytes();

// ---------------------------------------------------------------------------------------
// The catalogue: tests/vectors/hostile*.json.

const here = dirname(fileURLToPath(import.meta.url));
const CATALOGUE_DIRS = [join(repoRoot, 'tests', 'vectors')];

function catalogue() {
  const files = new Map();
  for (const dir of CATALOGUE_DIRS) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).filter((n) => /^hostile.*\.json$/.test(n)).sort()) {
      if (!files.has(name)) files.set(name, JSON.parse(readFileSync(join(dir, name), 'utf8')));
    }
  }
  return [...files];
}

const files = catalogue();
const totalRows = files.reduce((n, [, file]) => n + file.tests.length, 0);

// ---------------------------------------------------------------------------------------
// The good delivery checked after every case (HMAC by node:crypto).

const GOOD_SECRET = 'whsec_good_delivery_check';
const TS = '1700000000';
const NOW = 1700000000;
const GOOD_BODY = Buffer.from(
  '{"schema_version":1,"event_id":"evt_good","event_type":"payment.updated",' +
    '"occurred_at":"2023-11-14T22:13:20Z","data":{"payment_id":"pay_good","status_version":3}}',
);
const GOOD_SIG = createHmac('sha256', GOOD_SECRET).update(`${TS}.`).update(GOOD_BODY).digest('hex');
const goodCall = () => ({ body: new Uint8Array(GOOD_BODY), timestamp: TS, signature: GOOD_SIG, nowSecs: NOW });
const goodInput = () => ({ ...goodCall(), secrets: GOOD_SECRET, maxSkewSecs: 300 });

const VERIFY_KEYS = ['body', 'timestamp', 'signature', 'secrets', 'nowSecs', 'maxSkewSecs', 'maxBodyBytes'];
const EVENT_FIELDS = ['schemaVersion', 'eventId', 'eventType', 'occurredAt', 'paymentId', 'statusVersion'];

const errorText = (error) =>
  error !== null && typeof error === 'object'
    ? `${error.constructor?.name ?? 'Object'}${error.code ? ` code=${error.code}` : ''}: ${String(error.message).slice(0, 160)}`
    : `a thrown ${typeof error} ${show(error)}`;

/** Runs fn (awaiting a promise); { ok, value } or { ok: false, error }. */
async function attempt(fn) {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

// ---------------------------------------------------------------------------------------

function makeContext(label, api) {
  const context = {
    label,
    api,
    codes: new Set(api.errorCodes()),
    foreign: [], // every exception that was not a CryptoPayError of this entry
    rowsRun: 0,
    parityRuns: 0, // one-shot verify rows replayed through a Verifier
    growth: [], // [bytes, row] for rows during which the wasm memory grew
    sweepDone: false,
    keyed: new api.Verifier({ secrets: GOOD_SECRET, maxSkewSecs: 300 }),
  };
  return context;
}

/** Records anything thrown that is not this entry's CryptoPayError with a known code. */
function noteThrown(context, where, error) {
  const { api } = context;
  if (error instanceof api.CryptoPayError && context.codes.has(error.code)) return;
  context.foreign.push({
    where,
    kind: error instanceof WebAssembly.RuntimeError ? 'WebAssembly.RuntimeError' : error?.constructor?.name ?? typeof error,
    text: errorText(error),
  });
}

/** After a case: no instance replaced; the same instance verifies a good delivery. */
function assertStillHealthy(context, where) {
  assert.equal(instances.length, loadedInstances.length, `${where}: a wasm instance was created (re-instantiated?)`);
  instances.forEach((instance, i) => assert.equal(instance, loadedInstances[i], `${where}: wasm instance ${i} was replaced`));
  const { api, keyed } = context;
  let verified;
  try {
    verified = api.verifyWebhook(goodInput());
  } catch (error) {
    assert.fail(`${where}: the instance no longer verifies a good delivery: ${errorText(error)}`);
  }
  assert.equal(verified.matchedSecret, 'active', `${where}: good delivery`);
  assert.equal(verified.event.eventId, 'evt_good', `${where}: good delivery's event`);
  try {
    assert.equal(keyed.verifySignature(goodCall()).matchedSecret, 'active');
  } catch (error) {
    assert.fail(`${where}: a Verifier keyed before the case no longer verifies: ${errorText(error)}`);
  }
}

const RECEIVERS = {
  verifier: (v) => v,
  freed: (v) => {
    v.free();
    return v;
  },
  unbound: () => undefined,
  plainObject: () => ({}),
  prototype: (v, api) => api.Verifier.prototype,
};

/** Calls the entry point a row names with decoded arguments. */
async function invoke(context, fn, row, args) {
  const { api } = context;
  if (fn === 'Verifier') {
    const made = new api.Verifier(...args);
    made.free();
    return made;
  }
  if (fn.startsWith('Verifier#')) {
    const method = api.Verifier.prototype[fn.slice('Verifier#'.length)];
    assert.equal(typeof method, 'function', `Verifier has no method ${fn}`);
    // Built outside the measured call: a verifier that cannot be built is a broken row.
    const verifier = new api.Verifier(decode(row.verifier));
    try {
      const receiver = RECEIVERS[row.receiver ?? 'verifier'](verifier, api);
      return await attempt(() => method.apply(receiver, args));
    } finally {
      verifier.free();
    }
  }
  const f = api[fn];
  assert.equal(typeof f, 'function', `the package exports no function ${fn}`);
  return f(...args);
}

function compareOk(fn, expected, value, where) {
  for (const [key, want] of Object.entries(expected)) {
    if (key === 'ok') continue;
    if (key === 'result') {
      const wanted = decode(want);
      assert.ok(isDeepStrictEqual(value, wanted), `${where}: result ${show(value)}, expected ${show(wanted)}`);
    } else if (key === 'resultIncludes') {
      assert.ok(Array.isArray(value), `${where}: expected an array, got ${show(value)}`);
      for (const item of want) assert.ok(value.includes(item), `${where}: result lacks ${item}`);
    } else if (key === 'event') {
      const event = fn === 'parseEvent' ? value : value?.event;
      assert.ok(event !== null && typeof event === 'object', `${where}: no event in the result`);
      for (const [field, fieldValue] of Object.entries(want)) {
        assert.ok(EVENT_FIELDS.includes(field), `${where}: the row names an unknown event field ${field}`);
        assert.deepStrictEqual(event[field], fieldValue, `${where}: event.${field}`);
      }
    } else {
      assert.deepStrictEqual(value?.[key], want, `${where}: ${key}`);
    }
  }
}

/** Strings passed as a secret or a signature (8 characters or more) in the arguments (depth <= 6). */
function sensitiveStrings(value, key = '', depth = 0, out = []) {
  if (typeof value === 'string') {
    if (/^(secrets?|signature|x-s)$/.test(key) && value.length >= 8) out.push(value);
  } else if (value !== null && typeof value === 'object' && depth < 6 && !ArrayBuffer.isView(value)) {
    if (Array.isArray(value)) {
      for (const item of value.slice(0, 16)) sensitiveStrings(item, key, depth + 1, out);
    } else if (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) {
      for (const k of Object.keys(value)) sensitiveStrings(value[k], k, depth + 1, out);
    }
  }
  return out;
}

function checkOutcome(context, fn, expected, outcome, where, args = []) {
  const { api } = context;
  if (!outcome.ok) noteThrown(context, where, outcome.error);
  if (!outcome.ok && outcome.error instanceof api.CryptoPayError) {
    // Messages never hold a secret or a signature (DESIGN.md).
    const text = `${outcome.error.message}\n${outcome.error.stack}`;
    for (const s of sensitiveStrings(args)) {
      assert.ok(!text.includes(s), `${where}: the error message or stack holds a secret or signature value`);
    }
  }
  if ('error' in expected) {
    assert.ok(!outcome.ok, `${where}: expected ${expected.error}, got a result ${show(outcome.value)}`);
    assert.ok(
      outcome.error instanceof api.CryptoPayError,
      `${where}: expected CryptoPayError ${expected.error}, got ${errorText(outcome.error)}`,
    );
    assert.ok(outcome.error instanceof Error, `${where}: a CryptoPayError is an Error`);
    assert.equal(outcome.error.code, expected.error, `${where}: expected ${expected.error}, got ${errorText(outcome.error)}`);
    return;
  }
  assert.equal(expected.ok, true, `${where}: a row expects ok or an error`);
  if (!outcome.ok) assert.fail(`${where}: expected a result, got ${errorText(outcome.error)}`);
  compareOk(fn, expected, outcome.value, where);
}

const pick = (object, keys) => {
  const out = {};
  for (const key of keys) if (key in object) out[key] = object[key];
  return out;
};

/** The one-shot verify rows through a Verifier built from the same secrets and options. */
async function verifierParity(context, fn, row) {
  const { api } = context;
  const [input] = decode(row.args);
  const proto = input !== null && typeof input === 'object' ? Object.getPrototypeOf(input) : undefined;
  if ((proto !== Object.prototype && proto !== null) || !Object.keys(input).every((k) => VERIFY_KEYS.includes(k))) return;
  let verifier;
  try {
    verifier = new api.Verifier(pick(input, ['secrets', 'maxSkewSecs', 'maxBodyBytes']));
  } catch (error) {
    noteThrown(context, `${row.where} (new Verifier for parity)`, error);
    return; // a set or an option the constructor refuses: the one-shot row covers it
  }
  try {
    const outcome = await attempt(() => verifier[fn](pick(input, ['body', 'timestamp', 'signature', 'nowSecs'])));
    context.parityRuns += 1;
    checkOutcome(context, fn, row.expected, outcome, `${row.where} through Verifier.${fn}`);
  } finally {
    verifier.free();
  }
}

async function runRow(context, file, row) {
  const fn = row.function ?? file.function;
  const where = `${context.label} ${row.where}`;
  const args = decode(row.args ?? []);
  const before = wasmBytes();
  let outcome;
  if (fn.startsWith('Verifier#')) {
    outcome = await invoke(context, fn, row, args);
  } else {
    outcome = await attempt(() => invoke(context, fn, row, args));
  }
  const grown = wasmBytes() - before;
  context.rowsRun += 1;
  if (grown > 0) context.growth.push([grown, where]);
  checkOutcome(context, fn, row.expected, outcome, where, args);
  if (row.wasmGrowthBelow !== undefined) {
    assert.ok(grown < row.wasmGrowthBelow, `${where}: wasm memory grew by ${grown} bytes (bound ${row.wasmGrowthBelow})`);
  }
  if (fn === 'verifySignature' || fn === 'verifyWebhook') await verifierParity(context, fn, { ...row, where });
  assertStillHealthy(context, where);
}

// ---------------------------------------------------------------------------------------
// The sweep: hostile values in every argument slot of every export.

const MIB = 1024 * 1024;
let cachedDeepArray;
let cachedDeepObject;
const deepArray = () => {
  if (cachedDeepArray === undefined) cachedDeepArray = decode({ $deepArray: [100000, '1'] });
  return cachedDeepArray;
};
const deepObject = () => {
  if (cachedDeepObject === undefined) cachedDeepObject = decode({ $deepObject: [100000, 'a', 1] });
  return cachedDeepObject;
};
const MEGA = 'x'.repeat(MIB);

const POOL = [
  ['undefined', () => undefined], ['null', () => null], ['true', () => true], ['0', () => 0], ['-0', () => -0],
  ['1.5', () => 1.5], ['NaN', () => NaN], ['Infinity', () => Infinity], ['-Infinity', () => -Infinity],
  ['2^53', () => 2 ** 53], ['-1', () => -1], ['1e300', () => 1e300], ['BigInt 10n', () => 10n],
  ['empty string', () => ''], ['spaces', () => '   '], ['lone surrogate', () => '\uD800'],
  ['lone surrogate pair reversed', () => '\uDC00\uD800'], ['1 MiB string', () => MEGA],
  ['full-width digits', () => '\uFF11\uFF12\uFF13'], ['Arabic-Indic digits', () => '\u0661\u0662'],
  ['NUL', () => '\u0000'], ['Symbol', () => Symbol('hostile')], ['{}', () => ({})], ['[]', () => []],
  ['[[]]', () => [[]]], ['null-prototype object', () => Object.create(null)], ['Date', () => new Date(0)],
  ['Map', () => new Map([['a', 'b']])], ['Set', () => new Set([1])], ['RegExp', () => /x/g],
  ['function', () => function hostile() {}], ['class', () => class Hostile {}],
  ['Uint8Array', () => new Uint8Array([1, 2])], ['ArrayBuffer', () => new ArrayBuffer(3)],
  ['DataView', () => new DataView(new ArrayBuffer(2))], ['Float64Array', () => new Float64Array(1)],
  ['SharedArrayBuffer', () => new SharedArrayBuffer(2)],
  ['detached ArrayBuffer', () => decode({ $detached: 'ArrayBuffer' })],
  ['detached Uint8Array', () => decode({ $detached: 'Uint8Array' })],
  ['detached DataView', () => decode({ $detached: 'DataView' })],
  ['out-of-bounds Uint8Array', () => decode({ $outOfBounds: 'Uint8Array' })],
  ['out-of-bounds DataView', () => decode({ $outOfBounds: 'DataView' })],
  ['Proxy of {}', () => new Proxy({}, {})], ['cyclic object', () => decode({ $cyclic: 'object' })],
  ['cyclic array', () => decode({ $cyclic: 'array' })], ['100000-level array', deepArray],
  ['100000-level object', deepObject], ['String object', () => new String('1')],
  ['Number object', () => new Number(1)], ['Promise', () => Promise.resolve(1)], ['Headers', () => new Headers()],
  ['Error', () => new Error('x')], ['array of 100000 strings', () => new Array(100000).fill('a')],
  ['object with __proto__ own key', () => JSON.parse('{"__proto__":{"x":1}}')],
];

const SWEEP_SECRET = 'whsec_sweep';
const SWEEP_BODY = Buffer.from(
  '{"schema_version":1,"event_id":"evt_s","event_type":"payment.updated","occurred_at":"t",' +
    '"data":{"payment_id":"pay_s","status_version":1}}',
);
const SWEEP_SIG = createHmac('sha256', SWEEP_SECRET).update(`${TS}.`).update(SWEEP_BODY).digest('hex');
const primary = () => ({ kind: 'fiat', ref: 'USD', decimals: 2 });
const sourceAmount = () => ({ kind: 'fiat', currency: 'USD', amount_raw: '100' });
const fullInput = () => ({
  body: new Uint8Array(SWEEP_BODY), timestamp: TS, signature: SWEEP_SIG,
  secrets: [{ secret: SWEEP_SECRET, kind: 'active' }, { secret: 'old', kind: 'retiring', acceptUntilSecs: NOW }],
  nowSecs: NOW, maxSkewSecs: 300, maxBodyBytes: MIB,
});
const callInput = () => ({ body: new Uint8Array(SWEEP_BODY), timestamp: TS, signature: SWEEP_SIG, nowSecs: NOW });
const verifySlots = [
  [0], [0, 'body'], [0, 'timestamp'], [0, 'signature'], [0, 'secrets'], [0, 'secrets', 0], [0, 'secrets', 0, 'secret'],
  [0, 'secrets', 0, 'kind'], [0, 'secrets', 1, 'acceptUntilSecs'], [0, 'nowSecs'], [0, 'maxSkewSecs'], [0, 'maxBodyBytes'],
];
const methodSlots = ['this', [0], [0, 'body'], [0, 'timestamp'], [0, 'signature'], [0, 'nowSecs']];

/** Every export, its good arguments and the slots the sweep fills. */
// A payment's authoritative view, as GET /v1/payments/{payment_id} answers it.
const SWEEP_VIEW = JSON.stringify({ payment_id: 'pay_s', order_ref: 'o-1', source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' },
  status: 'paid', status_version: 3, amount_received_raw: '100' });

const ENTRY_POINTS = [
  { name: 'verifySignature', args: () => [fullInput()], slots: verifySlots },
  { name: 'verifyWebhook', args: () => [fullInput()], slots: verifySlots },
  {
    name: 'Verifier', construct: true,
    args: () => [{ secrets: [{ secret: SWEEP_SECRET, kind: 'active' }], maxSkewSecs: 300, maxBodyBytes: MIB }],
    slots: [[0], [0, 'secrets'], [0, 'secrets', 0], [0, 'secrets', 0, 'secret'], [0, 'secrets', 0, 'kind'], [0, 'maxSkewSecs'], [0, 'maxBodyBytes']],
  },
  { name: 'Verifier#verifySignature', args: () => [callInput()], slots: methodSlots },
  { name: 'Verifier#verifyWebhook', args: () => [callInput()], slots: methodSlots },
  { name: 'Verifier#free', args: () => [], slots: ['this', [0]] },
  {
    name: 'readDeliveryHeaders',
    args: () => [{ 'x-t': TS, 'x-s': SWEEP_SIG }, { timestampHeader: 'x-t', signatureHeader: 'x-s' }],
    slots: [[0], [0, 'x-t'], [0, 'x-s'], [1], [1, 'timestampHeader'], [1, 'signatureHeader']],
  },
  {
    name: 'signWebhook', args: () => [{ secret: SWEEP_SECRET, timestamp: TS, body: new Uint8Array(SWEEP_BODY), encoding: 'hex' }],
    slots: [[0], [0, 'secret'], [0, 'timestamp'], [0, 'body'], [0, 'encoding']],
  },
  { name: 'parseEvent', args: () => [new Uint8Array(SWEEP_BODY)], slots: [[0]] },
  { name: 'requestFingerprint', args: () => [new Uint8Array(SWEEP_BODY)], slots: [[0]] },
  {
    name: 'decideEvent',
    args: () => [{ eventId: 'evt_s', paymentId: 'pay_s', statusVersion: '2' }, { eventSeen: false, statusVersion: '1' }],
    slots: [[0], [0, 'eventId'], [0, 'paymentId'], [0, 'statusVersion'], [1], [1, 'eventSeen'], [1, 'statusVersion']],
  },
  { name: 'compareStatusVersions', args: () => ['1', '2'], slots: [[0], [1]] },
  { name: 'validateAmountRaw', args: () => ['100'], slots: [[0]] },
  { name: 'isValidAmountRaw', args: () => ['100'], slots: [[0]] },
  { name: 'toAmountRaw', args: () => ['1.5', 2], slots: [[0], [1]] },
  { name: 'fromAmountRaw', args: () => ['150', 2], slots: [[0], [1]] },
  {
    name: 'buildSourceAmount', args: () => [{ primarySource: primary(), amount: '1.00' }],
    slots: [[0], [0, 'primarySource'], [0, 'primarySource', 'kind'], [0, 'primarySource', 'ref'], [0, 'primarySource', 'decimals'], [0, 'amount']],
  },
  {
    name: 'validateSourceAmount', args: () => [sourceAmount(), primary()],
    slots: [[0], [0, 'kind'], [0, 'currency'], [0, 'amount_raw'], [1], [1, 'decimals']],
  },
  {
    name: 'validateCreatePayment',
    args: () => [
      { source_amount: sourceAmount(), order_ref: 'o-1', checkout_origin: 'https://shop.example.com' },
      { primarySource: primary(), websiteOrigin: 'https://shop.example.com' },
    ],
    slots: [[0], [0, 'source_amount'], [0, 'order_ref'], [0, 'checkout_origin'], [1], [1, 'primarySource'], [1, 'websiteOrigin']],
  },
  {
    name: 'validateCheckoutOrigin', args: () => ['https://shop.example.com', { websiteOrigin: 'https://shop.example.com' }],
    slots: [[0], [1], [1, 'websiteOrigin']],
  },
  { name: 'validateWebhookUrl', args: () => ['https://hooks.example.com/wh'], slots: [[0]] },
  { name: 'hostedCheckoutUrl', args: () => ['https://pay.example.com', 'pay_1'], slots: [[0], [1]] },
  { name: 'validateIdempotencyKey', args: () => ['key-1'], slots: [[0]] },
  { name: 'classifyDeliveryResponse', args: () => [200], slots: [[0]] },
  { name: 'defaultPolicy', args: () => [SWEEP_VIEW], slots: [[0]] },
  { name: 'parsePaymentView', args: () => [SWEEP_VIEW], slots: [[0]] },
  {
    name: 'linkEvent',
    args: () => [{ paymentId: 'pay_s', orderRef: 'o-1', sourceAmount: sourceAmount(), integration: 'shop' }, SWEEP_VIEW, { integration: 'shop' }],
    slots: [[0], [0, 'paymentId'], [0, 'orderRef'], [0, 'sourceAmount'], [0, 'integration'], [1], [2], [2, 'integration']],
  },
  { name: 'errorCodes', args: () => [], slots: [[0]] },
  { name: 'init', args: () => [], slots: [[0]] },
];

function setPath(args, path, value) {
  let target = args;
  for (const key of path.slice(0, -1)) target = target[key];
  target[path[path.length - 1]] = value;
}

async function sweepCall(context, entry, slot, make) {
  const { api } = context;
  const args = entry.args();
  let receiver;
  let verifier;
  if (entry.name.startsWith('Verifier#')) {
    verifier = new api.Verifier({ secrets: SWEEP_SECRET, maxSkewSecs: 300 });
    receiver = verifier;
  }
  if (slot === 'this') receiver = make();
  else setPath(args, slot, make());
  try {
    return await attempt(() => {
      if (entry.construct) {
        new api.Verifier(...args).free();
        return undefined;
      }
      if (entry.name.startsWith('Verifier#')) {
        return api.Verifier.prototype[entry.name.slice('Verifier#'.length)].apply(receiver, args);
      }
      return api[entry.name](...args);
    });
  } finally {
    verifier?.free();
  }
}

async function sweep(context) {
  let calls = 0;
  const failures = new Map(); // "entry slot: Error: message" -> the hostile values that caused it
  for (const entry of ENTRY_POINTS) {
    for (const slot of entry.slots) {
      for (const [label, make] of POOL) {
        const where = `sweep ${entry.name} ${slot === 'this' ? 'this' : JSON.stringify(slot)}`;
        const outcome = await sweepCall(context, entry, slot, make);
        calls += 1;
        if (!outcome.ok) {
          const before = context.foreign.length;
          noteThrown(context, `${where} = ${label}`, outcome.error);
          if (context.foreign.length > before) {
            const key = `${where}: ${errorText(outcome.error).replace(/class \w+$/, 'class Verifier')}`;
            failures.set(key, [...(failures.get(key) ?? []), label]);
          }
        }
        try {
          assertStillHealthy(context, `${where} = ${label}`);
        } catch (error) {
          return { calls, failures, broken: error.message };
        }
      }
    }
  }
  return { calls, failures, broken: null };
}

// ---------------------------------------------------------------------------------------

test('the catalogue is there, well-formed, and large enough', () => {
  assert.ok(files.length >= 1, `no hostile*.json in ${CATALOGUE_DIRS.join(' or ')}`);
  const functions = new Set();
  for (const [name, file] of files) {
    assert.equal(file.schema, 'cryptopay-verify-vectors/1', name);
    assert.equal(typeof file.notes, 'string', `${name}: notes`);
    const ids = file.tests.map((row) => row.id);
    assert.equal(new Set(ids).size, ids.length, `${name}: ids are unique`);
    for (const row of file.tests) {
      const fn = row.function ?? file.function;
      functions.add(fn.replace(/^Verifier#.*/, 'Verifier'));
      assert.equal(typeof row.comment, 'string', `${name} #${row.id}: comment`);
      assert.ok(Array.isArray(row.flags), `${name} #${row.id}: flags`);
      assert.ok(Array.isArray(row.args), `${name} #${row.id}: args`);
      assert.ok(row.expected && (row.expected.ok === true || typeof row.expected.error === 'string'), `${name} #${row.id}: expected`);
    }
  }
  assert.ok(totalRows >= 150, `only ${totalRows} cases`);
  const [, api] = entries[0];
  const exported = Object.keys(api).filter((k) => typeof api[k] === 'function' && k !== 'CryptoPayError');
  const missing = exported.filter((name) => !functions.has(name));
  assert.deepEqual(missing, [], `exports without a hostile case: ${missing.join(', ')}`);
  const swept = new Set(ENTRY_POINTS.map((e) => e.name.replace(/#.*/, '')));
  const unswept = exported.filter((name) => !swept.has(name));
  assert.deepEqual(unswept, [], `exports the sweep misses: ${unswept.join(', ')}`);
});

for (const [label, api] of entries) {
  describe(label, () => {
    const context = makeContext(label, api);
    after(() => context.keyed.free());

    for (const [name, file] of files) {
      describe(name, () => {
        for (const row of file.tests) {
          const fn = row.function ?? file.function;
          const where = `${name} #${row.id} ${fn}: ${row.comment}`;
          test(`#${row.id} ${fn}: ${row.comment}`, () => runRow(context, file, { ...row, where }));
        }
      });
    }

    test('sweep: hostile values in every argument slot of every export', async (t) => {
      const started = Date.now();
      const { calls, failures, broken } = await sweep(context);
      context.sweepDone = true;
      t.diagnostic(`${calls} sweep calls in ${Date.now() - started} ms`);
      assert.equal(broken, null, `the instance broke during the sweep: ${broken}`);
      const count = [...failures.values()].reduce((n, values) => n + values.length, 0);
      const lines = [...failures].map(([key, values]) => `${key}\n      for ${values.length} values: ${values.join(', ')}`);
      assert.equal(count, 0, `${count} of ${calls} sweep calls let a foreign exception out:\n  ${lines.join('\n  ')}`);
      assert.ok(calls > 2000, `the sweep made only ${calls} calls`);
    });

    test('no WebAssembly.RuntimeError, TypeError, RangeError or other foreign exception escaped', (t) => {
      const mib = (n) => (n / 1048576).toFixed(2);
      t.diagnostic(`${context.rowsRun} catalogue rows run, ${context.parityRuns} verify rows replayed through a Verifier`);
      t.diagnostic(`wasm memory (all instances): ${mib(loadedBytes)} MiB after loading, ${mib(wasmBytes())} MiB now`);
      for (const [bytes, where] of context.growth.sort((a, b) => b[0] - a[0]).slice(0, 5)) {
        t.diagnostic(`  grew ${mib(bytes)} MiB during ${where}`);
      }
      assert.equal(context.rowsRun, totalRows, 'run the whole file (without a name filter) to prove this');
      assert.ok(context.sweepDone, 'the sweep did not run');
      const runtime = context.foreign.filter((f) => f.kind === 'WebAssembly.RuntimeError');
      const lines = context.foreign.map((f) => `${f.kind} at ${f.where}: ${f.text}`);
      assert.equal(runtime.length, 0, `WebAssembly.RuntimeError escaped:\n  ${lines.join('\n  ')}`);
      const kinds = {};
      for (const f of context.foreign) kinds[f.kind] = (kinds[f.kind] ?? 0) + 1;
      const summary = Object.entries(kinds).map(([kind, n]) => `${n} ${kind}`).join(', ');
      assert.equal(context.foreign.length, 0, `${context.foreign.length} foreign exceptions escaped (${summary}; 0 WebAssembly.RuntimeError):\n  ${[...new Set(lines)].join('\n  ')}`);
    });
  });
}
