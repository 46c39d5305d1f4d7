// `make runtimes`: the installed package, loaded by its name, smoke-tested in every runtime:
// the machine's Node, Node 18 and the oldest and newest Node LTS (installed by `make setup`),
// Bun, Deno, workerd (with and without nodejs_compat), the edge runtime and Chromium.
//
// Usage (from the repo root, after `make consumer`): node tests/runtimes/run.mjs
// Env: CONSUMER_DIR  the folder the packed tarball is installed in (default target/consumer)
//      RUNTIMES      comma-separated ids to run only some (node-esm, node-cjs, node18-esm,
//                    node18-cjs, node22-esm, node22-cjs, node26-esm, node26-cjs, bun-esm,
//                    bun-cjs, deno, workerd, workerd-nodejs-compat, edge, chromium)
//      VERBOSE=1     print every check, not only the failed ones
//
// Each runtime has its own timeout, and the whole run a budget of BUDGET_MS (a runtime that
// would start after it is spent fails without running), so even a run where everything
// hangs ends within about 2.5 minutes. A normal run takes a few seconds.
//
// Each runtime runs smoke.mjs against 'cryptopay-verify' resolved from a scratch folder inside
// the consumer folder (so never a path into pkg/), prints its results on one line, and is
// bounded by a timeout. Prints a table and `N passed, M failed`; exits 1 if any failed.

import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOST_COPIES_SOURCE, NODE_VERSIONS, RESULT_PREFIX, run, tail } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const consumer = process.env.CONSUMER_DIR ? resolve(process.env.CONSUMER_DIR) : join(root, 'target', 'consumer');
const scratch = join(consumer, 'runtimes-smoke');

if (!existsSync(join(consumer, 'node_modules', 'cryptopay-verify', 'package.json'))) {
  console.error(`run.mjs: cryptopay-verify is not installed in ${consumer}: run make consumer first`);
  process.exit(1);
}

// The scripts Node, Bun and Deno run. They also check which entry the runtime resolved.
const versionSource = `typeof Deno !== 'undefined' ? 'Deno ' + Deno.version.deno
  : typeof Bun !== 'undefined' ? 'Bun ' + Bun.version : 'Node ' + process.version`;
const entryCheck = (expected, resolvedSource) => `{
    const expected = ${JSON.stringify(expected)};
    let resolved;
    try {
      resolved = String(${resolvedSource});
    } catch (error) {
      resolved = 'not resolved: ' + error;
    }
    results.push({ name: 'resolves to ' + expected, pass: resolved.endsWith('/node_modules/cryptopay-verify/' + expected),
      detail: resolved.replace(/^.*node_modules\\//, '') });
  }`;
// Which verification of a 1 MiB delivery node:crypto hashes first, counted by its hashes'
// copies (one per tag): Node and Deno hash their first 2 and 16 MiB of such bodies in
// WebAssembly (the node entry's deferral; the smoke checks before spend far less than 1 MiB),
// Bun hashes with its own CryptoHasher, and a Node without process.getBuiltinModule (18)
// never loads node:crypto. Every answer must be the same: accepted, and refused once tampered.
const hostCheck = `{
    const from = typeof Bun !== 'undefined' || typeof process.getBuiltinModule !== 'function' ? null
      : typeof Deno !== 'undefined' ? 17 : 3;
    const name = from === null ? 'no 1 MiB delivery hashed by node:crypto (WebAssembly, or Bun\\'s own)'
      : 'the first ' + (from - 1) + ' deliveries of 1 MiB hashed in WebAssembly, then by node:crypto, same answers';
    try {
      const body = new Uint8Array(1024 * 1024).fill(0x7b);
      const timestamp = '1700000000';
      const signature = cv.signWebhook({ secret: 's', timestamp, body });
      const verifier = new cv.Verifier({ secrets: 's', maxSkewSecs: 300 });
      const firsts = [];
      let answers = true;
      for (let i = 1; i <= 20; i += 1) {
        const before = hostCopies();
        answers &&= verifier.verifySignature({ body, timestamp, signature, nowSecs: 1700000000 }).matchedSecret === 'active';
        if (hostCopies() > before) firsts.push(i);
      }
      body[0] ^= 1;
      try {
        verifier.verifySignature({ body, timestamp, signature, nowSecs: 1700000000 });
        answers = false;
      } catch (error) {
        answers &&= error.code === 'signature_mismatch';
      }
      const want = from === null ? '' : Array.from({ length: 21 - from }, (_, k) => from + k).join();
      results.push({ name, pass: answers && firsts.join() === want, detail: 'hashed by node:crypto: ' + (firsts.join() || 'none') + (answers ? '' : '; an answer differs') });
      // Past the deferral: Node hashes a 1 KiB body with one \`hash\` call, an 8 KiB one from a
      // copied state; Deno keeps 1 KiB in WebAssembly and copies for 8 KiB; Bun and Node 18
      // use neither.
      const expected = from === null ? '0/0 0/0' : from === 17 ? '0/0 1/0' : '0/1 1/0';
      const paths = [1024, 8192].map((size) => {
        const sized = new Uint8Array(size).fill(0x7b);
        const signed = cv.signWebhook({ secret: 's', timestamp, body: sized });
        const copies = hostCopies();
        const oneShots = hostOneShots();
        const ok = verifier.verifySignature({ body: sized, timestamp, signature: signed, nowSecs: 1700000000 }).matchedSecret === 'active';
        return ok ? (hostCopies() - copies) + '/' + (hostOneShots() - oneShots) : 'refused';
      }).join(' ');
      verifier.free();
      results.push({ name: 'bodies of 1 and 8 KiB hashed as the runtime should (copies/one-shot hashes: ' + expected + ')',
        pass: paths === expected, detail: paths });
    } catch (error) {
      results.push({ name, pass: false, detail: String(error) });
    }
  }`;
