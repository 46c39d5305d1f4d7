// Differential test of the INSTALLED package (its ESM entry; CONSUMER_DIR, default
// target/consumer) against Python's hmac and node:crypto (part a) and stripe-node (part b).
//
//   python3 tests/differential/generate.py target/differential
//   node tests/differential/run.mjs target/differential
//   bun tests/differential/run.mjs target/differential c    (part c only, Bun's HMAC)
//
// (a) For every case of cases.bin: node:crypto's HMAC equals Python's; signWebhook gives the
//     same tag; verifySignature accepts Python's tag (in one of four spellings: lowercase hex,
//     uppercase hex, base64, v1=hex) with the right timestamp; the tag with one bit flipped and
//     the body with one bit flipped are both signature_mismatch.
// (b) For every case of stripe.jsonl (valid UTF-8 bodies, canonical timestamps, skew within the
//     tolerance): stripe's verifyHeader and the package both accept `t=<ts>,v1=<hex>`; stripe's
//     generateTestHeaderString writes that very header; on JSON bodies stripe's constructEvent
//     and the package's verifyWebhook give the same parsed object; at now = ts + tolerance both
//     accept and one second later both reject; a tampered body both reject.
// (c) Every case of cases.bin through both HMAC paths of the node entry (the runtime's,
//     node:crypto or Bun's CryptoHasher, and the WebAssembly one, forced in turn): the same
//     answers, under four rotation sets.
// Ends with "N passed, M failed" (cases); exit status 1 when anything failed.

import { readFileSync } from 'node:fs';
import { createHash, createHmac } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { join, resolve } from 'node:path';
import Stripe from 'stripe';
import { pathToFileURL } from 'node:url';
import { esm as api, packageDir } from '../js/package-under-test.mjs';

const dir = resolve(process.argv[2] ?? join('target', 'differential'));
const started = Date.now();
// ignoreBOM: keep a leading U+FEFF: a random secret may start with the bytes EF BB BF.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// A small deterministic generator for the bit flips (seeded from the cases' seed).
function xorshift(seed) {
  let x = BigInt.asUintN(64, BigInt(seed) ^ 0x9e3779b97f4a7c15n) || 1n;
  return (n) => {
    x ^= x << 13n;
    x &= 0xffffffffffffffffn;
    x ^= x >> 7n;
    x ^= x << 17n;
    x &= 0xffffffffffffffffn;
    return Number(x % BigInt(n));
  };
}

function codeOf(fn) {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return error instanceof api.CryptoPayError ? error.code : `${error?.constructor?.name}: ${error?.message}`;
  }
}

const hex = (bytes) => Buffer.from(bytes).toString('hex');
const failures = [];
function fail(part, index, what, detail) {
  if (failures.length < 20) failures.push(`${part} case ${index}: ${what}${detail ? ` (${detail})` : ''}`);
}

// The checks of one case: check(condition, what, detail) records a failure and returns the
// condition; check.passed() says whether every check of the case held.
function caseChecks(part, index) {
  let ok = true;
  const check = (condition, what, detail) => {
    if (!condition) {
      ok = false;
      fail(part, index, what, detail);
    }
    return condition;
  };
  check.passed = () => ok;
  return check;
}

// ---------------------------------------------------------------------------------------
// (a) Python hmac, node:crypto and the package on arbitrary bytes

// The cases of cases.bin, in order: [index, case].
function* readCases(data) {
  if (data.subarray(0, 8).toString('latin1') !== 'CPVDIFF1') throw new Error(`${dir}/cases.bin: not a differential case file`);
  const count = data.readUInt32LE(8);
  let at = 20;
  for (let i = 0; i < count; i += 1) {
    const secretBytes = data.subarray(at + 1, at + 1 + data[at]);
    at += 1 + data[at];
    const ts = data.toString('latin1', at + 1, at + 1 + data[at]);
    at += 1 + data[at];
    const bodyLength = data.readUInt16LE(at);
    const body = new Uint8Array(data.buffer, data.byteOffset + at + 2, bodyLength);
    at += 2 + bodyLength;
    const nowSecs = Number(data.readBigUInt64LE(at));
    const maxSkewSecs = data.readUInt32LE(at + 8);
    const pyTag = data.subarray(at + 12, at + 44);
    at += 44;
    yield [i, { secretBytes, ts, body, nowSecs, maxSkewSecs, pyTag }];
  }
  if (at !== data.length) throw new Error(`cases.bin: ${data.length - at} bytes left over`);
}

