// libsqlStore with two @libsql/client clients on one database file, each in a thread of its
// own (lib/libsql-worker.mjs: threads run in parallel, so the clients contend for the file's
// lock as two processes would), each behind a receiver instance: about 270 deliveries of 12
// payments, versions shuffled, 40 % of the events sent to both instances, all in flight at
// once. Afterwards, read through better-sqlite3: every event recorded once, each answered once
// with the decision stored (its other deliveries duplicates), and the stored decisions those
// of the serial order the transactions committed in (replayed through decideEvent), each
// payment at its highest version.
// With the client's busy timeout every delivery is answered 200. Without it (the client's
// default), a write that meets the other's lock fails at once, and @libsql/client 0.18.0 then
// leaves the statement in progress, which jams the file (tursodatabase/libsql-client-ts#352):
// the deliveries are answered 503 round after round; what matters here is that nothing
// unrecorded is acknowledged and nothing answered only 503 is recorded.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Database, eventBody, pkg, random, tempDir } from './lib/helpers.mjs';

const SEED = Number(process.env.RECEIVER_SEED ?? 20261125);
console.log(`# libsql concurrency seed ${SEED} (RECEIVER_SEED=${SEED} repeats this run)`);
const UNAVAILABLE = '{"error":"store_unavailable"}';

// Payments of 16 versions each, a few repeated (another event of an equal version is stale);
// each event sent to one instance, 40 % of them to the other too; each list shuffled.
function workload(seed) {
  const rng = random(seed);
  const events = [];
  for (let p = 0; p < 12; p += 1) {
    for (let v = 1; v <= 16; v += 1) {
      const version = String(v % 5 === 0 ? v - 1 : v);
      const eventId = `evt_t${p}_${v}`;
      events.push({ eventId, paymentId: `pay_t${p}`, version, body: eventBody({ eventId, paymentId: `pay_t${p}`, statusVersion: version, status: `v${v}` }) });
    }
  }
  const perInstance = [[], []];
  for (const event of events) {
    const first = rng.int(2);
    perInstance[first].push(event);
    if (rng.next() < 0.4) perInstance[1 - first].push(event);
  }
  for (const list of perInstance) rng.shuffle(list);
  return { events, perInstance };
}

/** Sends each list to its thread, both at once; resolves [[event, [status, text]], ...]. */
async function deliverBoth(workers, perInstance) {
  const answered = await Promise.all(workers.map((worker, k) => new Promise((resolve, reject) => {
    const settle = (fn) => (value) => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      fn(value);
    };
    const onMessage = settle(resolve);
    const onError = settle(reject);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.postMessage(perInstance[k].map((e) => e.body));
  })));
  return answered.flatMap((answers, k) => answers.map((answer, i) => [perInstance[k][i], answer]));
}

/**
 * Delivers the workload through two threads (clientOptions for both clients), sending again
 * what was not acknowledged, as the service does, up to `resends` rounds. Resolves the
 * events, every [event, answer], the database file, the number of first deliveries, how many
 * of them were not answered 200, and how many deliveries were still not when it stopped. The threads (and their clients) are gone when it resolves.
 */
const DIR = tempDir('cpv-libsql-');