const SCRIPTS = {
  'esm.mjs': `import * as cv from 'cryptopay-verify';
import { smoke } from './smoke.mjs';

${HOST_COPIES_SOURCE}
const results = await smoke(cv);
${hostCheck}
${entryCheck('dist/entry/node.mjs', "import.meta.resolve('cryptopay-verify')")}
console.log(${JSON.stringify(RESULT_PREFIX)} + JSON.stringify({ version: ${versionSource}, results }));
`,
  'cjs.cjs': `'use strict';
const cv = require('cryptopay-verify');

${HOST_COPIES_SOURCE}
import('./smoke.mjs').then(({ smoke }) => smoke(cv)).then((results) => {
  ${hostCheck}
  ${entryCheck('dist/entry/node.cjs', "require.resolve('cryptopay-verify')")}
  console.log(${JSON.stringify(RESULT_PREFIX)} + JSON.stringify({ version: ${versionSource}, results }));
});
`,
  // Deno resolves npm packages from the consumer's node_modules; no lockfile is written.
  'deno.json': `${JSON.stringify({ nodeModulesDir: 'manual', lock: false }, null, 2)}\n`,
};

const baseEnv = { ...process.env, NO_COLOR: '1', DO_NOT_TRACK: '1' };
delete baseEnv.FORCE_COLOR; // it would override NO_COLOR
const node = process.execPath;
const driver = (name) => join(here, name);
const BUDGET_MS = 150_000;
const DEFAULT_TIMEOUT_MS = 20_000;

