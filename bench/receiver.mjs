// `make bench` (after run.mjs) or `make bench-receiver`: deliveries per second and latency of
// receivers that record what they acknowledge, durable commits on, writes its own section of
// bench/RESULTS.md (between the receiver-bench markers; the rest of the file is left as is).
//
//   node bench/receiver.mjs            full run (about 1-2 minutes)
//   BENCH_QUICK=1 node bench/receiver.mjs
//
// Each row is real processes on this machine: the receiver(s) and, in this process, a load
// generator (keep-alive HTTP, CONCURRENCY deliveries in flight, bodies signed before the clock
// starts) share its cores with PostgreSQL. The workload is the same for every row: unique
// events over 200 payments with versions shuffled, a third of them delivered twice, after a
// warm-up of WARMUP deliveries that are not counted. deliveries/s = answered 2xx / wall time;
// latency = per request, send to last byte. Any answer other than 200 is counted as an error.
//
// Rows: a baseline, the example as it was before the receiver (JSON lines + fsync per
// delivery, taken from git history, the last commit that had
// examples/node-receiver/event-log.mjs); the example receiver on SQLite
// (WAL, synchronous=FULL, group commit) in one process; the same receiver with one commit per
// delivery (maxBatch 1, to show what the group commit buys); the example receiver on
// PostgreSQL (fsync=on, synchronous_commit=on) as 1 and as 4 instances. Then a pass's claim
// with a week of closed payments in the tables (bench/claim.mjs).

import { execFileSync, spawn } from 'node:child_process';
import { closeSync, cpSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const QUICK = process.env.BENCH_QUICK === '1';
const consumer = resolve(process.env.BENCH_CONSUMER_DIR ?? join(root, 'target', 'bench-consumer'));
const OUT = process.env.BENCH_OUT ?? join(root, 'bench', 'RESULTS.md');
const DELIVERIES = QUICK ? 2_000 : 8_000;
const ROUNDS = QUICK ? 1 : 3; // every row once per round, rows interleaved: the median and the range are quoted
const WARMUP = QUICK ? 300 : 1_000;
const CONCURRENCY = 64;
const PAYMENTS = 200;
const GOAL = 1_000;
const SECRET = 'whsec_bench_receiver_0123456789abcdef';
const TS_HEADER = 'X-Webhook-Timestamp';
const SIG_HEADER = 'X-Webhook-Signature';
const log = (line) => process.stderr.write(`${line}\n`);

if (!existsSync(join(consumer, 'node_modules', 'cryptopay-verify', 'package.json'))) {
  console.error(`bench/receiver.mjs: the package is not installed in ${consumer}: run make bench (or scripts/consumer.sh ${consumer})`);
  process.exit(1);
}
const { signWebhook } = createRequire(join(consumer, 'package.json'))('cryptopay-verify');
// The tests' PostgreSQL helper loads the installed package from CONSUMER_DIR (target/consumer
// unless said): here, the bench's own, so that `make bench` needs no other build.
process.env.CONSUMER_DIR ??= consumer;
const { startPostgres } = await import('../tests/receiver/lib/postgres.mjs');
const { measureClaims } = await import('./claim.mjs');
const { measureRoutes } = await import('./routes.mjs');
const CLOSED = QUICK ? 20_000 : 100_000;
const scratch = mkdtempSync(join(consumer, '.bench-receiver-'));
const cleanup = [() => rmSync(scratch, { recursive: true, force: true })];
process.on('exit', () => {
  for (const step of cleanup.reverse()) {
    try {
      step();
    } catch {
      // best effort
    }
  }
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

// ---------------------------------------------------------------------------------------------
// Receivers under test

function copyExample(name, files) {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

function currentExample() {
  const dir = join(scratch, 'node-receiver');
  cpSync(join(root, 'examples', 'node-receiver'), dir, { recursive: true, filter: (src) => !/[/\\](node_modules|data)$/.test(src) });
  return dir;
}

// The JSON-lines example as it was before the receiver replaced it.
function oldExample() {
  const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  try {
    const last = git('log', '-n', '1', '--format=%H', '--', 'examples/node-receiver/event-log.mjs');
    const present = existsSync(join(root, 'examples', 'node-receiver', 'event-log.mjs'));
    const rev = present ? 'HEAD' : `${last}^`;
    const files = {};
    for (const file of ['server.mjs', 'receiver.mjs', 'event-log.mjs']) files[file] = git('show', `${rev}:examples/node-receiver/${file}`);
    return { dir: copyExample('old-json-lines', files), rev: git('rev-parse', '--short', rev) };
  } catch (error) {
    log(`old JSON-lines example: not available from git history (${error.message.split('\n')[0]})`);
    return null;
  }
}

// The receiver with sqliteStore options the example does not expose (maxBatch 1).
function sqliteServer(options) {
  return copyExample(`sqlite-${JSON.stringify(options).replace(/\W+/g, '')}`, {
    'server.mjs': `import http from 'node:http';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { createReceiver, sqliteStore } from 'cryptopay-verify/receiver';
const Database = createRequire(${JSON.stringify(join(root, 'package.json'))})('better-sqlite3');
const receiver = createReceiver({ secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET, maxSkewSecs: 300,
  timestampHeader: process.env.TIMESTAMP_HEADER, signatureHeader: process.env.SIGNATURE_HEADER,
  store: sqliteStore(new Database(join(process.env.DATA_DIR, 'receiver.sqlite')), ${JSON.stringify(options)}) });
await receiver.ready();
const server = http.createServer(receiver.node);
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => console.log('node-receiver: listening on http://127.0.0.1:' + server.address().port + '/webhook'));
`,
  });
}

function start(dir, env) {
  const child = spawn(process.execPath, [join(dir, 'server.mjs')], {
    env: { ...process.env, CRYPTOPAY_WEBHOOK_SECRET: SECRET, TIMESTAMP_HEADER: TS_HEADER, SIGNATURE_HEADER: SIG_HEADER, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanup.push(() => child.kill('SIGKILL'));
  let output = '';
  child.stderr.on('data', (d) => { output = (output + d).slice(-4000); });
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`${dir} did not start:\n${output}`)), 20_000);
    child.stdout.on('data', (d) => {
      output = (output + d).slice(-4000);
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/webhook)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise({ url: match[1], stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) });
      }
    });
    child.once('exit', (code) => reject(new Error(`${dir} exited (${code}):\n${output}`)));
  });
}

