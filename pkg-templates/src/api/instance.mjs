// The started WebAssembly instance: the wasm-bindgen glue, and what the core tells
// JavaScript (its limits and names, its error codes: asked of the core when the package is
// built, in core-tables.mjs, which scripts/build-pkg.mjs writes). Set by start.mjs; read by
// the other modules through these live bindings.

import { CODES, LIMITS } from './core-tables.mjs';

/** The glue of the started instance, or null before start. */
export let glue = null;
/** The core's limits and names: see `constants()` in src/wasm/mod.rs. */
export let limits = null;
/** Every error code, in the order the core numbers them. */
export let codes = [];

/** Called once the instance has started. */
export function install(startedGlue) {
  glue = startedGlue;
  limits = LIMITS;
  codes = CODES;
}
