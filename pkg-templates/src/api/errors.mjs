// The package's one error class, and the failures JavaScript itself detects. Every message,
// JavaScript's included, is composed by the core (`errorMessage`): one format, one text per
// code.

import { glue } from './instance.mjs';

/** The error every function of the package throws. `code` is stable. */
export class CryptoPayError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'CryptoPayError';
    this.code = code;
  }
}

/** A CryptoPayError for a failure detected in JavaScript; `detail` names the value's problem. */
export function fail(code, detail) {
  return new CryptoPayError(code, glue === null ? `${code}: ${detail}` : glue.errorMessage(code, detail));
}

/** Throws before the instance is ready (browsers: before `await init()`). */
export function assertReady() {
  if (glue === null) {
    throw new CryptoPayError(
      'invalid_argument',
      'invalid_argument: the WebAssembly module is not loaded yet; await init() before the first call',
    );
  }
}
