// Part of `make pkg` (called by build-pkg.mjs): the subpath export `cryptopay-verify/client`.
//
//   npm/src/client/*.mjs          -> dist/client/ (ESM, as written)
//   dist/client/index.cjs         the ESM bundled for require(), with 'cryptopay-verify' left
//        external: the client loads the package's own entry for the runtime, so one process
//        holds one WebAssembly instance
//   npm/types/client.d.ts         -> dist/client/index.d.ts and index.d.cts
//   client/package.json           a stub for resolvers that ignore "exports" (node10)

import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { assertMainNeverNames, bundleCjs, shipTypesAndStub } from './subpath.mjs';

export function buildClient({ root, dist, out, fail }) {
  const src = join(root, 'npm', 'src', 'client');
  const target = join(dist, 'client');
  mkdirSync(target, { recursive: true });
  for (const file of readdirSync(src).filter((f) => f.endsWith('.mjs'))) cpSync(join(src, file), join(target, file));

  const cjs = bundleCjs({ root, target, fail, what: 'the client' });
  if (/require\("node:/.test(cjs)) fail('the client\'s CommonJS build requires a Node module: it runs on fetch alone');
  shipTypesAndStub({ root, dist, out, name: 'client' });
  assertMainNeverNames({ dist, fail, pattern: /createClient|(from|import\(|require\()\s*['"][^'"]*client/, what: 'the client' });
}
