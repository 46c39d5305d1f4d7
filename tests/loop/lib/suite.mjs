// The fulfilment scenarios, run on each engine (engines.mjs) with the views of one world: the
// scripted one (world.mjs), or the sandbox (sandbox-world.mjs: payments created through the
// client and paid through the sandbox, events delivered over HTTP, confirm = getPayment), by
// the `world` parameter. Payments change as the sandbox's rules change them (pay: confirming,
// then paid, partially_paid or overpaid; review; expire; cancel); the cases only a script can
// make (any status, any version) run where the world supports('status'). What every scenario
// holds: only a payment linked to its order and paid exactly reaches handle with `fulfil`; each
// (payment, status_version) is handled once when nothing crashes, and a payment's handled
// versions only rise; the authoritative view, not the event, decides.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { captureLog, eventBody, receiverOptions, rx, signedHeaders } from '../../receiver/lib/helpers.mjs';
import { scriptedWorld } from './world.mjs';


export const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
// Sleeps until the clock reads `at` (milliseconds since the epoch), for a check that must come
// after a time the test measured rather than one it guessed.
export const sleepUntil = (at) => sleep(Math.max(0, at - Date.now()));

/**
 * The options of an engine's `describe` whose parent runs its engines at once: its own
 * scenarios one after another (they share the engine; a suite inherits its parent's
 * concurrency unless it says otherwise).
 */
export const ONE_AT_A_TIME = { concurrency: false };

/** A handler that records its calls; `failing(key)` says whether this call throws. */
export function recorder({ failing = () => false } = {}) {
  const calls = [];
  return {
    calls,
    handle: async (input) => {
      calls.push({ ...input, ok: !failing(input.idempotencyKey, calls.filter((c) => c.idempotencyKey === input.idempotencyKey).length) });
      if (!calls.at(-1).ok) throw new Error('the shipping API is down (test)');
    },
    /** The successful calls: [paymentId, action, key]. */
    done: () => calls.filter((c) => c.ok).map((c) => [c.paymentId, c.action, c.idempotencyKey]),
  };
}

/** Passes until one claims nothing (at most `max`); resolves every pass's result. */
export async function drain(receiver, options, max = 20) {
  const results = [];
  for (let i = 0; i < max; i += 1) {
    const result = await receiver.fulfil(options);
    results.push(result);
    if (result.claimed === 0) return results;
  }
  throw new Error(`still claiming after ${max} passes: ${JSON.stringify(results.slice(-3))}`);
}

/** Each (payment, status_version) handled once; a payment's handled versions only rise. */
export const keysOnce = (calls) => {
  const keys = calls.filter((c) => c.ok).map((c) => c.idempotencyKey);
  assert.equal(new Set(keys).size, keys.length, `a key handled twice: ${keys.join(' ')}`);
  // A payment's handled versions only rise: never one handled after a newer one.
  const last = new Map();
  for (const c of calls.filter((call) => call.ok)) {
    const version = BigInt(c.statusVersion);
    assert.ok(!last.has(c.paymentId) || version > last.get(c.paymentId), `${c.paymentId}: version ${version} handled after ${last.get(c.paymentId)}`);
    last.set(c.paymentId, version);
  }
};

// The versions a world's action adds: pay two (confirming, then its outcome), the others one.
const VERSIONS = { pay: 2, hold: 1, review: 1, expire: 1, cancel: 1, status: 1 };

/** Applies one step of a case: [action, ...arguments]; 'status' is a scripted change. */
function step(world, paymentId, [action, ...args]) {
  if (action === 'status') return world.change(paymentId, { status: args[0], received: args[1] });
  return world[action](paymentId, ...args);
}

const sorted = (rows) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

/**
 * The scenarios on one engine: `engine.open(receiverOptions?)` resolves { receiver, store,
 * close } on fresh tables. `world()` resolves a world (default: scripted; sandbox-world.mjs's
 * for the sandbox), whose receiverOptions the receiver is created with.
 */
