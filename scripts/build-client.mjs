// Part of `make pkg` (called by build-pkg.mjs): the subpath export `cryptopay-verify/client`.
//
//   npm/src/client/*.mjs          -> dist/client/ (ESM, as written)
//   dist/client/index.cjs         the ESM bundled for require(), with 'cryptopay-verify' left
//        external: the client loads the package's own entry for the runtime, so one process
//        holds one WebAssembly instance
//   npm/types/client.d.ts         -> dist/client/index.d.ts and index.d.cts
//   client/package.json           a stub for resolvers that ignore "exports" (node10)

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function buildClient({ root, dist, out, fail }) {
  const src = join(root, 'npm', 'src', 'client');
  const target = join(dist, 'client');
  mkdirSync(target, { recursive: true });
  for (const file of readdirSync(src).filter((f) => f.endsWith('.mjs'))) cpSync(join(src, file), join(target, file));

  execFileSync(join(root, 'node_modules', '.bin', 'esbuild'), [join(target, 'index.mjs'), '--bundle', '--format=cjs',
    '--platform=node', '--target=node18', '--external:cryptopay-verify', '--log-level=warning',
    `--outfile=${join(target, 'index.cjs')}`], { cwd: root, stdio: 'inherit' });
  const cjs = readFileSync(join(target, 'index.cjs'), 'utf8');
  if (!cjs.includes('require("cryptopay-verify")')) fail('the client\'s CommonJS build does not require the package by name');
  if (/require\("node:/.test(cjs)) fail('the client\'s CommonJS build requires a Node module: it runs on fetch alone');

  const types = join(root, 'npm', 'types', 'client.d.ts');
  cpSync(types, join(target, 'index.d.ts'));
  cpSync(types, join(target, 'index.d.cts'));

  mkdirSync(join(out, 'client'), { recursive: true });
  writeFileSync(join(out, 'client', 'package.json'), `${JSON.stringify({
    private: true,
    main: '../dist/client/index.cjs',
    module: '../dist/client/index.mjs',
    types: '../dist/client/index.d.cts',
  }, null, 2)}\n`);

  // The main entry stays as it was: nothing it loads may name the client.
  for (const file of ['public.mjs', ...['api', 'entry'].flatMap((d) => readdirSync(join(dist, d)).map((f) => join(d, f)))]) {
    const text = readFileSync(join(dist, file), 'utf8');
    if (/createClient|(from|import\(|require\()\s*['"][^'"]*client/.test(text)) fail(`dist/${file} refers to the client`);
  }
}
