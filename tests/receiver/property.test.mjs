// The property: for random sequences of deliveries (several payments, duplicates, shuffled
// versions, versions beyond 2^53 sent as JSON numbers and as strings), every store answers
// what decideEvent over an in-test model answers, delivery by delivery, and ends in the same
// state: the same events with the same decisions, the same version and event per payment.
// Stores: memory, SQLite (better-sqlite3, a file), libsql (@libsql/client, a file), PostgreSQL
// (a throwaway server) and D1 (a Worker in workerd, through Miniflare). RECEIVER_SEED repeats
// a run (the seed is printed).

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { d1ReceiversForSuite } from './lib/d1.mjs';
import {
  Database, createLibsqlClient, pg, pkg, postgresRows, random, receiverOptions, rx, signedHeaders, sqliteFileRows, sqliteRows, tempDir,
  eventBody,
} from './lib/helpers.mjs';
import { postgresForSuite } from './lib/postgres.mjs';

const SEED = Number(process.env.RECEIVER_SEED ?? 20261123);
const SEQUENCES = 40;
console.log(`# property seed ${SEED} (RECEIVER_SEED=${SEED} repeats this run)`);

const TWO53 = 2n ** 53n;
const VERSIONS = [0n, 1n, 2n, 9n, 10n, 11n, 99n, 100n, 101n, 999n, 1000n, TWO53 - 1n, TWO53, TWO53 + 1n, TWO53 + 2n,
  2n ** 64n - 1n, 2n ** 64n, 2n ** 64n + 1n, 10n ** 30n, 10n ** 30n + 1n, 10n ** 40n];

/** One random sequence: { deliveries: [{ eventId, paymentId, version, body }], expected } */
function sequence(rng, index) {
  const payments = Array.from({ length: 1 + rng.int(4) }, (_, p) => `pay_${index}_${p}`);
  const events = [];
  for (const paymentId of payments) {
    const count = 2 + rng.int(10);
    for (let k = 0; k < count; k += 1) {
      const version = rng.pick(VERSIONS);
      // Small versions go as JSON numbers or strings; large ones as strings (what JS can hold
      // exactly is the sender's business: the core reads both).
      const asNumber = version < TWO53 && rng.next() < 0.5;
      events.push({
        eventId: `evt_${index}_${events.length}`,
        paymentId,
        version: String(version),
        body: eventBody({ eventId: `evt_${index}_${events.length}`, paymentId, statusVersion: asNumber ? Number(version) : String(version), status: `s${k}` }),
      });
    }
  }
  const deliveries = [...events];
  for (const event of events) if (rng.next() < 0.35) deliveries.push(event); // re-delivered
  for (let i = 0; i < 3; i += 1) deliveries.push(rng.pick(events));
  rng.shuffle(deliveries);
  // The model: decideEvent over what is stored.
  const seen = new Map(); // event_id -> { decision, paymentId, version }
  const current = new Map(); // payment_id -> { version, eventId }
  const expected = deliveries.map(({ eventId, paymentId, version }) => {
    const decision = pkg.decideEvent({ eventId, paymentId, statusVersion: version },
      { eventSeen: seen.has(eventId), statusVersion: current.get(paymentId)?.version });
    if (decision !== 'duplicate') seen.set(eventId, { decision, paymentId, version });
    if (decision === 'apply') current.set(paymentId, { version, eventId });
    return decision;
  });
  return { deliveries, expected, seen, current };
}

const rng = random(SEED);
const SEQS = Array.from({ length: SEQUENCES }, (_, i) => sequence(rng, i));

test('the sequences exercise every decision, duplicates, and versions on both sides of 2^53', () => {
  const all = SEQS.flatMap((s) => s.expected);
  for (const decision of ['apply', 'duplicate', 'stale']) assert.ok(all.filter((d) => d === decision).length > 20, decision);
  const versions = new Set(SEQS.flatMap((s) => s.deliveries.map((d) => d.version)));
  assert.ok([...versions].some((v) => BigInt(v) > TWO53) && [...versions].some((v) => BigInt(v) < TWO53));
  assert.ok(all.length > 500);
});

// The final state as comparable rows: events (event_id -> decision, payment, version) and
// payments (payment_id -> version, event_id, data's status).
function modelState(seq) {
  return {
    events: Object.fromEntries([...seq.seen].sort().map(([id, e]) => [id, [e.decision, e.paymentId, e.version]])),
    payments: Object.fromEntries([...seq.current].sort().map(([id, p]) => [id, [p.version, p.eventId]])),
  };
}
function storeState(rows) {
  return {
    events: Object.fromEntries(rows.events.map((e) => [e.event_id, [e.decision, e.payment_id, String(e.status_version)]]).sort()),
    payments: Object.fromEntries(rows.payments.map((p) => [p.payment_id, [String(p.status_version), p.event_id]]).sort()),
  };
}

