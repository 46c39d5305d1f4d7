// Driver: the package in workerd, as a Cloudflare Worker is built and served.
// Usage: node tests/runtimes/workerd.mjs SCRATCH_DIR [nodejs_compat]   (SCRATCH_DIR holds
// smoke.mjs and sits inside the consumer folder, so 'cryptopay-verify' resolves to the
// installed package). With nodejs_compat the Worker has node:crypto, whose SHA-256 the package
// then uses for large bodies: the Worker counts the copies of its keyed hashes (one per tag)
// to check that it does.
//
// A worker importing 'cryptopay-verify' is bundled by `wrangler deploy --dry-run --outdir`
// (wrangler's own rules: conditions workerd/worker/browser, .wasm imported as a compiled
// module), the output is served by `workerd serve` on 127.0.0.1 and fetched once.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODEGEN_CHECK_SOURCE, HOST_COPIES_SOURCE, freePort, report, run, startServer, tail, waitForPort, wranglerArgs, wranglerEnv, wranglerVersion } from './lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const modules = join(root, 'node_modules');
const scratch = process.argv[2];
const nodeCompat = process.argv[3] === 'nodejs_compat';
const flags = nodeCompat ? ['nodejs_compat'] : [];
const dir = join(scratch, nodeCompat ? 'workerd-nodejs-compat' : 'workerd');
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

// With nodejs_compat: node:crypto's hashes, their copies counted (the package keys a hash per
// secret with createHash, looked up when it keys, and copies it for each tag).
const HOST_HMAC_CHECK = `
${HOST_COPIES_SOURCE}
function hostHmacUsed() {
  const name = 'with nodejs_compat, node:crypto hashes a 1.5 KiB and a 20 KiB body (not a 256 B one), same answers as the WebAssembly HMAC';
  try {
    const verifier = new cv.Verifier({ secrets: 'whsec_workerd', maxSkewSecs: 300 });
    const answers = [256, 1536, 20 * 1024].map((size) => {
      const body = new Uint8Array(size).fill(0x7b);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = cv.signWebhook({ secret: 'whsec_workerd', timestamp, body });
      const before = hostCopies();
      const accepted = verifier.verifySignature({ body, timestamp, signature, nowSecs: Number(timestamp) }).matchedSecret === 'active';
      body[size - 1] ^= 1;
      let refused = null;
      try {
        verifier.verifySignature({ body, timestamp, signature, nowSecs: Number(timestamp) });
      } catch (error) {
        refused = error.code;
      }
      return { size, accepted, refused, hmacs: hostCopies() - before };
    });
    const [small, ...large] = answers;
    // 200 bodies of 2.5 to 40 KiB under secrets with characters outside ASCII: each signed by
    // the WebAssembly HMAC (signWebhook) and accepted through node:crypto's.
    let seed = 20261126;
    const next = (n) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    let agreed = 0;
    const before = hostCopies();
    for (let i = 0; i < 200; i += 1) {
      const secret = 'whsec_' + String.fromCodePoint(...Array.from({ length: 1 + next(40) }, () => 0x21 + next(0x2000)));
      const body = Uint8Array.from({ length: 2560 + next(38 * 1024) }, () => next(256));
      const timestamp = String(1700000000 + next(1000000));
      const signature = cv.signWebhook({ secret, timestamp, body });
      const one = new cv.Verifier({ secrets: secret, maxSkewSecs: 300 });
      if (one.verifySignature({ body, timestamp, signature, nowSecs: Number(timestamp) }).matchedSecret === 'active') agreed += 1;
      one.free();
    }
    const random = { agreed, hmacs: hostCopies() - before };
    const pass = answers.every((a) => a.accepted && a.refused === 'signature_mismatch') && small.hmacs === 0 && large.every((a) => a.hmacs === 2)
      && agreed === 200 && random.hmacs === 200;
    return { name, pass, detail: JSON.stringify({ answers, random }) };
  } catch (error) {
    return { name, pass: false, detail: String(error) };
  }
}
`;
const WORKER = `import * as cv from 'cryptopay-verify';
import { smoke } from '../smoke.mjs';
${CODEGEN_CHECK_SOURCE}
${nodeCompat ? HOST_HMAC_CHECK : ''}
export default {
  async fetch() {
    const results = await smoke(cv);
    results.push(runtimeCompilationForbidden());
    ${nodeCompat ? 'results.push(hostHmacUsed());' : ''}
    return new Response(JSON.stringify(results), { headers: { 'content-type': 'application/json' } });
  },
};
`;

async function main() {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'worker.mjs'), WORKER);
  writeFileSync(join(dir, 'wrangler.json'), JSON.stringify({
    name: 'cryptopay-verify-smoke', main: 'worker.mjs', compatibility_date: COMPATIBILITY_DATE, compatibility_flags: flags,
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
  compatibilityFlags = ${JSON.stringify(flags)},
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