function partA() {
  const data = readFileSync(join(dir, 'cases.bin'));
  const seed = data.readBigUInt64LE(12);
  const random = xorshift(seed);
  const tally = { cases: 0, passed: 0, nodeCrypto: 0, signWebhook: 0, accepted: 0, tagFlipRejected: 0, bodyFlipRejected: 0, bodyFlips: 0 };
  for (const [i, { secretBytes, ts, body, nowSecs, maxSkewSecs, pyTag }] of readCases(data)) {
    tally.cases += 1;
    const check = caseChecks('(a)', i);
    const secret = utf8.decode(secretBytes); // valid UTF-8 by construction
    const nodeTag = createHmac('sha256', secretBytes).update(`${ts}.`, 'latin1').update(body).digest();
    if (check(nodeTag.equals(pyTag), 'node:crypto HMAC differs from Python', `secret ${hex(secretBytes)} ts ${ts}`)) tally.nodeCrypto += 1;

    let signed;
    try {
      signed = api.signWebhook({ secret, timestamp: ts, body });
    } catch (error) {
      signed = `${error.code}`;
    }
    if (check(signed === hex(pyTag), 'signWebhook differs from Python', `got ${signed}`)) tally.signWebhook += 1;

    const spellings = [hex(pyTag), hex(pyTag).toUpperCase(), Buffer.from(pyTag).toString('base64'), `v1=${hex(pyTag)}`];
    const input = { body, timestamp: ts, signature: spellings[i % 4], secrets: secret, nowSecs, maxSkewSecs };
    let verified;
    try {
      verified = api.verifySignature(input);
    } catch (error) {
      verified = error;
    }
    if (check(verified?.matchedSecret === 'active' && verified.timestamp === Number(ts), 'verifySignature refused Python\'s tag',
      verified instanceof Error ? verified.code ?? verified.message : JSON.stringify(verified))) {
      tally.accepted += 1;
    }

    const flipped = Buffer.from(pyTag);
    const bit = random(256);
    flipped[bit >> 3] ^= 1 << (bit & 7);
    const tagCode = codeOf(() => api.verifySignature({ ...input, signature: hex(flipped) }));
    if (check(tagCode === 'signature_mismatch', 'a tag with one bit flipped was not signature_mismatch', `bit ${bit}: ${tagCode}`)) {
      tally.tagFlipRejected += 1;
    }

    if (body.length > 0) {
      tally.bodyFlips += 1;
      const tampered = Uint8Array.from(body);
      const bodyBit = random(body.length * 8);
      tampered[bodyBit >> 3] ^= 1 << (bodyBit & 7);
      const bodyCode = codeOf(() => api.verifySignature({ ...input, body: tampered }));
      if (check(bodyCode === 'signature_mismatch', 'a body with one bit flipped was not signature_mismatch', `bit ${bodyBit}: ${bodyCode}`)) {
        tally.bodyFlipRejected += 1;
      }
    }
    if (check.passed()) tally.passed += 1;
  }
  return { ...tally, seed };
}

// ---------------------------------------------------------------------------------------
// (b) stripe-node as an oracle on its agreed subset

