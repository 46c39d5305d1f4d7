// Starting the package from the runtime entry's module or instance.

import { CryptoPayError } from './errors.mjs';
import { install } from './instance.mjs';

/**
 * Starts the package from a compiled module: instantiated synchronously (Workers and edge
 * runtimes forbid compiling at run time, and need no `instanceof WebAssembly.Module`), the
 * exports handed to the glue, the externref table set up by `__wbindgen_start`.
 */
export function startFromModule(bgGlue, wasmModule, entry) {
  // Another bundler's loader (esbuild's binary or file loader) under these conditions gives
  // bytes or a URL: said at import, with the build that fits, not as V8's TypeError.
  if (!isModule(wasmModule)) {
    const given = typeof wasmModule === 'string' ? 'a string (a URL or a path)'
      : isBytes(wasmModule) ? 'the bytes of the .wasm'
        : wasmModule === null ? 'null' : typeof wasmModule;
    throw new CryptoPayError('invalid_argument', `invalid_argument: the ${entry} build of cryptopay-verify imports its .wasm `
      + `as a compiled WebAssembly.Module, and the bundler gave it ${given}: ${ENTRY_FIX[entry] ?? ''}a Node server bundle `
      + "takes the package's `node` export condition instead (esbuild's platform: 'node' without --conditions), which needs no loader");
  }
  startFromInstance(bgGlue, new WebAssembly.Instance(wasmModule, { './cryptopay_verify_bg.js': bgGlue }));
}

// By tag rather than instanceof: a module or buffer of another realm (an edge runtime's loader) is one too.
const tag = (value) => Object.prototype.toString.call(value);
/** Whether `value` is a compiled WebAssembly.Module. */
export const isModule = (value) => tag(value) === '[object WebAssembly.Module]';
/** Whether `value` is bytes: an ArrayBuffer or a view of one. */
export const isBytes = (value) => ArrayBuffer.isView(value) || tag(value) === '[object ArrayBuffer]';

const ENTRY_FIX = {
  workerd: 'this build is for Cloudflare Workers, bundled by wrangler (whose .wasm rule compiles the module); ',
  'edge-light': 'this build is for an edge runtime whose bundler compiles a `?module` import (Next.js, Vercel); ',
};

/** Starts the package from an instance of the module. */
export function startFromInstance(bgGlue, instance) {
  bgGlue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  bgGlue.setErrorClass(CryptoPayError);
  install(bgGlue);
}
