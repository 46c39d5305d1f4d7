// Driver: the package in workerd, as a Cloudflare Worker is built and served.
// Usage: node tests/runtimes/workerd.mjs SCRATCH_DIR   (SCRATCH_DIR holds smoke.mjs and sits
// inside the consumer folder, so 'cryptopay-verify' resolves to the installed package)
//
// A worker importing 'cryptopay-verify' is bundled by `wrangler deploy --dry-run --outdir`
// (wrangler's own rules: conditions workerd/worker/browser, .wasm imported as a compiled
// module), the output is served by `workerd serve` on 127.0.0.1 and fetched once.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODEGEN_CHECK_SOURCE, freePort, report, run, startServer, tail, waitForPort, wranglerArgs, wranglerEnv, wranglerVersion } from './lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const modules = join(root, 'node_modules');
const scratch = process.argv[2];
const dir = join(scratch, 'workerd');
const out = join(dir, 'out');
const COMPATIBILITY_DATE = '2025-09-01'; // older than the workerd in use: no "update wrangler" check
const EXPECTED_ENTRY = 'node_modules/cryptopay-verify/dist/entry/workerd.mjs';

const results = [];
const notes = [];
let version = `workerd ${JSON.parse(readFileSync(join(modules, 'workerd', 'package.json'), 'utf8')).version}`;

function wranglerCommand() {
  const args = wranglerArgs();
  version += `, wrangler ${wranglerVersion()}`;
  if (args.tooOld) notes.push(`wrangler ${wranglerVersion()} wants Node >= ${args.minNode}: its CLI ran directly on Node ${process.versions.node}`);
  return args;
}

const WORKER = `import * as cv from 'cryptopay-verify';
import { smoke } from '../smoke.mjs';
${CODEGEN_CHECK_SOURCE}
export default {
  async fetch() {
    const results = await smoke(cv);
    results.push(runtimeCompilationForbidden());
    return new Response(JSON.stringify(results), { headers: { 'content-type': 'application/json' } });
  },
};
`;

async function main() {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'worker.mjs'), WORKER);
  writeFileSync(join(dir, 'wrangler.json'), JSON.stringify({
    name: 'cryptopay-verify-smoke', main: 'worker.mjs', compatibility_date: COMPATIBILITY_DATE,
  }, null, 2));

  const build = await run(process.execPath, [...wranglerCommand(), 'deploy', '--dry-run', '--outdir', out,
    '--metafile', join(dir, 'meta.json')], { cwd: dir, env: wranglerEnv(dir), timeoutMs: 25_000 });
  if (build.code !== 0) {
    throw new Error(`wrangler deploy --dry-run ${build.timedOut ? 'timed out' : `exited ${build.code}`}:\n${tail(build.stderr + build.stdout)}`);
  }

  const inputs = Object.keys(JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')).inputs);
  const entry = inputs.find((input) => input.includes('node_modules/cryptopay-verify/dist/entry/'));
  results.push({
    name: 'wrangler bundled dist/entry/workerd.mjs',
    pass: inputs.some((input) => input.endsWith(EXPECTED_ENTRY)),
    detail: entry ?? `no entry of the package among ${inputs.join(', ')}`,
  });

  // workerd lets a worker compile wasm while its script starts (only request handlers are
  // refused), so check the bundle itself: the .wasm must come in as a module of its own.
  const files = readdirSync(out);
  const wasmModules = files.filter((f) => f.endsWith('.wasm'));
  results.push({
    name: 'the bundle imports the .wasm as a module',
    pass: wasmModules.length === 1,
    detail: wasmModules.length ? wasmModules.join(', ') : `no .wasm module in the bundle (${files.join(', ')})`,
  });

  // workerd's config: the bundle's modules as wrangler wrote them (main module first).
  const main = files.find((f) => f === 'worker.js') ?? files.find((f) => /\.m?js$/.test(f));
  const entries = [main, ...files.filter((f) => f !== main)].flatMap((f) => {
    if (/\.m?js$/.test(f)) return [`(name = ${JSON.stringify(f)}, esModule = embed ${JSON.stringify(f)})`];
    if (f.endsWith('.wasm')) return [`(name = ${JSON.stringify(f)}, wasm = embed ${JSON.stringify(f)})`];
    return []; // README.md, source maps
  });
  const port = await freePort();
  writeFileSync(join(out, 'config.capnp'), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .smokeWorker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const smokeWorker :Workerd.Worker = (
  modules = [
    ${entries.join(',\n    ')}
  ],
  compatibilityDate = "${COMPATIBILITY_DATE}",
);
`);

  const server = startServer(join(modules, '.bin', 'workerd'), ['serve', 'config.capnp'], { cwd: out });
  try {
    await waitForPort(port, { timeoutMs: 10_000, exited: server.exited });
    const response = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(10_000) });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${text.slice(0, 500)}`);
    results.push(...JSON.parse(text));
  } catch (error) {
    throw new Error(`${error.message}\nworkerd said:\n${tail(server.output.stderr + server.output.stdout)}`);
  } finally {
    await server.stop();
  }
}

try {
  await main();
} catch (error) {
  results.push({ name: 'workerd run', pass: false, detail: String(error && error.message) });
}
report({ version, results, notes });
process.exit(0);
