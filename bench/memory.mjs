// Memory over many verifications, in a fresh process: after a warm-up, N verifications of a
// 1 KiB delivery (16 KiB for the `.16k` case; node:crypto hashes both, once the package's
// first 2 MiB of such bodies were hashed in WebAssembly, through a keyed hash copied per
// tag), sampling every EVERY calls the wasm memory (memory.buffer.byteLength of the
// instance the package starts), the wasm-bindgen externref table, and process.memoryUsage()
// (heapUsed after a full GC, heapTotal, rss, external, arrayBuffers). Started by bench/run.mjs as
//   node --expose-gc --min-semi-space-size=8 --max-semi-space-size=8 bench/memory.mjs CASE N EVERY WARMUP
// CASE: V.verifySignature | V.verifySignature.16k | V.verifyWebhook | verifySignature | verifyWebhook |
//       V.verifySignature.invalid
// Prints the samples as JSON.

import { MAX_SKEW_SECS, SECRET, makeInputs } from './lib/inputs.mjs';
import { loadPackage } from './lib/pkg.mjs';

const [which, nArg, everyArg, warmArg] = process.argv.slice(2);
const N = Number(nArg);
const EVERY = Number(everyArg);
const WARMUP = Number(warmArg);
if (typeof globalThis.gc !== 'function') throw new Error('memory.mjs: run with --expose-gc');

const { api, instance, wasm } = await loadPackage({ capture: true });
const valid = !which.endsWith('.invalid');
const inp = makeInputs(which.endsWith('.16k') ? 16384 : 1024, valid);
const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: MAX_SKEW_SECS });
const delivery = () => ({ body: inp.body, timestamp: inp.timestamp, signature: inp.ours, nowSecs: Math.floor(Date.now() / 1000) });
const calls = {
  'V.verifySignature': () => verifier.verifySignature(delivery()),
  'V.verifySignature.invalid': () => verifier.verifySignature(delivery()),
  'V.verifySignature.16k': () => verifier.verifySignature(delivery()),
  verifySignature: () => api.verifySignature({ ...delivery(), secrets: SECRET, maxSkewSecs: MAX_SKEW_SECS }),
  'V.verifyWebhook': () => verifier.verifyWebhook(delivery()),
  verifyWebhook: () => api.verifyWebhook({ ...delivery(), secrets: SECRET, maxSkewSecs: MAX_SKEW_SECS }),
};
const call = calls[which];
if (!call) throw new Error(`memory.mjs: unknown case ${which}`);

let accepted = 0;
function run(n) {
  for (let i = 0; i < n; i += 1) {
    try {
      call();
      accepted += 1;
    } catch (error) {
      if (valid || error?.code !== 'signature_mismatch') throw error;
    }
  }
}

function sample(calls) {
  globalThis.gc();
  const m = process.memoryUsage();
  return {
    calls,
    wasmBytes: instance ? instance.exports.memory.buffer.byteLength : null,
    externrefs: wasm?.__wbindgen_externrefs ? wasm.__wbindgen_externrefs.length : null,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    rss: m.rss,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
  };
}

const before = sample(0);
run(WARMUP);
const samples = [sample(0)];
const t0 = performance.now();
for (let done = 0; done < N; ) {
  const n = Math.min(EVERY, N - done);
  run(n);
  done += n;
  samples.push(sample(done));
}
if (valid ? accepted !== N + WARMUP : accepted !== 0) throw new Error(`memory.mjs: ${which}: ${accepted} accepted`);
process.stdout.write(
  JSON.stringify({ which, n: N, every: EVERY, warmup: WARMUP, before, samples, seconds: (performance.now() - t0) / 1000, instanceFound: !!instance }),
);
