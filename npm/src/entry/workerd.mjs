// Cloudflare Workers (workerd): wrangler imports a .wasm file as a compiled
// WebAssembly.Module; compiling from bytes at run time is forbidden there. A Worker with
// nodejs_compat has node:crypto, whose HMAC (the CPU's SHA instructions) then hashes the
// larger bodies: see api/host-mac.mjs and api/node-mac.mjs.
import wasmModule from '../cryptopay_verify_bg.wasm';
import * as glue from '../cryptopay_verify_bg.js';
import { installRuntimeMac } from '../api/node-mac.mjs';
import { startFromModule } from '../api/start.mjs';

startFromModule(glue, wasmModule, 'workerd');
installRuntimeMac();

export * from '../public.mjs';
export async function init() {}
