// The payment service's rules, from the core through the sandbox's own WebAssembly module
// (bindings/service): the payment state machine, the creation-idempotency check, the
// delivery schedule and the service's API errors. The sandbox decides nothing itself: these
// answer, and the rest of it stores, sends and serves.
//
// The module's exports answer JSON text, {"ok":true,...} or {"error":{code,message,status?}}:
// an error with an HTTP status is one of the service's answers (a SandboxError), one without
// is an argument the core refused (a CryptoPayError, as the package's own functions throw).
// Loaded on first use from the inlined bytes: importing the sandbox compiles nothing.

import { Buffer } from 'node:buffer';
import { CryptoPayError } from 'cryptopay-verify';
import * as glue from './cryptopay_verify_service_bg.js';
import wasmBase64 from './cryptopay_verify_service_bg.wasm.base64.mjs';
import { LOCAL_ERRORS, SandboxError } from './errors.mjs';

export { SandboxError };

let ready = false;
function exports() {
  if (!ready) {
    const module = new WebAssembly.Module(Buffer.from(wasmBase64, 'base64'));
    const imports = {};
    for (const { module: name } of WebAssembly.Module.imports(module)) imports[name] = glue;
    const instance = new WebAssembly.Instance(module, imports);
    glue.__wbg_set_wasm(instance.exports);
    instance.exports.__wbindgen_start?.();
    ready = true;
  }
  return glue;
}

/** The answer of an export: its result, or the error it names thrown. */
function answer(text) {
  const parsed = JSON.parse(text);
  if (parsed.ok === true) return parsed;
  const { code, message, status } = parsed.error;
  if (status !== undefined) throw new SandboxError(code, message, status);
  throw new CryptoPayError(code, message);
}

const invalid = (detail) => new CryptoPayError('invalid_argument', `invalid_argument: ${detail}`);
const str = (value) => (typeof value === 'string' ? value : undefined);
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A new payment's state: { status: 'open', statusVersion: '1', amountRaw, amountReceivedRaw:
 * '0', consumerAccess: true }. Throws CryptoPayError amount_raw_invalid.
 */
export function newPaymentState(amountRaw) {
  return answer(exports().newPaymentState(str(amountRaw))).state;
}

/**
 * Applies { action, amountRaw? } to a stored state: { state, events } (the final state, and
 * the state after each change, one payment.updated each). Throws the service's answer (a
 * SandboxError), or a CryptoPayError for a stored state or action the core cannot read.
 */
export function applyPaymentAction(state, action) {
  if (!isObject(state)) throw invalid('state must be an object');
  const access = state.consumerAccess === true ? 1 : state.consumerAccess === false ? 0 : 2;
  if (!isObject(action)) throw invalid('action must be an object');
  // Given but not a string: refused as an amount, at its place in pay's order of checks.
  const amount = action.amountRaw === undefined ? undefined : (str(action.amountRaw) ?? '');
  const { state: next, events } = answer(exports().applyPaymentAction(str(state.status), str(state.statusVersion),
    str(state.amountRaw), str(state.amountReceivedRaw), access, str(action.action), amount));
  return { state: next, events };
}

/**
 * Checks a CreatePayment body as received (its exact text: a repeated key, or a body that is
 * not a JSON object, is create_payment_invalid) against the store's pricing source and
 * website origin. Throws the core's CryptoPayError.
 */
export function validateCreatePaymentText(text, primarySource, websiteOrigin) {
  if (typeof text !== 'string') throw invalid('the body must be text');
  answer(exports().validateCreatePayment(text, JSON.stringify(primarySource), str(websiteOrigin)));
}

/** 'new', 'replay' or 'reused', from the fingerprint stored under a key (or undefined). */
export function checkIdempotency(storedFingerprint, fingerprint) {
  if (storedFingerprint !== undefined && typeof storedFingerprint !== 'string') throw invalid('storedFingerprint must be a string');
  if (typeof fingerprint !== 'string') throw invalid('fingerprint must be a string');
  return answer(exports().checkIdempotency(storedFingerprint, fingerprint)).check;
}

function delays(retryDelaysMs) {
  if (!Array.isArray(retryDelaysMs)) throw invalid('retryDelaysMs must be an array of milliseconds');
  // A value that is not a number crosses as NaN: the module refuses it.
  return retryDelaysMs.map((ms) => (typeof ms === 'number' ? ms : Number.NaN));
}

/**
 * What the sender does after attempt `attempt` (from 1) got `answer`: an HTTP status, or
 * 'network_failure' (any integer outside 100-599 is no HTTP status: a protocol failure, the
 * same). { step: 'acknowledged' | 'retrying' | 'exhausted' | 'failed_permanently', delayMs? }.
 */
export function nextDeliveryStep(attempt, answerGot, retryDelaysMs) {
  if (!Number.isInteger(attempt) || attempt < 0 || attempt > 0xffff_ffff) throw invalid('attempt must be an integer from 1 to 2^32 - 1');
  let status;
  if (answerGot === 'network_failure') status = undefined;
  else if (Number.isInteger(answerGot)) status = answerGot >= 100 && answerGot <= 599 ? answerGot : undefined;
  else throw invalid('answer must be an HTTP status or "network_failure"');
  const { step, delayMs } = answer(exports().nextDeliveryStep(attempt, status, delays(retryDelaysMs)));
  return delayMs === undefined ? { step } : { step, delayMs };
}

/** Throws CryptoPayError invalid_argument unless 0 to 20 delays, each 0 to 86400000 ms. */
export function validateRetryDelays(retryDelaysMs) {
  answer(exports().validateRetryDelays(delays(retryDelaysMs)));
}

/** The HTTP status of one of the service's own codes; invalid_argument for any other code. */
export function apiErrorStatus(code) {
  if (typeof code !== 'string') throw invalid('code must be a string');
  return answer(exports().apiError(code)).status;
}

/**
 * The SandboxError for a code: one of the service's (the core's table: status and message),
 * or one of the sandbox's own endpoints (errors.mjs). `detail` goes before the remedy.
 */
export function refusal(code, detail) {
  let status;
  let message;
  if (Object.hasOwn(LOCAL_ERRORS, code)) {
    [status, message] = LOCAL_ERRORS[code];
    message = `${code}: ${message}`;
  } else {
    ({ status, message } = answer(exports().apiError(code)));
  }
  if (detail !== undefined) message = message.replace(`${code}: `, `${code}: ${detail}; `);
  return new SandboxError(code, message, status);
}
