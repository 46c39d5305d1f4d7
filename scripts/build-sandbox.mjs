// Part of `make pkg` (called by build-pkg.mjs): the subpath export `cryptopay-verify/sandbox`,
// with the WebAssembly module of its own that carries the service's rules.
//
//   bindings/service (built by build-pkg.mjs's cargo run) -> wasm-bindgen --target bundler ->
//        wasm-opt, as the main module -> dist/sandbox/cryptopay_verify_service_bg.js (the glue)
//        and ..._bg.wasm.base64.mjs (the bytes, inlined: the sandbox is Node only and reads
//        no file at run time)
//   npm/src/sandbox/*.mjs -> dist/sandbox/ (ESM, as written)
//   dist/sandbox/rules.cjs    rules.mjs bundled for require() (the glue and the bytes inside)
//   dist/sandbox/index.cjs    index.mjs bundled for require(), requiring ./rules.cjs (so the
//        module's bytes are in the package once) and 'cryptopay-verify' by name (the package's
//        own CommonJS entry: one instance of the main module per process)
//   npm/types/sandbox.d.ts -> dist/sandbox/index.d.ts and index.d.cts
//   sandbox/package.json      a stub for resolvers that ignore "exports" (node10)
//
// The main module stays as it was: the service's exports are not in it, and nothing the
// main entry loads may name the sandbox (checked below).

import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertMainNeverNames, bundleCjs, shipTypesAndStub } from './subpath.mjs';

const NAME = 'cryptopay_verify_service';

export function buildSandbox({ root, dist, out, fail, run, bin, wasmOptArgs, rustcWasm, prepare }) {
  const work = join(root, 'target', 'pkg-build-service');
  const input = join(root, 'target', 'pkg-input', `${NAME}.wasm`);
  writeFileSync(input, prepare(readFileSync(rustcWasm)));
  rmSync(work, { recursive: true, force: true });
  run('wasm-bindgen', ['--target', 'bundler', '--out-dir', work, '--out-name', NAME, input]);
  const glue = readFileSync(join(work, `${NAME}_bg.js`), 'utf8');
  if (!glue.includes('export function __wbg_set_wasm(')) fail('the service glue has no __wbg_set_wasm');
  if (readFileSync(join(work, `${NAME}_bg.wasm.d.ts`), 'utf8').includes('=> [')) {
    fail('a service export returns several values: each costs Node 20 a wrapper compiled at start');
  }
  const optimized = join(work, `${NAME}_bg.opt.wasm`);
  run(bin('wasm-opt'), [...wasmOptArgs, join(work, `${NAME}_bg.wasm`), '-o', optimized]);
  const wasm = readFileSync(optimized);
  const exported = WebAssembly.Module.exports(new WebAssembly.Module(wasm)).map((e) => e.name);
  for (const name of ['newPaymentState', 'applyPaymentAction', 'checkIdempotency', 'nextDeliveryStep', 'validateRetryDelays', 'apiError']) {
    if (!exported.includes(name)) fail(`the service module does not export ${name}`);
  }

  const target = join(dist, 'sandbox');
  mkdirSync(target, { recursive: true });
  const src = join(root, 'npm', 'src', 'sandbox');
  for (const file of readdirSync(src).filter((f) => f.endsWith('.mjs'))) cpSync(join(src, file), join(target, file));
  writeFileSync(join(target, `${NAME}_bg.js`), glue);
  writeFileSync(join(target, `${NAME}_bg.wasm.base64.mjs`),
    `// The service's .wasm (bindings/service), inlined so that the sandbox reads no file at run time.\nexport default '${wasm.toString('base64')}';\n`);

  bundleCjs({ root, target, fail, what: 'the sandbox\'s rules', entry: 'rules.mjs', outfile: 'rules.cjs' });
  const cjs = bundleCjs({ root, target, fail, what: 'the sandbox', externals: ['better-sqlite3', './rules.mjs'] });
  if (!cjs.includes('require("./rules.mjs")')) fail('the sandbox\'s CommonJS build does not require its rules module');
  if (cjs.includes('__wbg_set_wasm')) fail('the sandbox\'s CommonJS build carries the service module a second time');
  writeFileSync(join(target, 'index.cjs'), cjs.replaceAll('require("./rules.mjs")', 'require("./rules.cjs")'));
  for (const file of ['index.cjs', 'rules.cjs']) {
    const text = readFileSync(join(target, file), 'utf8');
    if (text.includes('import.meta')) fail(`the sandbox's ${file} refers to import.meta`);
    // Required only inside the loader of a data file's driver (store.mjs's sqliteDriver).
    const required = text.match(/require\("better-sqlite3"\)/g)?.length ?? 0;
    const guarded = text.match(/typeof require === "function" \? require\("better-sqlite3"\)/g)?.length ?? 0;
    if (required !== guarded || required > 1) fail(`the sandbox's ${file} requires better-sqlite3 at load (it is optional)`);
  }

  shipTypesAndStub({ root, dist, out, name: 'sandbox' });

  // The main entry stays as it was: its module has none of the service's exports, and nothing
  // it loads may name the sandbox or the sandbox's module.
  const mainExports = WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(join(dist, 'cryptopay_verify_bg.wasm'))));
  if (mainExports.some((e) => exported.includes(e.name) && e.name !== 'memory' && !e.name.startsWith('__'))) {
    fail('the main module exports a function of the service\'s rules');
  }
  assertMainNeverNames({
    dist, fail, what: 'the sandbox', more: ['browser.mjs', 'cryptopay_verify_bg.js'],
    pattern: /startSandbox|cryptopay_verify_service|(from|import\(|require\()\s*['"][^'"]*sandbox/,
  });
  console.log(`  sandbox: ${NAME}_bg.wasm ${wasm.length} bytes (inlined in dist/sandbox/)`);
}
