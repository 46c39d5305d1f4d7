// Starting the package from the runtime entry's module or instance.

import { CryptoPayError } from './errors.mjs';
import { install } from './instance.mjs';

/**
 * Starts the package from a compiled module: instantiated synchronously (Workers and edge
 * runtimes forbid compiling at run time, and need no `instanceof WebAssembly.Module`), the
 * exports handed to the glue, the externref table set up by `__wbindgen_start`.
 */
export function startFromModule(bgGlue, wasmModule) {
  startFromInstance(bgGlue, new WebAssembly.Instance(wasmModule, { './cryptopay_verify_bg.js': bgGlue }));
}

/** Starts the package from an instance of the module. */
export function startFromInstance(bgGlue, instance) {
  bgGlue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  bgGlue.setErrorClass(CryptoPayError);
  install(bgGlue);
}
