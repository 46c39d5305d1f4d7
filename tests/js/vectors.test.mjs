// Every row of the language-neutral vectors (tests/vectors/*.json, except the HMAC primitive's
// RFC 4231 file, which JavaScript cannot reach) through the installed package: once through
// its ESM entry, once through its CommonJS entry. Inputs are mapped as the JavaScript API
// takes them (bytes as Uint8Array, wrong-typed inputs passed as they are); results are compared
// field by field as the Rust runner (tests/common/mod.rs) compares them; failures by `code`
// and class, never by message text.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cjs, entries, esm, fromHex, jsonSuite, packageDir, vectorFiles } from './package-under-test.mjs';

// The service's rules (service.json) run through the sandbox's own WebAssembly module
// (bindings/service), by its internal module of each format: the ESM one beside the ESM
// entry, the CommonJS one beside the CommonJS entry (each throws that entry's CryptoPayError
// for an argument the core refuses, and its SandboxError for one of the service's answers).
const serviceRules = new Map([
  [esm, await import(pathToFileURL(join(packageDir, 'dist', 'sandbox', 'rules.mjs')).href)],
  [cjs, createRequire(join(packageDir, 'package.json'))(join(packageDir, 'dist', 'sandbox', 'rules.cjs'))],
]);
const SERVICE_FUNCTIONS = new Set(['newPaymentState', 'applyPaymentAction', 'checkIdempotency', 'nextDeliveryStep',
  'validateRetryDelays', 'apiErrorStatus']);

// The codes the installed package's receiver quarantines (an internal export of its module).

const EVENT_FIELDS = ['schemaVersion', 'eventId', 'eventType', 'occurredAt', 'paymentId', 'statusVersion'];

/** linkEvent's answer for an order that does not link (a LinkMismatch code, not an ErrorCode). */
class LinkMismatch {
  constructor(code) {
    this.code = code;
  }
}

