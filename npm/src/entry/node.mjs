// Node, Bun and Deno (ESM): the wasm bytes are inlined, so nothing is read from disk and
// no permission is needed. Ready at import; init() is a no-op. The runtime's HMAC (the CPU's
// SHA instructions: node:crypto, or Bun's CryptoHasher) hashes the larger bodies (in Bun, all):
// see api/host-mac.mjs and api/node-mac.mjs.
// The build bundles this entry and what it imports into one module (scripts/build-pkg.mjs).
import { Buffer } from 'node:buffer';
import * as glue from '../cryptopay_verify_bg.js';
import wasmBase64 from '../cryptopay_verify_bg.wasm.base64.mjs';
import { installRuntimeMac } from '../api/node-mac.mjs';
import { startFromModule } from '../api/start.mjs';

startFromModule(glue, new WebAssembly.Module(Buffer.from(wasmBase64, 'base64')));
installRuntimeMac();

export * from '../public.mjs';
export async function init() {}