const RUNTIMES = [
  { id: 'node-esm', label: 'Node ESM (import)', cmd: node, args: ['esm.mjs'] },
  { id: 'node-cjs', label: 'Node CJS (require)', cmd: node, args: ['cjs.cjs'] },
  ...NODE_VERSIONS.flatMap(({ id, label, bin: cmd }) => [
    { id: `${id}-esm`, label: `${label} ESM (import)`, cmd, args: ['esm.mjs'] },
    { id: `${id}-cjs`, label: `${label} CJS (require)`, cmd, args: ['cjs.cjs'] },
  ]),
  { id: 'bun-esm', label: 'Bun ESM (import)', cmd: bin('bun'), args: ['--no-install', 'esm.mjs'] },
  { id: 'bun-cjs', label: 'Bun CJS (require)', cmd: bin('bun'), args: ['--no-install', 'cjs.cjs'] },
  {
    id: 'deno',
    label: 'Deno (no permission flags)',
    cmd: bin('deno'),
    args: ['run', 'esm.mjs'],
    env: { DENO_DIR: join(scratch, 'deno-cache'), DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' },
  },
  { id: 'workerd', label: 'workerd (wrangler bundle)', cmd: node, args: [driver('workerd.mjs'), scratch], timeoutMs: 50_000 },
  {
    id: 'workerd-nodejs-compat',
    label: 'workerd with nodejs_compat',
    cmd: node,
    args: [driver('workerd.mjs'), scratch, 'nodejs_compat'],
    timeoutMs: 50_000,
  },
  { id: 'edge', label: 'edge-runtime (edge-light)', cmd: node, args: [driver('edge.mjs'), scratch], timeoutMs: 30_000 },
  { id: 'chromium', label: 'Chromium (browser entry)', cmd: node, args: [driver('browser.mjs'), consumer, scratch], timeoutMs: 50_000 },
];

function parse(outcome) {
  const line = outcome.stdout.split('\n').reverse().find((l) => l.startsWith(RESULT_PREFIX));
  if (!line) return null;
  try {
    return JSON.parse(line.slice(RESULT_PREFIX.length));
  } catch {
    return null;
  }
}

async function runOne(runtime, deadline) {
  const timeoutMs = Math.min(runtime.timeoutMs ?? DEFAULT_TIMEOUT_MS, deadline - Date.now());
  if (timeoutMs < 1_000) {
    const outcome = { code: null, signal: null, stdout: '', stderr: '', timedOut: false, ms: 0 };
    return { ...runtime, outcome, version: '', notes: [], checks: [], passed: 0, ok: false,
      problem: `not run: the ${BUDGET_MS / 1000} s budget of the whole run is spent` };
  }
  const outcome = await run(runtime.cmd, runtime.args, { cwd: scratch, env: { ...baseEnv, ...runtime.env }, timeoutMs });
  const payload = parse(outcome);
  const checks = Array.isArray(payload?.results) ? payload.results : [];
  const passed = checks.filter((c) => c.pass === true).length;
  let problem = null;
  if (outcome.error) problem = `could not start ${runtime.cmd}: ${outcome.error.message}`;
  else if (outcome.timedOut) problem = `timed out after ${(timeoutMs / 1000).toFixed(0)} s`;
  else if (!payload) problem = `no results (exit ${outcome.code ?? outcome.signal})`;
  else if (outcome.code !== 0) problem = `exit ${outcome.code ?? outcome.signal}`;
  else if (checks.length === 0) problem = 'no checks ran';
  const ok = problem === null && passed === checks.length;
  const notes = Array.isArray(payload?.notes) ? payload.notes : [];
  return { ...runtime, outcome, version: payload?.version ?? '', notes, checks, passed, ok, problem };
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

async function main() {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  copyFileSync(join(here, 'smoke.mjs'), join(scratch, 'smoke.mjs'));
  for (const [name, text] of Object.entries(SCRIPTS)) writeFileSync(join(scratch, name), text);

  const only = (process.env.RUNTIMES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = only.filter((id) => !RUNTIMES.some((r) => r.id === id));
  if (unknown.length) {
    console.error(`run.mjs: unknown runtime(s) ${unknown.join(', ')} (known: ${RUNTIMES.map((r) => r.id).join(', ')})`);
    process.exit(1);
  }
  const selected = only.length ? RUNTIMES.filter((r) => only.includes(r.id)) : RUNTIMES;

  console.log(`cryptopay-verify from ${relative(process.cwd(), consumer) || '.'}/node_modules, ${selected.length} runtimes`);
  const started = Date.now();
  const deadline = started + BUDGET_MS;
  const done = [];
  for (const runtime of selected) {
    const result = await runOne(runtime, deadline);
    done.push(result);
    const status = result.ok ? 'ok' : 'FAIL';
    console.log(`  ${status.padEnd(4)} ${runtime.label} (${(result.outcome.ms / 1000).toFixed(1)} s)`);
  }

  const rows = [['Runtime', 'Version', 'Checks', 'Time', 'Result']];
  for (const r of done) {
    rows.push([r.label, r.version, `${r.passed}/${r.checks.length}`, `${(r.outcome.ms / 1000).toFixed(1)} s`,
      r.ok ? 'pass' : `FAIL${r.problem ? `: ${r.problem}` : ''}`]);
  }
  console.log(`\n${table(rows)}\n`);

  for (const r of done) {
    const shown = process.env.VERBOSE ? r.checks : r.checks.filter((c) => c.pass !== true);
    if (shown.length === 0 && r.ok) continue;
    console.log(`${r.label}:`);
    for (const c of shown) {
      console.log(`  ${c.pass === true ? 'ok  ' : 'FAIL'} ${c.name}: ${String(c.detail).split('\n').join('\n       ')}`);
    }
    if (!r.ok && r.problem) {
      const output = tail(`${r.outcome.stderr}\n${r.outcome.stdout}`, 20);
      console.log(output ? `  output:\n${output.replace(/^/gm, '    ')}` : '  (no output)');
    }
  }

  for (const r of done) for (const note of r.notes) console.log(`note (${r.label}): ${note}`);
  const failed = done.filter((r) => !r.ok).length;
  console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${done.length - failed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

await main();
