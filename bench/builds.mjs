// Two builds of the package side by side in one process, for a change to the binding or the
// JavaScript layer: every case of both builds (and node:crypto as the yardstick) on the same
// deliveries, alternating batch by batch (lib/runner.mjs), ratios taken per round.
//
//   node --expose-gc bench/builds.mjs OLD_CONSUMER_DIR [NEW_CONSUMER_DIR]
//
// A consumer dir is what `scripts/consumer.sh DIR` leaves (the package installed from its
// tarball); NEW defaults to target/bench-consumer. BENCH_QUICK=1 for a short run. Prints a
// Markdown table: median ns per call of each case and the new/old ratio with its range.

import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MAX_SKEW_SECS, SECRET, SIZES, SIZE_LABEL, makeInputs } from './lib/inputs.mjs';
import { repoRoot } from './lib/pkg.mjs';
import { runGroup } from './lib/runner.mjs';
import { median, quantile } from './lib/stats.mjs';

const [oldArg, newArg] = process.argv.slice(2);
if (!oldArg) throw new Error('usage: node --expose-gc bench/builds.mjs OLD_CONSUMER_DIR [NEW_CONSUMER_DIR]');
const quick = process.env.BENCH_QUICK === '1';
const cfg = quick ? { rounds: 9, batchMs: 3, warmupMs: 40 } : { rounds: 25, batchMs: 10, warmupMs: 150 };

async function load(dir) {
  const req = createRequire(join(resolve(dir), 'package.json'));
  // Node's own resolution of `import 'cryptopay-verify'` from that folder (the node/import entry).
  const entry = req.resolve('cryptopay-verify').replace(/node\.cjs$/, 'node.mjs');
  return import(pathToFileURL(entry).href);
}

const builds = { old: await load(oldArg), new: await load(newArg ?? join(repoRoot, 'target', 'bench-consumer')) };
const { createHmac, timingSafeEqual } = await import('node:crypto');
const secretBytes = Buffer.from(SECRET);
const nowSecs = () => Math.floor(Date.now() / 1000);

function casesFor(inp) {
  const { body, timestamp, ours } = inp;
  const out = [];
  for (const [name, api] of Object.entries(builds)) {
    const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: MAX_SKEW_SECS });
    out.push(
      { id: `${name} V.verifySignature`, fn: () => verifier.verifySignature({ body, timestamp, signature: ours, nowSecs: nowSecs() }) },
      { id: `${name} V.verifyWebhook`, fn: () => verifier.verifyWebhook({ body, timestamp, signature: ours, nowSecs: nowSecs() }) },
      { id: `${name} verifyWebhook`, fn: () => api.verifyWebhook({ body, timestamp, signature: ours, nowSecs: nowSecs(), secrets: SECRET, maxSkewSecs: MAX_SKEW_SECS }) },
    );
  }
  out.push({
    id: 'node:crypto',
    fn: () => {
      const mac = createHmac('sha256', secretBytes).update(timestamp).update('.').update(body).digest();
      return timingSafeEqual(mac, Buffer.from(ours.slice(3), 'hex'));
    },
  });
  return out;
}

const rows = [];
for (const size of SIZES.filter((s) => s <= 16 * 1024)) {
  for (const valid of [true, false]) {
    const inp = makeInputs(size, valid, {});
    const res = await runGroup(casesFor(inp), { ...cfg, expectAccept: valid });
    for (const call of ['V.verifySignature', 'V.verifyWebhook', 'verifyWebhook']) {
      const o = res[`old ${call}`].samples;
      const n = res[`new ${call}`].samples;
      const ratios = n.map((x, i) => x / o[i]);
      rows.push(`| ${SIZE_LABEL[size]} | ${valid ? 'valid' : 'forged'} | \`${call}\` | ${median(o).toFixed(0)} | ${median(n).toFixed(0)} | ` +
        `${median(ratios).toFixed(2)} (${quantile(ratios, 0.25).toFixed(2)}-${quantile(ratios, 0.75).toFixed(2)}) | ${median(res['node:crypto'].samples).toFixed(0)} |`);
    }
    process.stderr.write(`  builds ${SIZE_LABEL[size]} ${valid ? 'valid' : 'forged'} done\n`);
  }
}
process.stdout.write(['| body | delivery | call | old ns | new ns | new/old (IQR) | node:crypto ns |', '|---|---|---|---|---|---|---|', ...rows].join('\n') + '\n');
