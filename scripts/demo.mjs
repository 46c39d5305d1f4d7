// `make demo`: the merchant loop in one screen, on 127.0.0.1 with no account and no network.
//
//   1. The sandbox (cryptopay-verify/sandbox) plays the payment service, with a network that
//      duplicates and reorders deliveries; the example receiver (examples/node-receiver)
//      records them.
//   2. The shop creates payments through the receiver's POST /payments (the API client, each
//      order recorded); customers pay them in full, partly and too much; one is cancelled.
//   3. What the receiver stored, next to what GET /v1/payments/{id} says.
//   4. The merchant loop: each payment confirmed with GET /v1/payments/{id}, linked to its
//      order and decided: the orders paid exactly shipped once, the others held for review
//      or released.
//   5. The conformance kit (cryptopay-verify conformance) against the same receiver and a
//      careless one, one line each.
//   Exit 0 only when the store agrees with the service, every order got its decision (and no
//   order shipped twice), and the kit's verdicts are right.
//
// Runs against the package installed in CONSUMER_DIR (default target/consumer, as `make
// consumer` leaves it); `make demo` builds and installs it first.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { constants, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const consumer = resolve(process.env.CONSUMER_DIR ?? join(root, 'target', 'consumer'));
const installed = join(consumer, 'node_modules', 'cryptopay-verify');
// The service's header names are not in its specification: these stand in for them.
const TS_HEADER = 'X-Webhook-Timestamp';
const SIG_HEADER = 'X-Webhook-Signature';
const SEED = 2026;
// The receiver's views (GET /events, /payments/:id) answer only this bearer (its ADMIN_TOKEN): one per run.
const ADMIN_TOKEN = randomBytes(32).toString('hex');

const tty = process.stdout.isTTY === true;
const bold = (text) => (tty ? `\x1b[1m${text}\x1b[0m` : text);
const dim = (text) => (tty ? `\x1b[2m${text}\x1b[0m` : text);
const say = (text = '') => process.stdout.write(`${text}\n`);

if (!existsSync(join(installed, 'package.json'))) {
  console.error(`demo: ${installed} is missing: run make demo (it builds and installs the package)`);
  process.exit(2);
}
// The installed package, by its exports, as a user's project resolves it.
const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
// The CLI's own script, run by this Node: no shell, and no `.bin` shim (a `.cmd` on Windows).
const cli = join(installed, manifest.bin['cryptopay-verify']);
const load = (subpath, conditions) => {
  let target = manifest.exports[subpath];
  while (typeof target === 'object') target = target[Object.keys(target).find((k) => conditions.includes(k))];
  return import(pathToFileURL(join(installed, target)).href);
};
const { fromAmountRaw, toAmountRaw } = await load('.', ['node', 'import', 'default']);
const { startSandbox } = await load('./sandbox', ['import', 'default']);

const cleanup = [];
// What the demo's processes get of this shell's environment: what Node and a shell need, no
// more. A CRYPTOPAY_API_KEY, CRYPTOPAY_BASE_URL, DATABASE_URL or WEBHOOK_PATH set for your own
// receiver would otherwise reach the example receiver (which reads them), and a live key could
// leave this machine.
const KEPT = ['PATH', 'HOME', 'TMPDIR', 'TMP', 'TEMP', 'LANG', 'LC_ALL', 'TZ', 'SYSTEMROOT', 'USERPROFILE', 'NODE_EXTRA_CA_CERTS'];
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => KEPT.includes(name.toUpperCase())));
const freePort = () => new Promise((resolvePort) => {
  const server = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    server.close(() => resolvePort(port));
  });
});

/** Starts a process; resolves once its output matches `ready`. */
function start(command, args, { env, ready }) {
  const child = spawn(command, args, { env: { ...baseEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = { child, output: '' };
  child.stdout.on('data', (d) => { proc.output += d; });
  child.stderr.on('data', (d) => { proc.output += d; });
  proc.exited = new Promise((r) => child.on('exit', (code, signal) => r(code ?? signal)));
  // SIGTERM, then SIGKILL after 5 s; rejects unless it exited 0 (a graceful stop).
  proc.stop = async () => {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    const code = await proc.exited.finally(() => clearTimeout(killer));
    if (code !== 0) throw new Error(`${args[0]} exited ${code} on SIGTERM, not 0:\n${proc.output}`);
  };
  cleanup.push(() => child.kill('SIGKILL'));
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args[0]} did not start:\n${proc.output}`)), 15_000);
    const check = () => {
      if (ready.test(proc.output)) {
        clearTimeout(timer);
        resolveStart(proc);
      }
    };
    child.stdout.on('data', check);
    proc.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${args[0]} exited (${code}):\n${proc.output}`));
    });
  });
}

