// Browsers and bundlers: the .wasm is fetched next to this file (or from what is passed to
// init), so call `await init()` once before the first call.
import * as glue from '../cryptopay_verify_bg.js';
import { startFromInstance } from '../api.mjs';

export * from '../public.mjs';

let loading = null;

/**
 * Loads the WebAssembly module. Idempotent. `input` may be a URL, a string, a Response, a
 * Promise of a Response, bytes, or a compiled WebAssembly.Module; by default the .wasm file
 * next to the package's files.
 */
export function init(input) {
  loading ??= load(input ?? new URL('../cryptopay_verify_bg.wasm', import.meta.url)).catch((error) => {
    loading = null; // let a later call try again
    throw error;
  });
  return loading;
}

async function load(input) {
  const imports = { './cryptopay_verify_bg.js': glue };
  let source = await input;
  if (typeof source === 'string' || source instanceof URL) source = await fetch(source);
  let instance;
  if (source instanceof WebAssembly.Module) {
    instance = await WebAssembly.instantiate(source, imports);
  } else if (typeof Response === 'function' && source instanceof Response) {
    const streaming = typeof WebAssembly.instantiateStreaming === 'function'
      && source.headers.get('content-type')?.startsWith('application/wasm');
    instance = streaming
      ? (await WebAssembly.instantiateStreaming(source, imports)).instance
      : (await WebAssembly.instantiate(await source.arrayBuffer(), imports)).instance;
  } else {
    instance = (await WebAssembly.instantiate(source, imports)).instance;
  }
  startFromInstance(glue, instance);
}
