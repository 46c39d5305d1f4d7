// Four receiver processes (the example, DATABASE_URL set) on one PostgreSQL, thousands of
// deliveries with versions shuffled and about a third re-delivered to another instance, one
// instance killed with SIGKILL mid-burst and restarted. Then, as the service would, every
// delivery not acknowledged is sent again. Afterwards: every acknowledged event is stored,
// none was applied twice, every payment is at its highest version.
// Then the same rules where the database's default isolation is REPEATABLE READ or
// SERIALIZABLE: the statement's serialization failures are retried in the store, so
// concurrent deliveries of one payment are all answered 200, as if serial.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readStatements } from '../../scripts/build-receiver.mjs';
import { CONSUMER_DIR, eventBody, postgresRows, random, receiverOptions, rx, signedHeaders } from './lib/helpers.mjs';
import { burst, closeAgents, send, startExample } from './lib/example.mjs';
import { openPool, postgresForSuite, startPostgres } from './lib/postgres.mjs';

const SEED = Number(process.env.RECEIVER_SEED ?? 20261124);

/** Resolves once the backend `pid` waits for a lock (at most 5 s); `what` names it otherwise. */
async function waitingForLock(pool, pid, what) {
  for (let i = 0; ; i += 1) {
    const [waiting] = (await pool.query('SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1', [pid])).rows;
    if (waiting?.wait_event_type === 'Lock') return;
    assert.ok(i < 500, `${what} never waited for the lock`);
    await new Promise((resolve) => { setTimeout(resolve, 10); });
  }
}
const PAYMENTS = 120;
const VERSIONS = 20; // per payment: 2400 events
const INSTANCES = 4;