// `key`: sent as `Authorization: Bearer <key>` (the sandbox's API key, or the receiver's ADMIN_TOKEN).
async function json(url, { method = 'GET', key, body, idem } = {}) {
  const headers = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (idem) headers['idempotency-key'] = idem;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  try {
    return { status: res.status, json: JSON.parse(text) };
  } catch {
    throw new Error(`${method} ${new URL(url).pathname} answered ${res.status} with no JSON: ${text.slice(0, 200)}`);
  }
}

const short = (id) => `${id.slice(0, 8)}…${id.slice(-4)}`;
const FACTS = ['payment_id', 'order_ref', 'source_amount', 'status', 'status_version', 'amount_received_raw', 'checkout_origin', 'expires_at'];

async function main() {
  say(bold('cryptopay-verify demo: the merchant loop against the local sandbox, no account, no network'));
  say(dim(`(the package installed in ${consumer}; header names ${TS_HEADER} and ${SIG_HEADER} stand in for the service's)`));

  // 1. The sandbox, and the example receiver on a port named to the sandbox before it starts.
  const port = await freePort();
  const webhookUrl = `http://127.0.0.1:${port}/webhook`;
  const sandbox = await startSandbox({
    port: 0, webhookUrl, timestampHeader: TS_HEADER, signatureHeader: SIG_HEADER,
    retryDelaysMs: [100, 200, 400, 800, 1600], duplicateRate: 0.3, shuffle: true, seed: SEED,
  });
  cleanup.push(() => sandbox.close());
  const receiverDir = mkdtempSync(join(consumer, '.demo-node-receiver-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'cryptopay-demo-'));
  cleanup.push(() => rmSync(receiverDir, { recursive: true, force: true }), () => rmSync(dataDir, { recursive: true, force: true }));
  // Beside the installed package, so that the example's imports resolve to it.
  cpSync(join(root, 'examples', 'node-receiver'), receiverDir, { recursive: true, filter: (src) => !/[/\\](node_modules|data)$/.test(src) });
  const receiver = await start(process.execPath, [join(receiverDir, 'server.mjs')], {
    env: { CRYPTOPAY_WEBHOOK_SECRET: sandbox.webhook.secret, TIMESTAMP_HEADER: TS_HEADER, SIGNATURE_HEADER: SIG_HEADER,
      PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN,
      CRYPTOPAY_BASE_URL: sandbox.baseUrl, CRYPTOPAY_API_KEY: sandbox.apiKey, FULFIL_INTERVAL_MS: '200' },
    ready: /listening on http/,
  });
  cleanup.push(() => receiver.child.kill('SIGKILL'));
  say();
  say(bold('1. The sandbox and the example receiver (examples/node-receiver, SQLite)'));
  say(`   sandbox   ${sandbox.baseUrl}   API key ${sandbox.apiKey.slice(0, 14)}…   webhook ${sandbox.webhook.resourceId}`);
  say(`   receiver  ${webhookUrl}   signing secret from the sandbox, exactly as issued; its merchant loop confirms with the sandbox`);
  say(`   network   30 % of events delivered twice, a payment's events out of order (seed ${SEED})`);

  // 2. The shop creates payments through the receiver (its orders recorded); the customers pay.
  const { primary_source: source } = (await json(`${sandbox.baseUrl}/v1/store`, { key: sandbox.apiKey })).json;
  const money = (raw) => `${raw === '0' ? (0).toFixed(source.decimals) : fromAmountRaw(raw, source.decimals)} ${source.ref}`;
  // Each order, and what the loop then does with it: the line the example's handler prints.
  const plan = [
    ['order-1001', 'pays in full', ['128.00'], 'would ship'],
    ['order-1002', 'pays part', ['50.00'], 'would hold', 'partially_paid'],
    ['order-1003', 'pays too much', ['150.00'], 'would hold', 'overpaid'],
    ['order-1004', 'pays in two parts', ['28.00', '100.00'], 'would ship'],
    ['order-1005', 'cancelled by the merchant', [], 'would release'],
  ];
  const site = webhookUrl.replace('/webhook', '');
  say();
  say(bold('2. The shop creates payments of 128.00 (POST /payments of the receiver: the API client); the customers pay'));
  const payments = [];
  for (const [orderRef, what, amounts] of plan) {
    const created = await json(`${site}/payments`, { method: 'POST', key: ADMIN_TOKEN, body: { order_ref: orderRef, amount: '128.00', currency: source.ref } });
    if (created.status !== 201) throw new Error(`POST /payments answered ${created.status}: ${JSON.stringify(created.json)}`);
    const id = created.json.payment_id;
    let view = created.json;
    for (const amount of amounts) view = await sandbox.pay(id, toAmountRaw(amount, source.decimals));
    if (amounts.length === 0) view = (await json(`${sandbox.baseUrl}/v1/payments/${id}/cancel`, { method: 'POST', key: sandbox.apiKey })).json;
    payments.push(id);
    const paid = amounts.length === 0 ? '' : ` (${amounts.join(' + ')})`;
    say(`   ${short(id)}  ${orderRef}  ${`${what}${paid}`.padEnd(35)} -> ${view.status}, received ${money(view.amount_received_raw)}`);
  }

  // 3. Deliveries settle; then the receiver's store next to the service's answer.
  const deadline = Date.now() + 20_000;
  let pending = await sandbox.pendingDeliveries();
  while (pending.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    pending = await sandbox.pendingDeliveries();
  }
  const attempts = await sandbox.deliveries();
  const events = await sandbox.events();
  const recorded = (await json(`${site}/events`, { key: ADMIN_TOKEN })).json;
  const duplicates = attempts.filter((a) => a.kind === 'duplicate').length;
  const stale = recorded.events.filter((e) => e.decision === 'stale').length;
  say();
  say(bold('3. What the receiver stored, next to GET /v1/payments/{id}'));
  const acknowledged = attempts.filter((a) => a.outcome === 'acknowledged').length;
  // Each delivery's last attempt: one retried after a passing failure and then acknowledged is fine.
  const lastOf = new Map(attempts.map((a) => [a.delivery_id, a]));
  const notAcknowledged = [...lastOf.values()].filter((a) => a.outcome !== 'acknowledged');
  say(`   the sandbox: ${events.length} events, ${attempts.length} delivery attempts (${duplicates} duplicates), ` +
    `${acknowledged === attempts.length ? 'all' : acknowledged} acknowledged`);
  say(`   the receiver: ${recorded.count} events recorded, each once; ${stale} arrived after a newer one (stale: kept, not applied)`);
  say(dim(`   ${'payment'.padEnd(13)}  ${'receiver'.padEnd(24)}  ${'GET /v1/payments/{id}'.padEnd(24)}`));
  // Every delivery acknowledged in the end (duplicates and stale ones included), none left pending.
  let agree = pending.length === 0 && notAcknowledged.length === 0 && recorded.count === events.length;
  if (notAcknowledged.length > 0) say(`   ${notAcknowledged.length} deliveries never acknowledged: ${notAcknowledged.map((a) => a.status ?? a.error).join(', ')}`);
  if (pending.length > 0) say(`   ${pending.length} deliveries still pending after 20 s`);
  for (const id of payments) {
    const view = (await json(`${sandbox.baseUrl}/v1/payments/${id}`, { key: sandbox.apiKey })).json;
    const stored = await json(`${site}/payments/${id}`, { key: ADMIN_TOKEN });
    const data = stored.status === 200 ? stored.json.data : null;
    const same = data !== null && FACTS.every((f) => JSON.stringify(data[f]) === JSON.stringify(view[f]));
    agree &&= same;
    const mine = data === null ? 'nothing stored' : `${data.status} v${data.status_version}`;
    say(`   ${short(id)}  ${mine.padEnd(24)}  ${`${view.status} v${view.status_version}`.padEnd(24)}  ${same ? 'agree' : 'DIFFER'}`);
  }

  // 4. The merchant loop's decisions, as the example's handler prints them (a shop's ships).
  const decided = (orderRef, verb, reason) => new RegExp(`node-receiver: ${verb} order ${orderRef}${reason ? ` for review \\(${reason};` : '\\b'}[^\\n]*`, 'g');
  const loopDeadline = Date.now() + 20_000;
  while (!plan.every(([orderRef, , , verb, reason]) => decided(orderRef, verb, reason).test(receiver.output)) && Date.now() < loopDeadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 600)); // a few more passes: nothing decided twice
  say();
  say(bold('4. The merchant loop: each payment confirmed with GET /v1/payments/{id}, linked to its order, decided'));
  let loopOk = true;
  for (const [orderRef, , , verb, reason] of plan) {
    const lines = receiver.output.match(decided(orderRef, verb, reason)) ?? [];
    const shipped = (receiver.output.match(decided(orderRef, 'would ship')) ?? []).length;
    const right = lines.length > 0 && shipped === (verb === 'would ship' ? 1 : 0);
    loopOk &&= right;
    const said = lines.at(-1)?.replace(`node-receiver: `, '').replace(/; key [^)]*\)$/, ')').replace(/pay_[0-9a-f]+/g, short) ?? 'no decision';
    say(`   ${said}${right ? '' : '   WRONG'}`);
  }
  await receiver.stop();

  // 5. The conformance kit, one line per receiver.
  const kitReceiver = await start(process.execPath, [join(receiverDir, 'server.mjs')], {
    env: { CRYPTOPAY_WEBHOOK_SECRET: sandbox.webhook.secret, TIMESTAMP_HEADER: TS_HEADER, SIGNATURE_HEADER: SIG_HEADER,
      PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir },
    ready: /listening on http/,
  });
  const careless = http.createServer((req, res) => req.resume().on('end', () => res.end('{"ok":true}')));
  await new Promise((r) => careless.listen(0, '127.0.0.1', r));
  cleanup.push(() => careless.close());
  const kit = (url) => new Promise((resolveKit, reject) => {
    const child = spawn(process.execPath, [cli, 'conformance', '--url', url, '--secret-env', 'DEMO_SECRET', '--timestamp-header', TS_HEADER,
      '--signature-header', SIG_HEADER, '--timeout', '5', '--json'], { env: { ...baseEnv, DEMO_SECRET: sandbox.webhook.secret } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', reject);
    child.on('close', (code) => {
      let rows = null;
      try {
        rows = JSON.parse(out);
      } catch {
        // said below
      }
      if (!Array.isArray(rows) || rows.length === 0) {
        reject(new Error(`the conformance kit printed no verdicts (exit ${code}):\n${err}`));
        return;
      }
      resolveKit({ code, rows, failed: rows.filter((r) => r.verdict === 'fail').map((r) => r.rule) });
    });
  });
  const good = await kit(/listening on (http:\/\/\S+)/.exec(kitReceiver.output)[1]);
  await kitReceiver.stop();
  const bad = await kit(`http://127.0.0.1:${careless.address().port}/webhook`);
  say();
  say(bold('5. The conformance kit (cryptopay-verify conformance) plays hostile deliveries'));
  say(`   example receiver: ${good.rows.filter((r) => r.verdict === 'pass').length}/${good.rows.length} rules hold (exit ${good.code})`);
  say(`   careless receiver (200 to anything): caught (exit ${bad.code}), ${bad.failed.length} rules broken: ` +
    `${bad.failed.slice(0, 3).join(', ')}${bad.failed.length > 3 ? ', ...' : ''}`);

  const kitOk = good.code === 0 && good.failed.length === 0 && bad.code === 1 && bad.failed.length > 0;
  say();
  say(bold(`${agree ? 'ok' : 'FAILED'}: the receiver ${agree ? 'holds each payment as GET /v1/payments/{id} says'
    : 'does not agree with the service'}; ${loopOk ? 'ok' : 'FAILED'}: ${loopOk ? 'each order decided, the ones paid exactly shipped once'
    : 'the loop\'s decisions'}; ${kitOk ? 'ok' : 'FAILED'}: the kit's verdicts`));
  if (!agree || !loopOk) process.stderr.write(`\nreceiver log:\n${receiver.output}`);
  return agree && loopOk && kitOk ? 0 : 1;
}

// Once: a signal during the cleanup of a failure does not run it again.
let finishing = false;
async function finish(code) {
  if (finishing) return;
  finishing = true;
  for (const step of [...cleanup].reverse()) {
    try {
      await step();
    } catch {
      // best effort
    }
  }
  process.exit(code);
}

// Ctrl-C, a CI's timeout or `kill`: the processes and folders go with the demo.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => finish(128 + constants.signals[signal]));
main().then(finish, (error) => {
  console.error(`demo: ${error.stack ?? error.message}`);
  finish(1);
});