async function run(clientOptions, seed, resends) {
  const file = join(DIR, `receiver-${seed}.db`);
  const workerData = { url: pathToFileURL(file).href, clientOptions };
  const workers = [0, 1].map(() => new Worker(new URL('./lib/libsql-worker.mjs', import.meta.url), { workerData }));
  try {
    const { events, perInstance } = workload(seed);
    const answers = await deliverBoth(workers, perInstance);
    const deliveries = answers.length;
    let unacknowledged = answers.filter(([, [status]]) => status !== 200);
    const firstRound = unacknowledged.length;
    for (let round = 0; round < resends && unacknowledged.length > 0; round += 1) {
      const again = [[], []];
      unacknowledged.forEach(([event], i) => again[i % 2].push(event));
      const more = await deliverBoth(workers, again);
      answers.push(...more);
      unacknowledged = more.filter(([, [status]]) => status !== 200);
    }
    return { events, answers, file, deliveries, firstRound, left: unacknowledged.length };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/**
 * As if serial: the rowids of the events are the order their transactions committed in (one
 * writer at a time, no row deleted). Replayed in that order, decideEvent gives each stored
 * decision, and the payments end where the replay ends. Every answer is 200 or 503
 * store_unavailable; the events stored are exactly those acknowledged, each answered once
 * with the decision stored (its other acknowledged deliveries: duplicates).
 */
function checkAsIfSerial({ file, events, answers }) {
  const db = new Database(file, { readonly: true });
  // Without a busy timeout the two ready()s may both meet the other's lock (and jam the file):
  // then no table was made, and nothing may have been acknowledged.
  const made = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name IN ('cryptopay_events', 'cryptopay_payments')").get().n === 2;
  const all = (sql) => (made ? db.prepare(sql).all() : []);
  const stored = all('SELECT event_id, payment_id, status_version, decision FROM cryptopay_events ORDER BY rowid');
  const payments = all('SELECT payment_id, status_version, event_id, data FROM cryptopay_payments ORDER BY payment_id');
  assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
  db.close();

  for (const [, [status, text]] of answers) assert.ok(status === 200 || (status === 503 && text === UNAVAILABLE), `${status} ${text}`);
  const acknowledged = new Set(answers.filter(([, [status]]) => status === 200).map(([event]) => event.eventId));
  assert.deepEqual(stored.map((e) => e.event_id).sort(), [...acknowledged].sort(), 'the events stored are those acknowledged, each once');
  const decisions = new Map(stored.map((e) => [e.event_id, e.decision]));
  for (const event of events.filter((e) => acknowledged.has(e.eventId))) {
    const said = answers.filter(([e, [status]]) => e === event && status === 200).map(([, [, text]]) => JSON.parse(text).decision);
    assert.deepEqual(said.filter((d) => d !== 'duplicate'), [decisions.get(event.eventId)], `${event.eventId} answered ${said}`);
  }

  const seen = new Set();
  const current = new Map();
  for (const event of stored) {
    const decision = pkg.decideEvent({ eventId: event.event_id, paymentId: event.payment_id, statusVersion: event.status_version },
      { eventSeen: seen.has(event.event_id), statusVersion: current.get(event.payment_id)?.version });
    assert.equal(event.decision, decision, `${event.event_id}: the decision of the serial order`);
    seen.add(event.event_id);
    if (decision === 'apply') current.set(event.payment_id, { version: event.status_version, eventId: event.event_id });
  }
  assert.deepEqual(payments.map((p) => [p.payment_id, p.status_version, p.event_id]),
    [...current].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, c]) => [id, c.version, c.eventId]));
  for (const payment of payments) {
    const highest = Math.max(...stored.filter((e) => e.payment_id === payment.payment_id).map((e) => Number(e.status_version)));
    assert.equal(payment.status_version, String(highest), `${payment.payment_id} at its highest version`);
    assert.equal(String(JSON.parse(payment.data).status_version), String(highest));
  }
  return { stored: stored.length };
}

describe('libsqlStore: two clients on one file, in two threads, deliveries concurrent', () => {
  test('with the client\'s busy timeout (timeout: 5000): every delivery answered 200 at once, ending as if serial', async () => {
    const result = await run({ timeout: 5000 }, SEED, 0);
    assert.ok(result.deliveries > 250, `${result.deliveries} deliveries`);
    assert.equal(result.firstRound, 0, 'no delivery answered 503');
    const { stored } = checkAsIfSerial(result);
    assert.equal(stored, result.events.length, 'every event recorded');
  });

  test('without it: a lock met is 503, never a 200 for anything unrecorded, and what is recorded is as if serial', async () => {
    const result = await run({}, SEED + 1, 5);
    const { stored } = checkAsIfSerial(result);
    console.log(`# without a busy timeout: ${result.firstRound} of ${result.deliveries} ` +
      `first deliveries answered 503; after 5 rounds of sending again, ${result.left} still 503; ${stored} of ${result.events.length} events recorded`);
  });
});