// ---------------------------------------------------------------------------------------------
// The load

function workload(tag, count) {
  const perPayment = Math.ceil(count / 1.33 / PAYMENTS);
  const events = [];
  for (let p = 0; p < PAYMENTS; p += 1) {
    for (let v = 1; v <= perPayment; v += 1) events.push({ id: `evt_${tag}_${p}_${v}`, payment: `pay_${tag}_${p}`, version: v });
  }
  const list = [...events, ...events.filter((_, i) => i % 3 === 0)].slice(0, count);
  for (let i = list.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  const timestamp = String(Math.floor(Date.now() / 1000));
  return list.map(({ id, payment, version }) => {
    const body = Buffer.from(JSON.stringify({ schema_version: '1', event_id: id, event_type: 'payment.updated',
      occurred_at: new Date().toISOString(), data: { payment_id: payment, status_version: version, status: 'confirming', amount_raw: '12800' } }));
    return { body, headers: { 'content-type': 'application/json', 'content-length': body.length, [TS_HEADER]: timestamp,
      [SIG_HEADER]: signWebhook({ secret: SECRET, timestamp, body }) } };
  });
}

async function drive(urls, deliveries) {
  const agents = urls.map(() => new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY }));
  const latencies = [];
  let errors = 0;
  let next = 0;
  const one = (i) => new Promise((resolvePromise) => {
    const started = process.hrtime.bigint();
    const k = i % urls.length;
    const req = http.request(urls[k], { method: 'POST', agent: agents[k], headers: deliveries[i].headers }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        else errors += 1;
        resolvePromise();
      });
    });
    req.on('error', () => {
      errors += 1;
      resolvePromise();
    });
    req.end(deliveries[i].body);
  });
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < deliveries.length) {
      const i = next;
      next += 1;
      await one(i);
    }
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  for (const agent of agents) agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return { acknowledged: latencies.length, errors, seconds, perSecond: latencies.length / seconds, p50: pct(0.5), p99: pct(0.99) };
}

