// Where the runtime's hash overtakes the WebAssembly HMAC: one Verifier of the installed
// package, each delivery verified with either path forced in turn (20 rounds of 20,000 calls
// after a first round, the path timed first alternating round by round), through the
// package's unbundled modules as the node entry sets them up, with its own host hash and no
// deferral. Not part of `make bench`:
//
//   node bench/crossover.mjs [SIZES]        (also bun / deno run -A; SIZES: bytes, comma-separated)
//
// Prints per size the median of the per-round ratios host / WebAssembly (p25-p75) and each
// path's mean time; below 1 the host is faster. The node entry's threshold (minBodyBytes in
// api/node-mac.mjs) is set where the ratio crosses 1.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageInfo } from './lib/pkg.mjs';

const dist = join(packageInfo().dir, 'dist');
const load = (file) => import(pathToFileURL(join(dist, file)).href);
const glue = await load('cryptopay_verify_bg.js');
const { startFromModule } = await load('api/start.mjs');
const { hostMac } = await load('api/host-mac.mjs');
const { installRuntimeMac } = await load('api/node-mac.mjs');
const api = await load('public.mjs');
startFromModule(glue, new WebAssembly.Module(readFileSync(join(dist, 'cryptopay_verify_bg.wasm'))));
const { minBodyBytes } = installRuntimeMac();
hostMac.deferBytes = 0;

const sizes = (process.argv[2] ?? '256,512,640,768,896,1024,1280,1536,2048').split(',').map(Number);
const secret = 'whsec_crossover_0123456789abcdef';
const timestamp = '1700000000';
const verifier = new api.Verifier({ secrets: secret, maxSkewSecs: 300 });
const ROUNDS = 21;
const CALLS = 20_000;

function time(fn) {
  const start = performance.now();
  for (let i = 0; i < CALLS; i += 1) fn();
  return ((performance.now() - start) * 1e6) / CALLS;
}

console.log(`installed threshold: ${minBodyBytes} B; host / WebAssembly per size:`);
for (const size of sizes) {
  const body = new Uint8Array(size).fill(0x7b);
  const delivery = { body, timestamp, signature: api.signWebhook({ secret, timestamp, body }), nowSecs: 1700000000 };
  const call = () => verifier.verifySignature(delivery);
  const ratios = [];
  let host = 0;
  let wasm = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const timeWith = (threshold) => {
      hostMac.minBodyBytes = threshold;
      return time(call);
    };
    let h;
    let w;
    if (round % 2 === 0) {
      h = timeWith(0);
      w = timeWith(Infinity);
    } else {
      w = timeWith(Infinity);
      h = timeWith(0);
    }
    if (round === 0) continue; // warm-up
    ratios.push(h / w);
    host += h;
    wasm += w;
  }
  ratios.sort((a, b) => a - b);
  const at = (q) => ratios[Math.floor(q * (ratios.length - 1))].toFixed(2);
  const n = ROUNDS - 1;
  console.log(`${String(size).padStart(7)} B  ${at(0.5)} (${at(0.25)}-${at(0.75)})  host ${(host / n).toFixed(0)} ns, WebAssembly ${(wasm / n).toFixed(0)} ns`);
}
hostMac.minBodyBytes = minBodyBytes;
verifier.free();
