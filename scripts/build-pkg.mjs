// `make pkg`: builds the npm package into pkg/.
//
// One .wasm serves every runtime: the wasm32 release build goes through the wasm-bindgen
// CLI (pinned to the crate's version) with --target bundler, whose `_bg.js` glue is plain
// ESM with no top-level I/O, then through wasm-opt. Each runtime entry hands the glue a
// module of its own making (inlined bytes for Node/Bun/Deno, an imported module for
// Workers and edge runtimes, a fetch in browsers). The CommonJS entry is the Node ESM
// entry bundled by esbuild, so no glue is written twice.

import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
// The typings: the ErrorCode block is generated from src/error/kind.rs.
import { renderTypings } from './error-codes-dts.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const out = join(root, 'pkg');
const dist = join(out, 'dist');
const work = join(root, 'target', 'pkg-build');
const name = 'cryptopay_verify';

function run(cmd, args, env = {}) {
  console.log(`  $ ${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
}

function fail(message) {
  console.error(`build-pkg: ${message}`);
  process.exit(1);
}

// 1. The wasm32 release build of the binding crate (bindings/wasm, a cdylib over the core).
//    simd128 lets sha2 use its wasm SIMD backend; every runtime in scope has it (Node >= 16.4,
//    Safari >= 16.4). The .wasm's path is taken from cargo's own report of the artifact, so
//    CARGO_TARGET_DIR (or a target-dir in a cargo config) is followed.
//    No LTO: measured (bench/builds.mjs, BENCH_QUICK=1), the cdylib without LTO was 135.0 KB
//    (56.4 KB gzip -9); with fat LTO 146.0 KB (58.9) and a forged delivery through a Verifier
//    16-25 % slower at 256 B and 1 KiB, the rest within 3 %.
const binding = 'cryptopay_verify_wasm';
// The sandbox's binding (bindings/service: the service's rules, for cryptopay-verify/sandbox
// only) is built by the same cargo run; build-sandbox.mjs takes it through steps 2 to 4 too.
const serviceBinding = 'cryptopay_verify_service_wasm';
const cargoArgs = ['build', '--quiet', '--release', '--locked', '--target', 'wasm32-unknown-unknown',
  '-p', 'cryptopay-verify-wasm', '-p', 'cryptopay-verify-service-wasm', '--config', 'profile.release.lto=false',
  '--message-format', 'json-render-diagnostics'];
console.log(`  $ cargo ${cargoArgs.join(' ')}`);
const cargoReport = execFileSync('cargo', cargoArgs, {
  cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 64 * 2 ** 20,
  // The paths of this machine (the cargo registry, the checkout) are remapped: the panic
  // locations of dependencies are strings in the .wasm.
  // (Encoded flags, separated by 0x1f: a path may hold a space.)
  env: {
    ...process.env,
    CARGO_ENCODED_RUSTFLAGS: ['-Ctarget-feature=+simd128', `--remap-path-prefix=${process.env.CARGO_HOME ?? join(homedir(), '.cargo')}=/cargo`,
      `--remap-path-prefix=${root}=/build`].join('\x1f'),
  },
});
const artifactOf = (crate) => cargoReport.split('\n').filter((line) => line.startsWith('{'))
  .map((line) => JSON.parse(line))
  .filter((m) => m.reason === 'compiler-artifact' && m.target?.name === crate && m.target.kind.includes('cdylib'))
  .flatMap((m) => m.filenames).find((f) => f.endsWith(`${crate}.wasm`))
  ?? fail(`cargo reported no ${crate}.wasm (the binding's cdylib)`);
const rustcWasm = artifactOf(binding);

// 2. No multi-value returns at the boundary. rustc's target_features section says
//    +multivalue (LLVM's default), and wasm-bindgen then returns strings and results as
//    several values. V8 before 12 has no generic wrapper for such a signature and compiles
//    one with TurboFan for each, eagerly, when the module is compiled: measured in Node 20,
//    about 0.1 ms per signature, 2 ms of the package's cold start. Marked as disabled,
//    wasm-bindgen returns them through memory instead, and every export has at most one
//    result. Nothing of the core's own code changes (its Rust ABI does not use multi-value).
const bindgenInput = join(root, 'target', 'pkg-input', `${name}.wasm`);
mkdirSync(dirname(bindgenInput), { recursive: true });
writeFileSync(bindgenInput, withoutFeature(readFileSync(rustcWasm), 'multivalue'));

// The module with `feature` marked '-' in its target_features custom section; fails the
// build if the section does not enable it (the toolchain changed: look again).
function withoutFeature(wasm, feature) {
  const bytes = Buffer.from(wasm);
  let p = 8;
  const leb = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[p++];
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
  };
  while (p < bytes.length) {
    const id = bytes[p++];
    const size = leb();
    const end = p + size;
    if (id === 0) {
      const nameLength = leb();
      const section = bytes.toString('latin1', p, p + nameLength);
      p += nameLength;
      if (section === 'target_features') {
        for (let count = leb(); count > 0; count--) {
          const prefix = p++;
          const length = leb();
          if (bytes.toString('latin1', p, p + length) === feature) {
            if (bytes[prefix] !== 0x2b) fail(`target_features has ${feature} as '${String.fromCharCode(bytes[prefix])}', not '+'`);
            bytes[prefix] = 0x2d;
            return bytes;
          }
          p += length;
        }
      }
    }
    p = end;
  }
  return fail(`the rustc output's target_features section does not name ${feature}`);
}

// 3. wasm-bindgen, pinned to the crate's version.
const lock = readFileSync(join(root, 'Cargo.lock'), 'utf8');
const pinned = lock.match(/name = "wasm-bindgen"\nversion = "([^"]+)"/)?.[1];
const cli = execFileSync('wasm-bindgen', ['--version'], { encoding: 'utf8' }).trim().split(' ')[1];
if (pinned !== cli) fail(`wasm-bindgen CLI ${cli} differs from the crate's ${pinned}: run make setup`);
rmSync(work, { recursive: true, force: true });
run('wasm-bindgen', ['--target', 'bundler', '--out-dir', work, '--out-name', name, bindgenInput]);

const bg = readFileSync(join(work, `${name}_bg.js`), 'utf8');
if (!bg.includes('export function __wbg_set_wasm(')) fail('the glue has no __wbg_set_wasm');
if (!bg.includes('FinalizationRegistry')) fail('the glue has no FinalizationRegistry');
// wasm-bindgen types each export in `_bg.wasm.d.ts`; several results read as a tuple.
if (readFileSync(join(work, `${name}_bg.wasm.d.ts`), 'utf8').includes('=> [')) {
  fail('an export returns several values (see step 2): each costs Node 20 a wrapper compiled at start');
}

// 4. wasm-opt, told every feature the module uses.
rmSync(out, { recursive: true, force: true });
mkdirSync(join(dist, 'entry'), { recursive: true });
const wasmOut = join(dist, `${name}_bg.wasm`);
const wasmOptArgs = ['-O3', '--enable-bulk-memory', '--enable-bulk-memory-opt',
  '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals',
  '--enable-reference-types', '--enable-simd'];
run(bin('wasm-opt'), [...wasmOptArgs, join(work, `${name}_bg.wasm`), '-o', wasmOut]);
const wasmBytes = readFileSync(wasmOut);
const exportsOk = new WebAssembly.Module(wasmBytes);
if (!WebAssembly.Module.exports(exportsOk).some((e) => e.name === '__wbindgen_start')) {
  fail('the optimized module has no __wbindgen_start export');
}

// 5. The files of the package.
writeFileSync(join(dist, `${name}_bg.js`), bg);
writeFileSync(join(dist, `${name}_bg.wasm.base64.mjs`),
  `// The .wasm, inlined so that Node, Bun and Deno read no file at run time.\nexport default '${wasmBytes.toString('base64')}';\n`);
const templates = join(root, 'npm');
// Browsers: browser.mjs sits beside the .wasm in dist/, so init()'s default
// `new URL('./cryptopay_verify_bg.wasm', import.meta.url)` names the file next to the
// package's code unbundled, and next to the bundle under esbuild and Rollup.
for (const file of ['public.mjs', 'browser.mjs']) cpSync(join(templates, 'src', file), join(dist, file));
// The JavaScript layer, one module per concept (errors, inputs, verify, event, headers, validators, start).
cpSync(join(templates, 'src', 'api'), join(dist, 'api'), { recursive: true });
// What the core tells JavaScript once (its limits, secret kinds and error codes), asked of this
// build's own module here and written as literals, so that a start makes no call into
// WebAssembly for them (each first call of a function costs its lazy compile: measured, the
// four calls were about 0.3 ms of a fresh Node's import). tests/js checks them against the
// running instance.
writeFileSync(join(dist, 'api', 'core-facts.mjs'), await coreFacts(wasmBytes));
for (const entry of ['node.mjs', 'workerd.mjs', 'edge-light.mjs']) {
  cpSync(join(templates, 'src', 'entry', entry), join(dist, 'entry', entry));
}
// The command line (npm `bin`) and its conformance kit. Executable in pkg/ itself: `npm pack`
// sets the bit in a tarball, but `npm install <folder>` links pkg/ as it is.
cpSync(join(templates, 'src', 'cli'), join(dist, 'cli'), { recursive: true });
chmodSync(join(dist, 'cli', 'cli.mjs'), 0o755);
// The typings with the ErrorCode union and its docs generated from the core's ErrorKind docs.
let typings;
try {
  typings = renderTypings(readFileSync(join(templates, 'types', 'index.d.ts'), 'utf8'),
    readFileSync(join(root, 'src', 'error', 'kind.rs'), 'utf8'));
} catch (error) {
  fail(`the typings' ErrorCode block: ${error.message}`);
}
writeFileSync(join(dist, 'index.d.ts'), typings);
writeFileSync(join(dist, 'index.d.cts'), typings);
cpSync(join(templates, 'types', 'wasm-module.d.ts'), join(dist, 'wasm-module.d.ts'));
cpSync(join(templates, 'package.json'), join(out, 'package.json'));
cpSync(join(templates, 'README.md'), join(out, 'README.md'));
if (existsSync(join(root, 'LICENSE'))) cpSync(join(root, 'LICENSE'), join(out, 'LICENSE'));

// 6. The Node entries, each one bundled module: the ESM entry (Node's loader pays for every
// module file it resolves and reads: a fresh process imported the unbundled entry in about
// 15 ms, the bundle in about 9; bench/limits.md, cold start) and the CommonJS entry,
// both from the same source, so import and require() get the same code. esbuild renames one
// of two top-level bindings of the same name (`signWebhook2`) and a class that names itself
// (`_Verifier`): the glue's exports are named `raw...` and Verifier never names itself, so
// every export keeps the name users see in stack traces and util.inspect (tested).
const nodeSource = join(dist, 'entry', 'node.source.mjs');
renameSync(join(dist, 'entry', 'node.mjs'), nodeSource);
// The glue makes a TextDecoder as it loads: where there is none (Jest's jsdom environment
// removes Node's), a load fails with a bare ReferenceError; this one names the fix.
const NO_TEXT_DECODER = 'if (typeof TextDecoder === "undefined") throw new Error("cryptopay-verify: TextDecoder is not defined '
  + 'here, and the package needs it: a test environment that removes it (Jest\'s jsdom) runs this code; give the test file '
  + '/** @jest-environment node */ (server code runs in Node anyway)");';
for (const [format, file] of [['esm', 'node.mjs'], ['cjs', 'node.cjs']]) {
  run(bin('esbuild'), [nodeSource, '--bundle', `--format=${format}`, '--platform=node',
    '--target=node18', '--log-level=warning', `--banner:js=${NO_TEXT_DECODER}`, `--outfile=${join(dist, 'entry', file)}`]);
}
rmSync(nodeSource);
// Both entries inline the bytes: the module they were bundled from ships no more (200 KB).
rmSync(join(dist, `${name}_bg.wasm.base64.mjs`));
const cjs = readFileSync(join(dist, 'entry', 'node.cjs'), 'utf8');
if (cjs.includes('import.meta')) fail('the CommonJS entry refers to import.meta');

// The receiver subpath export (cryptopay-verify/receiver), see build-receiver.mjs.
const { buildReceiver } = await import('./build-receiver.mjs');
buildReceiver({ root, dist, out, fail });

// The sandbox subpath export (cryptopay-verify/sandbox), with its own .wasm: see build-sandbox.mjs.
const { buildSandbox } = await import('./build-sandbox.mjs');
buildSandbox({
  root, dist, out, fail, run, bin, wasmOptArgs,
  rustcWasm: artifactOf(serviceBinding),
  prepare: (wasm) => withoutFeature(wasm, 'multivalue'),
});

// The API client subpath (cryptopay-verify/client), see build-client.mjs.
const { buildClient } = await import('./build-client.mjs');
buildClient({ root, dist, out, fail });

const version = JSON.parse(readFileSync(join(out, 'package.json'), 'utf8')).version;
const crate = readFileSync(join(root, 'Cargo.toml'), 'utf8').match(/^version = "([^"]+)"/m)?.[1];
if (version !== crate) fail(`package.json version ${version} differs from Cargo.toml ${crate}`);
console.log(`pkg/: cryptopay-verify ${version}, ${name}_bg.wasm ${wasmBytes.length} bytes`);

// The literals of dist/api/core-facts.mjs, from an instance of the built module.
async function coreFacts(bytes) {
  const glue = await import(`${pathToFileURL(join(dist, `${name}_bg.js`)).href}?facts`);
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { [`./${name}_bg.js`]: glue });
  glue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  const facts = {
    CONSTANTS: [...glue.constants()],
    SECRET_KINDS: glue.secretKinds(),
    ERROR_CODES: glue.rawErrorCodes(),
    EVENT_ERROR_CODES: glue.rawEventErrorCodes(),
  };
  return ['// Generated by scripts/build-pkg.mjs from this build\'s .wasm: constants(), secretKinds(),',
    '// rawErrorCodes() and rawEventErrorCodes() of the binding (bindings/wasm/src/lib.rs), as literals.',
    ...Object.entries(facts).map(([k, v]) => `export const ${k} = ${JSON.stringify(v)};`), ''].join('\n');
}
