// node:crypto's HMAC-SHA256 (OpenSSL: the CPU's SHA instructions), as the node entry installs
// it for Node, Bun and Deno (see host-mac.mjs). A module of its own so that the differential
// test (tests/differential) installs exactly this into the unbundled layer.
import { Buffer } from 'node:buffer';
import { createHmac, createSecretKey } from 'node:crypto';

/** The host HMAC of node:crypto: a KeyObject per secret, one `createHmac` per tag. */
export const nodeMac = {
  key: (secret) => createSecretKey(Buffer.from(secret, 'utf8')),
  tag: (key, timestamp, body) => createHmac('sha256', key).update(timestamp).update('.').update(body).digest(),
};

/**
 * Bodies of at least this many bytes are hashed by node:crypto; smaller ones stay in
 * WebAssembly, where no per-call setup is paid (bench/limits.md: where the two cross).
 */
export const NODE_MIN_BODY_BYTES = 1280;
