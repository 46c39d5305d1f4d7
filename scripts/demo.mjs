// `make demo`: the conformance kit of the installed package plays the payment service
// against two receivers on 127.0.0.1: the example receiver (examples/node-receiver), which
// holds every rule, and a careless one that acknowledges everything, which is caught.
// Exits 0 when the good receiver passes and the careless one is caught.
//
// Runs against the package installed in CONSUMER_DIR (default target/consumer, as
// `make consumer` leaves it); `make demo` builds and installs it first.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const consumer = resolve(process.env.CONSUMER_DIR ?? join(root, 'target', 'consumer'));
const cli = join(consumer, 'node_modules', '.bin', 'cryptopay-verify');
// The service's header names are not in its specification: these stand in for them.
const TS_HEADER = 'X-Webhook-Timestamp';
const SIG_HEADER = 'X-Webhook-Signature';
const SECRET_ENV = 'CRYPTOPAY_WEBHOOK_SECRET';

const bold = (text) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);
const say = (text = '') => process.stdout.write(`${text}\n`);

if (!existsSync(cli)) {
  console.error(`demo: ${cli} is missing: run make demo (it builds and installs the package)`);
  process.exit(2);
}

const env = { ...process.env, [SECRET_ENV]: `whsec_demo_${randomBytes(16).toString('hex')}` };
// A secret rotation in progress, so that the kit checks it too (pending_secret, retired_secret):
// the example receiver reads these; the careless one ignores them.
const PENDING_ENV = 'CRYPTOPAY_WEBHOOK_SECRET_PENDING';
const RETIRED_ENV = 'CRYPTOPAY_WEBHOOK_SECRET_RETIRING';
Object.assign(env, {
  [PENDING_ENV]: `whsec_demo_pending_${randomBytes(16).toString('hex')}`,
  [RETIRED_ENV]: `whsec_demo_retired_${randomBytes(16).toString('hex')}`,
  CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: String(Math.floor(Date.now() / 1000) - 3600), // its overlap has ended
});
const cleanup = [];

// The example receiver, run from a copy beside the installed package so that its
// `import ... from 'cryptopay-verify'` resolves to it.
const receiverDir = join(consumer, 'node-receiver');
rmSync(receiverDir, { recursive: true, force: true });
cpSync(join(root, 'examples', 'node-receiver'), receiverDir, {
  recursive: true,
  filter: (src) => !/[/\\](node_modules|data)$/.test(src),
});
const dataDir = mkdtempSync(join(tmpdir(), 'cryptopay-demo-'));
cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));

function startExample() {
  const child = spawn(process.execPath, [join(receiverDir, 'server.mjs')], {
    env: { ...env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, TIMESTAMP_HEADER: TS_HEADER, SIGNATURE_HEADER: SIG_HEADER },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const rx = { child, output: '' };
  child.stdout.on('data', (d) => { rx.output += d; });
  child.stderr.on('data', (d) => { rx.output += d; });
  rx.exited = new Promise((r) => child.on('exit', r));
  rx.stop = () => {
    child.kill('SIGTERM');
    return rx.exited;
  };
  cleanup.push(() => child.kill('SIGKILL'));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`the example receiver did not start:\n${rx.output}`)), 15_000);
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(rx.output);
      if (match) {
        clearTimeout(timer);
        rx.webhookUrl = match[1];
        rx.url = new URL(rx.webhookUrl).origin;
        resolvePromise(rx);
      }
    });
    rx.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the example receiver exited (${code}):\n${rx.output}`));
    });
  });
}

// The careless receiver: answers 200 to anything, checks nothing.
async function startCareless() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => server.closeAllConnections());
  return {
    webhookUrl: `http://127.0.0.1:${server.address().port}/webhook`,
    stop: () => new Promise((r) => {
      server.close(r);
      server.closeAllConnections();
    }),
  };
}

// The kit, as a user runs it: its table and progress go straight to the terminal.
function conformance(url) {
  const args = ['conformance', '--url', url, '--secret-env', SECRET_ENV, '--timestamp-header', TS_HEADER,
    '--signature-header', SIG_HEADER, '--timeout', '5', '--pending-secret-env', PENDING_ENV, '--retired-secret-env', RETIRED_ENV];
  say(`$ cryptopay-verify ${args.join(' ')}`);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cli, args, { env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => resolvePromise(code));
  });
}

function getJson(url) {
  return new Promise((resolvePromise, reject) => {
    http.get(url, { agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolvePromise(JSON.parse(text)));
    }).on('error', reject);
  });
}

