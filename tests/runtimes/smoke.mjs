// The smoke test every runtime of the matrix runs against the installed package.
//
// `smoke(cv)` takes the package's module namespace (or the object `require` returns),
// awaits `cv.init()` and returns one { name, pass, detail } per check. It never throws.
// Plain ES2020 with no imports, so the same file runs in Node, Bun, Deno, workerd, the
// edge runtime and browsers, and from CommonJS through a dynamic import().

const SECRET = 'whsec_test_secret';
const TIMESTAMP = '1700000000';
const NOW = 1700000060; // 60 s after TIMESTAMP: within a 300 s skew
const MAX_SKEW = 300;
const ANCHOR_BODY = '{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated"}';
const ANCHOR_SIGNATURE = '0900a08773f24e66b315e3d5c951f0b713a3559f282fd89bdc9ae5216a2b13b6';
// 2^64 + 1: JSON.parse alone would round it; the package must hand back the exact digits.
const BIG_VERSION = '18446744073709551617';
const EVENT_BODY = '{"schema_version":1,"event_id":"evt_smoke_1","event_type":"payment.updated",'
  + '"occurred_at":"2023-11-14T22:13:20Z","data":{"payment_id":"pay_smoke_1","status_version":'
  + BIG_VERSION + '}}';

function describe(error) {
  if (error === null || typeof error !== 'object') return String(error);
  const code = error.code !== undefined ? ' [' + error.code + ']' : '';
  return (error.name || 'Error') + code + ': ' + error.message;
}

// Expects fn() to throw a cv.CryptoPayError with the given code.
function expectCode(cv, fn, code) {
  let result;
  try {
    result = fn();
  } catch (error) {
    if (!(error instanceof cv.CryptoPayError)) {
      return { pass: false, detail: 'threw something that is not a CryptoPayError: ' + describe(error) };
    }
    if (error.code !== code) return { pass: false, detail: 'expected ' + code + ', got ' + describe(error) };
    return { pass: true, detail: 'CryptoPayError ' + code };
  }
  return { pass: false, detail: 'expected ' + code + ', nothing thrown (returned ' + JSON.stringify(result) + ')' };
}

// Checks the result of verifying EVENT_BODY.
function checkVerified(result) {
  const event = result && result.event;
  const problems = [];
  if (result.matchedSecret !== 'active') problems.push('matchedSecret ' + JSON.stringify(result.matchedSecret));
  if (result.timestamp !== Number(TIMESTAMP)) problems.push('timestamp ' + JSON.stringify(result.timestamp));
  if (!event) {
    problems.push('no event');
  } else {
    if (event.statusVersion !== BIG_VERSION) problems.push('statusVersion ' + JSON.stringify(event.statusVersion));
    if (event.paymentId !== 'pay_smoke_1') problems.push('paymentId ' + JSON.stringify(event.paymentId));
    if (event.eventId !== 'evt_smoke_1') problems.push('eventId ' + JSON.stringify(event.eventId));
    if (event.eventType !== 'payment.updated') problems.push('eventType ' + JSON.stringify(event.eventType));
  }
  return problems.length === 0
    ? { pass: true, detail: 'active, statusVersion ' + event.statusVersion + ', ' + event.paymentId }
    : { pass: false, detail: problems.join('; ') };
}

