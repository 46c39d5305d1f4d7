// Helpers shared by run.mjs and the runtime drivers (workerd.mjs, edge.mjs, browser.mjs).
//
// Every child runs in a process group of its own, bounded by a timeout; on a timeout the
// group gets SIGTERM, then SIGKILL. Whatever is still alive when this process exits (or is
// interrupted) is killed, so no server outlives a run.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import '../lib/signals.mjs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, '..', '..', 'node_modules');

/**
 * The Node lines the tests also run the installed package on, besides the machine's (binaries
 * from npm, installed by `make setup` into tests/runtimes/node-versions): 18, the oldest the
 * package's `engines` allows (no `process.getBuiltinModule`: WebAssembly hashes every body;
 * no node:sqlite), and the oldest and newest LTS.
 */
export const NODE_VERSIONS = [['node18', 'Node 18', false], ['node22', 'Node 22 LTS', true], ['node26', 'Node 26 LTS', true]]
  .map(([id, label, hasSqlite]) => ({
    id,
    label,
    hasSqlite,
    bin: join(here, 'node-versions', 'node_modules', id, 'bin', 'node'),
  }));

/** The installed wrangler's version. */
export const wranglerVersion = () => JSON.parse(readFileSync(join(modules, 'wrangler', 'package.json'), 'utf8')).version;

/**
 * Node's arguments to run the installed wrangler: its launcher refuses a Node older than it
 * wants, so its CLI proper is then run directly (a dry-run bundle does not need the newer
 * Node). `tooOld` says which.
 */
export function wranglerArgs() {
  const bin = join(modules, 'wrangler', 'bin', 'wrangler.js');
  const min = readFileSync(bin, 'utf8').match(/MIN_NODE_VERSION = "(\d+)\.(\d+)\.(\d+)"/);
  const have = process.versions.node.split('.').map(Number);
  const tooOld = Boolean(min) && (have[0] - min[1] || have[1] - min[2] || have[2] - min[3]) < 0;
  const args = tooOld ? ['--no-warnings', join(modules, 'wrangler', 'wrangler-dist', 'cli.js')] : [bin];
  return Object.assign(args, { tooOld, minNode: min ? min.slice(1).join('.') : null });
}

/** wrangler's environment: no account, no login, no telemetry, no update check; `dir` holds its config. */
export function wranglerEnv(dir) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLOUDFLARE_|CF_)/.test(k)));
  return {
    ...env,
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    WRANGLER_HIDE_BANNER: 'true', // the banner is what checks npm for a newer wrangler
    WRANGLER_WRITE_LOGS: 'false',
    WRANGLER_NO_SKILLS_UPDATE_PROMPTS: 'true',
    DO_NOT_TRACK: '1',
    CI: '1',
    NO_COLOR: '1',
    XDG_CONFIG_HOME: join(dir, '.config'), // an empty config: no stored login is used
  };
}

/** A runtime prints its results on one stdout line starting with this. */
export const RESULT_PREFIX = 'SMOKE_RESULT ';

/** Prints results ({ version, results }) the way run.mjs reads them. */
export function report(payload) {
  process.stdout.write(RESULT_PREFIX + JSON.stringify(payload) + '\n');
}

// Source for a script or Worker: `hostCopies()`, how many node:crypto hashes were copied since
// (one per tag the package's host hash makes from a keyed state), counted on the Hash
// prototype, and `hostOneShots()`, how many one-shot \`hash\` calls hashed more than a block
// (one per tag Node's host hash makes of a small body; the package's check of \`hash\` at load
// hashes three bytes); 0 where the runtime has no process.getBuiltinModule('node:crypto').
export const HOST_COPIES_SOURCE = `const [hostCopies, hostOneShots] = (() => {
  const crypto = globalThis.process?.getBuiltinModule?.('node:crypto');
  if (!crypto) return [() => 0, () => 0];
  const proto = Object.getPrototypeOf(crypto.createHash('sha256'));
  const copy = proto.copy;
  let copies = 0;
  proto.copy = function counted(...args) {
    copies += 1;
    return copy.apply(this, args);
  };
  let oneShots = 0;
  const hash = crypto.hash;
  if (typeof hash === 'function') {
    crypto.hash = function counted(algorithm, data, ...rest) {
      if (data?.length > 64) oneShots += 1;
      return hash.call(this, algorithm, data, ...rest);
    };
  }
  return [() => copies, () => oneShots];
})();`;

/**
 * Source of a function, embedded in the Workers and edge scripts: the hosts those stand
 * for refuse to compile wasm at run time, so the run only proves something if this holds.
 */
export const CODEGEN_CHECK_SOURCE = `
function runtimeCompilationForbidden() {
  const name = 'compiling wasm at run time is refused (as on the real host)';
  try {
    new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  } catch (error) {
    const message = String(error && error.message);
    return { name, pass: /disallowed/i.test(message), detail: message };
  }
  return { name, pass: false, detail: 'new WebAssembly.Module(bytes) worked: this host allows code generation' };
}
`;

const live = new Set();

function killGroup(child, signal) {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function killAll() {
  for (const child of live) killGroup(child, 'SIGKILL');
  live.clear();
}

process.on('exit', killAll);

function start(cmd, args, { cwd, env, maxOutput = 256 * 1024 } = {}) {
  const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (d) => { output.stdout = (output.stdout + d).slice(-maxOutput); });
  child.stderr.setEncoding('utf8').on('data', (d) => { output.stderr = (output.stderr + d).slice(-maxOutput); });
  if (child.pid) live.add(child);
  return { child, output };
}

/**
 * Runs a command to completion, at most timeoutMs. Never rejects:
 * { code, signal, stdout, stderr, timedOut, ms, error }.
 */
export function run(cmd, args, { cwd, env, timeoutMs = 30_000 } = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    let child;
    let output;
    try {
      ({ child, output } = start(cmd, args, { cwd, env }));
    } catch (error) {
      resolve({ code: null, signal: null, stdout: '', stderr: '', timedOut: false, ms: 0, error });
      return;
    }
    let timedOut = false;
    let done = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGTERM');
      setTimeout(() => killGroup(child, 'SIGKILL'), 2_000).unref();
    }, timeoutMs);
    const finish = (code, signal, error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      killGroup(child, 'SIGKILL'); // anything the child left behind in its group
      live.delete(child);
      resolve({ code, signal, ...output, timedOut, ms: Date.now() - started, error });
    };
    child.on('error', (error) => {
      if (!child.pid) finish(null, null, error); // could not start at all
    });
    child.on('close', (code, signal) => finish(code, signal));
    // A grandchild holding the pipes open must not keep us waiting once the child is gone.
    child.on('exit', () => killGroup(child, 'SIGKILL'));
  });
}

/** Starts a server process; stop() ends its whole process group. */
export function startServer(cmd, args, { cwd, env } = {}) {
  const { child, output } = start(cmd, args, { cwd, env });
  const exited = new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: null, signal: null, error }));
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    output,
    exited,
    async stop() {
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
      killGroup(child, 'SIGKILL');
      live.delete(child);
    },
  };
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once 127.0.0.1:port accepts a connection; rejects on timeout or when `exited` settles first. */
export async function waitForPort(port, { timeoutMs, exited }) {
  const deadline = Date.now() + timeoutMs;
  let gone = null;
  exited?.then((how) => { gone = how; });
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the server exited before listening (${JSON.stringify(gone)})`);
    const ok = await new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listened on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

/** The last lines of a text, for failure details. */
export function tail(text, lines = 12) {
  return String(text ?? '').trimEnd().split('\n').slice(-lines).join('\n');
}
