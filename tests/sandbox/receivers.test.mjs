// Real receivers driven by the sandbox as the network treats them (duplicateRate and shuffle,
// seeded): the example receiver (examples/node-receiver), the Express and Hono recipes (each
// from a copy beside the installed package, started as `node server.mjs` with its environment)
// and the axum receiver (examples/axum-receiver, built by `make axum-test`; skipped, saying
// so, when it is not built). For each: every event recorded once, each payment at its highest
// version, and the facts it stored equal to what GET /v1/payments/{id} says.

import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  CONSUMER_DIR, PACKAGE_DIR, ROOT, SIG_HEADER, TS_HEADER, api, createPayment, freePort, settled, startProcess, startSandbox,
} from './lib.mjs';
import { inheritedEnv } from '../receiver/lib/example-env.mjs';

const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
const AXUM = process.env.AXUM_RECEIVER_BIN ?? join(ROOT, 'target', 'axum-receiver', 'release', 'cryptopay-verify-axum-receiver');
const FACTS = ['payment_id', 'order_ref', 'source_amount', 'status', 'status_version', 'amount_received_raw', 'checkout_origin', 'expires_at'];
const SEED = 20_261_128;

const scratch = mkdtempSync(join(ROOT, 'target', 'sandbox-receivers-'));
const cleanups = [() => rmSync(scratch, { recursive: true, force: true })];
after(async () => {
  for (const step of cleanups.reverse()) await step();
});

// What the axum example reads besides the node example's names (inheritedEnv leaves those out).
const OTHER_READS = ['DATABASE', 'BODY_TIMEOUT_SECS'];

/**
 * The environment of a receiver: this process's, without the settings the examples read (a
 * store, an API key or base URL of the machine's own, a skew, a path, the loop's timing).
 */
function receiverEnv(extra) {
  const env = Object.fromEntries(Object.entries(inheritedEnv()).filter(([name]) => !OTHER_READS.includes(name) && !name.startsWith('CRYPTOPAY_')));
  return { ...env, TIMESTAMP_HEADER: TS_HEADER, SIGNATURE_HEADER: SIG_HEADER, HOST: '127.0.0.1', ...extra };
}

/** The merchant's loop: payments paid in every way, one cancelled, one reviewed, one expired. */
async function workload(sandbox) {
  const ids = [];
  const make = async (orderRef) => {
    const p = await createPayment(sandbox, '1000', { order_ref: orderRef });
    ids.push(p.payment_id);
    return p.payment_id;
  };
  await sandbox.pay(await make('full'), '1000');
  const twice = await make('in two parts');
  await sandbox.pay(twice, '400');
  await sandbox.pay(twice, '600');
  await sandbox.pay(await make('partly'), '250');
  await sandbox.pay(await make('too much'), '1500');
  const cancelled = await make('cancelled');
  assert.equal((await api(sandbox, 'POST', `/v1/payments/${cancelled}/cancel`)).json.status, 'cancelled');
  const reviewed = await make('reviewed');
  await sandbox.pay(reviewed, '1000');
  await sandbox.review(reviewed);
  const expired = await make('expired');
  await sandbox.pay(expired, '100');
  await sandbox.expire(expired);
  await make('never paid'); // no event: the receiver never hears of it
  return ids;
}

/** What a receiver's SQLite file holds (the schema shared by all of them). */
function recorded(file) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return {
      events: db.prepare('SELECT event_id, payment_id, status_version, decision FROM cryptopay_events ORDER BY rowid').all(),
      payments: new Map(db.prepare('SELECT payment_id, status_version, data FROM cryptopay_payments').all().map((p) => [p.payment_id, p])),
    };
  } finally {
    db.close();
  }
}

/**
 * Runs the loop against a receiver: `start(port, secret)` starts it on that port and resolves
 * { stop(), file } (its SQLite file, read after the stop).
 */