function partB() {
  const stripe = new Stripe('sk_test_differential_not_a_key');
  const lines = readFileSync(join(dir, 'stripe.jsonl'), 'utf8').split('\n').filter(Boolean);
  const tally = { cases: 0, passed: 0, bothAccept: 0, sameHeader: 0, sameTag: 0, sameEvent: 0, jsonCases: 0, boundary: 0, tamperedBothReject: 0 };
  const stripeAccepts = (body, header, secret, tol, now) => {
    try {
      return stripe.webhooks.signature.verifyHeader(body, header, secret, tol, undefined, now * 1000) === true;
    } catch (error) {
      if (error?.type === 'StripeSignatureVerificationError') return false;
      throw error;
    }
  };
  lines.forEach((line, i) => {
    const c = JSON.parse(line);
    tally.cases += 1;
    const check = caseChecks('(b)', i);
    const header = `t=${c.ts},v1=${c.mac}`;
    const input = { body: c.body, timestamp: c.ts, signature: header, secrets: c.secret, nowSecs: c.now, maxSkewSecs: c.tol };
    const ours = codeOf(() => api.verifySignature(input));
    const theirs = stripeAccepts(c.body, header, c.secret, c.tol, c.now);
    if (check(ours === 'ok' && theirs, 'not both accepted', `package ${ours}, stripe ${theirs}`)) tally.bothAccept += 1;

    const generated = stripe.webhooks.generateTestHeaderString({ payload: c.body, secret: c.secret, timestamp: Number(c.ts) });
    if (check(generated === header, 'stripe writes another header than Python', generated)) tally.sameHeader += 1;
    const signed = codeOf(() => {
      if (api.signWebhook({ secret: c.secret, timestamp: c.ts, body: c.body }) !== c.mac) throw new Error('differs');
    });
    if (check(signed === 'ok', 'signWebhook differs from Python and stripe', signed)) tally.sameTag += 1;

    if (c.json) {
      tally.jsonCases += 1;
      let theirEvent;
      let ourEvent;
      try {
        theirEvent = stripe.webhooks.constructEvent(c.body, header, c.secret, c.tol, undefined, c.now * 1000);
        ourEvent = api.verifyWebhook(input).event.envelope;
      } catch (error) {
        theirEvent = error;
      }
      if (check(isDeepStrictEqual(ourEvent, theirEvent), 'constructEvent and verifyWebhook disagree on the event')) tally.sameEvent += 1;
    }

    // The past-side boundary: at ts + tol both accept, one second later both reject.
    const edge = Number(c.ts) + c.tol;
    const atEdge = codeOf(() => api.verifySignature({ ...input, nowSecs: edge }));
    const pastEdge = codeOf(() => api.verifySignature({ ...input, nowSecs: edge + 1 }));
    if (check(atEdge === 'ok' && stripeAccepts(c.body, header, c.secret, c.tol, edge)
      && pastEdge === 'timestamp_too_old' && !stripeAccepts(c.body, header, c.secret, c.tol, edge + 1),
    'disagreement at the tolerance boundary', `package ${atEdge}/${pastEdge}`)) tally.boundary += 1;

    // A tampered body: one character changed (still valid UTF-8).
    const chars = [...c.body];
    const k = i % chars.length;
    chars[k] = chars[k] === 'a' ? 'b' : 'a';
    const tampered = chars.join('');
    const oursTampered = codeOf(() => api.verifySignature({ ...input, body: tampered }));
    const theirsTampered = stripeAccepts(tampered, header, c.secret, c.tol, c.now);
    if (check(oursTampered === 'signature_mismatch' && !theirsTampered, 'a tampered body was not rejected by both',
      `package ${oursTampered}, stripe ${theirsTampered}`)) tally.tamperedBothReject += 1;
    if (check.passed()) tally.passed += 1;
  });
  return tally;
}

// ---------------------------------------------------------------------------------------
// (c) The two HMAC paths of the node entry: the runtime's (hardware SHA, bodies of
//     hostMac.minBodyBytes or more: node:crypto, or Bun's CryptoHasher) and the WebAssembly
//     one, forced in turn on every case of cases.bin, give the same answer: Python's tag
//     accepted with the same kind, one bit flipped in the tag or the body refused with the
//     same code and message, under a rotation set whose matching entry is active, pending,
//     retiring within its overlap or retiring past it.

