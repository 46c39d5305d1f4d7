// Node, Bun and Deno (ESM): the wasm bytes are inlined, so nothing is read from disk and
// no permission is needed. Ready at import; init() is a no-op. The runtime's HMAC (the CPU's
// SHA instructions: node:crypto, or Bun's CryptoHasher) hashes the larger bodies (in Bun, all):
// see api/host-mac.mjs and api/node-mac.mjs. Buffer decodes an event of ASCII (api/event.mjs).
// The build bundles this entry and what it imports into one module (scripts/build-pkg.mjs).
import * as glue from '../cryptopay_verify_bg.js';
import wasmBase64 from '../cryptopay_verify_bg.wasm.base64.mjs';
import { installLatin1Text } from '../api/event.mjs';
import { installRuntimeMac } from '../api/node-mac.mjs';
import { startFromModule } from '../api/start.mjs';

// The global Buffer (Node, Bun, and Deno for npm packages) rather than an import of
// node:buffer: measured, the import alone cost a fresh Node about 0.4 ms. atob elsewhere.
const bytes = typeof globalThis.Buffer === 'function'
  ? globalThis.Buffer.from(wasmBase64, 'base64')
  : Uint8Array.from(atob(wasmBase64), (c) => c.charCodeAt(0));
startFromModule(glue, new WebAssembly.Module(bytes), 'node');
installRuntimeMac();
installLatin1Text();

export * from '../public.mjs';
export async function init() {}
