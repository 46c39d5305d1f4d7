// What every subpath export of the package (receiver, client, sandbox) shares at build time:
// its CommonJS bundle with the package left external (so a process holds one WebAssembly
// instance, whichever way it loads), its typings, the stub package.json of resolvers that
// ignore "exports" (node10), and the check that the main entry never loads it.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Bundles dist/<name>/<entry> for require() into dist/<name>/<outfile>, `externals` left out
 * ('cryptopay-verify' always), and returns its text; fails the build unless it requires the
 * package by name.
 */
export function bundleCjs({ root, target, fail, what, entry = 'index.mjs', outfile = 'index.cjs', externals = [] }) {
  execFileSync(join(root, 'node_modules', '.bin', 'esbuild'), [join(target, entry), '--bundle', '--format=cjs',
    '--platform=node', '--target=node18', ...['cryptopay-verify', ...externals].map((e) => `--external:${e}`),
    '--log-level=warning', `--outfile=${join(target, outfile)}`], { cwd: root, stdio: 'inherit' });
  const cjs = readFileSync(join(target, outfile), 'utf8');
  if (!cjs.includes('require("cryptopay-verify")')) fail(`${what}'s CommonJS build does not require the package by name`);
  return cjs;
}

/** npm/types/<name>.d.ts as dist/<name>/index.d.ts and .d.cts, and the stub <name>/package.json. */
export function shipTypesAndStub({ root, dist, out, name }) {
  const types = join(root, 'npm', 'types', `${name}.d.ts`);
  cpSync(types, join(dist, name, 'index.d.ts'));
  cpSync(types, join(dist, name, 'index.d.cts'));
  mkdirSync(join(out, name), { recursive: true });
  writeFileSync(join(out, name, 'package.json'), `${JSON.stringify({
    private: true,
    main: `../dist/${name}/index.cjs`,
    module: `../dist/${name}/index.mjs`,
    types: `../dist/${name}/index.d.cts`,
  }, null, 2)}\n`);
}

/**
 * The main entry stays as it was: fails the build when a file it loads (public.mjs, api/,
 * entry/, and `more`) matches `pattern`, naming the subpath `what`.
 */
export function assertMainNeverNames({ dist, fail, pattern, what, more = [] }) {
  for (const file of ['public.mjs', ...more, ...['api', 'entry'].flatMap((d) => readdirSync(join(dist, d)).map((f) => join(d, f)))]) {
    if (pattern.test(readFileSync(join(dist, file), 'utf8'))) fail(`dist/${file} refers to ${what}`);
  }
}