async function partC() {
  // The shipped node entry is one bundled module, so its switch cannot be reached from here:
  // the same three steps it takes (instantiate, install the runtime's HMAC at the same
  // threshold, re-export the layer) are taken on the package's unbundled modules.
  const dist = join(packageDir, 'dist');
  const load = (file) => import(pathToFileURL(join(dist, file)).href);
  const glue = await load('cryptopay_verify_bg.js');
  const { startFromModule } = await load('api/start.mjs');
  const { forgetHostKeys, hostMac, installHostMac } = await load('api/host-mac.mjs');
  const { installRuntimeMac, nodeHashMac, nodeMac: nodeMacOf } = await load('api/node-mac.mjs');
  const api = await load('public.mjs');
  startFromModule(glue, new WebAssembly.Module(readFileSync(join(dist, 'cryptopay_verify_bg.wasm'))));
  const { mac: hostHmac, deferBytes } = installRuntimeMac();
  const threshold = hostMac.minBodyBytes;
  // The host hashes from the first body these cases force onto it.
  hostMac.deferBytes = 0;
  const data = readFileSync(join(dir, 'cases.bin'));
  const tally = { cases: 0, passed: 0, sameAnswers: 0, pythonAgrees: 0, faults: 0, faultsRefused: 0 };
  const answer = (fn) => {
    try {
      const r = fn();
      return `ok ${r.matchedSecret} ${r.timestamp}${r.event ? ` ${r.event.eventId}` : ''}`;
    } catch (error) {
      return error instanceof api.CryptoPayError ? `${error.code}: ${error.message}` : `${error?.constructor?.name}: ${error?.message}`;
    }
  };
  try {
    for (const [i, { secretBytes, ts, body, nowSecs, maxSkewSecs, pyTag }] of readCases(data)) {
      tally.cases += 1;
      const check = caseChecks('(c)', i);
      const secret = utf8.decode(secretBytes);
      const other = `other-${i}`;
      // Where Python's secret sits in the set, and what the answer must be.
      // (A retiring entry past its bound needs nowSecs >= 1; at 0 the case keeps one inside it.)
      const variant = i % 4 === 3 && nowSecs === 0 ? 2 : i % 4;
      const secrets = [
        [{ secret, kind: 'active' }],
        [{ secret: other, kind: 'active' }, { secret, kind: 'pending' }],
        [{ secret: other, kind: 'active' }, { secret, kind: 'retiring', acceptUntilSecs: nowSecs }],
        [{ secret: other, kind: 'active' }, { secret, kind: 'retiring', acceptUntilSecs: Math.max(0, nowSecs - 1) }],
      ][variant];
      const expectedKind = ['active', 'pending', 'retiring', null][variant];
      const flipped = Buffer.from(pyTag);
      flipped[i % 32] ^= 1 << (i % 8);
      const tampered = Uint8Array.from(body);
      if (tampered.length > 0) tampered[i % tampered.length] ^= 1 << (i % 8);
      const verifier = new api.Verifier({ secrets, maxSkewSecs });
      const deliveries = [hex(pyTag), hex(flipped)].map((signature) => ({ body, timestamp: ts, signature, nowSecs }));
      deliveries.push({ body: tampered, timestamp: ts, signature: hex(pyTag), nowSecs });
      const both = (call) => {
        hostMac.minBodyBytes = 0;
        const host = answer(call);
        hostMac.minBodyBytes = Infinity;
        const wasm = answer(call);
        return [host, wasm];
      };
      let same = true;
      const answers = [];
      for (const delivery of deliveries) {
        for (const call of [() => verifier.verifySignature(delivery), () => verifier.verifyWebhook(delivery)]) {
          const [host, wasm] = both(call);
          same &&= check(host === wasm, 'the host and WebAssembly HMAC paths differ', `host ${host} | wasm ${wasm}`);
          answers.push(wasm);
        }
      }
      verifier.free();
      if (same) tally.sameAnswers += 1;
      const want = expectedKind === null ? 'signature_mismatch' : `ok ${expectedKind} ${Number(ts)}`;
      const python = answers[0].startsWith(want)
        && answers.slice(2, 4).every((a) => a.startsWith('signature_mismatch'))
        && (body.length === 0 || answers.slice(4).every((a) => a.startsWith('signature_mismatch')));
      const brief = answers.map((a) => a.split(':')[0]).join(' | ');
      if (check(python, 'an answer differs from what Python\'s tag implies', `want ${want}; got ${brief}`)) tally.pythonAgrees += 1;
      if (check.passed()) tally.passed += 1;
    }
    // A host HMAC that throws leaves the delivery to the WebAssembly HMAC (same answer); one
    // that answers other than 32 bytes per key is refused as invalid_argument. Either way
    // nothing is left behind: the next delivery verifies as before.
    const body = new Uint8Array(4096).fill(0x7b);
    const timestamp = '1700000000';
    const delivery = { body, timestamp, signature: api.signWebhook({ secret: 's', timestamp, body }), nowSecs: 1700000000 };
    const verifier = new api.Verifier({ secrets: 's', maxSkewSecs: 300 });
    const faults = [
      [() => { throw new Error('host failed'); }, `ok active ${timestamp}`],
      [() => new Uint8Array(31), "invalid_argument: invalid_argument: the host's tags are not 32 bytes each"],
      [() => 'not bytes', "invalid_argument: invalid_argument: the host's tags are not 32 bytes each"],
    ];
    for (const [i, [tag, want]] of faults.entries()) {
      tally.faults += 1;
      installHostMac({ key: hostHmac.key, tag }, 0);
      const got = answer(() => verifier.verifySignature(delivery));
      installHostMac(hostHmac, 0);
      const after = answer(() => verifier.verifySignature(delivery));
      const check = caseChecks('(c) faults', i);
      check(got.startsWith(want), 'a faulty host HMAC is not answered as it should be', got);
      check(after === `ok active ${timestamp}`, 'the instance does not verify after a faulty host HMAC', after);
      if (check.passed()) tally.faultsRefused += 1;
    }
    verifier.free();
    // The first deferBytes of the bodies the host would hash are hashed in WebAssembly (a body
    // below the threshold counts for nothing), every one after by the host.
    let hashed = 0;
    installHostMac({ key: hostHmac.key, tag: (...args) => { hashed += 1; return hostHmac.tag(...args); }, inner: hostHmac.inner }, 1024, 3000);
    const deferring = new api.Verifier({ secrets: 's', maxSkewSecs: 300 });
    const sized = (size) => {
      const bytes = new Uint8Array(size).fill(0x7b);
      return { body: bytes, timestamp, signature: api.signWebhook({ secret: 's', timestamp, body: bytes }), nowSecs: 1700000000 };
    };
    const counts = [sized(1023), sized(1024), sized(1024), sized(1024), sized(1024), sized(1023)].map((d) => {
      const got = answer(() => deferring.verifySignature(d));
      return got === `ok active ${timestamp}` ? hashed : got;
    });
    deferring.free();
    tally.deferred = caseChecks('(c) deferral', 0)(counts.join() === '0,0,0,0,1,1', 'the host hashes before its deferred bytes are spent, or not after, or a delivery is refused', counts.join());
    tally.edges = hostEdges(hostHmac);
    tally.forgotten = forgetting(api, hostHmac, installHostMac, forgetHostKeys);
  } finally {
    installHostMac(hostHmac, threshold, deferBytes);
  }
  const host = hostHmac === nodeHashMac ? 'node:crypto (one-shot hash below 4 KiB)' : hostHmac === nodeMacOf ? 'node:crypto' : 'Bun.CryptoHasher';
  return { ...tally, threshold, deferBytes, host };
}

