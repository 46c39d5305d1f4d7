// Node, Bun and Deno (ESM): the wasm bytes are inlined, so nothing is read from disk and
// no permission is needed. Ready at import; init() is a no-op.
import { Buffer } from 'node:buffer';
import * as glue from '../cryptopay_verify_bg.js';
import wasmBase64 from '../cryptopay_verify_bg.wasm.base64.mjs';
import { startFromModule } from '../api/start.mjs';

startFromModule(glue, new WebAssembly.Module(Buffer.from(wasmBase64, 'base64')));

export * from '../public.mjs';
export async function init() {}
