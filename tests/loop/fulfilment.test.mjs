// Fulfilment on every engine, with scripted views (lib/world.mjs): the scenarios of
// lib/suite.mjs, run on a SQLite file, a throwaway PostgreSQL, D1 in workerd, a libsql file and
// memoryStore.
// The views come from one parameter: the same scenarios will run with the sandbox's getPayment.
//
// The engines run at once, each its scenarios one at a time: a scenario mostly waits (leases,
// backoffs and checks due in whole seconds of the store's clock), so one after another the five
// took about four minutes of which the CPU was busy for under half a minute.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { d1Engine, libsqlEngine, memoryEngine, postgresEngine, sqliteEngine } from './lib/engines.mjs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PACKAGE_DIR, eventBody, signedHeaders } from '../receiver/lib/helpers.mjs';
import { ONE_AT_A_TIME, fulfilmentScenarios, integrationScenarios, sleep } from './lib/suite.mjs';

describe('fulfilment, every engine at once', { concurrency: true }, () => {
  describe('fulfilment on a SQLite file', ONE_AT_A_TIME, () => {
    fulfilmentScenarios(sqliteEngine);
    integrationScenarios(sqliteEngine);
  });
  describe('fulfilment on PostgreSQL', ONE_AT_A_TIME, () => {
    const engine = postgresEngine();
    fulfilmentScenarios(engine);
    integrationScenarios(engine);

    // Another recordCreated's order, committed while this one waits on it: its statement's
    // snapshot predates that commit, so the stored order is read again to be compared.
    test('PostgreSQL: a different order for a payment_id recorded at the same moment is refused, not taken as stored', async () => {
      const { receiver, prefix } = await engine.open();
      const first = await engine.db.pool.connect();
      try {
        await first.query('BEGIN');
        await first.query(`INSERT INTO ${prefix}orders (payment_id, order_ref, source_amount) VALUES ('pay_both', 'order-a', $1::json)`,
          [JSON.stringify({ kind: 'fiat', currency: 'USD', amount_raw: '12800' })]);
        const second = receiver.recordCreated({ payment_id: 'pay_both', order_ref: 'order-b', source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '999' } });
        const outcome = second.then(() => 'resolved', (error) => error);
        await sleep(300); // the second waits on the first's uncommitted row
        await first.query('COMMIT');
        const error = await outcome;
        assert.ok(error instanceof Error && error.code === 'invalid_argument', `the second call ${error === 'resolved' ? 'resolved' : error}`);
        assert.match(error.message, /recorded already, with another order_ref and source_amount/);
      } finally {
        first.release();
      }
    });

    // An order marking the lease, committed after complete's snapshot was taken: complete's
    // updates skip the row (the newer row is not this owner's any more), and the mark is given
    // back from a snapshot of its own, so the payment is due at the next pass.
    test('PostgreSQL: a lease marked after complete\'s snapshot is given back, not held until it runs out', async () => {
      const { receiver, store, prefix } = await engine.open();
      const paymentId = 'pay_marked_late';
      const body = Buffer.from(eventBody({ eventId: 'evt_marked_late', paymentId, statusVersion: 1, status: 'open' }));
      assert.equal((await receiver.handle({ body, headers: signedHeaders(body) })).status, 200);
      assert.deepEqual(await store.claim({ owner: 'pass-1', leaseSecs: 300, batch: 10, recoverAfterSecs: 900 }), [paymentId]);
      const marker = await engine.db.pool.connect();
      try {
        await marker.query('BEGIN');
        await marker.query(`UPDATE ${prefix}fulfilment SET lease_owner = lease_owner || ' (order recorded)' WHERE payment_id = $1`, [paymentId]);
        const completed = store.complete({ paymentId, owner: 'pass-1', version: '1', outcome: 'wait', code: null, settled: false });
        await sleep(300); // complete waits on the marker's uncommitted row
        await marker.query('COMMIT');
        assert.equal(await completed, null, 'nothing was handled');
      } finally {
        marker.release();
      }
      const { rows } = await engine.db.pool.query(`SELECT lease_owner, outcome FROM ${prefix}fulfilment WHERE payment_id = $1`, [paymentId]);
      assert.deepEqual(rows, [{ lease_owner: null, outcome: null }]);
      assert.deepEqual(await store.claim({ owner: 'pass-2', leaseSecs: 300, batch: 10, recoverAfterSecs: 900 }), [paymentId]);
    });
  });
  describe('fulfilment on D1 in workerd', ONE_AT_A_TIME, () => {
    const engine = d1Engine();
    fulfilmentScenarios(engine);
    integrationScenarios(engine);
  });
  describe('fulfilment on a libsql file', ONE_AT_A_TIME, () => {
    fulfilmentScenarios(libsqlEngine);
    integrationScenarios(libsqlEngine);
  });
  describe('fulfilment on memoryStore', ONE_AT_A_TIME, () => {
    fulfilmentScenarios(memoryEngine);
    integrationScenarios(memoryEngine);
  });
});

// The lease kept while handle runs, as the installed package has it: no renewal runs while the
// event loop is blocked, so a handler that blocked it past the lease is told it may have lost
// it (another pass may have called handle too), though every renewal that ran renewed it.
describe('keepLease', () => {
  test('a handler that blocked the event loop past leaseSecs: the lease may have run out; one that awaited its work keeps it', async () => {
    const { keepLease } = await import(pathToFileURL(join(PACKAGE_DIR, 'dist', 'receiver', 'lease.mjs')).href);
    const told = [];
    const blocked = keepLease({ renew: async () => true, leaseSecs: 1, pastLease: (secs) => told.push(secs) });
    const until = Date.now() + 1200;
    while (Date.now() < until) { /* a synchronous handler, or a long pause */ }
    assert.equal(await blocked(), false, 'no renewal ran for 1.2 s: not known to be kept');
    const awaited = keepLease({ renew: async () => true, leaseSecs: 1, pastLease: (secs) => told.push(secs) });
    // Said at the first renewal past the lease (about 1 s in; later on a loaded machine, whose
    // timers run late: waited for, not timed), then renewed on, and not said again.
    const deadline = Date.now() + 10_000;
    while (told.length === 0 && Date.now() < deadline) await sleep(50);
    assert.equal(told.length, 1, 'the handler that ran past its lease with it held is said');
    assert.ok(told[0] >= 1, `said once it had run leaseSecs (${told[0]} s)`);
    await sleep(500);
    assert.equal(await awaited(), true, 'renewed every third of a second');
    assert.equal(told.length, 1, 'the handler that ran past its lease with it held is said once');
  });

  test('a renewal that never settles (a store connection hung) holds the outcome a third of the lease at most', async () => {
    const { keepLease } = await import(pathToFileURL(join(PACKAGE_DIR, 'dist', 'receiver', 'lease.mjs')).href);
    let asked = 0;
    const stop = keepLease({ renew: () => { asked += 1; return new Promise(() => {}); }, leaseSecs: 1, pastLease: () => {} });
    await sleep(400); // the first renewal, at a third of a second, is in flight for good
    assert.equal(asked, 1);
    const held = await Promise.race([stop(), sleep(5000).then(() => 'still waiting')]);
    assert.equal(held, false, 'not known to be kept, and not waited for');
  });
});
