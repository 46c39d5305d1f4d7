// In-process throughput: every implementation on the same deliveries, alternating run by run
// (see lib/runner.mjs), then the breakdown of our call. Started by bench/run.mjs as
//   node --expose-gc bench/throughput.mjs OUT.json
// Writes its measurements as JSON to OUT.json (progress goes to stderr).

import { writeFileSync } from 'node:fs';
import { CASES, caseFns, outcomeCheck, setup } from './lib/cases.mjs';
import { BREAKDOWN, breakdownFns } from './lib/breakdown.mjs';
import { SIZES, SIZE_LABEL, makeInputs, sha256Hex } from './lib/inputs.mjs';
import { loadPackage } from './lib/pkg.mjs';
import { checkOnce, runGroup } from './lib/runner.mjs';

const out = process.argv[2];
if (!out) throw new Error('usage: node --expose-gc bench/throughput.mjs OUT.json');
const quick = process.env.BENCH_QUICK === '1';
const cfg = quick
  ? { rounds: 9, batchMs: 3, warmupMs: 40, bdRounds: 9 }
  : { rounds: 33, batchMs: 10, warmupMs: 150, bdRounds: 21 };
if (typeof globalThis.gc !== 'function') process.stderr.write('throughput: run with --expose-gc for per-batch minor GCs\n');

const pkg = await loadPackage({ capture: true });
const shared = await setup(pkg.api);
const t0 = Date.now();
const groups = [];
for (const size of SIZES) {
  for (const valid of [true, false]) {
    const casesFor = (inp) => {
      const fns = caseFns(shared, inp);
      return CASES.map((c) => ({ id: c.id, fn: fns[c.id], async: c.id === 'webcrypto', check: outcomeCheck(c.id, valid) }));
    };
    const inp = makeInputs(size, valid, shared);
    // A signature changed elsewhere than its first character is refused as well (a compare of
    // the first bytes only would pass the timed group): checked once, untimed.
    if (!valid) {
      for (const at of ['middle', 'last']) await checkOnce(casesFor(makeInputs(size, false, shared, at)), false, `${at} character changed`);
    }
    const res = await runGroup(casesFor(inp), { ...cfg, expectAccept: valid });
    groups.push({ size, valid, bodySha256: sha256Hex(inp.body), results: res });
    process.stderr.write(`  throughput ${SIZE_LABEL[size]} ${valid ? 'valid' : 'invalid'}: ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  }
}

const breakdown = [];
for (const size of SIZES) {
  const inp = makeInputs(size, true, shared);
  const fns = breakdownFns(pkg, inp);
  const cases = BREAKDOWN.filter((b) => fns[b.id]).map((b) => ({ id: b.id, fn: fns[b.id] }));
  const res = await runGroup(cases, { ...cfg, rounds: cfg.bdRounds, expectAccept: true });
  breakdown.push({ size, results: res, skipped: BREAKDOWN.filter((b) => !fns[b.id]).map((b) => b.id) });
  process.stderr.write(`  breakdown ${SIZE_LABEL[size]}: ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
}

writeFileSync(out, JSON.stringify({ config: cfg, groups, breakdown, seconds: (Date.now() - t0) / 1000 }));
