// The value functions: status versions and event decisions, amounts, pricing, origins and
// URLs, idempotency, delivery responses. Each converts JavaScript values and calls the core.

import { CryptoPayError, assertReady, fail, notDelivery } from './errors.mjs';
import { codes, glue } from './instance.mjs';
import { unknownOption } from './hints.mjs';
import { bodyBytes, isPlainObject, jsonArgs, options, text, wellFormed } from './inputs.mjs';

// A version as the core reads it; a number too large for JavaScript to hold exactly is refused
// here (the core would see its rounded digits as a valid version).
function versionText(value, name) {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) {
    throw fail('status_version_invalid', `${name} is a number over 2^53 - 1, which JavaScript cannot hold exactly: pass event.statusVersion, the exact string`);
  }
  return '';
}

/** Compares two status versions exactly: -1, 0 or 1. */
export function compareStatusVersions(a, b) {
  assertReady();
  return notDelivery(() => glue.rawCompareStatusVersions(versionText(a, 'the first argument'), versionText(b, 'the second argument')), true);
}

/** apply, duplicate or stale. */
export function decideEvent(incoming, stored) {
  assertReady();
  return notDelivery(() => decide(incoming, stored), true);
}

const STORED_KEYS = ['eventSeen', 'statusVersion'];

function decide(incoming, stored) {
  // The incoming event is data: extra fields are fine, so the event from verifyWebhook can be
  // passed as it is (its statusVersion is required: a misspelling fails). What is stored is
  // read by its two keys, and statusVersion may be absent (nothing stored yet): a misspelled
  // one (status_version from a row, statusversion) would read as absent and decide a stale
  // event 'apply', so any other key is refused.
  if (!isPlainObject(incoming)) throw fail('invalid_argument', 'decideEvent takes the incoming event { eventId, paymentId, statusVersion }');
  if (!isPlainObject(stored)) throw fail('invalid_argument', 'decideEvent takes what is stored { eventSeen, statusVersion? }');
  for (const key of Object.keys(stored)) {
    if (!STORED_KEYS.includes(key)) {
      throw fail('invalid_argument', `${unknownOption(key, STORED_KEYS, 'decideEvent\'s stored state')}: `
        + 'it reads only these, and a statusVersion under another name would be read as none stored');
    }
  }
  for (const key of ['eventId', 'paymentId']) {
    if (typeof incoming[key] !== 'string' || incoming[key] === '') {
      throw fail('invalid_argument', `incoming.${key} must be a non-empty string`);
    }
  }
  // Each value read once: a getter (a lazy ORM row) may answer differently the second time.
  const { eventSeen, statusVersion: storedStatus } = stored;
  if (typeof eventSeen !== 'boolean') throw fail('invalid_argument', 'stored.eventSeen must be a boolean');
  const incomingVersion = versionText(incoming.statusVersion, 'incoming.statusVersion');
  const storedVersion = storedStatus === undefined || storedStatus === null
    ? undefined
    : versionText(storedStatus, 'stored.statusVersion');
  return glue.rawDecideEvent(incomingVersion, eventSeen, storedVersion);
}

function decimalsArg(value) {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw fail('decimals_invalid', 'decimals must be an integer');
  return value;
}

export function validateAmountRaw(value) {
  assertReady();
  glue.rawValidateAmountRaw(text(value));
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
  return glue.rawToAmountRaw(text(decimal), decimalsArg(decimals));
}

export function fromAmountRaw(raw, decimals) {
  assertReady();
  return glue.rawFromAmountRaw(text(raw), decimalsArg(decimals));
}

export function buildSourceAmount(input) {
  assertReady();
  options(input, ['primarySource', 'amount'], 'buildSourceAmount');
  const json = jsonArgs();
  const source = json.text(input.primarySource, 'store_source_invalid', 'primarySource');
  return json.run(() => glue.rawBuildSourceAmount(source, text(input.amount)));
}

export function validateSourceAmount(sourceAmount, primarySource) {
  assertReady();
  const json = jsonArgs();
  const amount = json.text(sourceAmount, 'source_amount_invalid', 'the source amount');
  const source = json.text(primarySource, 'store_source_invalid', 'primarySource');
  json.run(() => glue.rawValidateSourceAmount(amount, source));
}

function websiteOriginArg(opts, allowed, what) {
  if (opts === undefined) return undefined;
  options(opts, allowed, what);
  const { websiteOrigin } = opts; // read once: a getter may answer otherwise the second time
  if (websiteOrigin !== undefined && typeof websiteOrigin !== 'string') {
    throw fail('invalid_argument', 'websiteOrigin must be a string such as https://shop.example');
  }
  return websiteOrigin;
}

export function validateCreatePayment(body, opts) {
  assertReady();
  options(opts, ['primarySource', 'websiteOrigin'], 'validateCreatePayment');
  const website = websiteOriginArg(opts, ['primarySource', 'websiteOrigin'], 'validateCreatePayment');
  const json = jsonArgs();
  const bodyText = json.text(body, 'create_payment_invalid', 'the body');
  const source = json.text(opts.primarySource, 'store_source_invalid', 'primarySource');
  json.run(() => glue.rawValidateCreatePayment(bodyText, source, website));
}

export function validateCheckoutOrigin(origin, opts) {
  assertReady();
  glue.rawValidateCheckoutOrigin(text(origin), websiteOriginArg(opts, ['websiteOrigin'], 'validateCheckoutOrigin'));
}

export function validateWebhookUrl(url) {
  assertReady();
  glue.rawValidateWebhookUrl(text(url));
}

export function hostedCheckoutUrl(checkoutOrigin, paymentId) {
  assertReady();
  const id = typeof paymentId === 'string' && wellFormed(paymentId) ? paymentId : '';
  return glue.rawHostedCheckoutUrl(text(checkoutOrigin), id);
}

export function requestFingerprint(body) {
  assertReady();
  return glue.rawRequestFingerprint(bodyBytes(body));
}

export function validateIdempotencyKey(key) {
  assertReady();
  glue.rawValidateIdempotencyKey(text(key));
}

export function classifyDeliveryResponse(status) {
  assertReady();
  if (typeof status !== 'number') throw fail('invalid_argument', 'status must be an HTTP status number');
  return glue.rawClassifyDeliveryResponse(status);
}

export function errorCodes() {
  assertReady();
  return [...codes];
}
