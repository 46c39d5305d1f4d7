// The host's HMAC-SHA256 (OpenSSL or BoringSSL: the CPU's SHA instructions), or its inner
// hash, as the node entry installs it for Node, Bun and Deno, and the workerd entry for a
// Worker with nodejs_compat (see host-mac.mjs). A module of its own so that the differential
// test (tests/differential) installs exactly this into the unbundled layer. It imports no
// `node:` module: a Worker without nodejs_compat has none.
//
// node:crypto is loaded when the host first hashes a body, not at import: loading it costs a
// fresh Node process about 3 ms (bench/limits.md, cold start), which a receiver of small
// deliveries never needs to pay, nor one of a few larger ones (runtimeMac's deferBytes).
// `process.getBuiltinModule` loads it synchronously (Node 20.16 and later, Bun, Deno, workerd
// with nodejs_compat); where it is missing, WebAssembly hashes every body.
import { installHostMac } from './host-mac.mjs';

let crypto = null;
// Whether node:crypto's one-shot `hash` answers SHA-256 as bytes (asked once, when it loads).
let oneShot = false;
const nodeCrypto = () => {
  if (crypto === null) {
    crypto = globalThis.process.getBuiltinModule('node:crypto');
    oneShot = typeof globalThis.Buffer?.prototype?.utf8Write === 'function' && hashesOnce(crypto);
  }
  return crypto;
};
// A secret's UTF-8 bytes (the package refuses a secret holding a lone surrogate before here).
const utf8 = new TextEncoder();

// HMAC's inner pad (RFC 2104): a key longer than SHA-256's 64-byte block is hashed first,
// then zero-padded to the block and XORed byte by byte with 0x36.
const BLOCK = 64;
const IPAD = 0x36;

// SHA-256 of "abc" (FIPS 180-2's first example).
const ABC_SHA256 = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

const hex = (bytes) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

// Whether `crypto.hash(algorithm, data, 'buffer')` (Node 20.12 and 21.7 and later) is there
// and answers SHA-256's bytes: the known answer, not only the length.
function hashesOnce(crypto) {
  try {
    const digest = crypto.hash?.('sha256', utf8.encode('abc'), 'buffer');
    return digest instanceof Uint8Array && digest.length === 32 && hex(digest) === ABC_SHA256;
  } catch {
    return false;
  }
}

/**
 * A secret's inner key: a SHA-256 state that has absorbed the secret's inner pad block and,
 * with `keepPad`, that block itself (the secret's, as the state is: wiped by `forget`).
 */
function innerKey(secret, keepPad) {
  const crypto = nodeCrypto();
  const bytes = utf8.encode(secret);
  const key = bytes.length > BLOCK ? crypto.createHash('sha256').update(bytes).digest() : bytes;
  const pad = new Uint8Array(BLOCK).fill(IPAD);
  key.forEach((byte, i) => { pad[i] ^= byte; });
  const hash = crypto.createHash('sha256').update(pad);
  // The key's bytes are the secret's: not left in memory once hashed; nor the pad, unless kept.
  key.fill(0);
  bytes.fill(0);
  if (!keepPad) pad.fill(0);
  return { hash, pad: keepPad ? pad : null };
}

// The state's copy: the inner hash of the timestamp, its period and the body.
const copiedInner = (key, timestamp, body) => key.hash.copy().update(`${timestamp}.`).update(body).digest();

// A key's wiping: the pad it keeps (nodeHashMac's keys do; nodeMac's keep none).
const forget = (key) => key.pad?.fill(0);

/**
 * The host hash of node:crypto: per secret a SHA-256 state that has absorbed the secret's
 * inner pad block, copied for each tag (`Hash.copy()`) to hash the timestamp, its period and
 * the body; the core finishes the tag with the secret's outer state (one compression in
 * WebAssembly). Measured in Node 20 (bench/limits.md): a `createHmac` with a KeyObject sets
 * up the HMAC again on every tag (3.65 us at 1 KiB), the copy does not (2.56 us). The
 * timestamp and its period go in one update: a call into node:crypto less saves about 0.3 us.
 * Installed in Deno, in a Bun whose CryptoHasher cannot copy a keyed HMAC, and in a Worker
 * with nodejs_compat.
 */
export const nodeMac = {
  inner: true,
  key: (secret) => innerKey(secret, false),
  tag: copiedInner,
};

// Bodies below this many bytes are hashed by `hash` in Node (see nodeHashMac).
const ONE_SHOT_BELOW = 4096;
// Room for a timestamp of at most ONE_SHOT_TIMESTAMP UTF-16 units in UTF-8, and its period (a
// longer one, never well-formed, is hashed from the copy).
const ONE_SHOT_TIMESTAMP = 32;
const TIMESTAMP_ROOM = 3 * ONE_SHOT_TIMESTAMP + 1;
// The inner pad block, the timestamp and its period, and the body, in one buffer for `hash`.
let scratch = null;
const ZERO_BLOCK = new Uint8Array(BLOCK);

