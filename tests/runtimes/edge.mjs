// Driver: the package in the edge runtime (Vercel's `edge-runtime`), as Next.js builds it.
// Usage: node tests/runtimes/edge.mjs SCRATCH_DIR   (inside the consumer folder)
//
// esbuild bundles a script importing 'cryptopay-verify' with the edge-light condition, and,
// like Next's middleware wasm loader, turns each `*.wasm?module` import into a global that
// holds a WebAssembly.Module compiled outside the VM (in the host realm). The bundle then
// runs in an EdgeRuntime whose context refuses code generation (strings and wasm).

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { EdgeRuntime } from 'edge-runtime';
import { CODEGEN_CHECK_SOURCE, report } from './lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const scratch = process.argv[2];
const dir = join(scratch, 'edge');
const EXPECTED_ENTRY = 'node_modules/cryptopay-verify/dist/entry/edge-light.mjs';
const version = `edge-runtime ${JSON.parse(readFileSync(join(root, 'node_modules', 'edge-runtime', 'package.json'), 'utf8')).version}`;
const results = [];

// `x.wasm?module` → `export default globalThis.__wasm_N`, with file N compiled by the host.
function wasmModulePlugin(wasmFiles) {
  return {
    name: 'wasm-module-global',
    setup(build) {
      build.onResolve({ filter: /\.wasm\?module$/ }, (args) => {
        const file = resolve(args.resolveDir, args.path.slice(0, -'?module'.length));
        if (!wasmFiles.has(file)) wasmFiles.set(file, `__wasm_${wasmFiles.size}`);
        return { path: file, namespace: 'wasm-module', pluginData: wasmFiles.get(file) };
      });
      build.onLoad({ filter: /.*/, namespace: 'wasm-module' }, (args) => ({
        contents: `export default globalThis[${JSON.stringify(args.pluginData)}];`,
        loader: 'js',
      }));
    },
  };
}

async function main() {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'edge.mjs'), `import * as cv from 'cryptopay-verify';
import { smoke } from '../smoke.mjs';
${CODEGEN_CHECK_SOURCE}
globalThis.__smoke = () => smoke(cv).then((results) => results.concat([runtimeCompilationForbidden()]));
`);
  const wasmFiles = new Map();
  const built = await esbuild.build({
    entryPoints: [join(dir, 'edge.mjs')],
    outfile: join(dir, 'bundle.js'),
    bundle: true,
    format: 'iife',
    platform: 'neutral',
    conditions: ['edge-light', 'worker', 'browser'], // as Next's edge compiler
    mainFields: ['module', 'main'],
    plugins: [wasmModulePlugin(wasmFiles)],
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(built.metafile.inputs);
  const entry = inputs.find((input) => input.includes('node_modules/cryptopay-verify/dist/entry/'));
  results.push({
    name: 'bundled dist/entry/edge-light.mjs',
    pass: inputs.some((input) => input.endsWith(EXPECTED_ENTRY)) && wasmFiles.size === 1,
    detail: `${entry ?? 'no entry of the package'}; ${wasmFiles.size} wasm?module import(s)`,
  });

  const runtime = new EdgeRuntime({
    codeGeneration: { strings: false, wasm: false },
    extend(context) {
      for (const [file, name] of wasmFiles) context[name] = new WebAssembly.Module(readFileSync(file));
      return context;
    },
  });
  runtime.evaluate(readFileSync(join(dir, 'bundle.js'), 'utf8'));
  // Results come back as objects of the VM's realm: copy them through JSON.
  results.push(...JSON.parse(JSON.stringify(await runtime.evaluate('globalThis.__smoke()'))));
}

try {
  await main();
} catch (error) {
  results.push({ name: 'edge-runtime run', pass: false, detail: String(error && (error.stack || error.message)) });
}
report({ version, results });
process.exit(0);