// The host's tag (or inner hash, finished here) of every body size around its paths' edges
// (SHA-256's block, Node's one-shot hash below 4 KiB, its scratch buffer) under secrets
// around the block size and timestamps up to and past the one-shot's 32 UTF-16 units (ASCII
// and not, a lone surrogate), against node:crypto's createHmac. Answers the checks passed.
function hostEdges(hostHmac) {
  const check = caseChecks('(c) edges', 0);
  const secrets = ['s', 'k'.repeat(64), 'k'.repeat(65), 'é'.repeat(100), 'whsec_🔑'.repeat(3)];
  // '€' and a lone surrogate take three bytes each in UTF-8: 32 of them fill the buffer's room.
  const timestamps = ['1700000000', '0', '9'.repeat(32), '9'.repeat(33), 'é'.repeat(32), '€'.repeat(32), '\ud800'.repeat(32),
    '𝟙'.repeat(16), '𝟙'.repeat(17), 'a\ud800b', ''];
  const sizes = [0, 1, 55, 56, 63, 64, 65, 511, 512, 4031, 4032, 4095, 4096, 4097, 8192, 70000];
  let passed = 0;
  for (const secret of secrets) {
    const key = hostHmac.key(secret);
    const secretBytes = new TextEncoder().encode(secret);
    for (const timestamp of timestamps) {
      for (const size of sizes) {
        const body = Uint8Array.from({ length: size }, (_, i) => (i * 31 + size) & 0xff);
        const want = createHmac('sha256', secretBytes).update(`${timestamp}.`).update(body).digest('hex');
        let got = Buffer.from(hostHmac.tag(key, timestamp, body));
        if (hostHmac.inner) {
          // The core's finish: SHA-256 over the secret's outer pad block and the inner hash.
          const k = secretBytes.length > 64 ? createHash('sha256').update(secretBytes).digest() : secretBytes;
          const opad = new Uint8Array(64).fill(0x5c).map((byte, i) => byte ^ (k[i] ?? 0));
          got = createHash('sha256').update(opad).update(got).digest();
        }
        if (check(got.toString('hex') === want, 'the host tag differs from createHmac', `secret of ${secretBytes.length} B, timestamp ${JSON.stringify(timestamp)}, body of ${size} B`)) passed += 1;
      }
    }
  }
  return { passed, cases: secrets.length * timestamps.length * sizes.length };
}