describe('4 receiver processes on one PostgreSQL, one SIGKILLed mid-burst', { timeout: 240_000 }, () => {
  let server;
  let pool;
  const instances = [];
  before(async () => {
    server = startPostgres();
    pool = openPool({ connectionString: server.url, max: 2 });
    // Started together: the schema is created once, under an advisory lock.
    instances.push(...await Promise.all(Array.from({ length: INSTANCES }, () => startExample({ env: { DATABASE_URL: server.url } }))));
  });
  after(async () => {
    closeAgents();
    await Promise.all(instances.map((i) => i.stop()));
    await pool?.end();
    server?.destroy();
  });

  test('every acknowledged event stored, none applied twice, every payment at its highest version', async () => {
    const rng = random(SEED);
    const two53 = 2n ** 53n;
    const events = [];
    for (let p = 0; p < PAYMENTS; p += 1) {
      const base = p % 3 === 0 ? two53 : 0n; // a third of the payments beyond 2^53
      for (let v = 1; v <= VERSIONS; v += 1) {
        // Versions 1..20, with a few repeated (another event of the same version is stale).
        const version = base + BigInt(v % 7 === 0 ? v - 1 : v);
        const eventId = `evt_c${p}_${v}`;
        events.push({ eventId, paymentId: `pay_c${p}`, version: String(version), body: eventBody({ eventId, paymentId: `pay_c${p}`, statusVersion: String(version), status: `v${version}` }) });
      }
    }
    // Each event to a random instance; a third of them again, to another instance.
    const deliveries = [];
    for (const event of events) {
      const first = rng.int(INSTANCES);
      deliveries.push({ event, instance: first });
      if (rng.next() < 1 / 3) deliveries.push({ event, instance: (first + 1 + rng.int(INSTANCES - 1)) % INSTANCES });
    }
    rng.shuffle(deliveries);

    const answers = new Map(events.map((e) => [e.eventId, []])); // event_id -> decisions answered
    const unacknowledged = [];
    const fiveHundreds = [];
    const victim = 1;
    let killedAt = null;
    let restarted = null;
    const record = (delivery, result) => {
      if (result.status === 200) answers.get(delivery.event.eventId).push(result.json.decision);
      else {
        if (result.status >= 500) fiveHundreds.push(result.status);
        unacknowledged.push(delivery);
      }
    };
    await burst(deliveries.length, (i) => send(instances[deliveries[i].instance].webhookUrl, deliveries[i].event.body), {
      concurrency: 48,
      onResult: (i, result, done) => {
        record(deliveries[i], result);
        if (killedAt === null && done >= deliveries.length * 0.4) {
          killedAt = done;
          instances[victim].kill();
          // Restarted a moment later, as a supervisor would; deliveries meanwhile fail.
          restarted = new Promise((r) => setTimeout(r, 300)).then(async () => {
            instances[victim] = await startExample({ env: { DATABASE_URL: server.url } });
          });
        }
      },
    });
    await restarted;
    assert.ok(killedAt !== null);
    const failedByKill = unacknowledged.length;
    assert.ok(failedByKill > 0, 'the SIGKILL should have cut some deliveries off');

    // The service's retries: everything not acknowledged, to any instance, until it is.
    for (let round = 0; unacknowledged.length > 0; round += 1) {
      assert.ok(round < 5, `${unacknowledged.length} deliveries still not acknowledged`);
      const again = unacknowledged.splice(0);
      await burst(again.length, (i) => send(instances[(again[i].instance + 1 + round) % INSTANCES].webhookUrl, again[i].event.body), {
        concurrency: 16,
        onResult: (i, result) => record(again[i], result),
      });
    }
    assert.deepEqual(fiveHundreds, [], 'PostgreSQL was up: no delivery is answered 5xx');

    const rows = await postgresRows(pool);
    const stored = new Map(rows.events.map((e) => [e.event_id, e]));
    // Every event acknowledged (all were, in the end) is stored, once (event_id is the key).
    assert.equal(rows.events.length, events.length);
    for (const event of events) {
      const row = stored.get(event.eventId);
      assert.ok(row, `${event.eventId} acknowledged but not stored`);
      assert.equal(row.status_version, event.version);
      assert.deepEqual(Buffer.from(row.body), event.body);
      // None applied twice: one answer at most says apply or stale (the one that recorded
      // it; none if it committed just before the SIGKILL cut its answer), the rest duplicate,
      // and an answer of apply or stale is what the row says.
      const said = answers.get(event.eventId);
      assert.ok(said.length >= 1);
      const deciding = said.filter((d) => d !== 'duplicate');
      assert.ok(deciding.length <= 1, `${event.eventId} answered ${said}`);
      if (deciding.length === 1) assert.equal(row.decision, deciding[0], event.eventId);
    }
    // Every payment at its highest version, applied by an event of that version.
    for (let p = 0; p < PAYMENTS; p += 1) {
      const mine = events.filter((e) => e.paymentId === `pay_c${p}`);
      const highest = mine.map((e) => BigInt(e.version)).reduce((a, b) => (a > b ? a : b));
      const payment = rows.payments.find((r) => r.payment_id === `pay_c${p}`);
      assert.equal(payment.status_version, String(highest));
      const applied = stored.get(payment.event_id);
      assert.deepEqual([applied.decision, applied.status_version], ['apply', String(highest)]);
      assert.equal(JSON.parse(payment.data).status, `v${highest}`);
      // An event whose version is below one already stored elsewhere can never be the one applied last.
      assert.ok(mine.filter((e) => stored.get(e.eventId).decision === 'apply').every((e) => BigInt(e.version) <= highest));
    }
    const total = [...answers.values()].reduce((n, list) => n + list.length, 0);
    console.log(`# ${deliveries.length} deliveries (${events.length} events) to ${INSTANCES} instances; SIGKILL after ${killedAt}; ` +
      `${failedByKill} cut off and re-delivered; ${total} acknowledged answers`);
  });
});