async function main() {
  say(bold('cryptopay-verify demo: the conformance kit plays the payment service against two receivers'));
  say(`(package installed in ${consumer}; header names ${TS_HEADER} and ${SIG_HEADER} stand in for the service's)`);

  say();
  say(bold('1. The example receiver (examples/node-receiver): verifies first, records durably, de-duplicates, orders'));
  let rx = await startExample();
  say(`started on ${rx.webhookUrl}, recording to ${join(dataDir, 'receiver.sqlite')} (cryptopay-verify/receiver, SQLite)`);
  const good = await conformance(rx.webhookUrl);
  const recorded = await getJson(`${rx.url}/events`);
  const applied = recorded.events.filter((e) => e.decision === 'apply').length;
  say(`GET /events: ${recorded.count} events recorded (${applied} applied); the rejected deliveries left no trace`);
  // What the store holds after a shuffled burst.
  const burst = await shuffledBurst(rx);
  await rx.stop();
  const { output } = rx;
  rx = await startExample();
  const rebuilt = await getJson(`${rx.url}/events`);
  say(`restarted: ${rebuilt.count} events still in the store, none re-applied`);
  await rx.stop();

  say();
  say(bold('2. A careless receiver: answers 200 to every POST, verifies nothing'));
  const careless = await startCareless();
  say(`started on ${careless.webhookUrl}`);
  const bad = await conformance(careless.webhookUrl);
  await careless.stop();

  say();
  const goodOk = good === 0 && rebuilt.count === recorded.count + burst.events && burst.ok;
  const caught = bad === 1;
  say(bold(`${goodOk ? 'ok' : 'FAILED'}: the example receiver ${good === 0 ? 'holds every rule' : `did not pass (exit ${good})`}` +
    `${rebuilt.count === recorded.count + burst.events ? '' : ', and lost events over a restart'}` +
    `${burst.ok ? '' : ', and the shuffled burst was not stored as it should be'}`));
  say(bold(`${caught ? 'ok' : 'FAILED'}: the careless receiver ${caught ? 'was caught (exit 1, each failed rule named above)' : `was not caught (exit ${bad})`}`));
  if (!goodOk) process.stderr.write(`\nexample receiver log:\n${output}${rx.output}`);
  return goodOk && caught ? 0 : 1;
}

// The service delivers at least once and in any order: a burst of signed deliveries for a few
// payments, versions shuffled, a third of them sent twice, all at once. The store must hold
// each event once and every payment at its highest version, whatever the arrival order.
async function shuffledBurst(rx) {
  const { signWebhook } = createRequire(join(consumer, 'package.json'))('cryptopay-verify');
  const payments = ['pay_demo_a', 'pay_demo_b', 'pay_demo_c'];
  const events = payments.flatMap((paymentId, p) => Array.from({ length: 8 }, (_, v) => ({
    eventId: `evt_demo_${p}_${v + 1}`,
    paymentId,
    // Payment b's versions are beyond 2^53, where a float would round them.
    version: p === 1 ? String(2n ** 53n + BigInt(v + 1)) : String(v + 1),
  })));
  const deliveries = [...events, ...events.filter((_, i) => i % 3 === 0)];
  for (let i = deliveries.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [deliveries[i], deliveries[j]] = [deliveries[j], deliveries[i]];
  }
  const answers = await Promise.all(deliveries.map(({ eventId, paymentId, version }) => {
    const body = JSON.stringify({ schema_version: '1', event_id: eventId, event_type: 'payment.updated',
      occurred_at: new Date().toISOString(), data: { payment_id: paymentId, status_version: version, status: `v${version}` } });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = signWebhook({ secret: env[SECRET_ENV], timestamp, body });
    return postJson(rx.webhookUrl, body, { [TS_HEADER]: timestamp, [SIG_HEADER]: signature });
  }));
  const count = (d) => answers.filter((a) => a.decision === d).length;
  say();
  say(bold(`A shuffled burst: ${deliveries.length} deliveries of ${events.length} events for ${payments.length} payments, ` +
    `${deliveries.length - events.length} sent twice, all at once`));
  say(`answers: ${count('apply')} apply, ${count('stale')} stale (an older version after a newer one), ${count('duplicate')} duplicate`);
  const stored = await getJson(`${rx.url}/events`);
  const ours = stored.events.filter((e) => e.event_id.startsWith('evt_demo_'));
  const once = new Set(ours.map((e) => e.event_id)).size === ours.length && ours.length === events.length;
  say(`GET /events: ${ours.length} of them stored, each once: ${once ? 'yes' : 'NO'}`);
  let highest = true;
  for (const paymentId of payments) {
    const best = events.filter((e) => e.paymentId === paymentId).map((e) => BigInt(e.version)).reduce((a, b) => (a > b ? a : b));
    const payment = await getJson(`${rx.url}/payments/${paymentId}`);
    const ok = payment.status_version === String(best);
    highest &&= ok;
    say(`GET /payments/${paymentId}: status_version ${payment.status_version} (highest sent: ${best}) ${ok ? 'ok' : 'WRONG'}`);
  }
  return { events: events.length, ok: once && highest && answers.every((a) => a.received === true) };
}

function postJson(url, body, headers) {
  return new Promise((resolvePromise, reject) => {
    const req = http.request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        try {
          resolvePromise(JSON.parse(text));
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function finish(code) {
  for (const step of cleanup.reverse()) {
    try {
      step();
    } catch {
      // best effort
    }
  }
  process.exit(code);
}

process.on('SIGINT', () => finish(130));
main().then(finish, (error) => {
  console.error(`demo: ${error.message}`);
  finish(1);
});