/** Runs fn; { ok: true, value } or { ok: false, error }. */
function attempt(fn) {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

const describeError = (error) =>
  error !== null && typeof error === 'object'
    ? `${error.constructor?.name} code=${error.code} message=${error.message}`
    : String(error);

function assertPackageError(api, error, where) {
  assert.ok(error instanceof Error, `${where}: threw a non-Error: ${describeError(error)}`);
  if (SERVICE_FUNCTIONS.has(where) && error instanceof serviceRules.get(api).SandboxError) {
    assert.equal(typeof error.status, 'number', `${where}: a SandboxError carries its HTTP status`);
    return;
  }
  assert.ok(error instanceof api.CryptoPayError, `${where}: threw ${describeError(error)}, not a CryptoPayError`);
}

function verifyInput(row) {
  const input = {
    body: fromHex(row.bodyHex),
    timestamp: row.timestamp,
    signature: row.signature,
    secrets: structuredClone(row.secrets),
    nowSecs: row.nowSecs,
    maxSkewSecs: row.maxSkewSecs,
  };
  if ('maxBodyBytes' in row) input.maxBodyBytes = row.maxBodyBytes;
  return input;
}

const verifiedView = (value, webhook) => {
  const view = { matchedSecret: value.matchedSecret, timestamp: value.timestamp };
  if (webhook) view.event = value.event;
  return view;
};

/**
 * verifySignature / verifyWebhook: the one-shot function, and a keyed Verifier whenever one
 * constructs from the same secrets and options: both must give the same answer.
 */
function runVerify(api, row, webhook) {
  const name = webhook ? 'verifyWebhook' : 'verifySignature';
  const oneShot = attempt(() => api[name](verifyInput(row)));

  const init = { secrets: structuredClone(row.secrets), maxSkewSecs: row.maxSkewSecs };
  if ('maxBodyBytes' in row) init.maxBodyBytes = row.maxBodyBytes;
  const built = attempt(() => new api.Verifier(init));
  if (!built.ok) {
    // A set the Verifier refuses must not verify one-shot either; shape and option errors
    // (invalid_argument) come first in the order of checks, so the one-shot reports them too.
    assertPackageError(api, built.error, 'new Verifier');
    assert.ok(!oneShot.ok, `new Verifier threw ${built.error.code} but ${name} succeeded`);
    if (built.error.code === 'invalid_argument') {
      assert.equal(oneShot.error.code, 'invalid_argument', `new Verifier: invalid_argument, ${name}: ${oneShot.error.code}`);
    }
  } else {
    const verifier = built.value;
    try {
      const input = verifyInput(row);
      const keyed = attempt(() =>
        verifier[name]({ body: input.body, timestamp: input.timestamp, signature: input.signature, nowSecs: input.nowSecs }),
      );
      if (oneShot.ok && keyed.ok) {
        assert.deepStrictEqual(keyed.value, oneShot.value, `Verifier.${name} and ${name} disagree`);
      } else if (!oneShot.ok && !keyed.ok) {
        assertPackageError(api, keyed.error, `Verifier.${name}`);
        assert.equal(keyed.error.code, oneShot.error.code, `Verifier.${name} and ${name} disagree`);
      } else {
        assert.fail(
          `Verifier.${name} ${keyed.ok ? 'succeeded' : `threw ${describeError(keyed.error)}`} but ${name} ${
            oneShot.ok ? 'succeeded' : `threw ${describeError(oneShot.error)}`
          }`,
        );
      }
    } finally {
      verifier.free();
    }
  }
  if (!oneShot.ok) throw oneShot.error;
  return verifiedView(oneShot.value, webhook);
}

/** A validator: returns undefined on success. */
function nothing(value) {
  assert.equal(value, undefined, 'a validator returns undefined');
  return {};
}

/** Calls the package function a row names and returns its result as the vectors spell it. */
function run(api, fn, row) {
  switch (fn) {
    case 'verifySignature':
      return runVerify(api, row, false);
    case 'verifyWebhook':
      return runVerify(api, row, true);
    case 'signWebhook': {
      const input = { secret: row.secret, timestamp: row.timestamp, body: fromHex(row.bodyHex) };
      if ('encoding' in row) input.encoding = row.encoding;
      return { signature: api.signWebhook(input) };
    }
    case 'readDeliveryHeaders':
      return api.readDeliveryHeaders(structuredClone(row.headers), {
        timestampHeader: row.timestampHeader,
        signatureHeader: row.signatureHeader,
      });
    case 'parseEvent':
      return { event: api.parseEvent(fromHex(row.bodyHex)) };
    case 'compareStatusVersions':
      return { result: api.compareStatusVersions(row.a, row.b) };
    case 'decideEvent':
      return { decision: api.decideEvent(structuredClone(row.incoming), structuredClone(row.stored)) };
    case 'validateAmountRaw': {
      const outcome = attempt(() => api.validateAmountRaw(row.value));
      // isValidAmountRaw answers the same question as a boolean.
      if (outcome.ok || outcome.error?.code === 'amount_raw_invalid') {
        assert.equal(api.isValidAmountRaw(row.value), outcome.ok, 'isValidAmountRaw disagrees with validateAmountRaw');
      }
      if (!outcome.ok) throw outcome.error;
      return nothing(outcome.value);
    }
    case 'toAmountRaw':
      return { amountRaw: api.toAmountRaw(row.decimal, row.decimals) };
    case 'fromAmountRaw':
      return { decimal: api.fromAmountRaw(row.amountRaw, row.decimals) };
    case 'validateSourceAmount':
      return nothing(api.validateSourceAmount(structuredClone(row.sourceAmount), structuredClone(row.primarySource)));
    case 'buildSourceAmount':
      return {
        sourceAmount: api.buildSourceAmount({ primarySource: structuredClone(row.primarySource), amount: row.amount }),
      };
    case 'validateCreatePayment': {
      const options = { primarySource: structuredClone(row.primarySource) };
      if ('websiteOrigin' in row) options.websiteOrigin = row.websiteOrigin;
      return nothing(api.validateCreatePayment(structuredClone(row.body), options));
    }
    case 'validateCheckoutOrigin':
      return nothing(
        'websiteOrigin' in row
          ? api.validateCheckoutOrigin(row.origin, { websiteOrigin: row.websiteOrigin })
          : api.validateCheckoutOrigin(row.origin),
      );
    case 'validateWebhookUrl':
      return nothing(api.validateWebhookUrl(row.url));
    case 'hostedCheckoutUrl':
      return { url: api.hostedCheckoutUrl(row.checkoutOrigin, row.paymentId) };
    case 'requestFingerprint':
      return { fingerprint: api.requestFingerprint(fromHex(row.bodyHex)) };
    case 'validateIdempotencyKey':
      return nothing(api.validateIdempotencyKey(row.key));
    case 'classifyDeliveryResponse':
      return { classification: api.classifyDeliveryResponse(row.status) };
    case 'newPaymentState':
      return { state: serviceRules.get(api).newPaymentState(row.amountRaw) };
    case 'applyPaymentAction':
      return serviceRules.get(api).applyPaymentAction(structuredClone(row.state), structuredClone(row.action));
    case 'checkIdempotency':
      return { check: serviceRules.get(api).checkIdempotency(row.storedFingerprint, row.fingerprint) };
    case 'nextDeliveryStep':
      return serviceRules.get(api).nextDeliveryStep(row.attempt, row.answer, structuredClone(row.retryDelaysMs));
    case 'validateRetryDelays':
      return nothing(serviceRules.get(api).validateRetryDelays(structuredClone(row.retryDelaysMs)));
    case 'apiErrorStatus':
      return { status: serviceRules.get(api).apiErrorStatus(row.code) };
    case 'defaultPolicy': {
      const action = api.defaultPolicy(row.viewJson);
      // The same view read by parsePaymentView decides the same (its text is kept).
      assert.equal(api.defaultPolicy(api.parsePaymentView(row.viewJson)), action, 'defaultPolicy(parsePaymentView(text))');
      return { action };
    }
    case 'linkEvent': {
      const opts = 'eventIntegration' in row ? { integration: row.eventIntegration } : undefined;
      const result = api.linkEvent(structuredClone(row.order ?? null), row.viewJson, opts);
      if (result.linked) {
        assert.deepStrictEqual(result, { linked: true });
        return {};
      }
      // A mismatch is an answer, not a CryptoPayError: its code and message, as the core words them.
      assert.deepStrictEqual(Object.keys(result).sort(), ['code', 'linked', 'message']);
      assert.ok(result.message.startsWith(`${result.code}: `), result.message);
      assert.match(result.message, /review/);
      throw new LinkMismatch(result.code);
    }
    case 'errorCodes':
      // eventError: the codes the package's receiver keeps in quarantine (and acknowledges).
      return { index: api.errorCodes().indexOf(row.code), eventError: new api.CryptoPayError(row.code, row.code).authentic };
    default:
      throw new Error(`no JavaScript runner for function ${fn}`);
  }
}

/** Checks one row's outcome against its `expected`, as tests/common/mod.rs `check` does. */
function check(api, fn, row) {
  const { expected } = row;
  const outcome = attempt(() => run(api, fn, row));
  if ('error' in expected) {
    assert.ok(!outcome.ok, `expected error ${expected.error}, got ok ${JSON.stringify(outcome.value)}`);
    if (!(outcome.error instanceof LinkMismatch)) assertPackageError(api, outcome.error, fn);
    assert.equal(outcome.error.code, expected.error, `expected ${expected.error}, got ${describeError(outcome.error)}`);
    if ('receiverFault' in expected) {
      assert.equal(outcome.error.receiverFault, expected.receiverFault, `receiverFault of ${describeError(outcome.error)}`);
    }
    return;
  }
  assert.equal(expected.ok, true, 'a vector expects either ok or an error');
  if (!outcome.ok) assert.fail(`expected ok, got ${describeError(outcome.error)}`);
  const got = outcome.value;
  for (const [key, want] of Object.entries(expected)) {
    if (key === 'ok') continue;
    if (key === 'event') {
      // The six fields the Rust runner exposes, one by one (data and envelope are JS extras).
      assert.ok(got.event !== null && typeof got.event === 'object', 'event is an object');
      for (const [field, value] of Object.entries(want)) {
        assert.ok(EVENT_FIELDS.includes(field), `the vector names an unknown event field ${field}`);
        assert.deepStrictEqual(got.event[field], value, `event.${field}`);
      }
      for (const field of EVENT_FIELDS) assert.ok(field in want, `the vector omits event.${field}`);
    } else {
      assert.deepStrictEqual(got[key], want, key);
    }
  }
}

const files = vectorFiles();

test('the vector files are all there and well-formed', () => {
  const names = files.map(([name]) => name);
  for (const name of ['verify.json', 'sign.json', 'read_headers.json', 'event.json', 'status.json', 'amount.json',
    'pricing.json', 'urls.json', 'idempotency.json', 'delivery.json', 'error_codes.json', 'fulfilment.json']) {
    assert.ok(names.includes(name), `tests/vectors/${name} is missing`);
  }
  for (const [name, file] of files) {
    assert.equal(file.schema, 'cryptopay-verify-vectors/1', name);
    const ids = file.tests.map((row) => row.id);
    assert.equal(new Set(ids).size, ids.length, `${name}: ids are unique`);
    for (const row of file.tests) {
      assert.equal(typeof (row.function ?? file.function), 'string', `${name} #${row.id} names a function`);
      assert.ok(row.expected && (row.expected.ok === true || typeof row.expected.error === 'string'), `${name} #${row.id}`);
    }
  }
});

for (const [label, api] of entries) {
  describe(label, () => {
    for (const [name, file] of files) {
      for (const row of file.tests) {
        const fn = row.function ?? file.function;
        test(`${name} #${row.id} ${row.comment}`, () => check(api, fn, row));
      }
    }
  });
}

// The public JSONTestSuite through parseEvent: a file that is JSON is never event_not_json,
// one that is not always is (the i_ files carry serde_json's decision, checked by the Rust test).
const suite = jsonSuite();
for (const [label, api] of entries) {
  test(`${label}: the JSONTestSuite (${suite.tests.length} files)`, () => {
    assert.equal(suite.schema, 'cryptopay-verify-json-suite/1');
    const wrong = [];
    for (const row of suite.tests) {
      const bytes = row.text !== undefined ? Buffer.from(row.text, 'utf8') : fromHex(row.hex);
      const outcome = attempt(() => api.parseEvent(bytes));
      if (!outcome.ok) assertPackageError(api, outcome.error, 'parseEvent');
      const notJson = !outcome.ok && outcome.error.code === 'event_not_json';
      if (notJson !== (row.expect === 'not_json')) wrong.push(`${row.name}: ${outcome.ok ? 'ok' : outcome.error.code}`);
    }
    assert.deepEqual(wrong, []);
  });
}