/**
 * Node's: as `nodeMac`, but a body below 4 KiB is hashed by node:crypto's one-shot `hash`
 * over the secret's inner pad block, the timestamp, its period and the body written into one
 * buffer (its pad block wiped after each hash). Measured in Node 20, 22 and 26: `Hash.copy()`
 * and its two updates cost about 0.3 us more than `hash` over the copied bytes (2.32 against
 * 1.99 us at 1 KiB, 1.99 against 1.70 at 512 B, Node 20), which copying the body pays back
 * from about 4 KiB (0.98 of the time at 4 KiB, 1.02-1.03 at 16 and 32 KiB). Deno's `hash`
 * costs more than its copy (4.8 against 3.5 us at 1 KiB): Deno keeps `nodeMac`. Where `hash`
 * or Buffer's `utf8Write` is missing, the copy hashes every body.
 */
export const nodeHashMac = {
  inner: true,
  key: (secret) => innerKey(secret, true),
  tag: (key, timestamp, body) => {
    if (!oneShot || body.length >= ONE_SHOT_BELOW || timestamp.length > ONE_SHOT_TIMESTAMP) {
      return copiedInner(key, timestamp, body);
    }
    scratch ??= Buffer.alloc(BLOCK + TIMESTAMP_ROOM + ONE_SHOT_BELOW);
    scratch.set(key.pad, 0);
    const dot = BLOCK + scratch.utf8Write(timestamp, BLOCK);
    scratch[dot] = 0x2e; // '.'
    scratch.set(body, dot + 1);
    try {
      return crypto.hash('sha256', scratch.subarray(0, dot + 1 + body.length), 'buffer');
    } finally {
      // A TypedArray copy, cheaper than Buffer's fill (a call into Node).
      scratch.set(ZERO_BLOCK, 0);
    }
  },
  forget,
};

/**
 * Bun's own HMAC: a `Bun.CryptoHasher` keyed once per secret, copied for each tag (the keyed
 * state is not set up again, as `createHmac` does on every call). In Bun this costs less than
 * the WebAssembly HMAC at every body size measured, and less than `createHmac`.
 */
export const bunMac = {
  key: (secret) => {
    // The secret's bytes wiped once the hasher holds its keyed state, as the other keys' are.
    const bytes = utf8.encode(secret);
    try {
      return new globalThis.Bun.CryptoHasher('sha256', bytes);
    } finally {
      bytes.fill(0);
    }
  },
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
      && hex(tag) === KNOWN_TAG;
  } catch {
    return false;
  }
}

const MIB = 1024 * 1024;

/**
 * The HMAC the node and workerd entries install in this runtime, the body size from which it
 * hashes (smaller bodies stay in WebAssembly, where no per-call setup is paid), and how many
 * bytes of such bodies WebAssembly hashes before it (see `hostHashes` in host-mac.mjs).
 * Measured per runtime (the same Verifier with either path forced, alternated in one
 * process; bench/crossover.mjs, bench/limits.md): node:crypto's inner hash overtakes the
 * WebAssembly HMAC at about 512 B in Node 20, 22 and 26 with `hash` (768 B from a copied
 * state, 1280 B with `createHmac`) and between 1 and 1.25 KiB
 * in Deno (`createHmac`: about 3.5 KiB); Bun's keyed copy at every size (its `createHmac`,
 * cheap there, at about 300 B); in a Worker with nodejs_compat (measured in workerd through
 * Miniflare) between 1 and 1.5 KiB (`createHmac`, about 3 us to set up there: 2.4 KiB).
 * Loading node:crypto (`process.getBuiltinModule`) costs a fresh Node 20 about 3 ms, Deno
 * 23 ms, Bun 7 ms; the host's hash saves about 1-2 ns a byte: so Node defers it for its
 * first 2 MiB of such bodies, Deno 16 MiB, a Bun without the keyed copy 4 MiB (Bun's
 * CryptoHasher and a Worker's node:crypto are there from the start). Where
 * `process.getBuiltinModule` is missing (Node before 20.16, a Worker without nodejs_compat,
 * edge runtimes, browsers), none: WebAssembly hashes every body.
 */
export function runtimeMac() {
  if (typeof globalThis.Bun?.CryptoHasher === 'function' && bunHasKeyedCopy()) {
    return { mac: bunMac, minBodyBytes: 0, deferBytes: 0 };
  }
  if (typeof globalThis.process?.getBuiltinModule !== 'function') return { mac: nodeMac, minBodyBytes: Infinity, deferBytes: 0 };
  if (globalThis.navigator?.userAgent === 'Cloudflare-Workers') return { mac: nodeMac, minBodyBytes: 1280, deferBytes: 0 };
  if (typeof globalThis.Bun !== 'undefined') return { mac: nodeMac, minBodyBytes: 320, deferBytes: 4 * MIB };
  if (typeof globalThis.Deno !== 'undefined') return { mac: nodeMac, minBodyBytes: 1280, deferBytes: 16 * MIB };
  return { mac: nodeHashMac, minBodyBytes: 512, deferBytes: 2 * MIB };
}

/** Installs this runtime's HMAC (the node and workerd entries, at start); answers what it installed. */
export function installRuntimeMac() {
  const chosen = runtimeMac();
  installHostMac(chosen.mac, chosen.minBodyBytes, chosen.deferBytes);
  return chosen;
}