async function drive(start) {
  const port = await freePort();
  const sandbox = await startSandbox({
    port: 0,
    webhookUrl: `http://127.0.0.1:${port}/webhook`,
    retryDelaysMs: [50, 100, 200, 400, 800],
    duplicateRate: 0.5,
    shuffle: true,
    seed: SEED,
  });
  cleanups.push(() => sandbox.close());
  const receiver = await start(port, sandbox.webhook.secret);
  cleanups.push(() => receiver.stop());
  const ids = await workload(sandbox);
  await settled(sandbox, 30_000);
  await receiver.stop();
  const { events, payments } = recorded(receiver.file);
  const sent = await sandbox.events();
  const attempts = await sandbox.deliveries();

  // The network did its worst: duplicates were delivered and acknowledged, some late.
  const duplicates = attempts.filter((a) => a.kind === 'duplicate' && a.outcome === 'acknowledged');
  assert.ok(duplicates.length > 0, 'duplicates were delivered');
  assert.ok(attempts.every((a) => a.outcome === 'acknowledged'), `every attempt acknowledged: ${JSON.stringify(attempts.filter((a) => a.outcome !== 'acknowledged'))}`);
  assert.ok(events.some((e) => e.decision === 'stale'), 'some events arrived after a newer one of their payment (stale)');

  // Every event recorded once.
  assert.equal(events.length, sent.length, 'one row per event');
  assert.deepEqual(new Set(events.map((e) => e.event_id)), new Set(sent.map((e) => e.event_id)));

  // Each payment at its highest version, with the facts GET /v1/payments/{id} gives.
  for (const id of ids) {
    const view = (await api(sandbox, 'GET', `/v1/payments/${id}`)).json;
    const mine = sent.filter((e) => e.payment_id === id);
    const stored = payments.get(id);
    if (mine.length === 0) {
      assert.equal(stored, undefined, `${id}: never announced, never stored`);
      continue;
    }
    assert.equal(stored.status_version, String(Math.max(...mine.map((e) => Number(e.status_version)))), `${id}: the highest version`);
    assert.equal(stored.status_version, String(view.status_version), `${id}: the version GET says`);
    const data = JSON.parse(stored.data);
    for (const field of FACTS) assert.deepEqual(data[field], view[field], `${id}: ${field}`);
  }
  return { events: sent.length, deliveries: attempts.length, duplicates: duplicates.length, stale: events.filter((e) => e.decision === 'stale').length };
}

/**
 * A copy of examples/recipes/<name>, beside a copy of examples/recipes/common (which the
 * recipes import as ../common), whose cryptopay-verify is the installed package.
 */
function recipeCopy(name) {
  for (const folder of [name, 'common']) {
    if (existsSync(join(scratch, folder))) continue;
    cpSync(join(ROOT, 'examples', 'recipes', folder), join(scratch, folder), { recursive: true, filter: (src) => !/[/\\](node_modules|data)$/.test(src) });
  }
  if (!existsSync(join(scratch, 'node_modules'))) {
    mkdirSync(join(scratch, 'node_modules'));
    symlinkSync(realpathSync(PACKAGE_DIR), join(scratch, 'node_modules', 'cryptopay-verify'), 'dir');
  }
  return join(scratch, name);
}

const READY = /listening on (http:\/\/127\.0\.0\.1:\d+)\/webhook/;

describe('receivers driven by the sandbox, with duplicates and shuffled order', () => {
  test('the example receiver (examples/node-receiver)', async () => {
    // Beside the installed package, so that its imports resolve to it.
    const dir = mkdtempSync(join(CONSUMER_DIR, '.sandbox-node-receiver-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    cpSync(join(ROOT, 'examples', 'node-receiver'), dir, { recursive: true, filter: (src) => !/[/\\](node_modules|data)$/.test(src) });
    const dataDir = join(scratch, 'node-receiver-data');
    const summary = await drive(async (port, secret) => {
      const started = await startProcess(process.execPath, [join(dir, 'server.mjs')], {
        env: receiverEnv({ CRYPTOPAY_WEBHOOK_SECRET: secret, PORT: String(port), DATA_DIR: dataDir }), ready: READY,
      });
      return { stop: () => started.stop(), file: join(dataDir, 'receiver.sqlite') };
    });
    console.log(`node-receiver: ${JSON.stringify(summary)}`);
  });

  for (const name of ['express', 'hono']) {
    test(`the ${name} recipe (node server.mjs)`, async () => {
      const dir = recipeCopy(name);
      const summary = await drive(async (port, secret) => {
        const started = await startProcess(process.execPath, ['server.mjs'], {
          cwd: dir, env: receiverEnv({ CRYPTOPAY_WEBHOOK_SECRET: secret, PORT: String(port), DATA_DIR: 'data' }), ready: READY,
        });
        return { stop: () => started.stop(), file: join(dir, 'data', 'receiver.sqlite') };
      });
      console.log(`${name}: ${JSON.stringify(summary)}`);
    });
  }

  test('the axum receiver (examples/axum-receiver)', { skip: existsSync(AXUM) ? false : `${AXUM} is not built (make axum-test builds it)` }, async () => {
    const file = join(scratch, 'axum.db');
    const summary = await drive(async (port, secret) => {
      const started = await startProcess(AXUM, [], {
        env: receiverEnv({ CRYPTOPAY_WEBHOOK_SECRET: secret, PORT: String(port), DATABASE: file }), ready: READY,
      });
      return { stop: () => started.stop('SIGINT'), file };
    });
    console.log(`axum: ${JSON.stringify(summary)}`);
  });
});