describe('default_transaction_isolation REPEATABLE READ or SERIALIZABLE: serialization failures retried', { timeout: 120_000 }, () => {
  let server;
  before(() => {
    server = startPostgres();
  });
  after(() => server?.destroy());

  for (const isolation of ['repeatable read', 'serializable']) {
    test(`${isolation}: 24 concurrent deliveries of one payment, 20 times: all 200, one record per event, the highest version`, async () => {
      const pool = openPool({ connectionString: server.url, max: 12, options: `-c default_transaction_isolation=${isolation.replace(' ', '\\ ')}` });
      assert.equal((await pool.query('SHOW default_transaction_isolation')).rows[0].default_transaction_isolation, isolation);
      // A client that counts the serialization failures the store saw (and retried).
      let failures = 0;
      const counting = {
        query: (text, values) => pool.query(text, values).catch((error) => {
          if (error.code === '40001' || error.code === '40P01') failures += 1;
          throw error;
        }),
      };
      const prefix = `${isolation.replace(' ', '_')}_`;
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(counting, { prefix }), { log: false }));
      await receiver.ready();
      const rng = random(SEED);
      for (let round = 0; round < 20; round += 1) {
        const paymentId = `pay_iso_${round}`;
        const deliveries = [];
        for (let v = 1; v <= 8; v += 1) {
          const body = eventBody({ eventId: `evt_iso_${round}_${v}`, paymentId, statusVersion: v, status: `v${v}` });
          for (let copy = 0; copy < 3; copy += 1) deliveries.push({ eventId: `evt_iso_${round}_${v}`, body });
        }
        rng.shuffle(deliveries);
        const answers = await Promise.all(deliveries.map(({ body }) => receiver.handle({ body, headers: signedHeaders(body) })));
        assert.deepEqual(answers.filter((a) => a.status !== 200), [], `round ${round}`);
        const rows = await postgresRows(pool, prefix);
        for (let v = 1; v <= 8; v += 1) {
          const eventId = `evt_iso_${round}_${v}`;
          const deciding = answers.filter((_, i) => deliveries[i].eventId === eventId).map((a) => JSON.parse(a.body).decision)
            .filter((d) => d !== 'duplicate');
          assert.equal(deciding.length, 1, `${eventId} recorded once`);
          assert.equal(rows.events.find((e) => e.event_id === eventId).decision, deciding[0]);
        }
        const payment = rows.payments.find((p) => p.payment_id === paymentId);
        assert.deepEqual([payment.status_version, payment.event_id], ['8', `evt_iso_${round}_8`]);
      }
      assert.ok(failures > 0, 'the deliveries met serialization failures (and the store retried them)');
      console.log(`# ${isolation}: 480 deliveries, all 200; ${failures} serialization failures retried by the store`);
      await pool.end();
    });

    test(`${isolation}: receivers starting at once on a database without the tables all get ready (the schema run again after a 40001)`, async () => {
      for (let round = 0; round < 6; round += 1) {
        const prefix = `start_${isolation.replace(' ', '_')}_${round}_`;
        const pools = [0, 1, 2].map(() => openPool({ connectionString: server.url, max: 2, options: `-c default_transaction_isolation=${isolation.replace(' ', '\\ ')}` }));
        try {
          const stores = pools.map((pool) => rx.postgresStore(pool, { prefix }));
          const settled = await Promise.allSettled(stores.map((store) => store.ready()));
          assert.deepEqual(settled.filter((r) => r.status === 'rejected').map((r) => `${r.reason?.code} ${r.reason?.message}`), [], `round ${round}`);
        } finally {
          await Promise.all(pools.map((pool) => pool.end()));
        }
      }
    });
  }
});

describe('PostgreSQL: one event_id through two integrations at once', { timeout: 120_000 }, () => {
  const suite = postgresForSuite({ max: 12 });

  test('the integration not recorded is answered 500 integration_mismatch, never a 200 duplicate (the store runs the statement again after the unique violation)', async () => {
    const { pool } = suite;
    let violations = 0;
    const counting = {
      query: (text, values) => pool.query(text, values).catch((error) => {
        if (error.code === '23505') violations += 1;
        throw error;
      }),
    };
    const secrets = { 'shop-a': 'whsec_race_a', 'shop-b': 'whsec_race_b' };
    const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(counting, { prefix: 'race_' }), { log: false, secrets }));
    await receiver.ready();
    const rng = random(SEED);
    for (let round = 0; round < 30; round += 1) {
      const eventId = `evt_race_${round}`;
      const deliveries = [];
      for (const integration of Object.keys(secrets)) {
        const body = eventBody({ eventId, paymentId: `pay_${integration}_${round}`, statusVersion: 2 });
        for (let copy = 0; copy < 3; copy += 1) deliveries.push({ integration, body });
      }
      rng.shuffle(deliveries);
      const answers = await Promise.all(deliveries.map(({ integration, body }) =>
        receiver.handle({ body, headers: signedHeaders(body, { secret: secrets[integration] }) })));
      const [stored] = (await pool.query('SELECT integration FROM race_events WHERE event_id = $1', [eventId])).rows;
      answers.forEach((answer, i) => {
        const expected = deliveries[i].integration === stored.integration ? 200 : 500;
        assert.equal(answer.status, expected, `round ${round}, ${deliveries[i].integration}: ${answer.body}`);
        if (expected === 500) assert.equal(answer.body, '{"error":"integration_mismatch"}');
      });
    }
    assert.ok(violations > 0, 'the deliveries raced to the same event_id (unique violations met)');
    console.log(`# one event_id through two integrations: 180 deliveries; ${violations} unique violations run again by the store`);
  });
});

