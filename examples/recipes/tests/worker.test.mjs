// The Cloudflare Worker recipe (examples/recipes/worker): bundled by `wrangler deploy
// --dry-run` as for a deployment, served by `workerd serve` on 127.0.0.1 with the bindings
// given in workerd's config (text bindings standing in for the vars and the secret).

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, run, startServer, tail, waitForPort } from '../../../tests/runtimes/lib.mjs';
import { RECIPE_ENV, ROOT, deliveryTests, recipeCopy } from './helpers.mjs';

const modules = join(ROOT, 'node_modules');

// wrangler's launcher refuses a Node older than it wants; its CLI proper then runs directly
// (a dry-run bundle does not need the newer Node), as tests/runtimes/workerd.mjs does.
function wrangler() {
  const bin = join(modules, 'wrangler', 'bin', 'wrangler.js');
  const min = readFileSync(bin, 'utf8').match(/MIN_NODE_VERSION = "(\d+)\.(\d+)\.(\d+)"/);
  const have = process.versions.node.split('.').map(Number);
  const tooOld = min && (have[0] - min[1] || have[1] - min[2] || have[2] - min[3]) < 0;
  return tooOld ? ['--no-warnings', join(modules, 'wrangler', 'wrangler-dist', 'cli.js')] : [bin];
}

// No account, no login, no telemetry, no update check.
function wranglerEnv(dir) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLOUDFLARE_|CF_)/.test(k)));
  return {
    ...env,
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    WRANGLER_WRITE_LOGS: 'false',
    WRANGLER_NO_SKILLS_UPDATE_PROMPTS: 'true',
    DO_NOT_TRACK: '1',
    CI: '1',
    NO_COLOR: '1',
    XDG_CONFIG_HOME: join(dir, '.config'),
  };
}

function getJson(url) {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, json: JSON.parse(text) }));
    }).on('error', reject);
  });
}

describe('Cloudflare Worker recipe (request.arrayBuffer(), in workerd)', { timeout: 90_000 }, () => {
  let server;
  let origin;
  before(async () => {
    const dir = recipeCopy('worker');
    const out = join(dir, 'out');
    const build = await run(process.execPath, [...wrangler(), 'deploy', '--dry-run', '--outdir', out],
      { cwd: dir, env: wranglerEnv(dir), timeoutMs: 45_000 });
    assert.equal(build.code, 0, `wrangler deploy --dry-run ${build.timedOut ? 'timed out' : `exited ${build.code}`}:\n${tail(build.stderr + build.stdout)}`);

    // The bundle's modules as wrangler wrote them, main module first; the .wasm as a module.
    const files = readdirSync(out);
    const main = files.find((f) => f === 'worker.js') ?? files.find((f) => /\.m?js$/.test(f));
    const entries = [main, ...files.filter((f) => f !== main)].flatMap((f) => {
      if (/\.m?js$/.test(f)) return [`(name = ${JSON.stringify(f)}, esModule = embed ${JSON.stringify(f)})`];
      if (f.endsWith('.wasm')) return [`(name = ${JSON.stringify(f)}, wasm = embed ${JSON.stringify(f)})`];
      return [];
    });
    assert.equal(files.filter((f) => f.endsWith('.wasm')).length, 1, `one .wasm module in ${files.join(', ')}`);
    const bindings = { ...RECIPE_ENV, EXPOSE_EVENTS: 'true' };
    const port = await freePort();
    writeFileSync(join(out, 'config.capnp'), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .receiver) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const receiver :Workerd.Worker = (
  modules = [
    ${entries.join(',\n    ')}
  ],
  bindings = [
    ${Object.entries(bindings).map(([name, text]) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(text)})`).join(',\n    ')}
  ],
  compatibilityDate = "2025-09-01",
);
`);
    server = startServer(join(modules, '.bin', 'workerd'), ['serve', 'config.capnp'], { cwd: out });
    await waitForPort(port, { timeoutMs: 15_000, exited: server.exited });
    origin = `http://127.0.0.1:${port}`;
  });
  after(() => server?.stop());

  deliveryTests(() => `${origin}/webhook`);

  test('it recorded each accepted event once (applied or stale), nothing rejected or duplicated', async () => {
    const { status, json } = await getJson(`${origin}/events`);
    assert.equal(status, 200);
    const decisions = json.events.map((e) => e.decision);
    const ids = json.events.map((e) => e.event_id);
    assert.equal(new Set(ids).size, ids.length, 'an event_id recorded twice');
    assert.ok(decisions.every((d) => d === 'apply' || d === 'stale'), decisions.join());
    // The shared cases alone record 7 events (evt 1, 2, 3, 4, 5 and 10; the kit adds its own).
    const ours = json.events.filter((e) => /^evt_[0-9a-f]{8}_\d+$/.test(e.event_id));
    assert.deepEqual(ours.map((e) => [e.event_id.replace(/^evt_[0-9a-f]{8}_/, ''), e.decision]),
      [['1', 'apply'], ['2', 'stale'], ['3', 'apply'], ['4', 'stale'], ['5', 'apply'], ['10', 'stale']]);
    assert.match(ours[2].status_version, /^9007199254740995$/); // exact: 2^53 + 3
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
