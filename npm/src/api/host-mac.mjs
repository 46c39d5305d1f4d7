// The host's own HMAC-SHA256, where the runtime has one that uses the CPU's SHA instructions
// (node:crypto in Node, Deno and a Worker with nodejs_compat, Bun's CryptoHasher in Bun;
// WebAssembly has none: see node-mac.mjs). The node and workerd entries install it; the
// others (edge runtimes, browsers) keep the WebAssembly HMAC, whose answers it equals
// (tests/differential runs every case through both).
//
// Only the HMAC moves: the core still reads the headers (a malformed one is reported with its
// own code), compares the tags with the signature's candidates in constant time, applies the
// rotation and the skew, and decides. The tags are computed before the core is called (one
// call into wasm, the tags among its arguments): a delivery whose headers are present but
// malformed is hashed before it is refused, as a forged one with well-formed headers is.
// Below `minBodyBytes` the WebAssembly HMAC is faster than node:crypto's per-call setup, so
// small deliveries stay in WebAssembly (in Bun there is no such size: node-mac.mjs;
// bench/limits.md has the measurements).

/**
 * The installed host HMAC: `key(secret)` makes a key, `tag(key, timestamp, body)` a tag, or
 * with `inner` the tag's inner hash (the core finishes it with the secret's outer state: one
 * SHA-256 compression); it hashes bodies of `minBodyBytes` or more (the keys are made once
 * per keyed set).
 */
export const hostMac = { key: null, tag: null, inner: false, forget: null, minBodyBytes: Infinity, deferBytes: 0 };

/**
 * Installs the runtime's HMAC (see node entry). `deferBytes`: how many bytes of the bodies it
 * would hash the WebAssembly HMAC hashes first (see `hostHashes`).
 */
export function installHostMac({ key, tag, inner = false, forget = null }, minBodyBytes, deferBytes = 0) {
  hostMac.key = key;
  hostMac.tag = tag;
  hostMac.inner = inner;
  hostMac.forget = forget;
  hostMac.minBodyBytes = minBodyBytes;
  hostMac.deferBytes = deferBytes;
}

/**
 * Whether the host hashes a body of `size` bytes (at least `minBodyBytes`). Loading the
 * host's hash can cost more than hashing many bodies in WebAssembly (node:crypto: about 3 ms
 * in a fresh Node 20, 23 ms in Deno), and a process may never receive enough deliveries to
 * earn it back: so the WebAssembly HMAC hashes the first `deferBytes` of such bodies (about
 * what it costs over the host's hash to pay for the load once; a rent-or-buy choice never
 * more than twice the cost of the better of the two), and the host every body after.
 */
export function hostHashes(size) {
  if (hostMac.deferBytes <= 0) return true;
  hostMac.deferBytes -= size;
  return false;
}

/**
 * The host keys of a secret list, or null where there is no host HMAC or the list cannot key
 * one (an empty list or secret: the core reports it in its place).
 */
export function hostKeys(list) {
  if (hostMac.key === null || list.length === 0 || list.some((secret) => secret.length === 0)) return null;
  return list.map((secret) => hostMac.key(secret));
}

/**
 * Wipes what host keys hold of their secrets where the host HMAC can (`forget`: node:crypto's
 * inner pad blocks; a hash state or a CryptoHasher cannot be wiped): when their Verifier is
 * freed, or their one-shot set evicted. `keys`: what `hostKeys` made, or null or undefined.
 */
export function forgetHostKeys(keys) {
  if (!Array.isArray(keys) || typeof hostMac.forget !== 'function') return;
  for (const key of keys) hostMac.forget(key);
}

/** One tag (or inner hash) per key, in order, over `timestamp`, `.` and the body: 32 bytes each. */
export function hostTags(keys, timestamp, bytes) {
  if (keys.length === 1) return hostMac.tag(keys[0], timestamp, bytes);
  const out = new Uint8Array(32 * keys.length);
  keys.forEach((key, i) => out.set(hostMac.tag(key, timestamp, bytes), 32 * i));
  return out;
}
