// A Worker on Cloudflare D1, run locally as `wrangler dev` runs it: bundled by `wrangler deploy
// --dry-run` (wrangler's own resolution: the package's workerd entry, the .wasm as a module),
// then served by Miniflare (wrangler's local runtime: workerd, with D1 on a real SQLite file).

import { cpSync, mkdirSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { join } from 'node:path';
import { run, tail, wranglerArgs, wranglerEnv } from '../../runtimes/lib.mjs';
import { after, before } from 'node:test';
import { PACKAGE_DIR, ROOT, receiverOptions, tempDir } from './helpers.mjs';

const { Miniflare } = createRequire(join(ROOT, 'package.json'))('miniflare');
export const COMPATIBILITY_DATE = '2025-09-01';


/**
 * Bundles a Worker folder (its wrangler config names main) whose `cryptopay-verify` is the
 * installed package. `dir` is a scratch folder inside the repository. Returns the output folder.
 */
export async function bundleWorker(dir, { metafile } = {}) {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  rmSync(join(dir, 'node_modules', 'cryptopay-verify'), { recursive: true, force: true });
  symlinkSync(realpathSync(PACKAGE_DIR), join(dir, 'node_modules', 'cryptopay-verify'), 'dir');
  const out = join(dir, 'out');
  rmSync(out, { recursive: true, force: true });
  const build = await run(process.execPath, [...wranglerArgs(), 'deploy', '--dry-run', '--outdir', out,
    ...(metafile ? ['--metafile', metafile] : [])],
    { cwd: dir, env: wranglerEnv(dir), timeoutMs: 60_000 });
  if (build.code !== 0) {
    throw new Error(`wrangler deploy --dry-run ${build.timedOut ? 'timed out' : `exited ${build.code}`}:\n${tail(build.stderr + build.stdout)}`);
  }
  return out;
}

/** A scratch Worker folder with this source as worker.mjs and a wrangler.json. */
export function workerFolder(name, source, config = {}) {
  const dir = join(ROOT, 'target', 'receiver-test', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'worker.mjs'), source);
  writeFileSync(join(dir, 'wrangler.json'), JSON.stringify({ name, main: 'worker.mjs', compatibility_date: COMPATIBILITY_DATE, ...config }, null, 2));
  return dir;
}

/** Copies a Worker project (a recipe) to a scratch folder. */
export function copyWorker(from, name) {
  const dir = join(ROOT, 'target', 'receiver-test', name);
  rmSync(dir, { recursive: true, force: true });
  cpSync(from, dir, { recursive: true, filter: (src) => !/[/\\](node_modules|out|\.wrangler)$/.test(src) });
  return dir;
}

/**
 * Runs `make()` (which makes a Miniflare and waits for it) with each connection that a server
 * made meanwhile accepts given an error handler that keeps the error in `socketErrors`.
 *
 * Why: Miniflare's stand-in for Hyperdrive pipes each of workerd's connections to the database
 * with no error handler. node-postgres ends a client as soon as a statement fails, before the
 * server's last message (ReadyForQuery) has arrived; workerd then closes its socket with bytes
 * unread, which resets the connection, and the stand-in's reset was thrown, uncaught, in this
 * process (about every second run). A real Hyperdrive drops such a connection. The errors kept
 * are for the suite to check: resets only (`notResets`).
 */
async function withSocketErrorsKept(socketErrors, make) {
  const createServer = net.createServer;
  net.createServer = (...args) => createServer(...args)
    .on('connection', (socket) => socket.on('error', (error) => socketErrors.push(error)));
  try {
    return await make();
  } finally {
    net.createServer = createServer;
  }
}

/** The errors withSocketErrorsKept kept that are not a peer's reset of the connection. */
export const notResets = (socketErrors) => socketErrors.filter((error) => !['ECONNRESET', 'EPIPE'].includes(error.code));

/**
 * Serves a bundle in Miniflare with text `bindings` and any other Miniflare options (`more`:
 * compatibilityFlags, hyperdrives, d1Databases, ...). port: undefined to use dispatch only, else
 * served on 127.0.0.1 at that port (0: a free one workerd binds itself; `url` names it).
 * Resolves { mf, url, dispatch(url, init), dispose(), socketErrors }: with `hyperdrives`, the
 * errors on the stand-in's connections (withSocketErrorsKept), else none.
 */
export async function serveBundle(out, { bindings = {}, port, ...more } = {}) {
  const files = readdirSync(out);
  const main = files.find((f) => f === 'worker.js') ?? files.find((f) => /\.m?js$/.test(f));
  const make = async () => {
    const mf = new Miniflare({
      modules: true,
      scriptPath: join(out, main),
      modulesRoot: out,
      modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }],
      compatibilityDate: COMPATIBILITY_DATE,
      bindings,
      ...more,
      ...(port === undefined ? {} : { host: '127.0.0.1', port }),
    });
    return { mf, url: await mf.ready };
  };
  const socketErrors = [];
  const { mf, url } = more.hyperdrives ? await withSocketErrorsKept(socketErrors, make) : await make();
  return { mf, url, dispatch: (target, init) => mf.dispatchFetch(target, init), dispose: () => mf.dispose(), socketErrors };
}

/**
 * serveBundle with a D1 binding `DB` persisted in `persistDir` (a real SQLite file).
 * Resolves serveBundle's { mf, url, dispatch, dispose } and `db`, a D1 binding usable from Node.
 */
export async function serveWithD1(out, { persistDir, bindings = {}, port } = {}) {
  const served = await serveBundle(out, { bindings, port, d1Databases: { DB: 'receiver-test' }, d1Persist: persistDir });
  return { ...served, db: await served.mf.getD1Database('DB') };
}

// A Worker holding one receiver per `?prefix=` (its tables), on D1.
const RECEIVER_PER_PREFIX = `import { createReceiver, d1Store } from 'cryptopay-verify/receiver';
const receivers = new Map();
export default {
  async fetch(request, env) {
    const prefix = new URL(request.url).searchParams.get('prefix');
    if (!receivers.has(prefix)) {
      receivers.set(prefix, createReceiver({ secrets: env.SECRET, maxSkewSecs: 300, timestampHeader: env.TS_HEADER,
        signatureHeader: env.SIG_HEADER, store: d1Store(env.DB, { prefix }), log: false }));
    }
    return receivers.get(prefix).fetch(request);
  },
};
`;

/**
 * That Worker, bundled and served on a fresh local D1 for the describe block that calls this:
 * started before its tests, disposed after them. Read `.worker` inside the tests.
 */
export function d1ReceiversForSuite(name) {
  const suite = { worker: null };
  before(async () => {
    const out = await bundleWorker(workerFolder(name, RECEIVER_PER_PREFIX));
    const options = receiverOptions(null);
    suite.worker = await serveWithD1(out, {
      persistDir: tempDir(),
      bindings: { SECRET: options.secrets, TS_HEADER: options.timestampHeader, SIG_HEADER: options.signatureHeader },
    });
  });
  after(() => suite.worker?.dispose());
  return suite;
}
