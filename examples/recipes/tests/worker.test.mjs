// The Cloudflare Worker recipe (examples/recipes/worker): bundled by `wrangler deploy
// --dry-run` as for a deployment, served by Miniflare (wrangler's local runtime: workerd, with
// the D1 database on a SQLite file) on 127.0.0.1, text bindings standing in for the vars and
// the secret; then its trap (traps.mjs): deployed without its D1 binding.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { run, tail, wranglerArgs as wrangler, wranglerEnv } from '../../../tests/runtimes/lib.mjs';
import { bundleWorker, serveBundle } from '../../../tests/receiver/lib/d1.mjs';
import {
  RECIPE_ENV, breakD1, d1StoreRows, deliveryTests, keptStdio, recipeCopy, startWorkerRecipe,
} from './helpers.mjs';
import { trapSuite } from './traps.mjs';

describe('Cloudflare Worker recipe (receiver.fetch on D1, in workerd through Miniflare)', { timeout: 90_000 }, () => {
  let worker;
  before(async () => {
    worker = await startWorkerRecipe(recipeCopy('worker'));
  });
  after(() => worker?.dispose());

  deliveryTests(() => new URL('/webhook', worker.url).href, () => d1StoreRows(worker.db), { breakStore: breakD1(() => worker.db) });

  trapSuite('Worker', {
    // The recipe without its D1 binding.
    async start() {
      const { lines, handleRuntimeStdio } = keptStdio();
      const served = await serveBundle(await bundleWorker(recipeCopy('worker', 'worker-unbound')), { bindings: RECIPE_ENV, port: 0, handleRuntimeStdio });
      return { url: new URL('/webhook', served.url).href, lines, stop: () => served.dispose() };
    },
  });
});

// Not about the recipe: the package's runtime entries load the .wasm at import, so its
// package.json lists them under "sideEffects"; with `"sideEffects": false` esbuild (in
// wrangler) dropped the workerd entry when a Worker imported names only and never called init().
test('a Worker importing names only, without init(), keeps the package\'s workerd entry in its bundle', async () => {
  const dir = join(recipeCopy('worker', 'worker-named-imports'), 'probe');
  mkdirSync(dir);
  writeFileSync(join(dir, 'probe.mjs'), `import { Verifier } from 'cryptopay-verify';
export default { fetch() { new Verifier({ secrets: 'x', maxSkewSecs: 1 }).free(); return new Response('ok'); } };
`);
  writeFileSync(join(dir, 'wrangler.json'), JSON.stringify({ name: 'probe', main: 'probe.mjs', compatibility_date: '2025-09-01' }));
  const build = await run(process.execPath, [...wrangler(), 'deploy', '--dry-run', '--outdir', join(dir, 'out'),
    '--metafile', join(dir, 'meta.json')], { cwd: dir, env: wranglerEnv(dir), timeoutMs: 45_000 });
  assert.equal(build.code, 0, tail(build.stderr + build.stdout));
  // What made it into the output (the metafile's inputs also list files read, then dropped).
  const used = Object.values(JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')).outputs)
    .flatMap((output) => Object.entries(output.inputs ?? {}))
    .filter(([, info]) => info.bytesInOutput > 0).map(([input]) => input);
  assert.ok(used.some((i) => i.endsWith('cryptopay-verify/dist/entry/workerd.mjs')), `in the bundle: ${used.join(', ')}`);
});