export function fulfilmentScenarios(engine, { world: makeWorld = () => scriptedWorld(), label = '' } = {}) {
  const name = `${engine.name}${label}`;
  // Everything a test opens is closed after it, whether it passed or not (a world's sandbox
  // left listening would keep the run from ending).
  const setup = async (t, extra) => {
    const world = await makeWorld();
    t.after(() => world.close());
    const opened = await engine.open({ ...world.receiverOptions, ...extra });
    t.after(() => opened.close());
    world.attach(opened.receiver);
    const record = (created) => opened.receiver.recordCreated(created);
    // A pass once every delivery of the world was made.
    const loop = {
      fulfil: async (options) => {
        await world.settle();
        return opened.receiver.fulfil(options);
      },
    };
    return { ...opened, world, record, loop };
  };
  // Three orders recorded and paid in full, every delivery made: a batch for a loop stopped
  // while it works the first. Resolves their ids.
  const paidBatch = async ({ world, record }, label) => {
    const ids = [];
    for (let i = 0; i < 3; i += 1) {
      const created = await world.create({ orderRef: `${label} ${i}` });
      await record(created);
      await world.pay(created.payment_id, '12800');
      ids.push(created.payment_id);
    }
    await world.settle();
    return ids;
  };
  // A handle that takes `ms` a payment: the ids it was called with, and a promise of its first call.
  const slowHandle = (ms) => {
    const calls = [];
    let started;
    const begun = new Promise((resolve) => { started = resolve; });
    const handle = async ({ paymentId }) => {
      calls.push(paymentId);
      started();
      await sleep(ms);
    };
    return { calls, begun, handle };
  };

  test(`${name}: only a payment paid exactly is fulfilled; partial, over, review and a short "paid" go to review; open waits; expired and cancelled close unless money came in`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder();
    const cases = [
      ['paid', [['pay', '12800']], 'fulfil'],
      ['paid in two parts', [['pay', '6400'], ['pay', '6400']], 'fulfil'],
      ['partially_paid', [['pay', '6400']], 'review'],
      ['overpaid', [['pay', '20000']], 'review'],
      ['review_required', [['review']], 'review'],
      ['paid, then held for review', [['pay', '12800'], ['review']], 'review'],
      ['confirming', [['status', 'confirming', '12800']], 'wait'],
      ['paid, its confirmations held', [['hold', '12800']], 'wait'],
      ['paid in part, then the rest held', [['pay', '6400'], ['hold', '6400']], 'wait'],
      ['open', [], null],
      ['expired', [['expire']], 'closed'],
      ['partly paid, then expired (the money came in: review)', [['pay', '100'], ['expire']], 'review'],
      ['cancelled', [['cancel']], 'closed'],
      ['paid, one unit short', [['status', 'paid', '12799']], 'review'],
      ['PAID (a status the policy does not know)', [['status', 'PAID', '12800']], 'review'],
    ].filter(([, steps]) => world.supports('status') || steps.every(([action]) => action !== 'status'));
    const ids = [];
    for (const [label, steps] of cases) {
      const created = await world.create({ orderRef: `order ${label}` });
      await record(created);
      for (const s of steps) await step(world, created.payment_id, s);
      ids.push(created.payment_id);
    }
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    keysOnce(h.calls);
    const byPayment = new Map(h.done().map(([id, action, key]) => [id, { action, key }]));
    cases.forEach(([label, steps, expected], i) => {
      const got = byPayment.get(ids[i]);
      if (expected === null) assert.equal(got, undefined, `${label}: an open payment with no event is not claimed yet`);
      else {
        assert.equal(got?.action, expected, label);
        const version = 1 + steps.reduce((sum, [action]) => sum + VERSIONS[action], 0);
        assert.equal(got.key, `${ids[i]}:${version}`, `${label}: the key is payment_id:status_version`);
      }
    });
    assert.deepEqual(h.done().filter(([, action]) => action === 'fulfil').map(([id]) => id).sort(),
      ids.filter((_, i) => cases[i][2] === 'fulfil').sort(), 'only the orders paid exactly are fulfilled');
    // The handler got the authoritative view and the order.
    const paid = h.calls.find((c) => c.paymentId === ids[0]);
    assert.equal(paid.view.status, 'paid');
    assert.equal(paid.view.status_version, '3');
    assert.equal(typeof paid.view.responseText, 'string');
    assert.deepEqual([paid.order.paymentId, paid.order.orderRef, paid.order.sourceAmount], [ids[0], 'order paid', { kind: 'fiat', currency: 'USD', amount_raw: '12800' }]);
    assert.equal(paid.mismatch, null);
    // Nothing new: another pass claims nothing.
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle: h.handle })).claimed, 0);
  });

  test(`${name}: a payment whose confirmations are held waits, and is fulfilled once they complete, under its own version's key`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder();
    const created = await world.create({ orderRef: 'held' });
    const id = created.payment_id;
    await record(created);
    await world.hold(id, '12800');
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    assert.deepEqual(h.done(), [[id, 'wait', `${id}:2`]]);
    assert.equal(h.calls[0].view.status, 'confirming');
    await world.settleHeld(id);
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    assert.deepEqual(h.done(), [[id, 'wait', `${id}:2`], [id, 'fulfil', `${id}:3`]]);
    keysOnce(h.calls);
  });

  test(`${name}: newer facts for a payment are taken up at the next pass, not after the backoff of a failure before them`, async (t) => {
    const { loop, world, record } = await setup(t);
    // The wait of a held payment fails twice (the merchant's e-mail service is down): its next
    // try is two seconds away, then the payment is paid.
    const h = recorder({ failing: (key) => key.endsWith(':2') });
    const created = await world.create({ orderRef: 'paid while a wait backs off' });
    const id = created.payment_id;
    await record(created);
    await world.hold(id, '12800');
    assert.deepEqual((await loop.fulfil({ confirm: world.confirm, handle: h.handle })).outcomes, { retry: 1 });
    await sleep(1100);
    assert.deepEqual((await loop.fulfil({ confirm: world.confirm, handle: h.handle })).outcomes, { retry: 1 });
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle: h.handle })).claimed, 0, 'waiting for the backoff');
    await world.settleHeld(id);
    const paid = await loop.fulfil({ confirm: world.confirm, handle: h.handle });
    assert.deepEqual([paid.claimed, paid.outcomes], [1, { fulfil: 1 }], 'the payment, paid, is fulfilled at once');
    assert.deepEqual(h.done(), [[id, 'fulfil', `${id}:3`]]);
    // Handled: nothing more is due, and a pass claims nothing.
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle: h.handle })).claimed, 0);
  });

  test(`${name}: newer facts after a failed attempt are taken up at the next pass, though its order was recorded again since`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder({ failing: (key) => key.endsWith(':2') });
    const created = await world.create({ orderRef: 'recorded again after its facts' });
    const id = created.payment_id;
    await record(created);
    await world.hold(id, '12800');
    assert.deepEqual((await loop.fulfil({ confirm: world.confirm, handle: h.handle })).outcomes, { retry: 1 });
    await sleep(5);
    await world.settleHeld(id);
    // The merchant's createPayment answered again (its first answer lost): the same order
    // recorded again changes nothing, and hides nothing newer.
    await sleep(5);
    await record(created);
    const paid = await loop.fulfil({ confirm: world.confirm, handle: h.handle });
    assert.deepEqual([paid.claimed, paid.outcomes], [1, { fulfil: 1 }], 'the payment, paid, is fulfilled at once');
    assert.deepEqual(h.done(), [[id, 'fulfil', `${id}:3`]]);
  });

  test(`${name}: facts applied while a failing attempt runs are taken up at the next pass, not after its backoff`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder({ failing: (key) => key.endsWith(':2') });
    const created = await world.create({ orderRef: 'paid while its wait fails' });
    const id = created.payment_id;
    await record(created);
    await world.hold(id, '12800');
    // The wait's handler: the payment is paid (the event applied) while it runs, then it fails.
    const handle = async (input) => {
      if (input.idempotencyKey === `${id}:2`) await world.settleHeld(id);
      return h.handle(input);
    };
    assert.deepEqual((await loop.fulfil({ confirm: world.confirm, handle })).outcomes, { retry: 1 });
    const paid = await loop.fulfil({ confirm: world.confirm, handle });
    assert.deepEqual([paid.claimed, paid.outcomes], [1, { fulfil: 1 }], 'the payment, paid, is fulfilled at once');
    assert.deepEqual(h.done(), [[id, 'fulfil', `${id}:3`]]);
    // A failure with nothing newer applied still waits its backoff.
    const other = await world.create({ orderRef: 'held, its wait failing' });
    await record(other);
    await world.hold(other.payment_id, '12800');
    assert.deepEqual((await loop.fulfil({ confirm: world.confirm, handle })).outcomes, { retry: 1 });
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle })).claimed, 0, 'waiting for the backoff');
  });

  test(`${name}: a payment the merchant never created, an order of another amount or order_ref: needs_review, never fulfilled`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder();
    const unknown = await world.create({ orderRef: 'not ours' }); // created elsewhere: never recorded here
    const amount = await world.create({ orderRef: 'order-a', amountRaw: '12800' });
    await record({ ...amount, source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '12900' } });
    const reference = await world.create({ orderRef: 'order-b' });
    await record({ ...reference, order_ref: 'order-B' });
    const fine = await world.create({ orderRef: 'order-c' });
    await record(fine);
    for (const { payment_id: id } of [unknown, amount, reference, fine]) await world.pay(id, '12800');
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    keysOnce(h.calls);
    const got = Object.fromEntries(h.calls.map((c) => [c.paymentId, [c.action, c.mismatch?.code ?? null, c.order === null]]));
    assert.deepEqual(got, {
      [unknown.payment_id]: ['review', 'payment_unknown', true],
      [amount.payment_id]: ['review', 'source_amount_mismatch', false],
      [reference.payment_id]: ['review', 'order_ref_mismatch', false],
      [fine.payment_id]: ['fulfil', null, false],
    });
    assert.match(h.calls.find((c) => c.paymentId === amount.payment_id).mismatch.message, /^source_amount_mismatch: .*never fulfil it/);
    // Held for review: a later pass, even past recoverAfterSecs, does not look again.
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle: h.handle, recoverAfterSecs: 1 })).claimed, 0);
  });

  test(`${name}: confirm, not the event, decides: an event saying paid with a view saying open waits; a view newer than the event is handled at its version`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder();
    const a = await world.create({ orderRef: 'a' });
    await record(a);
    await world.pay(a.payment_id, '12800'); // the events say paid at version 3...
    world.override(a.payment_id, world.viewWith(a.payment_id, { status: 'open', amount_received_raw: '0' })); // ...the service, open at 3
    const b = await world.create({ orderRef: 'b' });
    await record(b);
    await world.pay(b.payment_id, '6400'); // events: partially_paid at 3
    await world.pay(b.payment_id, '6400', { silent: true }); // paid at 5, those deliveries lost (for now)
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    assert.deepEqual(sorted(h.done()), sorted([[a.payment_id, 'wait', `${a.payment_id}:3`], [b.payment_id, 'fulfil', `${b.payment_id}:5`]]));
    // The lost delivery arrives late: version 5 was handled already, so nothing more.
    await world.redeliver(b.payment_id);
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    assert.equal(h.done().length, 2);
    // A view older than the event (a lagging replica) is not used: tried again later.
    const c = await world.create({ orderRef: 'c' });
    await record(c);
    await world.pay(c.payment_id, '12800'); // events up to paid at 3
    world.override(c.payment_id, world.viewWith(c.payment_id, { status: 'confirming', status_version: 2 }));
    const stale = await loop.fulfil({ confirm: world.confirm, handle: h.handle });
    assert.deepEqual(stale.outcomes, { retry: 1 });
    world.override(c.payment_id);
    await sleep(1100); // the first retry waits 1 s
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    assert.deepEqual(h.done().at(-1), [c.payment_id, 'fulfil', `${c.payment_id}:3`]);
    keysOnce(h.calls);
  });

  test(`${name}: each (payment, status_version) is handled once: duplicate deliveries, stale events, passes at once`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder();
    const ids = [];
    for (let i = 0; i < 12; i += 1) {
      const created = await world.create({ orderRef: `o${i}` });
      await record(created);
      ids.push(created.payment_id);
      await world.pay(created.payment_id, '12800', { again: true }); // each event delivered twice
    }
    // Three passes at once (as three instances would), with small batches, then more.
    const options = { confirm: world.confirm, handle: h.handle, batch: 3 };
    await Promise.all([loop.fulfil(options), loop.fulfil(options), loop.fulfil(options)]);
    await drain(loop, options);
    keysOnce(h.calls);
    assert.deepEqual(h.done().map(([id, action]) => [id, action]).sort(), ids.map((id) => [id, 'fulfil']).sort());
    // A duplicate of the last event, and an older one: recorded, nothing handled again.
    for (const id of ids.slice(0, 3)) await world.redeliver(id);
    await drain(loop, options);
    assert.equal(h.done().length, ids.length);
  });

  // Through the sandbox, the API client's own 404 (CryptoPayApiError payment_not_found).
  test(`${name}: recovery of an order the service does not know: the confirm_failed line says which API key confirm must use`, async (t) => {
    const { lines, ...log } = captureLog();
    const { loop, world, record } = await setup(t, { log });
    const created = await world.create({ orderRef: 'unknown there' });
    await record({ ...created, payment_id: `${created.payment_id}x` }); // no such payment at the service
    await sleep(1200);
    const h = recorder();
    const run = await loop.fulfil({ confirm: world.confirm, handle: h.handle, recoverAfterSecs: 1 });
    assert.deepEqual([run.outcomes, h.calls.length], [{ retry: 1 }, 0]);
    const said = lines.filter((line) => line.includes('confirm_failed'));
    assert.equal(said.length, 1, lines.join('\n'));
    assert.match(said[0], /payment_not_found/);
    assert.match(said[0], /confirm's API key does not see this payment: it must be the key of the account that created it/);
  });

  test(`${name}: recovery: an order with no event is confirmed once recoverAfterSecs passed, and again while it is not settled`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder();
    const lost = await world.create({ orderRef: 'lost' });
    await record(lost);
    await world.pay(lost.payment_id, '12800', { silent: true }); // every delivery lost
    const waiting = await world.create({ orderRef: 'waiting' });
    await record(waiting);
    const options = { confirm: world.confirm, handle: h.handle, recoverAfterSecs: 1 };
    assert.equal((await loop.fulfil(options)).claimed, 0, 'not before recoverAfterSecs');
    // The orders are 4 s old when first looked at, so the check below (3 s) tells the time of the
    // last look from the time the order was recorded, with 3 s of slack for a slow machine.
    await sleep(4000);
    await drain(loop, options);
    assert.deepEqual(h.done().sort(), [[lost.payment_id, 'fulfil', `${lost.payment_id}:3`], [waiting.payment_id, 'wait', `${waiting.payment_id}:1`]].sort());
    // The open one is looked at again (not settled); it was paid meanwhile, its deliveries lost.
    await world.pay(waiting.payment_id, '12800', { silent: true });
    assert.equal((await loop.fulfil({ ...options, recoverAfterSecs: 3 })).claimed, 0, 'looked at a moment ago');
    await sleep(1200);
    await drain(loop, options);
    assert.deepEqual(h.done().at(-1), [waiting.payment_id, 'fulfil', `${waiting.payment_id}:3`]);
    // Fulfilled: settled, never looked at again.
    await sleep(1200);
    assert.equal((await loop.fulfil(options)).claimed, 0);
    keysOnce(h.calls);
  });

  test(`${name}: recovery: facts applied while a failing confirm of an order with no event runs are taken up at the next pass`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder();
    const created = await world.create({ orderRef: 'paid while its recovery fails' });
    const id = created.payment_id;
    await record(created);
    await sleep(1200);
    // The first confirm (recovery: no event recorded yet) fails after the payment was paid and
    // its events applied.
    let failed = false;
    const confirm = async (paymentId, context) => {
      if (failed) return world.confirm(paymentId, context);
      failed = true;
      await world.pay(id, '12800');
      throw new Error('the service is unreachable (test)');
    };
    const options = { confirm, handle: h.handle, recoverAfterSecs: 1 };
    assert.deepEqual((await loop.fulfil(options)).outcomes, { retry: 1 });
    const paid = await loop.fulfil(options);
    assert.deepEqual([paid.claimed, paid.outcomes], [1, { fulfil: 1 }], 'not after the backoff');
    assert.deepEqual(h.done(), [[id, 'fulfil', `${id}:3`]]);
  });

  test(`${name}: recovery: a closed payment is checked again for money that came late, less and less often, while its order is younger than recheckClosedSecs`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder();
    const late = await world.create({ orderRef: 'expired, then paid late' });
    const recorded = Date.now();
    await record(late);
    const options = { confirm: world.confirm, handle: h.handle, recoverAfterSecs: 1 };
    await sleep(3000); // the order is three seconds old when it closes
    await world.expire(late.payment_id);
    await drain(loop, options);
    const closed = Date.now();
    assert.deepEqual(h.done(), [[late.payment_id, 'closed', `${late.payment_id}:2`]]);
    // The next look waits as long as the order had lived when it closed (3 s), not recoverAfterSecs.
    await sleep(1200);
    assert.equal((await loop.fulfil(options)).claimed, 0, 'looked at again before the wait doubled');
    // The money came in late, and its delivery was lost (where the script can make it).
    if (world.supports('status')) await world.change(late.payment_id, { status: 'expired', received: '12800', silent: true });
    // Past the doubled wait however long the passes took: the closing pass ended by `closed`,
    // when the order had lived no longer than since `recorded`.
    await sleepUntil(closed + (closed - recorded) + 200);
    // Past recheckClosedSecs after the order was recorded: never looked at again.
    assert.equal((await loop.fulfil({ ...options, recheckClosedSecs: 3 })).claimed, 0, 'looked at past recheckClosedSecs');
    const confirmed = world.confirmed.length;
    const passes = await drain(loop, options);
    assert.equal(passes[0].claimed, 1);
    assert.equal(world.confirmed.length, confirmed + 1);
    if (world.supports('status')) {
      assert.deepEqual(h.done().at(-1), [late.payment_id, 'review', `${late.payment_id}:3`]);
    } else {
      assert.deepEqual(passes[0].outcomes, { seen: 1 }, 'nothing new: looked at, nothing handled');
      assert.equal(h.done().length, 1);
    }
    keysOnce(h.calls);
  });

  test(`${name}: recovery: a closed payment whose next check would come past recheckClosedSecs has its checks ended by the pass that closed it`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder();
    const over = await world.create({ orderRef: 'expired, checks over' });
    await record(over);
    const options = { confirm: world.confirm, handle: h.handle, recoverAfterSecs: 1 };
    await sleep(2000);
    await world.expire(over.payment_id);
    // Closed when the order is about 2 s old: its next check would come when it is about 4 s
    // old, past recheckClosedSecs (3 s), so the closing pass schedules none.
    await drain(loop, { ...options, recheckClosedSecs: 3 });
    assert.deepEqual(h.done(), [[over.payment_id, 'closed', `${over.payment_id}:2`]]);
    // Past the doubled wait: a pass with the default recheckClosedSecs (7 days) finds nothing
    // due (before the closing pass wrote when each check is due, it would have looked).
    await sleep(2800);
    assert.equal((await loop.fulfil(options)).claimed, 0, 'a closed payment whose checks had ended was looked at');
    keysOnce(h.calls);
  });

  test(`${name}: recovery: a payment held for review is checked again less and less often, never settled by it`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder();
    const part = await world.create({ orderRef: 'paid in part' });
    const recorded = Date.now();
    await record(part);
    const options = { confirm: world.confirm, handle: h.handle, recoverAfterSecs: 1 };
    await sleep(3000); // the order is three seconds old when it is held for review
    await world.pay(part.payment_id, '6400'); // partially_paid at 3
    await drain(loop, options);
    const held = Date.now();
    assert.deepEqual(h.done(), [[part.payment_id, 'review', `${part.payment_id}:3`]]);
    // The rest comes in, its deliveries lost.
    await world.pay(part.payment_id, '6400', { silent: true });
    // Unlooked-at for twice recoverAfterSecs, but not for as long as the order had lived at
    // the last look (3 s) and recoverAfterSecs more: not yet.
    await sleep(2200);
    assert.equal((await loop.fulfil(options)).claimed, 0, 'looked at again before the wait doubled');
    // Due however long the passes took: held by `held`, the order no older then than since
    // `recorded`.
    await sleepUntil(held + (held - recorded) + 1000 + 200);
    const confirmed = world.confirmed.length;
    const passes = await drain(loop, options);
    assert.equal(passes[0].claimed, 1);
    assert.equal(world.confirmed.length, confirmed + 1);
    assert.deepEqual(h.done().at(-1), [part.payment_id, 'fulfil', `${part.payment_id}:5`]);
    keysOnce(h.calls);
  });

  // Delivers an event of a payment whose version the receiver cannot read (a JSON number with
  // a fraction): authentic, so 200 and kept in quarantine, never applied.
  let sent = 0;
  const unreadableSender = (world, receiver) => async (paymentId, status) => {
    const secret = world.receiverOptions.secrets;
    sent += 1;
    const body = Buffer.from(`{"schema_version":"1","event_id":"evt_unreadable_${sent}","event_type":"payment.updated",`
      + `"occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"${paymentId}","status":"${status}","status_version":9.0}}`);
    const answer = await receiver.handle({ body, headers: signedHeaders(body, secret === undefined ? {} : { secret }) });
    assert.deepEqual([answer.status, JSON.parse(answer.body)], [200, { received: true, quarantined: 'status_version_invalid' }]);
  };

  test(`${name}: an authentic event quarantined for its payment (an unreadable status_version) makes the payment due at once, settled or not`, async (t) => {
    const { loop, world, record, receiver } = await setup(t);
    const h = recorder();
    const unreadable = unreadableSender(world, receiver);
    // Fulfilled, so settled: recovery never looks at it again.
    const paid = await world.create({ orderRef: 'paid, then held for review' });
    await record(paid);
    await world.pay(paid.payment_id, '12800');
    const expected = [[paid.payment_id, 'fulfil', `${paid.payment_id}:3`]];
    // Where the script can make it: expired with nothing received, closed (settled too).
    const late = world.supports('status') ? await world.create({ orderRef: 'expired, then paid late' }) : null;
    if (late !== null) {
      await record(late);
      await world.expire(late.payment_id);
      expected.push([late.payment_id, 'closed', `${late.payment_id}:2`]);
    }
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    assert.deepEqual(h.done().sort(), expected.sort());
    // The service moves each on; only an unreadable event of it arrives, quarantined.
    await world.review(paid.payment_id, { silent: true });
    await unreadable(paid.payment_id, 'review_required');
    const then = [[paid.payment_id, 'review', `${paid.payment_id}:4`]];
    if (late !== null) {
      await world.change(late.payment_id, { status: 'expired', received: '12800', silent: true }); // the money came in late
      await unreadable(late.payment_id, 'expired');
      then.push([late.payment_id, 'review', `${late.payment_id}:3`]);
    }
    // An event of a payment this store never saw: quarantined and listed; nothing to claim.
    await unreadable('pay_never_seen', 'paid');
    const passes = await drain(loop, { confirm: world.confirm, handle: h.handle });
    assert.equal(passes[0].claimed, then.length, 'the next pass takes them up, without waiting for recoverAfterSecs');
    assert.deepEqual(h.done().slice(expected.length).sort(), then.sort());
    assert.equal(h.calls.find((c) => c.paymentId === paid.payment_id && c.action === 'review').fulfilledBefore, true);
    assert.deepEqual((await receiver.quarantined()).map((row) => row.paymentId),
      [paid.payment_id, ...(late === null ? [] : [late.payment_id]), 'pay_never_seen']);
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle: h.handle })).claimed, 0);
    keysOnce(h.calls);
  });

  test(`${name}: a review after a fulfil that threw names that fulfil's key, so the merchant's record can tell whether it shipped`, async (t) => {
    const { loop, world, record } = await setup(t);
    const created = await world.create({ orderRef: 'fulfil threw, then review' });
    await record(created);
    await world.pay(created.payment_id, '12800');
    const key = `${created.payment_id}:3`;
    const h = recorder({ failing: (k, before) => k === key && before === 0 });
    const contexts = [];
    const policy = (view, order, context) => {
      contexts.push(context);
      return view.status === 'paid' ? 'fulfil' : 'review';
    };
    assert.deepEqual((await loop.fulfil({ confirm: world.confirm, handle: h.handle, policy })).outcomes, { retry: 1 });
    await world.review(created.payment_id); // before the retry: the payment moved on
    await sleep(1100);
    await drain(loop, { confirm: world.confirm, handle: h.handle, policy });
    const [fulfil, review] = h.calls;
    assert.deepEqual([fulfil.action, fulfil.ok, fulfil.fulfilKey, fulfil.idempotencyKey], ['fulfil', false, key, key]);
    assert.deepEqual([review.action, review.fulfilledBefore, review.fulfilKey], ['review', false, key]);
    assert.equal(review.idempotencyKey, `${created.payment_id}:4`);
    assert.deepEqual(contexts, [{ fulfilledBefore: false, fulfilKey: null }, { fulfilledBefore: false, fulfilKey: key }]);
  });

  // A payment held as unknown made due again (a quarantined event of it), whose confirm then
  // failed: the retry's code must not replace the hold's, or the order recorded after it
  // would never have the payment looked at again.
  test(`${name}: a payment held as unknown keeps its hold through a failed confirm: its order recorded later is fulfilled`, async (t) => {
    const { loop, world, record, receiver } = await setup(t);
    const h = recorder();
    const late = await world.create({ orderRef: 'recorded after a failed confirm' }); // createPayment's record failed
    await world.pay(late.payment_id, '12800');
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    assert.deepEqual(h.done(), [[late.payment_id, 'review', `${late.payment_id}:3`]]);
    await unreadableSender(world, receiver)(late.payment_id, 'paid');
    const down = async () => { throw new Error('the service answered 503 (test)'); };
    assert.deepEqual((await loop.fulfil({ confirm: down, handle: h.handle })).outcomes, { retry: 1 });
    await sleep(1100); // the first retry waits 1 s
    assert.deepEqual((await loop.fulfil({ confirm: world.confirm, handle: h.handle })).outcomes, { seen: 1 });
    await record(late);
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    // The review of the unknown payment and its fulfil, at the same version: the order came.
    assert.deepEqual(h.done(), [[late.payment_id, 'review', `${late.payment_id}:3`], [late.payment_id, 'fulfil', `${late.payment_id}:3`]]);
  });

  test(`${name}: an order recorded while a pass confirms its paid payment as unknown: no review of it, and fulfilled at the next pass`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder();
    const late = await world.create({ orderRef: 'recorded late' }); // createPayment's record failed
    await world.pay(late.payment_id, '12800'); // paid, its event recorded before the order
    const key = `${late.payment_id}:3`;
    // The merchant's retry of recordCreated lands while the pass, which loaded the payment
    // with no order, is asking the service for its view.
    const racing = {
      confirm: async (...args) => {
        await record(late);
        return world.confirm(...args);
      },
      handle: h.handle,
      leaseSecs: 300,
    };
    const raced = await loop.fulfil(racing);
    // The pass saw no order, and would hold the payment for review as unknown; the order
    // marked its lease, which is checked before handle: no handle, reported as lease_lost.
    assert.deepEqual(raced.outcomes, { lease_lost: 1 });
    assert.deepEqual(h.calls, [], 'no review of a payment whose order was just recorded');
    // Nothing was recorded, and the pass gave the marked lease back at its end: the payment is
    // due at the next pass, not once the lease (300 s) runs out.
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    assert.deepEqual(h.done(), [[late.payment_id, 'fulfil', key]]);
    // Fulfilled and settled: nothing more, even past recoverAfterSecs.
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle: h.handle, recoverAfterSecs: 1 })).claimed, 0);
  });

  test(`${name}: an order recorded while handle runs past leaseSecs: the marked lease is kept, no other pass handles the payment meanwhile, and the next one fulfils it`, async (t) => {
    const { lines, ...log } = captureLog();
    const { loop, world, record } = await setup(t, { log });
    const late = await world.create({ orderRef: 'recorded while handled' }); // createPayment's record failed
    await world.pay(late.payment_id, '12800'); // paid, its event recorded before the order
    const key = `${late.payment_id}:3`;
    let running = false;
    const calls = [];
    const handle = async ({ action, idempotencyKey }) => {
      assert.ok(!running, 'handle called by a second pass while the first still ran');
      running = true;
      calls.push([action, idempotencyKey]);
      if (calls.length === 1) {
        // The merchant's retry of recordCreated lands while the review of the unknown payment
        // runs, which then takes 3.5 times leaseSecs.
        await record(late);
        await sleep(3500);
      }
      running = false;
    };
    const first = loop.fulfil({ confirm: world.confirm, handle, leaseSecs: 1 });
    await sleep(1800); // past the lease, had it not been renewed once marked
    const meanwhile = await loop.fulfil({ confirm: world.confirm, handle, leaseSecs: 1 });
    assert.deepEqual([meanwhile.claimed, running], [0, true], 'another pass took the payment while handle ran');
    // Its outcome not written (the review of a payment that has an order now), the mark given
    // back at the pass's end: the next pass fulfils it.
    assert.deepEqual((await first).outcomes, { lease_lost: 1 });
    // Kept renewed throughout: no line says the lease may have run out.
    assert.ok(!lines.some((line) => /past its lease/.test(line)), lines.join('\n'));
    await drain(loop, { confirm: world.confirm, handle, leaseSecs: 1 });
    assert.deepEqual(calls, [['review', key], ['fulfil', key]]);
  });

  test(`${name}: an order recorded while a handle that then throws runs: no attempt counted, and the next pass fulfils the payment`, async (t) => {
    const { lines, ...log } = captureLog();
    const { loop, world, record } = await setup(t, { log });
    const late = await world.create({ orderRef: 'recorded while a handle failed' }); // createPayment's record failed
    await world.pay(late.payment_id, '12800');
    const key = `${late.payment_id}:3`;
    const calls = [];
    const handle = async ({ action, idempotencyKey }) => {
      calls.push([action, idempotencyKey]);
      if (calls.length === 1) {
        await record(late); // lands while the review of the unknown payment runs, which fails
        throw new Error('the review queue is down (test)');
      }
    };
    const first = await loop.fulfil({ confirm: world.confirm, handle });
    assert.deepEqual(first.outcomes, { lease_lost: 1 });
    const said = lines.filter((line) => line.includes('handle_failed'));
    assert.equal(said.length, 1, lines.join('\n'));
    assert.match(said[0], /, not counted: its lease is no longer this pass's .*: Error: the review queue is down \(test\)$/);
    // The marked lease given back at the pass's end: due now, not once leaseSecs (300 s) ran out.
    const next = await loop.fulfil({ confirm: world.confirm, handle });
    assert.deepEqual(next.outcomes, { fulfil: 1 });
    assert.deepEqual(calls, [['review', key], ['fulfil', key]]);
  });

  test(`${name}: an event quarantined while a recovery check that finds nothing new confirms: the payment is due at the next pass, not once the lease runs out`, async (t) => {
    const { loop, world, record, receiver } = await setup(t);
    const h = recorder();
    const open = await world.create({ orderRef: 'quarantined while checked' });
    const id = open.payment_id;
    await record(open);
    await sleep(1200);
    await drain(loop, { confirm: world.confirm, handle: h.handle, recoverAfterSecs: 1 });
    assert.deepEqual(h.done(), [[id, 'wait', `${id}:1`]]);
    await sleep(1200);
    // The next check's confirm meets an authentic delivery quarantined for the payment, which
    // marks the lease; the view is the version handled: nothing new, nothing written.
    let racing = true;
    const confirm = async (...args) => {
      if (racing) {
        racing = false;
        await unreadableSender(world, receiver)(id, 'paid');
      }
      return world.confirm(...args);
    };
    assert.deepEqual((await loop.fulfil({ confirm, handle: h.handle, recoverAfterSecs: 1 })).outcomes, { seen: 1 });
    // The quarantine made it due, and the marked lease was given back when nothing was written
    // (the lease is 300 s; recoverAfterSecs 900 here).
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle: h.handle })).claimed, 1);
    assert.equal(h.done().length, 1);
  });

  test(`${name}: an event quarantined while a fulfil runs: its version is written, so handle is not called again, and the next pass looks again`, async (t) => {
    const { loop, store, world, record, receiver } = await setup(t);
    const created = await world.create({ orderRef: 'quarantined while fulfilled' });
    const id = created.payment_id;
    await record(created);
    await world.pay(id, '12800');
    const calls = [];
    const handle = async ({ action, idempotencyKey }) => {
      calls.push([action, idempotencyKey]);
      // A delivery of this payment the receiver cannot read lands while the shipment is made.
      if (calls.length === 1) await unreadableSender(world, receiver)(id, 'paid');
    };
    assert.deepEqual((await loop.fulfil({ confirm: world.confirm, handle })).outcomes, { fulfil: 1 });
    const state = await store.load({ paymentId: id, owner: 'look', recoverAfterSecs: 900, leaseSecs: 300 });
    assert.deepEqual([state.handledVersion, state.outcome], ['3', 'fulfil']);
    await store.release({ owner: 'look' });
    // Due at once for what the quarantined event may have said (recoverAfterSecs is 900): the
    // view is the version handled, so nothing is called.
    const next = await loop.fulfil({ confirm: world.confirm, handle });
    assert.deepEqual([next.claimed, next.outcomes], [1, { seen: 1 }]);
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle })).claimed, 0);
    assert.deepEqual(calls, [['fulfil', `${id}:3`]], 'the shipment made once');
  });

  test(`${name}: an order recorded again while a pass handles its payment (a retried createPayment) leaves the pass's outcome standing`, async (t) => {
    const { loop, store, world, record } = await setup(t);
    const h = recorder();
    const created = await world.create({ orderRef: 'recorded twice' });
    await record(created);
    await world.pay(created.payment_id, '12800');
    const racing = {
      confirm: async (...args) => {
        await record(created); // the same order again: the pass loaded it already
        return world.confirm(...args);
      },
      handle: h.handle,
    };
    const first = await loop.fulfil(racing);
    assert.deepEqual(first.outcomes, { fulfil: 1 });
    assert.deepEqual(h.done(), [[created.payment_id, 'fulfil', `${created.payment_id}:3`]]);
    // The outcome was recorded (a marked lease would have left it unwritten): nothing is due.
    const state = await store.load({ paymentId: created.payment_id, owner: 'look', recoverAfterSecs: 900, leaseSecs: 300 });
    assert.deepEqual([state.handledVersion, state.outcome], ['3', 'fulfil']);
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle: h.handle })).claimed, 0);
    assert.equal(h.calls.length, 1, 'handled once');
  });

  test(`${name}: a payment whose own step fails in the loop (the store refusing its outcome) is set aside; the pass goes on`, async (t) => {
    const { lines, ...log } = captureLog();
    const records = [];
    const { loop, store, world, record, receiver } = await setup(t, { log, onOutcome: (r) => records.push(r) });
    const h = recorder();
    const ids = [];
    for (const label of ['refused', 'fine']) {
      const created = await world.create({ orderRef: `set aside ${label}` });
      await record(created);
      await world.pay(created.payment_id, '12800');
      ids.push(created.payment_id);
    }
    const [refused, fine] = ids;
    const complete = store.complete.bind(store);
    store.complete = async (args) => {
      if (args.paymentId === refused) throw new Error('numeric field overflow (test) password=hunter2');
      return complete(args);
    };
    t.after(() => { store.complete = complete; });
    const result = await loop.fulfil({ confirm: world.confirm, handle: h.handle });
    assert.equal(result.claimed, 2);
    assert.deepEqual(result.outcomes, { retry: 1, fulfil: 1 });
    assert.deepEqual(h.done().map(([id]) => id).sort(), [refused, fine].sort(), 'both handled; the refused one is tried again');
    const state = await store.load({ paymentId: refused, owner: 'look', recoverAfterSecs: 900, leaseSecs: 300 });
    assert.deepEqual([state.code, state.attempts], ['pass_failed', 1]);
    // The line and the record say the handler ran and that the fulfil is repeated under its key.
    const key = h.done().find(([id]) => id === refused)[2];
    const said = lines.filter((line) => line.includes('pass_failed'));
    assert.equal(said.length, 1, lines.join('\n'));
    assert.match(said[0], new RegExp(`pass_failed for payment ${refused} after handle ran \\(action fulfil\\): its outcome was not written; `
      + `in \\d+ s the fulfil is repeated under the same key, ${key}: .*numeric field overflow`));
    assert.doesNotMatch(said[0], /hunter2/);
    const setAside = records.find((r) => r.paymentId === refused && r.outcome === 'retry');
    assert.deepEqual([setAside.code, setAside.action, setAside.idempotencyKey], ['pass_failed', 'fulfil', key]);
    // Not claimed again at once: set aside for a minute.
    assert.equal(setAside.retryInSecs, 60);
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle: h.handle })).claimed, 0);
    // Made due at once while the store still refuses: handle runs again each time, so each
    // attempt sets it aside twice as long as the one before.
    for (const secs of [120, 240]) {
      assert.equal(await receiver.retryNow({ paymentId: refused }), 1);
      const failing = await loop.fulfil({ confirm: world.confirm, handle: h.handle });
      assert.deepEqual([failing.claimed, failing.outcomes], [1, { retry: 1 }]);
      assert.equal(records.filter((r) => r.paymentId === refused && r.outcome === 'retry').at(-1).retryInSecs, secs);
    }
    // The store mended: retryNow makes it due at once (another payment's id makes nothing due),
    // and the fulfil is repeated under its key.
    store.complete = complete;
    assert.equal(await receiver.retryNow({ paymentId: fine }), 0);
    assert.equal(await receiver.retryNow({ paymentId: refused }), 1);
    assert.equal(await receiver.retryNow(), 0, 'nothing more backing off');
    const again = await loop.fulfil({ confirm: world.confirm, handle: h.handle });
    assert.deepEqual([again.claimed, again.outcomes], [1, { fulfil: 1 }]);
    assert.deepEqual(h.done().filter(([id]) => id === refused), Array(4).fill([refused, 'fulfil', key]));
    // The store down for both the outcome and the retry (a database restarting while handle
    // ran): the pass fails, and a line names the payment and the key handle is called again under.
    const retry = store.retry.bind(store);
    const down = new Error('connect ECONNREFUSED (test)');
    store.complete = async () => { throw down; };
    store.retry = async () => { throw down; };
    t.after(() => { store.retry = retry; });
    const other = await world.create({ orderRef: 'set aside, store down' });
    await record(other);
    await world.pay(other.payment_id, '12800');
    lines.length = 0;
    await assert.rejects(loop.fulfil({ confirm: world.confirm, handle: h.handle }), /ECONNREFUSED \(test\)/);
    const downKey = h.done().find(([id]) => id === other.payment_id)[2];
    assert.ok(lines.some((line) => line.includes(`handle ran for payment ${other.payment_id} (action fulfil, key ${downKey}) and neither its `
      + 'outcome nor a retry could be written: the next pass that takes the payment calls handle again under the same key')), lines.join('\n'));
    store.complete = complete;
    store.retry = retry;
    await assert.rejects(receiver.retryNow({ paymentId: '' }), /retryNow: paymentId is a payment_id/);
    await assert.rejects(receiver.retryNow({ payment_id: refused }), /did you mean "paymentId"/);
  });

  test(`${name}: a handler fixed after failures is taken up at once with retryNow, its attempts still counted; a long backoff's line says so`, async (t) => {
    const { lines, ...log } = captureLog();
    const { loop, world, record, receiver } = await setup(t, { log });
    let broken = true;
    const h = recorder({ failing: () => broken });
    const created = await world.create({ orderRef: 'a handler with a bug' });
    const id = created.payment_id;
    await record(created);
    await world.pay(id, '12800');
    // Seven failures, each made due at once instead of waited for (1, 2, 4 ... 64 s).
    for (let attempt = 1; attempt <= 7; attempt += 1) {
      const run = await loop.fulfil({ confirm: world.confirm, handle: h.handle });
      assert.deepEqual([run.claimed, run.outcomes], [1, { retry: 1 }], `attempt ${attempt}`);
      // From the fourth (8 s and more), a wait no loaded machine outlasts between two calls.
      const due = attempt >= 4 ? (await loop.fulfil({ confirm: world.confirm, handle: h.handle })).claimed : 0;
      assert.equal(due, 0, 'backing off');
      const made = await receiver.retryNow();
      if (attempt >= 4) assert.equal(made, 1);
    }
    const said = lines.filter((line) => line.includes('handle_failed'));
    assert.equal(said.length, 7, lines.join('\n'));
    assert.doesNotMatch(said[5], /retryNow/, 'a short wait says nothing of it');
    // Failing for minutes is an outage of what handle calls: said as an error from then on.
    assert.deepEqual(said.map((line) => line.split(' ')[0]), ['warn', 'warn', 'warn', 'warn', 'warn', 'warn', 'error']);
    assert.match(said[6], /\(attempt 7; tried again in 64 s; once what failed is fixed, receiver\.retryNow\(\) makes it due at the next pass\)/);
    broken = false;
    const fixed = await loop.fulfil({ confirm: world.confirm, handle: h.handle });
    assert.deepEqual([fixed.claimed, fixed.outcomes], [1, { fulfil: 1 }]);
    assert.deepEqual(h.done(), [[id, 'fulfil', `${id}:3`]]);
    assert.equal(new Set(h.calls.map((c) => c.idempotencyKey)).size, 1, 'one key for every attempt');
    assert.equal(await receiver.retryNow(), 0, 'nothing backing off');
  });

  test(`${name}: a batch that outlasts the lease: each payment's lease is renewed as it is taken up, so no other pass handles it meanwhile`, async (t) => {
    const { loop, world, record } = await setup(t);
    const ids = [];
    for (const label of ['first', 'second']) {
      const created = await world.create({ orderRef: `slow ${label}` });
      await record(created);
      await world.pay(created.payment_id, '12800');
      ids.push(created.payment_id);
    }
    const running = new Set();
    const calls = [];
    // Each call takes 1.6 s: the batch takes 3.2 s against a lease of 2 s.
    const slow = async ({ idempotencyKey, action }) => {
      assert.ok(!running.has(idempotencyKey), `${idempotencyKey} handled by two passes at once`);
      running.add(idempotencyKey);
      calls.push([idempotencyKey, action]);
      await sleep(1600);
      running.delete(idempotencyKey);
    };
    const first = loop.fulfil({ confirm: world.confirm, handle: slow, leaseSecs: 2 });
    // Past the batch's first lease: the second payment's was renewed when it was taken up.
    await sleep(2600);
    const second = await loop.fulfil({ confirm: world.confirm, handle: slow, leaseSecs: 2 });
    assert.equal(second.claimed, 0, 'nothing to take over: the second payment is still leased');
    assert.deepEqual((await first).outcomes, { fulfil: 2 });
    assert.deepEqual(calls.sort(), ids.map((id) => [`${id}:3`, 'fulfil']).sort());
  });

  test(`${name}: a payment whose lease ran out while the ones before it were worked is still the pass's: handled, not lease_lost`, async (t) => {
    const { loop, world, record } = await setup(t);
    for (const label of ['first', 'second']) {
      const created = await world.create({ orderRef: `late ${label}` });
      await record(created);
      await world.pay(created.payment_id, '12800');
    }
    const calls = [];
    // The first call outlasts the batch's lease of 1 s: the second payment's ran out before it
    // was taken up, and no other pass took it over.
    const slow = async ({ idempotencyKey, action }) => {
      calls.push([idempotencyKey, action]);
      await sleep(1300);
    };
    const first = await loop.fulfil({ confirm: world.confirm, handle: slow, leaseSecs: 1 });
    assert.deepEqual(first.outcomes, { fulfil: 2 });
    assert.equal(calls.length, 2);
  });

  test(`${name}: a pass takes payments with newer facts before recovery checks, however many are due, and works them first, with an order or none`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder();
    const ids = [];
    for (let i = 0; i < 6; i += 1) {
      const created = await world.create({ orderRef: `queue ${i}` });
      await record(created);
      ids.push(created.payment_id);
      await sleep(5); // each looked at (recorded) after the one before
    }
    // The last by payment_id is paid; the others stay open, due for a recovery check.
    const paid = [...ids].sort().at(-1);
    const open = ids.filter((id) => id !== paid);
    await sleep(1200);
    await world.pay(paid, '12800');
    // Paid with no order recorded (a Payment Link's, say): the loop has never seen it.
    const unlinked = await world.create({ orderRef: 'no order' });
    await world.pay(unlinked.payment_id, '12800');
    const options = { confirm: world.confirm, handle: h.handle, batch: 3, recoverAfterSecs: 1 };
    const first = await loop.fulfil(options);
    assert.equal(first.claimed, 3);
    // The paid payments first (the one the loop has seen before the one it has not), then the
    // open one looked at longest ago.
    assert.deepEqual(h.done().map(([id, action]) => [id, action]), [[paid, 'fulfil'], [unlinked.payment_id, 'review'], [open[0], 'wait']]);
    await drain(loop, options);
    assert.deepEqual(h.done().slice(3).map(([id, action]) => [id, action]), open.slice(1).map((id) => [id, 'wait']));
  });

  test(`${name}: stop() ends the loop after the payment under way and gives the rest of the batch back`, async (t) => {
    const opened = await setup(t);
    const { receiver, loop, world } = opened;
    const ids = await paidBatch(opened, 'stopping');
    const { calls, begun, handle } = slowHandle(500);
    const running = receiver.startFulfilment({ intervalMs: 60_000, confirm: world.confirm, handle, leaseSecs: 300 });
    await begun;
    await running.stop();
    assert.equal(calls.length, 1, 'only the payment under way was handled');
    // The other two are free at once, not after the 300 s lease.
    const next = await loop.fulfil({ confirm: world.confirm, handle: async ({ paymentId }) => { calls.push(paymentId); } });
    assert.equal(next.claimed, 2);
    assert.deepEqual([...calls].sort(), [...ids].sort());
  });

  test(`${name}: stop() gives back the rest of the batch even when the store refused to at first`, async (t) => {
    const opened = await setup(t);
    const { receiver, store, world } = opened;
    const ids = await paidBatch(opened, 'owed');
    // The store refuses the pass's two releases (as stop() gives the batch back, and as the
    // failed pass gives back what it holds), then is back.
    const release = store.release.bind(store);
    let refusals = 2;
    store.release = async (args) => {
      if (refusals > 0) {
        refusals -= 1;
        throw new Error('connection terminated (test)');
      }
      return release(args);
    };
    t.after(() => { store.release = release; });
    const { calls: handled, begun, handle } = slowHandle(300);
    const running = receiver.startFulfilment({ intervalMs: 60_000, confirm: world.confirm, handle, leaseSecs: 300 });
    await begun;
    await running.stop();
    assert.equal(refusals, 0, 'both releases were refused');
    // Given back once stopped: another instance claims the two not worked now, not in 300 s.
    const taken = await store.claim({ owner: 'another instance', leaseSecs: 300, batch: 10, recoverAfterSecs: 900 });
    assert.deepEqual([...taken].sort(), ids.filter((id) => !handled.includes(id)).sort());
  });

  test(`${name}: a handler that throws once is retried after a backoff and fulfilled once; confirm failing, an invalid view and another payment's view are retried, never handled`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder({ failing: (key, seen) => key.startsWith(ids[0]) && seen === 0 });
    const ids = [];
    for (const orderRef of ['flaky handler', 'flaky confirm', 'invalid view', 'view of another payment']) {
      const created = await world.create({ orderRef });
      await record(created);
      await world.pay(created.payment_id, '12800');
      ids.push(created.payment_id);
    }
    let failures = 0;
    world.override(ids[1], () => {
      failures += 1;
      throw new Error('ECONNRESET (test)');
    });
    world.override(ids[2], world.viewWith(ids[2], { status_version: 2.5 }));
    // A confirm keyed wrongly: another payment's view, at a version far ahead. Taken, it would
    // settle this payment at that version and its own paid versions would never be handled.
    world.override(ids[3], world.viewWith(ids[3], { payment_id: 'pay_someone_else', status_version: 90 }));
    const first = await loop.fulfil({ confirm: world.confirm, handle: h.handle });
    assert.deepEqual(first.outcomes, { retry: 4 });
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle: h.handle })).claimed, 0, 'waiting for the backoff');
    world.override(ids[1]);
    world.override(ids[2]);
    world.override(ids[3]);
    await sleep(1100);
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    assert.equal(failures, 1);
    // The failed call came first (the first pass's only one); then each once, in the order of the pass.
    assert.deepEqual(h.calls[0] && [h.calls[0].paymentId, h.calls[0].ok], [ids[0], false]);
    assert.deepEqual(sorted(h.calls.slice(1).map((c) => [c.paymentId, c.action, c.ok])),
      sorted(ids.map((id) => [id, 'fulfil', true])));
    assert.ok(!h.calls.some((c) => c.idempotencyKey.endsWith(':90')), 'the other payment\'s version was never handled');
    assert.equal(h.calls[0].idempotencyKey, h.calls.find((c, i) => i > 0 && c.paymentId === ids[0]).idempotencyKey, 'the retry has the same key');
    keysOnce(h.calls);
  });

  test(`${name}: a confirm that resolves a copy of the view ({ ...view }, its responseText left out) is retried, and the line says why`, async (t) => {
    const { lines, ...log } = captureLog();
    const { loop, world, record } = await setup(t, { log });
    const h = recorder();
    const created = await world.create({ orderRef: 'view copied' });
    await record(created);
    await world.pay(created.payment_id, '12800');
    const copying = async (...args) => {
      const view = await world.confirm(...args);
      return { ...(typeof view === 'string' ? JSON.parse(view) : view) };
    };
    assert.deepEqual((await loop.fulfil({ confirm: copying, handle: h.handle })).outcomes, { retry: 1 });
    assert.equal(h.calls.length, 0);
    assert.ok(lines.some((line) => line.includes('confirm_invalid') && line.includes('a copy such as { ...view } leaves responseText out')), lines.join('\n'));
  });

  test(`${name}: a confirm that rejects with a value whose message cannot even be read is retried; the pass and the loop go on`, async (t) => {
    const { lines, ...log } = captureLog();
    const { loop, world, record } = await setup(t, { log });
    const h = recorder();
    const created = await world.create({ orderRef: 'unreadable failure' });
    await record(created);
    await world.pay(created.payment_id, '12800');
    const unreadable = {};
    Object.defineProperty(unreadable, 'message', { get() { throw unreadable; } });
    const result = await loop.fulfil({ confirm: async () => { throw unreadable; }, handle: h.handle });
    assert.deepEqual(result.outcomes, { retry: 1 });
    assert.ok(lines.some((line) => line.includes('a failure whose message could not be read')), lines.join('\n'));
    assert.equal(h.calls.length, 0);
  });

  test(`${name}: a policy of the merchant's own decides linked payments; one that answers nonsense is retried, never fulfilled`, async (t) => {
    const { loop, world, record } = await setup(t, { log: false });
    const h = recorder();
    const partial = await world.create({ orderRef: 'short by a cent' });
    await record(partial);
    await world.pay(partial.payment_id, '12799');
    // Accept an underpayment of at most one unit; else the default.
    const policy = (view) => (view.status === 'partially_paid' && BigInt(view.source_amount.amount_raw) - BigInt(view.amount_received_raw) <= 1n
      ? 'fulfil' : 'review');
    await drain(loop, { confirm: world.confirm, handle: h.handle, policy });
    assert.deepEqual(h.done(), [[partial.payment_id, 'fulfil', `${partial.payment_id}:3`]]);
    const odd = await world.create({ orderRef: 'odd' });
    await record(odd);
    await world.pay(odd.payment_id, '12800');
    const result = await loop.fulfil({ confirm: world.confirm, handle: h.handle, policy: () => 'ship it' });
    assert.deepEqual(result.outcomes, { retry: 1 });
    assert.equal(h.done().length, 1);
  });

  test(`${name}: a payment is fulfilled at one version only: the last cent of an accepted underpayment, or paid again after a review, ships nothing twice`, async (t) => {
    const { loop, world, record } = await setup(t);
    const h = recorder();
    const told = [];
    // Accept an underpayment of at most one unit; fulfil what is paid; else review.
    const policy = (view, order, context) => {
      told.push([view.status, context.fulfilledBefore]);
      if (view.status === 'paid') return 'fulfil';
      return view.status === 'partially_paid' && BigInt(view.source_amount.amount_raw) - BigInt(view.amount_received_raw) <= 1n
        ? 'fulfil' : 'review';
    };
    const short = await world.create({ orderRef: 'short by a cent, then paid' });
    await record(short);
    await world.pay(short.payment_id, '12799');
    await drain(loop, { confirm: world.confirm, handle: h.handle, policy });
    assert.deepEqual(h.done(), [[short.payment_id, 'fulfil', `${short.payment_id}:3`]]);
    await world.pay(short.payment_id, '1'); // paid in full at version 5
    await drain(loop, { confirm: world.confirm, handle: h.handle, policy });
    assert.deepEqual(h.done(), [[short.payment_id, 'fulfil', `${short.payment_id}:3`]], 'not fulfilled again at version 5');
    assert.deepEqual(told, [['partially_paid', false], ['paid', true]]);
    // Nothing more is due for it.
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle: h.handle, policy })).claimed, 0);
    if (!world.supports('status')) return;
    // Paid, held for review, paid again: the review reaches handle, the second fulfil does not.
    const again = await world.create({ orderRef: 'paid, reviewed, paid' });
    await record(again);
    await world.pay(again.payment_id, '12800'); // paid at 3
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    await world.change(again.payment_id, { status: 'review_required', received: '12800' }); // 4
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    await world.change(again.payment_id, { status: 'paid', received: '12800' }); // 5
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    const calls = h.calls.filter((c) => c.paymentId === again.payment_id).map((c) => [c.action, c.statusVersion, c.fulfilledBefore]);
    assert.deepEqual(calls, [['fulfil', '3', false], ['review', '4', true]]);
  });

  test(`${name}: a fulfil whose note was lost (its pass outlived its lease) is repeated under its first key once the payment moved on, never a newer one`, async (t) => {
    const { loop, world, record, store } = await setup(t);
    // Accept an underpayment of at most one unit: fulfil at 3 (partially paid), paid in full at 5;
    // anything else (confirming at 4) waits.
    const policy = (view) => (view.status === 'paid' || (view.status === 'partially_paid'
      && BigInt(view.source_amount.amount_raw) - BigInt(view.amount_received_raw) <= 1n) ? 'fulfil' : 'wait');
    const created = await world.create({ orderRef: 'a slow shipment' });
    await record(created);
    await world.pay(created.payment_id, '12799');
    const keys = [];
    let release;
    const gate = new Promise((resolve) => { release = resolve; });
    // The first pass ships, then hangs past its lease of 1 s, renewing nothing (as a process that
    // dies before its note: a live one's renewals keep the lease while handle runs).
    // Only the first pass's renewals fail (its owner is the first to intend a fulfil): the
    // passes that take the payment once its lease ran out renew as usual.
    const { intend, renew } = store;
    let gone = null;
    store.intend = async (args) => {
      gone ??= args.owner;
      return intend.call(store, args);
    };
    store.renew = async (args) => {
      if (args.owner === gone) throw new Error('this process is gone');
      return renew.call(store, args);
    };
    const stuck = loop.fulfil({ confirm: world.confirm, policy, leaseSecs: 1, handle: async ({ action, idempotencyKey }) => {
      keys.push([action, idempotencyKey]);
      await gate;
    } });
    for (let i = 0; keys.length === 0; i += 1) {
      assert.ok(i < 200, 'the first pass never reached handle');
      await sleep(25);
    }
    await world.pay(created.payment_id, '1'); // paid in full at version 5
    // Passes find nothing until the first pass's lease (1 s from its last write) has run out; on
    // a loaded machine a store's write (D1 in workerd) can land well after it was sent, so the
    // test polls until a pass has taken the payment again rather than guessing a time.
    const h = recorder();
    const fulfilled = () => h.calls.some((c) => c.action === 'fulfil');
    const deadline = Date.now() + 30_000;
    await sleep(1000);
    while (!fulfilled()) {
      assert.ok(Date.now() < deadline, 'no pass took the payment again within 30 s of its lease');
      await drain(loop, { confirm: world.confirm, handle: h.handle, policy });
      if (!fulfilled()) await sleep(100);
    }
    await drain(loop, { confirm: world.confirm, handle: h.handle, policy });
    release();
    await stuck;
    // The second pass repeats the fulfil under the key of version 3 (the handler's record of it
    // recognises the shipment), not under version 5's.
    assert.deepEqual(keys, [['fulfil', `${created.payment_id}:3`]]);
    const fulfils = h.calls.filter((c) => c.action === 'fulfil');
    assert.deepEqual(fulfils.map((c) => [c.idempotencyKey, c.statusVersion]), [[`${created.payment_id}:3`, '5']]);
    // Handled at 5, fulfilled: nothing more is due, and a third pass ships nothing.
    assert.equal((await loop.fulfil({ confirm: world.confirm, handle: h.handle, policy })).claimed, 0);
    assert.equal(h.calls.filter((c) => c.action === 'fulfil').length, 1);
  });

  test(`${name}: intend stores the first fulfil version while the lease is this owner's, run out or not, and renews it; renew likewise; neither once another pass claimed it`, async (t) => {
    const { store, world, record } = await setup(t);
    const created = await world.create({ orderRef: 'intend' });
    await record(created);
    const id = created.payment_id;
    await world.pay(id, '12800');
    await world.settle(); // its events recorded: the payment is due
    const claimed = await store.claim({ owner: 'a', leaseSecs: 1, batch: 10, recoverAfterSecs: 900 });
    assert.ok(claimed.includes(id), claimed.join(' '));
    assert.equal(await store.intend({ paymentId: id, owner: 'b', version: '3', leaseSecs: 60 }), null, 'not the owner');
    assert.equal(await store.renew({ paymentId: id, owner: 'b', leaseSecs: 60 }), false, 'not the owner');
    assert.equal(await store.intend({ paymentId: id, owner: 'a', version: '3', leaseSecs: 1 }), '3');
    assert.equal(await store.intend({ paymentId: id, owner: 'a', version: '5', leaseSecs: 1 }), '3', 'the first version kept');
    await sleep(1200); // the lease has run out, and no other pass took it: still this owner's
    assert.equal(await store.intend({ paymentId: id, owner: 'a', version: '7', leaseSecs: 1 }), '3', 'run out, not taken');
    await sleep(1200);
    assert.equal(await store.renew({ paymentId: id, owner: 'a', leaseSecs: 2 }), true, 'run out, not taken');
    // Renewed: another pass finds nothing to claim.
    assert.ok(!(await store.claim({ owner: 'b', leaseSecs: 60, batch: 10, recoverAfterSecs: 900 })).includes(id));
    await sleep(2200);
    // Run out again, and taken by another pass: no longer this owner's, for any of the three.
    const taken = await store.claim({ owner: 'b', leaseSecs: 60, batch: 10, recoverAfterSecs: 900 });
    assert.ok(taken.includes(id), taken.join(' '));
    const state = await store.load({ paymentId: id, owner: 'a', recoverAfterSecs: 900, leaseSecs: 60 });
    assert.deepEqual([state.leased, state.fulfilVersion], [false, '3']);
    assert.equal(await store.intend({ paymentId: id, owner: 'a', version: '7', leaseSecs: 60 }), null, 'not the owner any more');
    assert.equal(await store.renew({ paymentId: id, owner: 'a', leaseSecs: 60 }), false, 'not the owner any more');
  });

  // A pass whose confirm outlasts its lease: alone, it goes on and fulfils; when another pass
  // took the payment meanwhile and fulfilled newer facts, it calls no handle on its older view
  // (a review of a part payment here, told nothing was fulfilled; a 'closed' would release
  // the stock of a shipped order) and says why.
  test(`${name}: a confirm slower than the lease: fulfilled when no other pass took the payment; when one did, no handle on the older view, and a warning`, async (t) => {
    const { lines, ...log } = captureLog();
    const { loop, world, record } = await setup(t, { log });
    const alone = await world.create({ orderRef: 'slow confirm, alone' });
    await record(alone);
    await world.pay(alone.payment_id, '12800');
    const slowConfirm = async (...args) => {
      const view = await world.confirm(...args);
      await sleep(1300);
      return view;
    };
    const h = recorder();
    const first = await loop.fulfil({ confirm: slowConfirm, handle: h.handle, leaseSecs: 1 });
    assert.deepEqual(first.outcomes, { fulfil: 1 });
    assert.deepEqual(h.calls.map((c) => [c.paymentId, c.action]), [[alone.payment_id, 'fulfil']]);

    const raced = await world.create({ orderRef: 'slow confirm, raced' });
    await record(raced);
    const id = raced.payment_id;
    await world.pay(id, '6400'); // paid in part: the slow pass's view holds it for review
    let release;
    const gate = new Promise((resolve) => { release = resolve; });
    let asked = false;
    const heldConfirm = async (...args) => {
      const view = await world.confirm(...args);
      asked = true;
      await gate;
      return view;
    };
    const slowCalls = [];
    const slow = loop.fulfil({ confirm: heldConfirm, handle: async (input) => { slowCalls.push(input.action); }, leaseSecs: 1 });
    for (let i = 0; !asked; i += 1) {
      assert.ok(i < 200, 'the slow pass never confirmed');
      await sleep(25);
    }
    await world.pay(id, '6400'); // the rest paid meanwhile
    await sleep(1300); // the slow pass's lease has run out
    const other = recorder();
    await drain(loop, { confirm: world.confirm, handle: other.handle });
    assert.deepEqual(other.calls.map((c) => [c.paymentId, c.action]), [[id, 'fulfil']]);
    release();
    const late = await slow;
    assert.deepEqual(late.outcomes, { lease_lost: 1 });
    assert.deepEqual(slowCalls, [], 'no handle on the older view');
    assert.ok(lines.some((l) => /the lease on payment \S+ ran out while confirm and the policy ran \([0-9.]+ s, leaseSecs 1\) and is no longer this pass's/.test(l)
      && l.includes(id)), lines.join('\n'));
  });

  test(`${name}: the version handled is never lowered, and recordCreated is idempotent, refusing another order for the same payment`, async (t) => {
    const { loop, store, world, record } = await setup(t);
    const h = recorder();
    const created = await world.create({ orderRef: 'o' });
    const stored = await record(created);
    assert.deepEqual(stored, { paymentId: created.payment_id, orderRef: 'o', sourceAmount: created.source_amount, integration: null });
    await record(created); // the same again: nothing changes
    await assert.rejects(record({ ...created, source_amount: { ...created.source_amount, amount_raw: '1' } }),
      (error) => error.code === 'invalid_argument' && /recorded already, with another source_amount/.test(error.message));
    // Paid in three parts: paid at version 7.
    for (const part of ['100', '100', '12600']) await world.pay(created.payment_id, part);
    await drain(loop, { confirm: world.confirm, handle: h.handle });
    assert.deepEqual(h.done(), [[created.payment_id, 'fulfil', `${created.payment_id}:7`]]);
    // A late completion of an older version (a worker whose lease expired) lowers nothing.
    assert.equal(await store.complete({ paymentId: created.payment_id, owner: 'late', version: '6', outcome: 'wait', code: null, settled: false }), '7');
    const state = await store.load({ paymentId: created.payment_id, owner: 'x', recoverAfterSecs: 900, leaseSecs: 300 });
    assert.deepEqual([state.handledVersion, state.outcome], ['7', 'fulfil']);
  });
}