export async function smoke(cv) {
  const results = [];
  const check = (name, fn) => {
    try {
      const outcome = fn();
      results.push({ name: name, pass: outcome.pass === true, detail: String(outcome.detail) });
    } catch (error) {
      results.push({ name: name, pass: false, detail: 'threw ' + describe(error) });
    }
  };

  try {
    if (!cv || typeof cv.init !== 'function') throw new Error('the module has no init()');
    await cv.init();
    results.push({ name: 'init', pass: true, detail: 'init() resolved' });
  } catch (error) {
    results.push({ name: 'init', pass: false, detail: 'init() failed: ' + describe(error) });
    return results; // nothing else can work
  }

  const bytes = new TextEncoder().encode(EVENT_BODY);
  let signature = ''; // set by the valid-delivery check
  const delivery = (overrides) => Object.assign({
    body: bytes,
    timestamp: TIMESTAMP,
    signature: signature,
    secrets: SECRET,
    nowSecs: NOW,
    maxSkewSecs: MAX_SKEW,
  }, overrides);

  check('every export keeps its own name (Verifier.name, CryptoPayError.name, ...)', () => {
    const renamed = Object.entries(cv)
      .filter(([name, value]) => typeof value === 'function' && value.name !== name)
      .map(([name, value]) => `${name}.name=${value.name}`);
    return { pass: typeof cv.Verifier === 'function' && renamed.length === 0, detail: renamed.join(' ') };
  });

  check('signWebhook anchor', () => {
    const got = cv.signWebhook({ secret: SECRET, timestamp: TIMESTAMP, body: ANCHOR_BODY });
    return { pass: got === ANCHOR_SIGNATURE, detail: got };
  });

  check('verifyWebhook valid (bytes, u64+1 status_version)', () => {
    signature = cv.signWebhook({ secret: SECRET, timestamp: TIMESTAMP, body: bytes });
    return checkVerified(cv.verifyWebhook(delivery({})));
  });

  check('one byte changed -> signature_mismatch', () => {
    const tampered = bytes.slice();
    tampered[EVENT_BODY.indexOf('pay_smoke_1') + 10] = 0x32; // pay_smoke_1 -> pay_smoke_2
    return expectCode(cv, () => cv.verifyWebhook(delivery({ body: tampered })), 'signature_mismatch');
  });

  // A refusal is built without stack frames; its `stack` is still its first line (a logger
  // that prints `stack` shows the code and the message), in V8 and in JavaScriptCore alike.
  check('a refusal\'s stack is its first line', () => {
    const tampered = bytes.slice();
    tampered[0] = 0x20;
    try {
      cv.verifySignature(delivery({ body: tampered }));
      return { pass: false, detail: 'accepted' };
    } catch (error) {
      const stack = error.stack;
      const want = 'CryptoPayError: ' + error.message;
      return { pass: error.code === 'signature_mismatch' && stack === want, detail: String(JSON.stringify(stack)).slice(0, 80) };
    }
  });

  // 20 KiB: in Node and Deno node:crypto hashes a body this large, in Bun its CryptoHasher
  // (api/node-mac.mjs), elsewhere WebAssembly does; signWebhook always signs in WebAssembly.
  check('20 KiB body: accepted under a pending secret, one byte changed refused', () => {
    const large = new TextEncoder().encode(EVENT_BODY.slice(0, -2) + ',"pad":"' + 'x'.repeat(20 * 1024) + '"}}');
    const largeSignature = cv.signWebhook({ secret: SECRET, timestamp: TIMESTAMP, body: large });
    const secrets = [{ secret: 'whsec_other', kind: 'active' }, { secret: SECRET, kind: 'pending' }];
    const verified = cv.verifyWebhook(delivery({ body: large, signature: largeSignature, secrets: secrets }));
    if (verified.matchedSecret !== 'pending') return { pass: false, detail: 'matchedSecret ' + verified.matchedSecret };
    const tampered = large.slice();
    tampered[large.length - 100] = 0x79; // one 'x' of the padding -> 'y'
    return expectCode(cv, () => cv.verifyWebhook(delivery({ body: tampered, signature: largeSignature, secrets: secrets })),
      'signature_mismatch');
  });

  check('stale timestamp -> timestamp_too_old', () => {
    const old = String(NOW - MAX_SKEW - 1);
    const oldSignature = cv.signWebhook({ secret: SECRET, timestamp: old, body: bytes });
    return expectCode(cv, () => cv.verifyWebhook(delivery({ timestamp: old, signature: oldSignature })),
      'timestamp_too_old');
  });

  check('new Verifier().verifyWebhook, then free()', () => {
    const verifier = new cv.Verifier({ secrets: [{ secret: SECRET, kind: 'active' }], maxSkewSecs: MAX_SKEW });
    let outcome;
    try {
      outcome = checkVerified(verifier.verifyWebhook({
        body: bytes, timestamp: TIMESTAMP, signature: signature, nowSecs: NOW,
      }));
    } finally {
      verifier.free();
    }
    if (!outcome.pass) return outcome;
    const afterFree = expectCode(cv, () => verifier.verifyWebhook({
      body: bytes, timestamp: TIMESTAMP, signature: signature, nowSecs: NOW,
    }), 'invalid_argument');
    return afterFree.pass
      ? { pass: true, detail: outcome.detail + '; freed, then invalid_argument' }
      : { pass: false, detail: 'after free(): ' + afterFree.detail };
  });

  // Memory the caller may resize, or another thread write: verified from a copy (a browser's
  // TextDecoder refuses such memory), the event unchanged when the memory changes after.
  check('a body in a resizable ArrayBuffer, or a SharedArrayBuffer where there is one: verified, parsed, kept', () => {
    const kinds = [['resizable', new ArrayBuffer(bytes.length, { maxByteLength: bytes.length * 2 })]];
    if (typeof SharedArrayBuffer === 'function') kinds.push(['shared', new SharedArrayBuffer(bytes.length)]);
    for (const [kind, buffer] of kinds) {
      const view = new Uint8Array(buffer);
      view.set(bytes);
      const verified = cv.verifyWebhook(delivery({ body: view }));
      const outcome = checkVerified(verified);
      if (!outcome.pass) return { pass: false, detail: kind + ': ' + outcome.detail };
      const parsed = cv.parseEvent(view);
      if (parsed.eventId !== 'evt_smoke_1') return { pass: false, detail: kind + ': parseEvent ' + parsed.eventId };
      const dataText = parsed.dataText;
      const before = verified.event.dataText;
      view.fill(0x20);
      if (verified.event.dataText !== before || parsed.dataText !== dataText || before.indexOf('pay_smoke_1') < 0) {
        return { pass: false, detail: kind + ': the event changed with the memory' };
      }
    }
    return { pass: true, detail: kinds.map((k) => k[0]).join(', ') };
  });

  check('parsed object as body -> body_not_raw', () =>
    expectCode(cv, () => cv.verifyWebhook(delivery({ body: JSON.parse(EVENT_BODY) })), 'body_not_raw'));

  return results;
}
