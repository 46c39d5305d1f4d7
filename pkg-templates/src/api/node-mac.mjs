// node:crypto's HMAC-SHA256 (OpenSSL or BoringSSL: the CPU's SHA instructions), as the node
// entry installs it for Node, Bun and Deno (see host-mac.mjs). A module of its own so that the
// differential test (tests/differential) installs exactly this into the unbundled layer.
//
// node:crypto is loaded at the first body large enough to need it, not at import: loading it
// costs a fresh Node process about 2-3 ms (bench/limits.md, cold start), which a receiver of
// small deliveries never needs to pay. `process.getBuiltinModule` loads it synchronously
// (Node 20.16 and later, Bun, Deno); where it is missing, WebAssembly hashes every body.
import { Buffer } from 'node:buffer';

let crypto = null;
const nodeCrypto = () => (crypto ??= globalThis.process.getBuiltinModule('node:crypto'));

/** The host HMAC of node:crypto: a KeyObject per secret, one `createHmac` per tag. */
export const nodeMac = {
  key: (secret) => nodeCrypto().createSecretKey(Buffer.from(secret, 'utf8')),
  tag: (key, timestamp, body) => nodeCrypto().createHmac('sha256', key).update(timestamp).update('.').update(body).digest(),
};

/**
 * Bodies of at least this many bytes are hashed by node:crypto; smaller ones stay in
 * WebAssembly, where no per-call setup is paid. Where the two cross differs by runtime
 * (measured here, the same Verifier with either path forced, alternated in one process;
 * bench/limits.md): Node about 1280 B, Bun (JavaScriptCore runs the WebAssembly slower, its
 * createHmac is cheap) about 300 B, Deno (about 5-6 us to set up a createHmac) about 3.5 KiB.
 */
export const NODE_MIN_BODY_BYTES = typeof globalThis.process?.getBuiltinModule !== 'function' ? Infinity
  : typeof globalThis.Bun !== 'undefined' ? 320
    : typeof globalThis.Deno !== 'undefined' ? 4096 : 1280;