/**
 * Several integrations in one receiver, on one engine: a payment's facts are moved only by
 * events verified with the secret of the integration they came through first (a stored null,
 * from a receiver with one secret set, is taken up by the integration named later).
 */
export function integrationScenarios(engine) {
  const secretA = `whsec_a_${randomBytes(12).toString('hex')}`;
  const secretB = `whsec_b_${randomBytes(12).toString('hex')}`;
  const secrets = { 'shop-a': secretA, 'shop-b': secretB };
  const deliver = (receiver, { secret, ...event }) => {
    const body = eventBody(event);
    return receiver.handle({ body, headers: signedHeaders(body, { secret }) });
  };
  const refused = { status: 500, body: '{"error":"integration_mismatch"}' };
  // The world's confirm, noting the integration each call names.
  const confirmNoting = (world) => {
    const asked = [];
    return { asked, confirm: (paymentId, context) => { asked.push(context.integration); return world.confirm(paymentId); } };
  };
  const answered = ({ status, body }) => ({ status, body });

  test(`${engine.name}: an event signed with one integration's secret for another's payment is answered 500 and written nowhere; the payment's own integration goes on`, async (t) => {
    const records = [];
    const opened = await engine.open({ secrets, onOutcome: (record) => records.push(record) });
    t.after(() => opened.close());
    const a = scriptedWorld(opened.receiver, { secret: secretA, prefix: 'ia' });
    const created = a.create({ orderRef: 'a-1' });
    const id = created.payment_id;
    await opened.receiver.recordCreated(created, { integration: 'shop-a' });
    await a.pay(id, '6400'); // versions 2 and 3: partially_paid
    // A holder of shop-b's secret says the payment is paid, far ahead of its versions.
    const forged = { secret: secretB, eventId: 'evt_forged_b', paymentId: id, statusVersion: 1000, status: 'paid' };
    assert.deepEqual(answered(await deliver(opened.receiver, forged)), refused);
    const last = records.at(-1);
    assert.deepEqual([last.status, last.reason, last.code, last.integration, last.paymentId], [500, 'misconfigured', 'integration_mismatch', 'shop-b', id]);
    // Nothing was written: the same delivery again is refused again, never a duplicate.
    assert.deepEqual(answered(await deliver(opened.receiver, forged)), refused);
    // shop-a's own events are applied (not stale against version 1000), and its payment is
    // confirmed and fulfilled through shop-a.
    await a.pay(id, '6400'); // versions 4 and 5: paid
    const h = recorder();
    const { asked, confirm } = confirmNoting(a);
    await drain(opened.receiver, { confirm, handle: h.handle });
    assert.deepEqual(h.done(), [[id, 'fulfil', `${id}:5`]]);
    assert.deepEqual([...new Set(asked)], ['shop-a']);
    assert.deepEqual(records.filter((r) => r.kind === 'delivery' && r.status === 200).map((r) => [r.decision, r.integration]),
      Array.from({ length: 4 }, () => ['apply', 'shop-a']));
  });

  test(`${engine.name}: a payment recorded by a receiver with one secret set is taken up by the integration named later, then only by it`, async (t) => {
    const opened = await engine.open({ secrets: secretA });
    t.after(() => opened.close());
    const first = { secret: secretA, paymentId: 'pay_int_null', status: 'confirming' };
    assert.equal((await deliver(opened.receiver, { ...first, eventId: 'evt_n1', statusVersion: 2 })).body, '{"received":true,"decision":"apply"}');
    // The same store, now with its integrations named.
    const named = rx.createReceiver(receiverOptions(opened.store, { log: false, secrets }));
    await named.ready();
    assert.equal((await deliver(named, { ...first, eventId: 'evt_n2', statusVersion: 3 })).body, '{"received":true,"decision":"apply"}');
    assert.deepEqual(answered(await deliver(named, { ...first, secret: secretB, eventId: 'evt_n3', statusVersion: 4 })), refused);
    assert.equal((await deliver(named, { ...first, eventId: 'evt_n4', statusVersion: 4 })).body, '{"received":true,"decision":"apply"}');
    // An event of shop-b for a payment nobody wrote yet is shop-b's.
    assert.equal((await deliver(named, { secret: secretB, eventId: 'evt_n5', paymentId: 'pay_int_b', statusVersion: 2 })).body,
      '{"received":true,"decision":"apply"}');
    assert.deepEqual(answered(await deliver(named, { secret: secretA, eventId: 'evt_n6', paymentId: 'pay_int_b', statusVersion: 3 })), refused);
    // The names dropped again (one set of secrets): the named payment's events are refused.
    assert.deepEqual(answered(await deliver(opened.receiver, { ...first, eventId: 'evt_n7', statusVersion: 5 })), refused);
  });

  test(`${engine.name}: an event of another integration's secret for a payment whose order is recorded is refused, even before the payment's first event; the order's integration goes on`, async (t) => {
    const opened = await engine.open({ secrets });
    t.after(() => opened.close());
    const a = scriptedWorld(opened.receiver, { secret: secretA, prefix: 'ib' });
    const created = a.create({ orderRef: 'a-2' });
    const id = created.payment_id;
    await opened.receiver.recordCreated(created, { integration: 'shop-a' });
    // Before any event of the payment: a version far ahead, through shop-b's secret.
    const forged = { secret: secretB, eventId: 'evt_first_b', paymentId: id, statusVersion: 1000, status: 'paid' };
    assert.deepEqual(answered(await deliver(opened.receiver, forged)), refused);
    assert.deepEqual(answered(await deliver(opened.receiver, forged)), refused, 'nothing written: never a duplicate');
    await a.pay(id, '12800'); // versions 2 and 3: paid, through shop-a
    const h = recorder();
    const { asked, confirm } = confirmNoting(a);
    await drain(opened.receiver, { confirm, handle: h.handle });
    assert.deepEqual(h.done(), [[id, 'fulfil', `${id}:3`]]);
    assert.deepEqual([...new Set(asked)], ['shop-a']);
  });

  test(`${engine.name}: an event_id stored through another integration's secret is refused, never answered as a duplicate`, async (t) => {
    const opened = await engine.open({ secrets });
    t.after(() => opened.close());
    // A holder of shop-b's secret records, for a payment of its own, the event_id a genuine
    // event of shop-a will carry.
    const taken = { secret: secretB, eventId: 'evt_taken', paymentId: 'pay_b_own', statusVersion: 2, status: 'paid' };
    assert.equal((await deliver(opened.receiver, taken)).body, '{"received":true,"decision":"apply"}');
    const genuine = { secret: secretA, eventId: 'evt_taken', paymentId: 'pay_a_own', statusVersion: 2, status: 'paid' };
    assert.deepEqual(answered(await deliver(opened.receiver, genuine)), refused);
    // The same event of shop-b again: a duplicate, as before.
    assert.equal((await deliver(opened.receiver, taken)).body, '{"received":true,"decision":"duplicate"}');
    // shop-a's next event of its payment applies.
    assert.equal((await deliver(opened.receiver, { ...genuine, eventId: 'evt_a_next', statusVersion: 3 })).body,
      '{"received":true,"decision":"apply"}');
  });

  test(`${engine.name}: an event forged through another integration's secret before the payment's first and before its order is recorded; the pass confirms through the order's account too and holds it for review`, async (t) => {
    const opened = await engine.open({ secrets });
    t.after(() => opened.close());
    const a = scriptedWorld(opened.receiver, { secret: secretA, prefix: 'ic' });
    const created = a.create({ orderRef: 'a-3' });
    const id = created.payment_id;
    const forged = { secret: secretB, eventId: 'evt_early_b', paymentId: id, statusVersion: 1000, status: 'paid' };
    assert.equal((await deliver(opened.receiver, forged)).body, '{"received":true,"decision":"apply"}');
    await opened.receiver.recordCreated(created, { integration: 'shop-a' });
    assert.deepEqual(answered(await deliver(opened.receiver, { secret: secretA, eventId: 'evt_a_2', paymentId: id, statusVersion: 2, status: 'paid' })), refused);
    const h = recorder();
    const asked = [];
    const confirm = (paymentId, context) => {
      asked.push(context.integration);
      if (context.integration !== 'shop-a') throw Object.assign(new Error('payment_not_found (test)'), { status: 404 });
      return a.confirm(paymentId);
    };
    await drain(opened.receiver, { confirm, handle: h.handle });
    assert.deepEqual(asked, ['shop-b', 'shop-a']);
    assert.deepEqual(h.calls.map((c) => [c.paymentId, c.action, c.mismatch?.code, c.integration, c.statusVersion]), [[id, 'review', 'integration_mismatch', 'shop-b', '1000']]);
  });

  // A delivery quarantined through one integration's secret names a payment of the other: kept
  // (authentic to this receiver), but the other's payment is not made due and no pass holding
  // its lease loses it (a holder of one secret, sending such deliveries, held back the other's
  // fulfilment).
  test(`${engine.name}: a delivery of another integration's secret quarantined for a payment of this one makes nothing due; its own makes it due`, async (t) => {
    const opened = await engine.open({ secrets });
    t.after(() => opened.close());
    const a = scriptedWorld(opened.receiver, { secret: secretA, prefix: 'iq' });
    const created = a.create({ orderRef: 'a-5' });
    const id = created.payment_id;
    await opened.receiver.recordCreated(created, { integration: 'shop-a' });
    await a.pay(id, '12800');
    const h = recorder();
    const { confirm } = confirmNoting(a);
    await drain(opened.receiver, { confirm, handle: h.handle });
    assert.deepEqual(h.done(), [[id, 'fulfil', `${id}:3`]]);
    const unreadable = (secret, n) => {
      const body = Buffer.from(`{"schema_version":"1","event_id":"evt_q_${n}","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z",`
        + `"data":{"payment_id":"${id}","status":"paid","status_version":9.0}}`);
      return opened.receiver.handle({ body, headers: signedHeaders(body, { secret }) });
    };
    const quarantined = { status: 200, body: '{"received":true,"quarantined":"status_version_invalid"}' };
    assert.deepEqual(answered(await unreadable(secretB, 1)), quarantined);
    assert.equal((await opened.receiver.fulfil({ confirm, handle: h.handle })).claimed, 0, 'shop-b made shop-a\'s payment due');
    assert.deepEqual(answered(await unreadable(secretA, 2)), quarantined);
    assert.equal((await opened.receiver.fulfil({ confirm, handle: h.handle })).claimed, 1, 'its own integration\'s quarantine makes it due');
    assert.equal((await opened.receiver.quarantined()).length, 2);
  });

  // The on-call view of an order recorded under the wrong integration: its events are refused
  // (integration_mismatch), and its recovery's confirm, through the order's account, finds no
  // such payment. The retry line says which integration was asked and what to mend.
  test(`${engine.name}: an order recorded under another integration than the payment's: the confirm_failed line names the integration asked and the fix`, async (t) => {
    const { lines, ...log } = captureLog();
    const opened = await engine.open({ secrets, log });
    t.after(() => opened.close());
    const a = scriptedWorld(opened.receiver, { secret: secretA, prefix: 'iw' });
    const created = a.create({ orderRef: 'a-4' });
    await opened.receiver.recordCreated(created, { integration: 'shop-b' });
    const asked = [];
    const confirm = (paymentId, context) => {
      asked.push(context.integration);
      // As the API client throws it: the service's ErrorResponse code and its status.
      if (context.integration !== 'shop-a') throw Object.assign(new Error('payment_not_found: the service answered 404'), { status: 404, code: 'payment_not_found' });
      return a.confirm(paymentId);
    };
    await sleep(1100);
    const h = recorder();
    const run = await opened.receiver.fulfil({ confirm, handle: h.handle, recoverAfterSecs: 1 });
    assert.deepEqual([run.outcomes, asked, h.calls.length], [{ retry: 1 }, ['shop-b'], 0]);
    const said = lines.filter((line) => line.includes('confirm_failed'));
    assert.equal(said.length, 1, lines.join('\n'));
    assert.match(said[0], /payment_not_found: the service answered 404; confirm was called with integration "shop-b", the order's: /);
    assert.match(said[0], /mend the integration column of its row in the orders table/);

    // An event verified through the order's own integration proves the order right: confirm's
    // key is what is wrong. And a 404 that is not the service's (a baseUrl missing a path: the
    // client's http_404, with its own fix) gets no hint.
    const b = scriptedWorld(opened.receiver, { secret: secretB, prefix: 'iv' });
    const other = b.create({ orderRef: 'b-1' });
    await opened.receiver.recordCreated(other, { integration: 'shop-b' });
    await b.pay(other.payment_id, '12800');
    lines.length = 0;
    const failing = (error) => () => { throw error; };
    await opened.receiver.fulfil({ confirm: failing(Object.assign(new Error('payment_not_found: the service answered 404'), { status: 404, code: 'payment_not_found' })), handle: h.handle });
    assert.match(lines.join('\n'), /confirm was called with integration "shop-b", whose secret verified the event: confirm must use that integration's API key/);
    assert.doesNotMatch(lines.join('\n'), /mend the integration column/);
    lines.length = 0;
    await sleep(1100); // the first retry waits 1 s
    await opened.receiver.fulfil({ confirm: failing(Object.assign(new Error('http_404: the service answered 404: check baseUrl'), { status: 404, code: 'http_404' })), handle: h.handle });
    const plain = lines.filter((line) => line.includes('confirm_failed'));
    assert.equal(plain.length, 1, lines.join('\n'));
    assert.doesNotMatch(plain[0], /confirm was called with integration/);
  });
}