// Host keys are forgotten (node:crypto's: their inner pad blocks wiped) when their Verifier is
// freed and when a one-shot call's kept set is evicted; a host key's `forget` wipes its pad.
// Answers whether all of it held.
function forgetting(api, hostHmac, installHostMac, forgetHostKeys) {
  const check = caseChecks('(c) forgetting', 0);
  const forgotten = [];
  installHostMac({ ...hostHmac, forget: (key) => forgotten.push(key) }, 0);
  const timestamp = '1700000000';
  const body = new Uint8Array(600).fill(0x7b);
  const delivery = (secret) => ({ body, timestamp, signature: api.signWebhook({ secret, timestamp, body }), nowSecs: 1700000000 });
  const verifier = new api.Verifier({ secrets: [{ secret: 'a', kind: 'active' }, { secret: 'b', kind: 'pending' }], maxSkewSecs: 300 });
  verifier.verifySignature(delivery('a'));
  const beforeFree = forgotten.length;
  verifier.free();
  const byFree = forgotten.length - beforeFree;
  // Five distinct one-shot sets: the first is evicted when the fifth comes.
  for (const secret of ['e1', 'e2', 'e3', 'e4', 'e5']) api.verifySignature({ secrets: secret, maxSkewSecs: 300, ...delivery(secret) });
  const byEviction = forgotten.length - beforeFree - byFree;
  let wiped = true;
  if (hostHmac.forget) {
    installHostMac(hostHmac, 0);
    const key = hostHmac.key('whsec_wiped');
    forgetHostKeys([key]);
    wiped = key.pad === null || key.pad.every((byte) => byte === 0);
  }
  return check(beforeFree === 0 && byFree === 2 && byEviction === 1 && wiped, 'host keys are not forgotten when they should be',
    `before free ${beforeFree}, by free ${byFree}, by eviction ${byEviction}, pad wiped ${wiped}`);
}

