// The host's HMAC-SHA256 (OpenSSL or BoringSSL: the CPU's SHA instructions), as the node
// entry installs it for Node, Bun and Deno, and the workerd entry for a Worker with
// nodejs_compat (see host-mac.mjs). A module of its own so that the differential test
// (tests/differential) installs exactly this into the unbundled layer. It imports no `node:`
// module: a Worker without nodejs_compat has none.
//
// node:crypto is loaded at the first body large enough to need it, not at import: loading it
// costs a fresh Node process about 2-3 ms (bench/limits.md, cold start), which a receiver of
// small deliveries never needs to pay. `process.getBuiltinModule` loads it synchronously
// (Node 20.16 and later, Bun, Deno, workerd with nodejs_compat); where it is missing,
// WebAssembly hashes every body.
import { installHostMac } from './host-mac.mjs';

let crypto = null;
const nodeCrypto = () => (crypto ??= globalThis.process.getBuiltinModule('node:crypto'));
// A secret's UTF-8 bytes (the package refuses a secret holding a lone surrogate before here).
const utf8 = new TextEncoder();

/**
 * The host HMAC of node:crypto: a KeyObject per secret, one `createHmac` per tag. The
 * timestamp and its period go in one update: measured, a call into node:crypto less saves
 * about 0.3 us per tag (a 16 KiB body takes about 12 us).
 */
export const nodeMac = {
  key: (secret) => nodeCrypto().createSecretKey(utf8.encode(secret)),
  tag: (key, timestamp, body) => nodeCrypto().createHmac('sha256', key).update(`${timestamp}.`).update(body).digest(),
};

/**
 * Bun's own HMAC: a `Bun.CryptoHasher` keyed once per secret, copied for each tag (the keyed
 * state is not set up again, as `createHmac` does on every call). In Bun this costs less than
 * the WebAssembly HMAC at every body size measured, and less than `createHmac`.
 */
export const bunMac = {
  key: (secret) => new globalThis.Bun.CryptoHasher('sha256', utf8.encode(secret)),
  tag: (key, timestamp, body) => {
    // One update for the timestamp and its period: a call into Bun less (about 25 ns).
    const hasher = key.copy();
    hasher.update(`${timestamp}.`);
    hasher.update(body);
    return hasher.digest();
  },
};

// HMAC-SHA256 with the key "k" over "0." and one zero byte (node:crypto's createHmac).
const KNOWN_TAG = 'fff7662ca919ed9ce7c036d51dcc2a2529c706b1ebcc7d9b93a5a89efeb11223';

// Whether this Bun keys a CryptoHasher with HMAC and copies it (asked once, in Bun only): the
// known tag, not only its length, since a Bun before 1.1.30 takes the key argument and
// ignores it, answering a plain SHA-256 that anyone could compute without the secret.
function bunHasKeyedCopy() {
  try {
    const tag = bunMac.tag(bunMac.key('k'), '0', new Uint8Array(1));
    return tag instanceof Uint8Array && tag.length === 32
      && Array.from(tag, (byte) => byte.toString(16).padStart(2, '0')).join('') === KNOWN_TAG;
  } catch {
    return false;
  }
}

/**
 * The HMAC the node and workerd entries install in this runtime, and the body size from
 * which it hashes (smaller bodies stay in WebAssembly, where no per-call setup is paid).
 * Measured per runtime (the same Verifier with either path forced, alternated in one
 * process; bench/limits.md): Node's `createHmac` overtakes the WebAssembly HMAC at about
 * 1280 B; Bun's keyed copy at every size (its `createHmac`, cheap there, at about 300 B);
 * Deno's `createHmac` (about 5-6 us to set up) at about 3.5 KiB; in a Worker with
 * nodejs_compat (about 3 us to set up, measured in workerd through Miniflare) at about 2.4
 * KiB. Where `process.getBuiltinModule` is missing (Node before 20.16, a Worker without
 * nodejs_compat, edge runtimes, browsers), none: WebAssembly hashes every body.
 */
export function runtimeMac() {
  if (typeof globalThis.Bun?.CryptoHasher === 'function' && bunHasKeyedCopy()) {
    return { mac: bunMac, minBodyBytes: 0 };
  }
  if (typeof globalThis.process?.getBuiltinModule !== 'function') return { mac: nodeMac, minBodyBytes: Infinity };
  if (globalThis.navigator?.userAgent === 'Cloudflare-Workers') return { mac: nodeMac, minBodyBytes: 2560 };
  if (typeof globalThis.Bun !== 'undefined') return { mac: nodeMac, minBodyBytes: 320 };
  return { mac: nodeMac, minBodyBytes: typeof globalThis.Deno !== 'undefined' ? 4096 : 1280 };
}

/** Installs this runtime's HMAC (the node and workerd entries, at start); answers what it installed. */
export function installRuntimeMac() {
  const chosen = runtimeMac();
  installHostMac(chosen.mac, chosen.minBodyBytes);
  return chosen;
}
