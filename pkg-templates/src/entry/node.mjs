// Node, Bun and Deno (ESM): the wasm bytes are inlined, so nothing is read from disk and
// no permission is needed. Ready at import; init() is a no-op. node:crypto's HMAC (the CPU's
// SHA instructions) hashes the larger bodies: see api/host-mac.mjs.
import { Buffer } from 'node:buffer';
import { createHmac, createSecretKey } from 'node:crypto';
import * as glue from '../cryptopay_verify_bg.js';
import wasmBase64 from '../cryptopay_verify_bg.wasm.base64.mjs';
import { installHostMac } from '../api/host-mac.mjs';
import { startFromModule } from '../api/start.mjs';

startFromModule(glue, new WebAssembly.Module(Buffer.from(wasmBase64, 'base64')));
installHostMac({
  key: (secret) => createSecretKey(Buffer.from(secret, 'utf8')),
  tag: (key, timestamp, body) => createHmac('sha256', key).update(timestamp).update('.').update(body).digest(),
}, 1280);

export * from '../public.mjs';
export async function init() {}
