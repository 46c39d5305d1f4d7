// The started WebAssembly instance: the wasm-bindgen glue, and what the core tells
// JavaScript once (its limits and names, its error codes). Set by start.mjs; read by the
// other modules through these live bindings. What the core tells once is in core-facts.mjs,
// written by the build from this build's module (no call into WebAssembly at start).

import { CONSTANTS, ERROR_CODES, EVENT_ERROR_CODES, SECRET_KINDS } from './core-facts.mjs';

/** The glue of the started instance, or null before start. */
export let glue = null;
/** The core's limits and names: see `constants()` and `secretKinds()` in bindings/wasm/src/lib.rs. */
export let limits = null;
/** Every error code, in the order the core numbers them. */
export let codes = [];
/** The codes of an authentic delivery whose event cannot be read (`CryptoPayError#authentic`). */
export let eventErrors = new Set();

/** Called once the instance has started. */
export function install(startedGlue) {
  glue = startedGlue;
  // The order of `constants()` (bindings/wasm/src/lib.rs): one array, named here.
  const [defaultMaxBodyBytes, maxMaxBodyBytes, maxSecrets, maxHeaderValueBytes, outcomeInexact, outcomeAscii] = CONSTANTS;
  const kinds = SECRET_KINDS.split(',');
  limits = { defaultMaxBodyBytes, maxMaxBodyBytes, maxSecrets, maxHeaderValueBytes, kinds, outcomeInexact, outcomeAscii };
  codes = ERROR_CODES.split(',');
  eventErrors = new Set(EVENT_ERROR_CODES.split(','));
}