describe('PostgreSQL: every statement of the merchant loop runs again after a serialization failure', { timeout: 60_000 }, () => {
  const suite = postgresForSuite({ max: 2 });

  test('load, release and retryNow met by one 40001 each: they resolve, as claim and complete do', async () => {
    // A client that fails each named statement of the loop once, as a REPEATABLE READ or
    // SERIALIZABLE server may when another transaction changed the row.
    const sql = readStatements(readFileSync(join(CONSUMER_DIR, 'node_modules', 'cryptopay-verify', 'dist', 'receiver', 'schema', 'postgres.sql'), 'utf8'));
    const bare = (text) => text.replace(/;\s*$/, '');
    const names = new Map(['load', 'release', 'retry_now', 'claim'].map((name) => [bare(sql[name].replace(/\bcryptopay_/g, 'serial_')), name]));
    const failed = new Set();
    const failing = {
      query: (config, values) => {
        const name = names.get(bare(typeof config === 'object' ? config.text : config));
        if (name !== undefined && !failed.has(name)) {
          failed.add(name);
          return Promise.reject(Object.assign(new Error('could not serialize access due to concurrent update (test)'), { code: '40001' }));
        }
        return suite.pool.query(config, values);
      },
    };
    const store = rx.postgresStore(failing, { prefix: 'serial_' });
    await store.ready();
    assert.equal(await store.record({ eventId: 'evt_serial', paymentId: 'pay_serial', statusVersion: '3', data: '{"status":"paid"}', body: Buffer.from('{}') }), 'apply');
    assert.deepEqual(await store.claim({ owner: 'A', leaseSecs: 300, batch: 10, recoverAfterSecs: 900 }), ['pay_serial']);
    const state = await store.load({ paymentId: 'pay_serial', owner: 'A', recoverAfterSecs: 900, leaseSecs: 300 });
    assert.deepEqual([state.leased, state.eventVersion], [true, '3']);
    assert.equal(await store.retry({ paymentId: 'pay_serial', owner: 'A', delaySecs: 3600, code: 'handle_failed' }), 1);
    assert.equal(await store.retryNow({ paymentId: null }), 1);
    assert.deepEqual(await store.claim({ owner: 'B', leaseSecs: 300, batch: 10, recoverAfterSecs: 900 }), ['pay_serial']);
    await store.release({ owner: 'B' });
    assert.deepEqual(await store.claim({ owner: 'C', leaseSecs: 300, batch: 10, recoverAfterSecs: 900 }), ['pay_serial'], 'released');
    assert.deepEqual([...failed].sort(), ['claim', 'load', 'release', 'retry_now']);
  });
});