async function measure(label, startAll) {
  const servers = await startAll();
  try {
    const urls = servers.map((s) => s.url);
    await drive(urls, workload(`warm${Math.random().toString(36).slice(2, 8)}`, WARMUP));
    const result = await drive(urls, workload(`run${Math.random().toString(36).slice(2, 8)}`, DELIVERIES));
    log(`${label}: ${result.perSecond.toFixed(0)} deliveries/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ${result.errors} errors`);
    return { label, ...result };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

// What one durable commit costs on this disk right now: 200-byte appends, each followed by
// fsync, in the folder the SQLite files go to (the median of 200). It moves with the load of
// the machine's other users, and every row below depends on it.
function fsyncProbe() {
  const file = join(scratch, 'fsync-probe');
  const fd = openSync(file, 'w');
  const times = [];
  try {
    for (let i = 0; i < 200; i += 1) {
      const started = process.hrtime.bigint();
      writeSync(fd, Buffer.alloc(200, 0x61));
      fsyncSync(fd);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  times.sort((a, b) => a - b);
  return { median: times[100], p99: times[198] };
}

// ---------------------------------------------------------------------------------------------

const rows = [];
const fsyncBefore = fsyncProbe();
const notes = [];
const t0 = Date.now();
const loadStart = os.loadavg().map((x) => x.toFixed(2)).join(' ');

const old = oldExample();
if (!old) notes.push('The baseline (the JSON-lines example receiver, read from git history) could not be read (no git, or a shallow clone): its row is missing.');
const example = currentExample();
const single = sqliteServer({ maxBatch: 1 });
const pg = startPostgres();
cleanup.push(() => pg.destroy());
const pgVersion = readFileSync(join(pg.dataDir, 'PG_VERSION'), 'utf8').trim();
const dataDir = () => mkdtempSync(join(scratch, 'data-'));
const driver = createRequire(join(root, 'package.json'));
// Each PostgreSQL run on a database of its own, as each SQLite run has a file of its own: no
// run starts on the tables an earlier one filled.
let databases = 0;
async function freshDatabase() {
  databases += 1;
  const name = `bench_run_${databases}`;
  const client = new (driver('pg').Client)({ connectionString: pg.url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(pg.url);
  url.pathname = `/${name}`;
  return url.href;
}
const plan = [
  ...(old ? [{ kind: 'old', label: `baseline: JSON lines, fsync per delivery (${old.rev}), 1 process`, start: async () => [await start(old.dir, { DATA_DIR: dataDir() })] }] : []),
  { kind: 'sqlite', goal: true, label: 'SQLite (WAL, synchronous=FULL, group commit), 1 process', start: async () => [await start(example, { DATA_DIR: dataDir() })] },
  { kind: 'sqlite-single', label: 'SQLite (WAL, synchronous=FULL), one commit per delivery (maxBatch 1), 1 process', start: async () => [await start(single, { DATA_DIR: dataDir() })] },
  ...[1, 4].map((instances) => ({
    kind: `pg-${instances}`,
    goal: instances === 4,
    label: `PostgreSQL ${pgVersion} (fsync=on, synchronous_commit=on), ${instances} instance${instances > 1 ? 's' : ''}`,
    start: async () => {
      const url = await freshDatabase();
      return Promise.all(Array.from({ length: instances }, () => start(example, { DATABASE_URL: url })));
    },
  })),
];
const runs = new Map(plan.map((row) => [row.kind, []]));
// The rows' order turns each round, so that no row always runs first (on the emptiest tables,
// the coolest disk) or after the same neighbour.
for (let round = 1; round <= ROUNDS; round += 1) {
  for (let k = 0; k < plan.length; k += 1) {
    const row = plan[(round - 1 + k) % plan.length];
    runs.get(row.kind).push(await measure(`[round ${round}/${ROUNDS}] ${row.label}`, row.start));
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const row of plan) {
  const list = runs.get(row.kind);
  const perSecond = list.map((r) => r.perSecond);
  rows.push({
    kind: row.kind,
    goal: row.goal,
    label: row.label,
    perSecond: median(perSecond),
    min: Math.min(...perSecond),
    max: Math.max(...perSecond),
    p50: median(list.map((r) => r.p50)),
    p99: median(list.map((r) => r.p99)),
    errors: list.reduce((n, r) => n + r.errors, 0),
    runs: list,
  });
}
log(`claims with ${CLOSED} closed payments in the tables`);
const claims = await measureClaims({
  rx: await import(pathToFileURL(join(consumer, 'node_modules', 'cryptopay-verify', 'dist', 'receiver', 'index.mjs')).href),
  pg: driver('pg'),
  Database: driver('better-sqlite3'),
  pgUrl: pg.url,
  file: join(scratch, 'claims.sqlite'),
  closed: CLOSED,
});
pg.destroy();
log('a delivery\'s cost with many integrations, through the receiver\'s own faces and a route');
const installed = join(consumer, 'node_modules', 'cryptopay-verify', 'dist');
const routes = await measureRoutes({
  pkg: await import(pathToFileURL(join(installed, 'entry', 'node.mjs')).href),
  rx: await import(pathToFileURL(join(installed, 'receiver', 'index.mjs')).href),
  quick: QUICK,
});
const fsyncAfter = fsyncProbe();

// ---------------------------------------------------------------------------------------------
// The section of RESULTS.md

const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
// What 4 instances gave over 1 in this run, said from the two rows' medians.
function scaling() {
  const one = rows.find((r) => r.kind === 'pg-1')?.perSecond;
  const four = rows.find((r) => r.kind === 'pg-4')?.perSecond;
  if (!Number.isFinite(one) || !Number.isFinite(four)) return '';
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const x = four / one;
  if (x >= 1.2) return `On ${cores} cores, 4 PostgreSQL instances recorded ${fmt(x, 1)} times as many deliveries a second as 1.`;
  return `On ${cores} cores, 4 PostgreSQL instances recorded ${fmt(x, 2)} times what 1 did: four Node processes, their PostgreSQL backends and the load generator ` +
    'share the same cores, which one instance already keeps busy; here several instances are for availability, not speed.';
}
const oldRow = rows.find((r) => r.kind === 'old');
const L = [];
L.push('<!-- receiver-bench:start (written by bench/receiver.mjs; the rest of this file by bench/run.mjs) -->');
L.push('## Receiver: deliveries recorded per second, durable commits on');
L.push('');
L.push(`Generated by bench/receiver.mjs (\`make bench\` runs it after run.mjs, \`make bench-receiver\` alone) on ${new Date().toISOString().replace('T', ' ').slice(0, 19)} UTC in ${((Date.now() - t0) / 1000).toFixed(0)} s${QUICK ? ' (BENCH_QUICK=1: shorter runs)' : ''}. ` +
  `Load average at start ${loadStart}, at the end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}; ${os.availableParallelism?.() ?? os.cpus().length} cores, shared by everything in the row.`);
L.push('');
L.push(`How: real processes on this machine. A load generator in the bench process keeps ${CONCURRENCY} deliveries in flight over keep-alive HTTP ` +
  `(bodies of about 250 bytes, signed before the clock starts), spread round-robin over the row's instances; it shares the cores with the receivers ` +
  `and PostgreSQL. The baseline is examples/node-receiver as it was before it used cryptopay-verify/receiver (read from git history): ` +
  `each delivery appended to a JSON-lines file and fsynced before the answer. Workload: ${DELIVERIES} deliveries of unique events over ${PAYMENTS} payments, versions shuffled, a third delivered twice, ` +
  `after ${WARMUP} uncounted warm-up deliveries. deliveries/s = deliveries answered 200 / wall time; latency per request, send to last byte. ` +
  'Every commit is durable: SQLite in WAL with synchronous=FULL (an fsync per commit), PostgreSQL with fsync=on and synchronous_commit=on ' +
  '(a throwaway server on a unix socket, default settings otherwise). Every run starts on empty tables: a SQLite file, or a PostgreSQL database, of its own. ' +
  `One append + fsync on this disk took ${fmt(fsyncBefore.median, 2)} ms (median; p99 ${fmt(fsyncBefore.p99, 2)} ms) before the rows and ` +
  `${fmt(fsyncAfter.median, 2)} ms (p99 ${fmt(fsyncAfter.p99, 2)} ms) after: one commit per delivery caps a receiver near ` +
  `${fmt(1000 / Math.max(fsyncBefore.median, fsyncAfter.median))} deliveries/s at the slower of the two (the machine's disk is shared, and its fsync moves from run to run). ` +
  `Each row ran ${ROUNDS} time${ROUNDS > 1 ? 's' : ''}, rows interleaved; the table gives the median deliveries/s (the range in parentheses) and the median p50 and p99.`);
L.push('');
L.push('| Receiver | deliveries/s (range) | p50 latency | p99 latency | errors | vs the baseline | goal (>= 1,000/s) |');
L.push('|---|---|---|---|---|---|---|');
for (const r of rows) {
  const ratio = oldRow && r !== oldRow ? `${fmt(r.perSecond / oldRow.perSecond, 1)}x` : '';
  const goal = !r.goal ? ''
    : r.errors > 0 ? `**missed** (${r.errors} error${r.errors > 1 ? 's' : ''})`
      : r.min >= GOAL ? 'met (every run)' : r.perSecond >= GOAL ? '**met by the median only**' : '**missed**';
  const range = ROUNDS > 1 ? ` (${fmt(r.min)}-${fmt(r.max)})` : '';
  L.push(`| ${r.label} | ${fmt(r.perSecond)}${range} | ${fmt(r.p50, 1)} ms | ${fmt(r.p99, 1)} ms | ${r.errors} | ${ratio} | ${goal} |`);
}
L.push('');
L.push('The SQLite store commits the deliveries that arrive together in one transaction (each answered only after that COMMIT returned), ' +
  'so one fsync covers many deliveries; the row with maxBatch 1 shows the same receiver paying one fsync per delivery, as the baseline does. ' +
  'PostgreSQL groups the commits of concurrent transactions in one WAL flush on its own; each delivery is one statement. ' +
  scaling());
L.push('');
L.push('### A pass\'s claim with a week of closed payments');
L.push('');
L.push(`How (bench/claim.mjs): the stores of the installed package, on the PostgreSQL server above and on a SQLite file; ${CLOSED.toLocaleString('en-US')} ` +
  'orders spread over the last 7 days, each closed (ended unpaid) as a pass leaves it, none due a check for late money yet, then ANALYZE; ' +
  'a claim with the defaults (batch 20, recoverAfterSecs 900, recheckClosedSecs 604800), taking nothing. The median of 15 claims, the range in parentheses. ' +
  'Before schema version 5 a claim read every closed payment whose order was younger than recheckClosedSecs to find the ones due: ' +
  'about 270 ms a claim on either engine with 100,000 of them (measured the same way on the package before that change).');
L.push('');
L.push('| Engine | closed payments | claim (range) |');
L.push('|---|---|---|');
for (const c of claims) L.push(`| ${c.engine} | ${c.closed.toLocaleString('en-US')} | ${fmt(c.median, 1)} ms (${fmt(c.min, 1)}-${fmt(c.max, 1)}) |`);
L.push('');
L.push('### One route per integration: a delivery\'s cost with many integrations');
L.push('');
L.push('How (bench/routes.mjs): in this process, `handle` of a receiver on a memory store (the verification and the receiver\'s own work: ' +
  'no HTTP, no disk), whose `secrets` names 1, 50 or 300 integrations, through its own faces (a delivery verified against each ' +
  'integration\'s secrets in turn) and through the last integration\'s route, `receiver.integration(name)` (its secrets alone). ' +
  'Forged: signed with a secret none holds (at a route, past the first 20 of a second the other integrations are not tried: a flood\'s steady state). ' +
  'Authentic: signed by the last integration, a new event each, recorded. Bodies of about 300 bytes, signed before the clock starts; ' +
  `the median of ${15} rounds of ${QUICK ? 200 : 1000} deliveries, per delivery, the range in parentheses.`);
L.push('');
L.push('| integrations | delivery | own faces | its route |');
L.push('|---|---|---|---|');
for (const count of [...new Set(routes.map((r) => r.integrations))]) {
  for (const delivery of ['forged', 'authentic, recorded']) {
    const cell = (face) => {
      const r = routes.find((x) => x.integrations === count && x.delivery === delivery && x.face === face);
      return `${fmt(r.median, 1)} us (${fmt(r.min, 1)}-${fmt(r.max, 1)})`;
    };
    L.push(`| ${count} | ${delivery} | ${cell('own faces')} | ${cell('its route')} |`);
  }
}
for (const note of notes) L.push(`\n${note}`);
L.push('<!-- receiver-bench:end -->');
const section = L.join('\n');

const current = existsSync(OUT) ? readFileSync(OUT, 'utf8') : '';
const block = /<!-- receiver-bench:start[\s\S]*?<!-- receiver-bench:end -->/;
const next = block.test(current) ? current.replace(block, section) : `${current.replace(/\n*$/, '\n\n')}${section}\n`;
writeFileSync(OUT, next);
writeFileSync(join(root, 'target', 'bench-receiver.json'), JSON.stringify({ date: new Date().toISOString(), quick: QUICK, fsyncBefore, fsyncAfter, rows, claims, routes }, null, 2));
log(`bench/receiver.mjs: wrote its section of ${OUT}`);