// PARTS (argument 2, default abc): the parts to run. `make differential` runs all three in
// Node, and part (c) again in Bun, whose node entry installs Bun's own HMAC.
const parts = process.argv[3] ?? 'abc';
const none = { cases: 0, passed: 0 };
const a = parts.includes('a') ? partA() : none;
const aDone = Date.now();
const b = parts.includes('b') ? partB() : none;
const bDone = Date.now();
const c = parts.includes('c') ? await partC() : { ...none, faults: 0, faultsRefused: 0, deferred: true, edges: none, forgotten: true };
const seconds = (ms) => (ms / 1000).toFixed(1);
const runtime = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.version}`;

if (parts.includes('a')) {
  console.log(`(a) seed ${a.seed}: ${a.cases} cases (secrets 1-200 UTF-8 bytes, bodies 0-4096 arbitrary bytes) in ${seconds(aDone - started)} s`);
  console.log(`    node:crypto HMAC == Python hmac: ${a.nodeCrypto}/${a.cases}`);
  console.log(`    signWebhook == Python hmac: ${a.signWebhook}/${a.cases}`);
  console.log(`    verifySignature accepts Python's tag: ${a.accepted}/${a.cases}`);
  console.log(`    one tag bit flipped -> signature_mismatch: ${a.tagFlipRejected}/${a.cases}`);
  console.log(`    one body bit flipped -> signature_mismatch: ${a.bodyFlipRejected}/${a.bodyFlips}`);
}
if (parts.includes('b')) {
  console.log(`(b) ${b.cases} cases against stripe ${Stripe.PACKAGE_VERSION ?? ''} (valid UTF-8 bodies, ${b.jsonCases} of them JSON events) in ${seconds(Date.now() - aDone)} s`);
  console.log(`    both accept t=<ts>,v1=<hex>: ${b.bothAccept}/${b.cases}`);
  console.log(`    stripe's generateTestHeaderString == Python's header: ${b.sameHeader}/${b.cases}`);
  console.log(`    signWebhook == Python == stripe: ${b.sameTag}/${b.cases}`);
  console.log(`    constructEvent == verifyWebhook event: ${b.sameEvent}/${b.jsonCases}`);
  console.log(`    tolerance boundary (ts+tol both accept, +1 both reject): ${b.boundary}/${b.cases}`);
  console.log(`    tampered body rejected by both: ${b.tamperedBothReject}/${b.cases}`);
}
if (parts.includes('c')) {
  console.log(`(c) ${runtime}: ${c.cases} cases through both HMAC paths of the node entry (${c.host} from ${c.threshold} bytes once ${c.deferBytes} bytes of such bodies were hashed, else WebAssembly), each as valid, tag-flipped and body-flipped, verifySignature and verifyWebhook, four rotation sets, in ${seconds(Date.now() - bDone)} s`);
  console.log(`    same answers (kind, timestamp, code and message): ${c.sameAnswers}/${c.cases}`);
  console.log(`    answers as Python's tag implies: ${c.pythonAgrees}/${c.cases}`);
  console.log(`    a faulty host HMAC: one that throws left to the WebAssembly HMAC, 31 bytes or a string refused as invalid_argument, the next delivery verified: ${c.faultsRefused}/${c.faults}`);
  console.log(`    the host's hash deferred for its first bytes, then used: ${c.deferred ? 'yes' : 'no'}`);
  console.log(`    host tags at the edges (body sizes, secrets, timestamps) == createHmac: ${c.edges.passed}/${c.edges.cases}`);
  console.log(`    host keys forgotten on free and on eviction: ${c.forgotten ? 'yes' : 'no'}`);
}
for (const line of failures) console.log(`FAIL ${line}`);
const passed = a.passed + b.passed + c.passed;
const failed = a.cases - a.passed + (b.cases - b.passed) + (c.cases - c.passed) + (c.faults - c.faultsRefused) + (c.deferred ? 0 : 1)
  + (c.edges.cases - c.edges.passed) + (c.forgotten ? 0 : 1);
console.log(`${passed} passed, ${failed} failed`);
const enough = (!parts.includes('a') || a.cases >= 100000) && (!parts.includes('b') || b.cases >= 10000)
  && (!parts.includes('c') || c.cases >= 100000);
process.exitCode = failed === 0 && enough ? 0 : 1;
if (failed === 0 && !enough) console.log('too few cases: (a) and (c) need >= 100000, (b) >= 10000');
