// Vercel / Next.js edge runtime: `?module` makes the bundler hand over a compiled
// WebAssembly.Module; compiling from bytes at run time is forbidden there.
import wasmModule from '../cryptopay_verify_bg.wasm?module';
import * as glue from '../cryptopay_verify_bg.js';
import { startFromModule } from '../api/start.mjs';

startFromModule(glue, wasmModule, 'edge-light');

export * from '../public.mjs';
export async function init() {}