// Sends every sequence, one delivery at a time, through `deliver(seqIndex, body)` (which
// resolves the answer's JSON), and compares decisions and state.
async function checkStore(deliver, readState) {
  for (let i = 0; i < SEQS.length; i += 1) {
    const seq = SEQS[i];
    const got = [];
    for (const { body } of seq.deliveries) {
      const answer = await deliver(i, body);
      assert.equal(answer.received, true, JSON.stringify(answer));
      got.push(answer.decision);
    }
    assert.deepEqual(got, seq.expected, `sequence ${i}: decisions differ from decideEvent's`);
    const state = await readState(i);
    assert.deepEqual(storeState(state), modelState(seq), `sequence ${i}: final state differs from the model's`);
    // The payment row holds the facts (data) of the event it names.
    for (const payment of state.payments) {
      const data = typeof payment.data === 'string' ? JSON.parse(payment.data) : payment.data;
      assert.equal(data.payment_id, payment.payment_id);
      assert.equal(String(data.status_version), String(payment.status_version));
    }
  }
}

const handleWith = (receiverFor) => async (i, body) => {
  const answer = await receiverFor(i).handle({ body, headers: signedHeaders(body) });
  assert.equal(answer.status, 200, answer.body);
  return JSON.parse(answer.body);
};

describe('the stores against decideEvent over a model', () => {
  test('memoryStore', async () => {
    const stores = SEQS.map(() => rx.memoryStore());
    const receivers = stores.map((store) => rx.createReceiver(receiverOptions(store, { log: false })));
    await checkStore(handleWith((i) => receivers[i]), async (i) => ({
      events: [...stores[i].events.values()],
      payments: [...stores[i].payments.values()],
    }));
  });

  test('sqliteStore (better-sqlite3, a WAL file)', async () => {
    const db = new Database(join(tempDir(), 'property.sqlite'));
    const receivers = SEQS.map((_, i) => rx.createReceiver(receiverOptions(rx.sqliteStore(db, { prefix: `seq${i}_` }), { log: false })));
    for (const r of receivers) await r.ready();
    await checkStore(handleWith((i) => receivers[i]), async (i) => sqliteRows(db, `seq${i}_`));
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    db.close();
  });

  test('libsqlStore (@libsql/client, a file)', async () => {
    const file = join(tempDir(), 'property.db');
    const client = createLibsqlClient({ url: pathToFileURL(file).href });
    const receivers = SEQS.map((_, i) => rx.createReceiver(receiverOptions(rx.libsqlStore(client, { prefix: `seq${i}_` }), { log: false })));
    for (const r of receivers) await r.ready();
    await checkStore(handleWith((i) => receivers[i]), async (i) => sqliteFileRows(file, `seq${i}_`));
    client.close();
  });

  test('sqliteStore, deliveries all at once: group commits give the same decisions as one at a time', async () => {
    const db = new Database(join(tempDir(), 'grouped.sqlite'));
    for (let i = 0; i < SEQS.length; i += 1) {
      const receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db, { prefix: `seq${i}_`, maxBatch: 7 }), { log: false }));
      await receiver.ready();
      // Started together, answered in arrival order within the groups: the same serial order.
      const answers = await Promise.all(SEQS[i].deliveries.map(({ body }) => receiver.handle({ body, headers: signedHeaders(body) })));
      assert.deepEqual(answers.map((a) => JSON.parse(a.body).decision), SEQS[i].expected);
      assert.deepEqual(storeState(sqliteRows(db, `seq${i}_`)), modelState(SEQS[i]));
    }
    db.close();
  });

  describe('postgresStore (a throwaway PostgreSQL)', () => {
    const db = postgresForSuite({ max: 8 });

    test('one delivery at a time', async () => {
      const receivers = SEQS.map((_, i) => rx.createReceiver(receiverOptions(rx.postgresStore(db.pool, { prefix: `seq${i}_` }), { log: false })));
      for (const r of receivers) await r.ready();
      await checkStore(handleWith((i) => receivers[i]), (i) => postgresRows(db.pool, `seq${i}_`));
    });

    test('all deliveries of a sequence at once: one record per event, the highest version stored', async () => {
      for (let i = 0; i < SEQS.length; i += 1) {
        const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(db.pool, { prefix: `conc${i}_` }), { log: false }));
        await receiver.ready();
        const seq = SEQS[i];
        const answers = await Promise.all(seq.deliveries.map(({ body }) => receiver.handle({ body, headers: signedHeaders(body) })));
        const decisions = answers.map((a) => JSON.parse(a.body).decision);
        // Each event is recorded by exactly one of its deliveries; the others are duplicates.
        const byEvent = new Map();
        seq.deliveries.forEach((d, k) => byEvent.set(d.eventId, [...(byEvent.get(d.eventId) ?? []), decisions[k]]));
        for (const [id, list] of byEvent) assert.equal(list.filter((d) => d !== 'duplicate').length, 1, `${id}: ${list}`);
        const rows = await postgresRows(db.pool, `conc${i}_`);
        // Whatever the interleaving, each payment holds its highest version, applied by an
        // event of that version whose row says apply.
        for (const [paymentId, best] of seq.current) {
          const row = rows.payments.find((p) => p.payment_id === paymentId);
          assert.equal(row.status_version, best.version, paymentId);
          const event = rows.events.find((e) => e.event_id === row.event_id);
          assert.deepEqual([event.decision, event.status_version], ['apply', best.version]);
        }
        assert.equal(rows.events.length, seq.seen.size);
      }
    });
    test('numeric holds 131072 digits exactly; a longer version is quarantined, never a 503 the service would retry forever', async () => {
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(db.pool, { prefix: 'digits_' }), { log: false }));
      await receiver.ready();
      const longest = `1${'0'.repeat(131071)}`;
      const body = eventBody({ eventId: 'evt_long', paymentId: 'pay_long', statusVersion: longest });
      const applied = await receiver.handle({ body, headers: signedHeaders(body) });
      assert.deepEqual([applied.status, applied.body], [200, '{"received":true,"decision":"apply"}']);
      const smaller = eventBody({ eventId: 'evt_long2', paymentId: 'pay_long', statusVersion: `9${'9'.repeat(131070)}` });
      assert.equal((await receiver.handle({ body: smaller, headers: signedHeaders(smaller) })).body, '{"received":true,"decision":"stale"}');
      const tooLong = eventBody({ eventId: 'evt_long3', paymentId: 'pay_long', statusVersion: `1${'0'.repeat(131072)}` });
      const kept = await receiver.handle({ body: tooLong, headers: signedHeaders(tooLong) });
      assert.deepEqual([kept.status, kept.body], [200, '{"received":true,"quarantined":"status_version_invalid"}']);
      const rows = await postgresRows(db.pool, 'digits_');
      assert.deepEqual([rows.payments[0].status_version === longest, rows.events.length, rows.quarantine.length], [true, 2, 1]);
    });

    test('an authentic non-event is quarantined (its bytes kept); a forged one leaves no row', async () => {
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(db.pool, { prefix: 'q_' }), { log: false }));
      await receiver.ready();
      const body = Buffer.from('{"schema_version":"1","event_id":"evt_q","event_type":"payment.refunded","occurred_at":1,"data":{}}');
      const kept = await receiver.handle({ body, headers: signedHeaders(body) });
      assert.deepEqual([kept.status, kept.body], [200, '{"received":true,"quarantined":"event_type_unknown"}']);
      const forged = await receiver.handle({ body, headers: signedHeaders(body, { secret: 'whsec_forger' }) });
      assert.equal(forged.status, 400);
      const rows = await postgresRows(db.pool, 'q_');
      assert.deepEqual(rows.quarantine.map((q) => [q.code, Buffer.from(q.body).equals(body)]), [['event_type_unknown', true]]);
      assert.deepEqual([rows.events.length, rows.payments.length], [0, 0]);
    });
  });

  describe('d1Store (a Worker on D1, in workerd through Miniflare)', () => {
    const d1 = d1ReceiversForSuite('property-d1');

    test('one delivery at a time', async () => {
      await checkStore(async (i, body) => {
        const response = await d1.worker.dispatch(`http://worker.test/webhook?prefix=seq${i}_`, { method: 'POST', body, headers: signedHeaders(body) });
        const text = await response.text();
        assert.equal(response.status, 200, text);
        return JSON.parse(text);
      }, async (i) => ({
        events: (await d1.worker.db.prepare(`SELECT * FROM seq${i}_events`).all()).results,
        payments: (await d1.worker.db.prepare(`SELECT * FROM seq${i}_payments`).all()).results,
      }));
    });
    test('an authentic non-event is quarantined (its bytes kept); a forged one leaves no row; 405 and 413', async () => {
      const url = 'http://worker.test/webhook?prefix=q_';
      const body = Buffer.from('{"schema_version":"1","event_id":"evt_q","event_type":"payment.refunded","occurred_at":1,"data":{}}');
      const kept = await d1.worker.dispatch(url, { method: 'POST', body, headers: signedHeaders(body) });
      assert.deepEqual([kept.status, await kept.text()], [200, '{"received":true,"quarantined":"event_type_unknown"}']);
      const forged = await d1.worker.dispatch(url, { method: 'POST', body, headers: signedHeaders(body, { secret: 'whsec_forger' }) });
      assert.deepEqual([forged.status, await forged.text()], [400, '{"error":"signature_mismatch"}']);
      const get = await d1.worker.dispatch(url);
      assert.deepEqual([get.status, get.headers.get('allow')], [405, 'POST']);
      await get.text();
      const huge = new Uint8Array(5 * 1024 * 1024);
      const tooLarge = await d1.worker.dispatch(url, { method: 'POST', body: huge, headers: signedHeaders(huge) });
      assert.deepEqual([tooLarge.status, await tooLarge.text()], [413, '{"error":"body_too_large"}']);
      const rows = (await d1.worker.db.prepare('SELECT code, body FROM q_quarantine').all()).results;
      assert.deepEqual(rows.map((q) => [q.code, Buffer.from(q.body).equals(body)]), [['event_type_unknown', true]]);
      assert.equal((await d1.worker.db.prepare('SELECT count(*) AS n FROM q_events').first()).n, 0);
    });
  });
});
