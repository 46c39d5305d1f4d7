// A throwaway PostgreSQL server for one test run: initdb on a temporary folder, listening on
// a unix socket in that folder only (no TCP port), started with pg_ctl and stopped (then
// deleted) when the run ends, whether it passed, failed or was interrupted.
//
// As root (CI, this machine) the server runs as the `postgres` user (runuser), since
// PostgreSQL refuses to run as root; otherwise as the current user. The binaries are found
// in PG_BINDIR, else the newest /usr/lib/postgresql/<version>/bin (Debian), else on PATH.
// `make setup` installs Debian's postgresql when none is there.

import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, appendFileSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { pg } from './helpers.mjs';
import { freePort } from '../../runtimes/lib.mjs';

const asRoot = process.getuid?.() === 0;

function binDir() {
  if (process.env.PG_BINDIR) return process.env.PG_BINDIR;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length) return join(debian, versions[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (which.status === 0) return join(which.stdout.trim(), '..');
  throw new Error('PostgreSQL is not installed (no initdb): run make setup (Debian: apt-get install postgresql)');
}

function owner() {
  if (!asRoot) return null;
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

const live = new Set();
function stopAll() {
  for (const server of live) server.stopSync('immediate');
}
// A signal ends the process through process.exit (tests/lib/signals.mjs): the servers stop then.
process.on('exit', stopAll);

/**
 * A node-postgres Pool whose end() resolves only once every client's connection has closed.
 * pg's own Pool.end() resolves when it has asked each client to end, before the sockets close:
 * a server stopped right after it terminates those sessions, and the ending clients (no longer
 * the pool's, so without an error listener) throw "terminating connection due to administrator
 * command" after the test ended (CI hit it once).
 */
export function openPool(config) {
  const pool = new pg.Pool(config);
  const closed = [];
  pool.on('connect', (client) => closed.push(new Promise((resolve) => client.once('end', resolve))));
  const end = pool.end.bind(pool);
  pool.end = async () => {
    await end();
    await Promise.all(closed);
  };
  return pool;
}

/**
 * A throwaway server and a pool of `max` clients on it for the describe block that calls this:
 * started before its tests (listening on loopback TCP too when `tcp`: startPostgresTcp), stopped
 * after them. Read `.pool` and `.server` inside the tests. What the suite starts on the database
 * (a recipe's server, whose pool would see its connections die) is stopped first: give its stop
 * to `.stopFirst(fn)` from a before-hook. node:test runs after-hooks in the order they were
 * registered, so a hook of the suite's own, registered after this one, would run too late.
 */
export function postgresForSuite({ max = 4, tcp = false } = {}) {
  const stops = [];
  const suite = { server: null, pool: null, stopFirst: (stop) => stops.push(stop) };
  before(async () => {
    suite.server = tcp ? await startPostgresTcp() : startPostgres();
    suite.pool = openPool({ connectionString: suite.server.url, max });
  });
  after(async () => {
    for (const stop of stops.reverse()) await stop();
    await suite.pool?.end();
    suite.server?.destroy();
  });
  return suite;
}

/**
 * Creates and starts a server. Resolves { socketDir, connection, url, logFile, log() (its
 * end), stop(mode), start(), destroy() }. `connection` is a node-postgres config; `url` the same as a
 * connection string (user postgres, database postgres, no password: trust on the socket).
 */
export function startPostgres({ settings = {} } = {}) {
  const bin = binDir();
  const base = mkdtempSync(join(tmpdir(), 'cpv-pg-'));
  const data = join(base, 'data');
  const socketDir = join(base, 'sock');
  const logFile = join(base, 'server.log');
  mkdirSync(socketDir);
  const ids = owner();
  if (ids) for (const path of [base, socketDir]) chownSync(path, ids.uid, ids.gid);
  const run = (tool, args, { check = true } = {}) => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
    const result = spawnSync(cmd, argv, { encoding: 'utf8', cwd: base });
    if (check && result.status !== 0) {
      throw new Error(`${tool} ${args.join(' ')} failed (${result.status}):\n${result.stdout}${result.stderr}${server.log()}`);
    }
    return result;
  };
  const runAsync = (tool, args) => new Promise((resolve, reject) => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
    execFile(cmd, argv, { cwd: base }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${tool} ${args.join(' ')} failed: ${stdout}${stderr}${server.log()}`));
      else resolve();
    });
  });
  const configure = () => writeConf(data, socketDir, settings);
  const server = {
    socketDir,
    dataDir: data,
    connection: { host: socketDir, port: Number(settings.port ?? 5432), user: 'postgres', database: 'postgres', ssl: false },
    url: `postgresql://postgres@localhost:${settings.port ?? 5432}/postgres?host=${encodeURIComponent(socketDir)}&sslmode=disable`,
    logFile,
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-4000) : ''),
    running: false,
    start() {
      run('pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '60', 'start']);
      server.running = true;
      live.add(server);
    },
    /** mode: 'fast' (a clean shutdown) or 'immediate' (like a crash: recovery at the next start). */
    stop(mode = 'fast') {
      run('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      server.running = false;
    },
    /** The same, without blocking this process's event loop. */
    async stopAsync(mode = 'fast') {
      await runAsync('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      server.running = false;
    },
    async startAsync() {
      await runAsync('pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '60', 'start']);
      server.running = true;
      live.add(server);
    },
    stopSync(mode) {
      const stop = (how) => run('pg_ctl', ['-D', data, '-m', how, '-w', '-t', '60', 'stop'], { check: false }).status === 0;
      // A server that will not stop keeps its folder: deleted under it, it would run on, unseen.
      const stopped = !server.running || stop(mode) || stop('immediate');
      server.running = false;
      live.delete(server);
      if (stopped) rmSync(base, { recursive: true, force: true });
      else process.stderr.write(`postgres: the server of ${data} did not stop; its folder is kept\n`);
    },
    destroy() {
      server.stopSync('fast');
    },
  };
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
    configure();
    server.start();
  } catch (error) {
    // A server that failed to start (a port taken, pg_ctl's wait timed out on a loaded
    // machine) is stopped if it came up after all, and its folder removed.
    run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop'], { check: false });
    rmSync(base, { recursive: true, force: true });
    throw error;
  }
  return server;
}

function writeConf(data, socketDir, settings) {
  const conf = {
    listen_addresses: "''",
    unix_socket_directories: `'${socketDir}'`,
    max_connections: '100',
    fsync: 'on', // durable commits, as in production
    synchronous_commit: 'on',
    ...settings,
  };
  appendFileSync(join(data, 'postgresql.conf'),
    `\n# cryptopay-verify test server\n${Object.entries(conf).map(([k, v]) => `${k} = ${v}`).join('\n')}\n`);
}

/**
 * startPostgres listening on TCP too, on 127.0.0.1 (for what cannot reach a unix socket: a
 * Worker in workerd). PostgreSQL cannot pick a free port itself: a port found free is tried,
 * and another if a process took it meanwhile. Adds `tcpUrl` (with a password trust auth
 * ignores, as Miniflare's Hyperdrive binding demands one).
 */
export async function startPostgresTcp() {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    try {
      const server = startPostgres({ settings: { listen_addresses: "'127.0.0.1'", port: String(port) } });
      return Object.assign(server, { tcpUrl: `postgres://postgres:unused@127.0.0.1:${port}/postgres` });
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

/**
 * For the describe block that calls this: a throwaway server, PgBouncer in transaction mode in
 * front of it (startPgBouncer) and a one-client pool straight to the server (to read what was
 * stored), started before its tests and stopped after them. `lostNames()`: how many statements
 * the server has refused for a name it did not have (26000), from its log.
 */
export function pgBouncerForSuite({ poolSize = 4 } = {}) {
  const suite = { server: null, bouncer: null, direct: null };
  before(async () => {
    suite.server = startPostgres();
    suite.bouncer = await startPgBouncer(suite.server, { poolSize });
    suite.direct = openPool({ connectionString: suite.server.url, max: 1 });
  });
  after(async () => {
    await suite.direct?.end();
    await suite.bouncer?.stop();
    suite.server?.destroy();
  });
  suite.lostNames = () => (readFileSync(suite.server.logFile, 'utf8').match(/ERROR: {2}prepared statement "[^"]*" does not exist/g) ?? []).length;
  return suite;
}

/**
 * PgBouncer in front of `server`, in transaction pooling mode, on a unix socket in a temporary
 * folder (no TCP port), as the postgres user when this process is root (PgBouncer refuses to
 * run as root). Debian's pgbouncer (1.18: it passes statements through but not their names;
 * `make setup` installs it). Resolves { url, stop() } once it accepts connections.
 */
export async function startPgBouncer(server, { poolSize = 4 } = {}) {
  const binary = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path));
  if (!binary) throw new Error('PgBouncer is not installed: run make setup (Debian: apt-get install pgbouncer)');
  const dir = mkdtempSync(join(tmpdir(), 'cpv-pgbouncer-'));
  const ids = owner();
  if (ids) chownSync(dir, ids.uid, ids.gid);
  const port = 6432; // names the socket file only: listen_addr is empty, so no TCP port
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(join(dir, 'pgbouncer.ini'), [
    '[databases]',
    `postgres = host=${server.socketDir} dbname=postgres user=postgres`,
    '[pgbouncer]',
    'listen_addr =',
    `listen_port = ${port}`,
    `unix_socket_dir = ${dir}`,
    'auth_type = trust',
    `auth_file = ${join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    `default_pool_size = ${poolSize}`,
    'max_client_conn = 200',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    '',
  ].join('\n'));
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', binary, join(dir, 'pgbouncer.ini')]] : [binary, [join(dir, 'pgbouncer.ini')]];
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  // At exit without stop(): runuser passes the signal on; the folder goes too.
  const orphan = () => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', orphan);
  const socket = join(dir, `.s.PGSQL.${port}`);
  const deadline = Date.now() + 10_000;
  let gone = null;
  exited.then((how) => { gone = how; });
  while (!existsSync(socket)) {
    if (gone || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`pgbouncer did not start (${gone ? `exited ${JSON.stringify(gone)}` : 'timeout'}):\n${output}`);
    }
    await new Promise((resolve) => { setTimeout(resolve, 20); });
  }
  return {
    url: `postgresql://postgres@localhost:${port}/postgres?host=${encodeURIComponent(dir)}&sslmode=disable`,
    async stop() {
      process.off('exit', orphan);
      if (!gone) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
