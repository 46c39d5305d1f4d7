// Two fulfilment processes on one PostgreSQL (lib/fulfil-worker.mjs), one killed with SIGKILL
// mid-run and started again: every paid order is handled, a handler call is repeated only for
// a payment the killed process had claimed (its lease expires, another takes it over: a repeat,
// never a skip), the processes that live never handle the same (payment, status_version) twice,
// and the version stored as handled is the view's, never lowered.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnProcess } from '../lib/process.mjs';
import { eventBody, receiverOptions, rx, signedHeaders, tempDir } from '../receiver/lib/helpers.mjs';
import { openPool, startPostgres } from '../receiver/lib/postgres.mjs';
import { amount, viewOf } from './lib/views.mjs';

const WORKER = fileURLToPath(new URL('./lib/fulfil-worker.mjs', import.meta.url));
const ORDERS = 60;
const PREFIX = 'crash_';
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

describe('two fulfilment processes on one PostgreSQL, one SIGKILLed mid-run and restarted', { timeout: 180_000 }, () => {
  let server;
  let pool;
  const workers = new Set();
  before(() => {
    server = startPostgres();
    pool = openPool({ connectionString: server.url, max: 3 });
  });
  after(async () => {
    for (const worker of workers) worker.child.kill('SIGKILL');
    await pool?.end();
    server?.destroy();
  });

  function start(name, handled) {
    const worker = spawnProcess(process.execPath, [WORKER], { env: { DATABASE_URL: server.url, PREFIX, HANDLED: handled, NAME: name } });
    workers.add(worker);
    return worker;
  }

  const lines = (file) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => l.split(' ')) : []);

  test('every paid order handled; a repeat only for the killed process\'s leases; the handled version never lowered', async () => {
    const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(pool, { prefix: PREFIX }), { log: false }));
    await receiver.ready();
    let events = 0;
    for (let n = 1; n <= ORDERS; n += 1) {
      const paymentId = `pay_crash_${n}`;
      await receiver.recordCreated({ payment_id: paymentId, order_ref: `o-${n}`, source_amount: amount });
      const view = JSON.parse(viewOf(paymentId));
      for (let version = 2; version <= view.status_version; version += 1) {
        events += 1;
        const status = version === view.status_version ? view.status : 'confirming';
        const body = eventBody({ eventId: `evt_crash_${events}`, paymentId, statusVersion: version, status });
        assert.equal((await receiver.handle({ body, headers: signedHeaders(body) })).status, 200);
      }
    }
    const handled = join(tempDir(), 'handled.log');
    const a = start('A', handled);
    const b = start('B', handled);
    // A is killed once it has handled a few (its in-flight handler call and leases abandoned).
    for (let i = 0; lines(handled).filter(([name]) => name === 'A').length < 6; i += 1) {
      assert.ok(i < 400, `A handled nothing yet:\n${a.output()}\n${b.output()}`);
      await sleep(25);
    }
    a.child.kill('SIGKILL');
    assert.equal(await a.exited, 'SIGKILL');
    const handledByA = new Set(lines(handled).filter(([name]) => name === 'A').map(([, key]) => key));
    const restarted = start('A2', handled);
    // Until every order is handled and stored as handled.
    const expected = new Map(Array.from({ length: ORDERS }, (_, i) => {
      const view = JSON.parse(viewOf(`pay_crash_${i + 1}`));
      return [`pay_crash_${i + 1}:${view.status_version}`, view.status === 'paid' ? 'fulfil' : 'review'];
    }));
    for (let i = 0; ; i += 1) {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${PREFIX}fulfilment WHERE handled_version IS NOT NULL`);
      if (rows[0].n === ORDERS) break;
      assert.ok(i < 600, `${rows[0].n} of ${ORDERS} handled:\n${b.output()}\n${restarted.output()}`);
      await sleep(50);
    }
    b.child.kill('SIGTERM');
    restarted.child.kill('SIGTERM');
    assert.deepEqual([await b.exited, await restarted.exited], [0, 0]);

    const all = lines(handled);
    const keys = new Map();
    for (const [name, key, action] of all) {
      assert.equal(action, expected.get(key), `${key} handled as ${action}`);
      keys.set(key, [...(keys.get(key) ?? []), name]);
    }
    assert.deepEqual([...keys.keys()].sort(), [...expected.keys()].sort(), 'every paid order handled');
    const repeated = [...keys].filter(([, names]) => names.length > 1);
    for (const [key, names] of repeated) {
      assert.ok(handledByA.has(key) && names[0] === 'A', `${key} repeated (${names}) though the killed process never handled it`);
      assert.equal(names.filter((n) => n !== 'A').length, 1, `${key}: handled by ${names}`);
    }
    console.log(`handler calls: ${all.length} for ${ORDERS} orders; repeated after the SIGKILL: ${repeated.map(([k]) => k).join(', ') || 'none'}`);
    // The processes that lived handled each (payment, status_version) once.
    const living = all.filter(([name]) => name !== 'A').map(([, key]) => key);
    assert.equal(new Set(living).size, living.length);
    // Stored: the view's version, exactly; the payments' index of what is due agrees.
    const { rows } = await pool.query(`SELECT f.payment_id, f.handled_version::text AS handled, f.outcome, p.handled_version::text AS marked,
      p.status_version::text AS applied, f.lease_owner FROM ${PREFIX}fulfilment f JOIN ${PREFIX}payments p USING (payment_id) ORDER BY f.payment_id`);
    for (const row of rows) {
      const view = JSON.parse(viewOf(row.payment_id));
      assert.deepEqual([row.handled, row.marked, row.applied, row.outcome, row.lease_owner],
        [String(view.status_version), String(view.status_version), String(view.status_version), view.status === 'paid' ? 'fulfil' : 'review', null], row.payment_id);
    }
    // A pass now finds nothing due.
    const check = await receiver.fulfil({ confirm: async (id) => viewOf(id), handle: async () => { throw new Error('nothing is due'); } });
    assert.equal(check.claimed, 0);
  });
});
