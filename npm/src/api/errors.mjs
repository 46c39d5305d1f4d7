// The package's one error class, and the failures JavaScript itself detects. Every message,
// JavaScript's included, is composed by the binding (`errorMessage`: the core's remedy in
// JavaScript's names): one format, one text per code. body_not_raw, which only JavaScript can
// detect, ends with each framework's way to the raw body (hints.mjs).

import { brand } from './brand.mjs';
import { BODY_NOT_RAW } from './hints.mjs';
import { eventErrors, glue } from './instance.mjs';

// The codes that are always the receiver's own doing: a wrong argument, a body a framework
// parsed first, no secret configured (as the core's `is_receiver_fault`). Other codes are the
// receiver's only with the detail the core numbers (see `refusal`'s `receiverFault`).
const RECEIVER_CODES = new Set(['invalid_argument', 'body_not_raw', 'no_secrets', 'secret_empty']);

/**
 * The error every function of the package throws. `code` is stable; `authentic`: signed by
 * the service but not a readable event (keep it, answer 2xx); `receiverFault`: the refusal is
 * the receiver's own (its setup, clock or rotation), to answer 5xx so that the service retries.
 */
export class CryptoPayError extends Error {
  constructor(code, message, receiverFault = RECEIVER_CODES.has(code)) {
    super(message);
    this.name = 'CryptoPayError';
    this.code = code;
    this.authentic = eventErrors.has(code);
    this.receiverFault = receiverFault;
  }
}
// instanceof holds across the package's copies (its ES module and CommonJS entries).
brand(CryptoPayError, 'CryptoPayError');

// Whether this engine lets the stack capture be switched off for one construction
// (Error.stackTraceLimit: V8 and JavaScriptCore; elsewhere refusals keep the engine's usual
// stack).
const trimmable = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit')?.writable === true;

// JavaScriptCore (Bun, Safari) then leaves an error with no `stack` at all, where V8 writes
// its first line: asked once, so that a refusal's `stack` is that line in both.
const stackless = trimmable && (() => {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new Error('probe').stack === undefined;
  } finally {
    Error.stackTraceLimit = limit;
  }
})();

/**
 * A CryptoPayError for a delivery the core refused (a forged, stale or malformed delivery: an
 * expected outcome for input from the network), built without capturing a stack trace:
 * capturing one costs more than the whole verification, and a flood of forged requests
 * would pay it each time. Its `stack` is then its first line only ("CryptoPayError: code:
 * message"); `code` and `message` say everything. Errors of the caller's own making (a wrong
 * argument, a parsed body) keep their stack: see `fail`.
 */
export function refusal(code, message, receiverFault = false) {
  if (!trimmable) return new CryptoPayError(code, message, receiverFault);
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let error;
  try {
    error = new CryptoPayError(code, message, receiverFault);
  } finally {
    Error.stackTraceLimit = limit;
  }
  if (stackless) {
    Object.defineProperty(error, 'stack', { value: `${error.name}: ${error.message}`, writable: true, configurable: true });
  }
  return error;
}

// The message of a failure detected in JavaScript; `detail` names the value's problem.
function messageOf(code, detail) {
  if (code === 'body_not_raw') return `${code}: ${detail}; ${BODY_NOT_RAW}`;
  return glue === null ? `${code}: ${detail}` : glue.errorMessage(code, detail);
}

/**
 * A CryptoPayError for a failure detected in JavaScript; `detail` names the value's problem.
 * `receiverFault` when the code alone does not say it (see CryptoPayError).
 */
export function fail(code, detail, receiverFault = RECEIVER_CODES.has(code)) {
  return new CryptoPayError(code, messageOf(code, detail), receiverFault);
}

/**
 * A refusal JavaScript detects in what the network sent (a body over the limit, a header sent
 * more than once): like the core's refusals, built without a stack trace (see `refusal`).
 */
export function refuse(code, detail) {
  return refusal(code, messageOf(code, detail));
}

/**
 * Runs `call` for a function that takes no delivery (decideEvent, compareStatusVersions, the
 * payment view's readers): an error it throws says nothing of a delivery's signature, so its
 * `authentic` is false whatever its code (`status_version_invalid` from a stored row, say).
 * `receiverFault` for the functions whose values come from the receiver's own code and store
 * (decideEvent, compareStatusVersions): a receiver answering from the error answers 5xx,
 * retried once the store is fixed, never the final 400 that would lose the delivery.
 */
export function notDelivery(call, receiverFault = false) {
  try {
    return call();
  } catch (error) {
    if (error instanceof CryptoPayError) {
      error.authentic = false;
      if (receiverFault) error.receiverFault = true;
    }
    throw error;
  }
}

/** Throws before the instance is ready (browsers: before `await init()`). */
export function assertReady() {
  if (glue === null) {
    throw new CryptoPayError(
      'invalid_argument',
      `invalid_argument: the WebAssembly module is not loaded yet; await init() before the first call${IN_SERVER}`,
    );
  }
}

/**
 * Said where only the browser build waits for init() yet Node runs it: a server bundle whose
 * bundler resolved the package without the `node` export condition.
 */
const IN_NODE = typeof globalThis.process?.versions?.node === 'string' && typeof globalThis.Deno === 'undefined'
  && typeof globalThis.Bun === 'undefined' && globalThis.navigator?.userAgent !== 'Cloudflare-Workers'
  ? ' (this is the browser build, running in Node: a bundler that did not apply the package\'s `node` export condition chose it; '
    + "the Node build needs no init(): Rollup's nodeResolve({ exportConditions: ['node'] }), esbuild's platform: 'node', "
    + "webpack's target: 'node')"
  : '';

/**
 * IN_NODE, and its like for Bun and Deno: the browser build running on a server, where the
 * package's own entry for that runtime needs no init().
 */
export const IN_SERVER = IN_NODE || (typeof globalThis.Bun === 'object'
  ? ' (this is the browser build, running in Bun: `bun build` picks it unless told otherwise; build with --target=bun '
    + 'or --target=node, whose build needs no init() and no file beside the bundle)'
  : typeof globalThis.Deno === 'object'
    ? ' (this is the browser build, running in Deno: import npm:cryptopay-verify as it is, or bundle with deno bundle '
      + '--platform deno, whose build needs no init())'
    : '');