describe('PostgreSQL: an order recorded while a pass notes its payment as unknown', { timeout: 60_000 }, () => {
  const suite = postgresForSuite({ max: 4 });

  test('the pass\'s complete committing after the order\'s statement began: the payment is due again at once, not after recoverAfterSecs', async () => {
    const sql = readStatements(readFileSync(join(CONSUMER_DIR, 'node_modules', 'cryptopay-verify', 'dist', 'receiver', 'schema', 'postgres.sql'), 'utf8'));
    const { pool } = suite;
    const store = rx.postgresStore(pool);
    const [a, b] = [await pool.connect(), await pool.connect()];
    try {
      await store.ready();
      for (let round = 0; round < 3; round += 1) {
        const paymentId = `pay_race_${round}`;
        // Its event recorded before its order; a pass claims and loads it (no order yet).
        assert.equal(await store.record({ eventId: `evt_race_${round}`, paymentId, statusVersion: '3', data: '{"status":"paid"}', body: Buffer.from('{}') }), 'apply');
        assert.ok((await store.claim({ owner: 'A', leaseSecs: 300, batch: 10, recoverAfterSecs: 900 })).includes(paymentId));
        // The pass notes payment_unknown in a transaction not yet committed when the order's
        // statement starts (its snapshot sees the payment unhandled), then commits.
        await a.query('BEGIN');
        await a.query(sql.complete, [paymentId, 'A', '3', 'needs_review', 'payment_unknown', true, 604_800]);
        const [{ pid }] = (await b.query('SELECT pg_backend_pid() AS pid')).rows;
        const ordered = b.query(sql.order, [paymentId, `order-${round}`, '{"kind":"fiat","currency":"USD","amount_raw":"12800"}', null]);
        // Committed only once the order's statement waits for the pass's row lock (its snapshot taken).
        await waitingForLock(pool, pid, 'the order statement');
        await a.query('COMMIT');
        await ordered;
        const [payment] = (await pool.query('SELECT handled_version FROM cryptopay_payments WHERE payment_id = $1', [paymentId])).rows;
        const [row] = (await pool.query('SELECT handled_version, outcome FROM cryptopay_fulfilment WHERE payment_id = $1', [paymentId])).rows;
        assert.deepEqual([payment.handled_version, row.handled_version, row.outcome], [null, null, null], `round ${round}`);
        // Due now: the next pass takes it, with its order.
        assert.deepEqual(await store.claim({ owner: 'C', leaseSecs: 300, batch: 10, recoverAfterSecs: 900 }), [paymentId], `round ${round}`);
        await store.release({ owner: 'C' });
        await pool.query('UPDATE cryptopay_fulfilment SET settled = true, handled_version = 3, outcome = \'fulfil\' WHERE payment_id = $1', [paymentId]);
        await pool.query('UPDATE cryptopay_payments SET handled_version = 3 WHERE payment_id = $1', [paymentId]);
      }
    } finally {
      a.release();
      b.release();
    }
  });
});

describe('PostgreSQL: facts written around a failed attempt\'s retry', { timeout: 60_000 }, () => {
  const suite = postgresForSuite({ max: 4 });

  test('facts written and not committed are waited for; facts of a transaction begun before the retry and written after it are taken up', async () => {
    const sql = readStatements(readFileSync(join(CONSUMER_DIR, 'node_modules', 'cryptopay-verify', 'dist', 'receiver', 'schema', 'postgres.sql'), 'utf8'));
    const { pool } = suite;
    const store = rx.postgresStore(pool);
    const paymentId = 'pay_retry_race';
    const facts = (version) => [`evt_retry_${version}`, paymentId, String(version), '{"status":"paid"}', Buffer.from('{}'), null, 'active'];
    const claim = (owner) => store.claim({ owner, leaseSecs: 300, batch: 10, recoverAfterSecs: 900 });
    const [a, b] = [await pool.connect(), await pool.connect()];
    try {
      await store.ready();
      assert.equal(await store.record({ eventId: 'evt_retry_3', paymentId, statusVersion: '3', data: '{"status":"confirming"}', body: Buffer.from('{}') }), 'apply');
      assert.deepEqual(await claim('A'), [paymentId]);
      // Version 4 written by a statement not committed yet when the attempt (which loaded
      // version 3) fails: its retry waits for it, and reads it.
      await a.query('BEGIN');
      assert.equal((await a.query(sql.record, facts(4))).rows[0].decision, 'apply');
      const [{ pid }] = (await b.query('SELECT pg_backend_pid() AS pid')).rows;
      const retried = b.query(sql.retry, [paymentId, 'A', 3600, 'handle_failed', '3']);
      await waitingForLock(pool, pid, 'the retry');
      await a.query('COMMIT');
      assert.equal((await retried).rows[0].attempts, 1);
      assert.deepEqual(await claim('B'), [paymentId], 'due at once, not after the backoff');
      // Version 5 written by a transaction that began before the next failure's retry and
      // writes after it: the claim after the commit takes it up.
      await a.query('BEGIN');
      await a.query('SELECT now()');
      assert.equal(await store.retry({ paymentId, owner: 'B', delaySecs: 3600, code: 'handle_failed', loadedVersion: '4' }), 2);
      assert.deepEqual(await claim('C'), [], 'nothing newer yet: the backoff is waited');
      assert.equal((await a.query(sql.record, facts(5))).rows[0].decision, 'apply');
      await a.query('COMMIT');
      assert.deepEqual(await claim('D'), [paymentId], 'due at once, not after the backoff');
    } finally {
      await a.query('ROLLBACK').catch(() => {});
      a.release();
      b.release();
    }
  });
});
