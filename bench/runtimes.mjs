// The verify rows outside Node, started by bench/run.mjs (one step of `make bench`):
//   node bench/runtimes.mjs OUT.json
// - Bun and Deno: bench/lib/rt-loop.mjs in each (ours against node:crypto, the same process);
// - workerd, without and with nodejs_compat: bench/lib/rt-worker.mjs bundled by wrangler, served
//   by Miniflare (ours against crypto.subtle.verify in the same isolate), timed from here per
//   request (see the worker).
// Each runs from a folder of the bench consumer, so 'cryptopay-verify' is the installed
// package and each runtime resolves its own entry. BENCH_QUICK=1: fewer rounds.
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { run, tail, wranglerArgs, wranglerEnv, wranglerVersion } from '../tests/runtimes/lib.mjs';
import { MAX_SKEW_SECS, SECRET, SIZES, makeInputs } from './lib/inputs.mjs';
import { benchDir, consumerDir, repoRoot } from './lib/pkg.mjs';
import { median } from './lib/stats.mjs';
import { WrongAnswer, failOnWrong } from './lib/wrong.mjs';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 7 : 21;
const out = process.argv[2];
const scratch = join(consumerDir, 'bench-runtimes');
const bin = (name) => join(repoRoot, 'node_modules', '.bin', name);
const log = (msg) => process.stderr.write(`${msg}\n`);

// Signed now: each runtime's run is well inside the 300 s tolerance.
function writeInputs(file) {
  const deliveries = SIZES.map((size) => {
    const inp = makeInputs(size, true);
    return { size, bodyBase64: inp.body.toString('base64'), timestamp: inp.timestamp, signature: inp.ours };
  });
  writeFileSync(file, JSON.stringify({ secret: SECRET, maxSkewSecs: MAX_SKEW_SECS, deliveries }));
}

async function loop(id, cmd, args, env = {}) {
  const inputs = join(scratch, 'inputs.json');
  writeInputs(inputs);
  const r = await run(cmd, [...args, join(scratch, 'rt-loop.mjs'), inputs, String(ROUNDS)],
    { cwd: scratch, env: { ...process.env, ...env }, timeoutMs: 600_000 });
  failOnWrong(id, r.stdout);
  if (r.code !== 0) return { skipped: `${id} exited ${r.timedOut ? '(timed out)' : r.code}: ${tail(r.stderr + r.stdout, 6)}` };
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

async function workerd(flags = []) {
  const { Miniflare } = createRequire(join(repoRoot, 'package.json'))('miniflare');
  const dir = join(scratch, flags.length ? `worker-${flags.join('-')}` : 'worker');
  mkdirSync(dir, { recursive: true });
  cpSync(join(benchDir, 'lib', 'rt-worker.mjs'), join(dir, 'worker.mjs'));
  writeInputs(join(dir, 'inputs.json'));
  writeFileSync(join(dir, 'wrangler.json'), JSON.stringify({ name: 'cryptopay-verify-bench', main: 'worker.mjs', compatibility_date: '2025-09-01', compatibility_flags: flags }));
  const built = join(dir, 'out');
  rmSync(built, { recursive: true, force: true });
  const build = await run(process.execPath, [...wranglerArgs(), 'deploy', '--dry-run', '--outdir', built],
    { cwd: dir, env: wranglerEnv(dir), timeoutMs: 120_000 });
  if (build.code !== 0) return { skipped: `wrangler deploy --dry-run exited ${build.code}: ${tail(build.stderr + build.stdout, 6)}` };
  const main = readdirSync(built).find((f) => /\.m?js$/.test(f));
  const mf = new Miniflare({
    modules: true,
    scriptPath: join(built, main),
    modulesRoot: built,
    modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
    compatibilityDate: '2025-09-01',
    compatibilityFlags: flags,
  });
  try {
    await mf.ready;
    const once = async (id, size, n) => {
      const t = performance.now();
      const res = await mf.dispatchFetch(`http://bench/?case=${encodeURIComponent(id)}&size=${size}&n=${n}`);
      failOnWrong(`workerd ${id} ${size} B`, await res.text());
      if (res.status !== 204) throw new Error(`workerd ${id} ${size}: HTTP ${res.status}`);
      return performance.now() - t;
    };
    const ids = ['V.verifySignature', 'V.verifyWebhook', 'subtle', 'subtle+parse'];
    const groups = [];
    for (const size of SIZES) {
      const counts = {};
      for (const id of ids) {
        let n = 1;
        for (let i = 0; i < 3; i += 1) await once(id, size, n); // warm-up
        // A request of about 30 ms of work, so that the request's own cost is a small part.
        while ((await once(id, size, n)) < 30 && n < 1 << 22) n *= 2;
        counts[id] = n;
      }
      const samples = Object.fromEntries(ids.map((id) => [id, []]));
      for (let r = 0; r < ROUNDS; r += 1) {
        const empty = median([await once('none', size, 0), await once('none', size, 0), await once('none', size, 0)]);
        for (let k = 0; k < ids.length; k += 1) {
          const id = ids[(r + k) % ids.length];
          samples[id].push(((await once(id, size, counts[id])) - empty) * 1e6 / counts[id]);
        }
      }
      groups.push({ size, samples });
    }
    const version = JSON.parse(readFileSync(join(repoRoot, 'node_modules', 'workerd', 'package.json'), 'utf8')).version;
    const with_ = flags.length ? ` with ${flags.join(', ')}` : '';
    return { runtime: `workerd ${version}${with_} (Miniflare), wrangler ${wranglerVersion()} bundle`, entry: 'dist/entry/workerd.mjs', groups };
  } finally {
    await mf.dispose();
  }
}

rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });
cpSync(join(benchDir, 'lib', 'rt-loop.mjs'), join(scratch, 'rt-loop.mjs'));
writeFileSync(join(scratch, 'deno.json'), JSON.stringify({ nodeModulesDir: 'manual', lock: false }));
const result = {};
log('bench: runtimes: Bun');
result.bun = await loop('bun', bin('bun'), ['--no-install']);
log('bench: runtimes: Deno');
result.deno = await loop('deno', bin('deno'), ['run', '--allow-read', '--allow-env'],
  { DENO_DIR: join(scratch, 'deno-cache'), DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' });
// With nodejs_compat the workerd entry hashes bodies of 1280 B or more with node:crypto.
for (const [key, flags] of [['workerd', []], ['workerdNode', ['nodejs_compat']]]) {
  log(`bench: runtimes: workerd${flags.length ? ` with ${flags.join(', ')}` : ''}`);
  try {
    result[key] = await workerd(flags);
  } catch (error) {
    if (error instanceof WrongAnswer) throw error;
    result[key] = { skipped: String(error?.message ?? error) };
  }
}
writeFileSync(out, JSON.stringify(result));
process.exit(0);
