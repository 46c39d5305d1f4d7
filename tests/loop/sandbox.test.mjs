// The merchant loop end to end through the sandbox (cryptopay-verify/sandbox), on a SQLite file,
// a throwaway PostgreSQL and D1 in workerd: the package's createReceiver on each store, served on
// loopback and set up as the sandbox's webhook through the client (bootstrapWebhook); orders
// created through the client and recorded (createPayment(..., { record: receiver })); payments
// paid in every way through the sandbox, their events delivered over HTTP (duplicated and
// shuffled, seeded); fulfil with confirm = the client's getPayment. Then: a confirm that
// disagrees with the delivered event wins; two instances fulfilling while the deliveries arrive
// handle each (payment, status_version) once; an order whose recording failed is recorded by
// creating it again with its key, and fulfilled; two accounts in one receiver, each event linked
// by the integration whose secret verified it; a receiver down while orders are paid (the
// sandbox exhausts its retries) fulfils each paid order once after its restart. Every log line,
// onOutcome record and error is searched for the API keys and the webhook secrets.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { d1Engine, postgresEngine, sqliteEngine } from './lib/engines.mjs';
import {
  applySteps, canaries, createClient, serveReceiver, settled, sleep, startSandbox, waitFor,
} from './lib/sandbox.mjs';
import { drain, keysOnce as once, recorder, sleepUntil } from './lib/suite.mjs';

const SEED = 20_261_206;

/**
 * A sandbox, a receiver on `engine` served on loopback and set up as its webhook through the
 * client, and the client: { sandbox, api, door, opened, receiver, webhook, watch,
 * receiverOptions, confirm, check() }, all closed after test `t`, whether it passed or not.
 */
async function loopOn(t, engine, sandboxOptions = {}) {
  const watch = canaries();
  const door = await serveReceiver();
  const sandbox = await startSandbox({ port: 0, retryDelaysMs: [20, 40, 80], log: watch.sandboxLog, ...sandboxOptions });
  const api = createClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, timeoutMs: 5000 });
  const webhook = await api.bootstrapWebhook(door.url);
  assert.deepEqual(Object.keys(webhook).sort(), ['resource_id', 'secret', 'secret_kind', 'url']);
  assert.equal((await api.verifyWebhookBinding(webhook.resource_id, webhook.secret)).secret_kind, 'active');
  const receiverOptions = { secrets: webhook.secret, log: watch.receiverLog, onOutcome: watch.onOutcome };
  const opened = await engine.open(receiverOptions);
  door.attach(opened.receiver);
  const close = async () => {
    await sandbox.close();
    await door.close();
    await opened.close();
  };
  t.after(close);
  return {
    sandbox, api, door, opened, receiver: opened.receiver, webhook, watch, receiverOptions,
    confirm: (paymentId) => api.getPayment(paymentId).catch((error) => { throw watch.keep(error); }),
    check: () => watch.check(sandbox.apiKey, webhook.secret),
  };
}

function endToEnd(engine) {
  test(`${engine.name}: created, recorded, paid in every way, delivered with duplicates in shuffled order: only the orders paid exactly are fulfilled, each once`, async (t) => {
    const loop = await loopOn(t, engine, { duplicateRate: 0.5, shuffle: true, seed: SEED });
    const { sandbox, api, receiver } = loop;
    const record = { record: receiver };
    const orders = new Map();
    const order = async (name, steps, expected, { orderRef = name, recorded = 'yes' } = {}) => {
      const input = orderRef === null ? { amount: '10.00' } : { order_ref: orderRef, amount: '10.00' };
      const created = await api.createPayment(input, recorded === 'yes' ? record : undefined);
      if (recorded === 'another amount') {
        await receiver.recordCreated({ ...created, source_amount: { ...created.source_amount, amount_raw: '999' } });
      }
      await applySteps(sandbox, api, created.payment_id, steps);
      orders.set(created.payment_id, { name, expected });
    };
    await order('paid in full', [['pay', '1000']], ['fulfil', null]);
    await order('paid in two parts', [['pay', '400'], ['pay', '600']], ['fulfil', null]);
    await order('paid in full, no order_ref', [['pay', '1000']], ['fulfil', null], { orderRef: null });
    await order('paid in part', [['pay', '250']], ['review', null]);
    await order('paid too much', [['pay', '1500']], ['review', null]);
    await order('paid, then held for review', [['pay', '1000'], ['review']], ['review', null]);
    await order('held for review while open', [['review']], ['review', null]);
    await order('paid in part, then expired', [['pay', '100'], ['expire']], ['review', null]);
    await order('expired', [['expire']], ['closed', null]);
    await order('cancelled', [['cancel']], ['closed', null]);
    await order('never paid', [], null);
    await order('created through the API, never recorded', [['pay', '1000']], ['review', 'payment_unknown'], { recorded: 'no' });
    await order('recorded for another amount', [['pay', '1000']], ['review', 'source_amount_mismatch'], { recorded: 'another amount' });
    await settled(sandbox);

    const h = recorder();
    await drain(receiver, { confirm: loop.confirm, handle: h.handle });
    once(h.calls);
    for (const [paymentId, { name, expected }] of orders) {
      const calls = h.calls.filter((c) => c.paymentId === paymentId);
      if (expected === null) {
        assert.deepEqual(calls, [], `${name}: never announced, never handled`);
        continue;
      }
      const view = await api.getPayment(paymentId);
      assert.deepEqual(calls.map((c) => [c.action, c.mismatch?.code ?? null, c.idempotencyKey]),
        [[...expected, `${paymentId}:${view.status_version}`]], `${name}: handled once, at the version the service says`);
      assert.equal(calls[0].view.responseText, view.responseText, `${name}: the handler got the service's view`);
    }
    const fulfilled = h.done().filter(([, action]) => action === 'fulfil').map(([id]) => orders.get(id).name).sort();
    assert.deepEqual(fulfilled, ['paid in full', 'paid in full, no order_ref', 'paid in two parts']);
    const outcomes = loop.watch.records.filter((r) => r.kind === 'fulfilment' && r.outcome === 'needs_review').map((r) => [orders.get(r.paymentId).name, r.code]);
    assert.deepEqual(outcomes.sort(), [['created through the API, never recorded', 'payment_unknown'], ['recorded for another amount', 'source_amount_mismatch']]);

    // Every event recorded once, duplicates and stale ones acknowledged and not applied.
    const events = await sandbox.events();
    const counted = receiver.counters().deliveries;
    assert.equal(counted.apply + counted.stale, events.length, 'each event recorded once');
    assert.ok(counted.duplicate > 0 && counted.stale > 0, `duplicates and late events arrived: ${JSON.stringify(counted)}`);
    assert.ok((await sandbox.deliveries()).every((d) => d.outcome === 'acknowledged'));
    // A pass past recoverAfterSecs: the order never paid (no news since its creation) is
    // confirmed, and waits; the others are settled, or unchanged since handled.
    const before = h.calls.length;
    await sleep(1100);
    await drain(receiver, { confirm: loop.confirm, handle: h.handle, recoverAfterSecs: 1 });
    const never = [...orders].find(([, o]) => o.name === 'never paid')[0];
    assert.deepEqual(h.calls.slice(before).map((c) => [c.paymentId, c.action, c.idempotencyKey]), [[never, 'wait', `${never}:1`]]);
    once(h.calls);
    const searched = loop.check();
    console.log(`${engine.name}: ${events.length} events, ${JSON.stringify(counted)}; canaries searched ${JSON.stringify(searched)}`);
  });

  test(`${engine.name}: confirm, not the delivered event, decides: the payment changed again while its deliveries are held back`, async (t) => {
    const loop = await loopOn(t, engine);
    const { sandbox, api, receiver, door } = loop;
    const reviewed = await api.createPayment({ order_ref: 'paid, then reviewed', amount: '10.00' }, { record: receiver });
    const completed = await api.createPayment({ order_ref: 'paid in part, then the rest', amount: '10.00' }, { record: receiver });
    await sandbox.pay(reviewed.payment_id, '1000');
    await sandbox.pay(completed.payment_id, '400');
    await settled(sandbox); // delivered: paid at 3; partially_paid at 3
    door.hold();
    await sandbox.review(reviewed.payment_id); // review_required at 4, its delivery held back
    await sandbox.pay(completed.payment_id, '600'); // confirming at 4, paid at 5, held back
    await waitFor(() => door.held() === 2, { what: 'both deliveries held at the door' });
    const stored = await Promise.all([reviewed, completed].map((p) => loop.opened.store.load({ paymentId: p.payment_id, owner: 'look', recoverAfterSecs: 900, leaseSecs: 300 })));
    assert.deepEqual(stored.map((s) => s.eventVersion), ['3', '3'], 'what the receiver knows: the events at version 3');

    const h = recorder();
    await drain(receiver, { confirm: loop.confirm, handle: h.handle });
    assert.deepEqual(h.done().sort(), [
      [completed.payment_id, 'fulfil', `${completed.payment_id}:5`],
      [reviewed.payment_id, 'review', `${reviewed.payment_id}:4`],
    ].sort(), 'the event said paid, the service says review_required: never fulfilled; the event said partially_paid, the service says paid');
    // The held deliveries arrive: those versions were handled already, so nothing more.
    door.open();
    await settled(sandbox);
    await drain(receiver, { confirm: loop.confirm, handle: h.handle });
    assert.equal(h.calls.length, 2);
    once(h.calls);
    loop.check();
  });

  test(`${engine.name}: exactly once while two instances fulfil as the deliveries arrive, duplicated and shuffled`, async (t) => {
    const loop = await loopOn(t, engine, { duplicateRate: 0.5, shuffle: true, seed: SEED + 1 });
    const { sandbox, api, opened } = loop;
    // A second instance on the same tables; the door hands deliveries to each in turn.
    const second = await opened.another(loop.receiverOptions);
    let turn = 0;
    loop.door.attach({ node: (req, res) => ((turn += 1) % 2 === 0 ? second : opened.receiver).node(req, res) });
    const h = recorder();
    const options = { confirm: loop.confirm, handle: h.handle, batch: 3, intervalMs: 25 };
    const instances = [opened.receiver.startFulfilment(options), second.startFulfilment(options)];
    const stop = () => Promise.all(instances.map((i) => i.stop()));
    const plans = [['1000'], ['300', '700'], ['250'], ['2000'], ['500', '500'], ['100', '100', '800'], [], ['999', '1']];
    const ids = [];
    for (let i = 0; i < 16; i += 1) {
      const created = await api.createPayment({ order_ref: `order ${i}`, amount: '10.00' }, { record: opened.receiver });
      ids.push(created.payment_id);
    }
    let finals;
    try {
      // Paid while the passes run: intermediate versions (confirming, partially_paid) may be handled on the way.
      await Promise.all(ids.map(async (id, i) => {
        for (const amount of plans[i % plans.length]) {
          await sandbox.pay(id, amount);
          await sleep(150); // a pass or two between the parts
        }
      }));
      await settled(sandbox);
      finals = new Map(await Promise.all(ids.map(async (id) => [id, await api.getPayment(id)])));
      const handled = async () => {
        for (const [id, view] of finals) {
          if (view.status === 'open') continue; // no event: not claimed before recoverAfterSecs
          const state = await opened.store.load({ paymentId: id, owner: 'look', recoverAfterSecs: 900, leaseSecs: 300 });
          if (state.handledVersion !== view.status_version) return false;
        }
        return true;
      };
      await waitFor(handled, { timeoutMs: 20_000, what: 'every payment handled at its last version' });
      await sleep(100);
    } finally {
      await stop(); // before the tables close, whether the test passed or not
    }
    once(h.calls);
    for (const [id, view] of finals) {
      const calls = h.done().filter(([paymentId]) => paymentId === id);
      const fulfils = calls.filter(([, action]) => action === 'fulfil');
      if (view.status === 'open') {
        assert.deepEqual(calls, [], `${id}: never paid, never handled`);
        continue;
      }
      assert.deepEqual(calls.at(-1), [id, view.status === 'paid' ? 'fulfil' : 'review', `${id}:${view.status_version}`], `${id}: its last version handled last`);
      assert.equal(fulfils.length, view.status === 'paid' ? 1 : 0, `${id}: fulfilled once if paid exactly, else never`);
    }
    const counted = [opened.receiver, second].map((r) => r.counters().fulfilment);
    assert.ok(counted.every((c) => c.passes > 2), 'both instances ran passes while deliveries arrived');
    const handledBy = counted.map((c) => c.fulfil + c.review + c.wait);
    console.log(`${engine.name}: ${h.done().length} handler calls for ${ids.length} payments (instances: ${handledBy.join(' and ')}; `
      + `${h.done().length - finals.size + [...finals.values()].filter((v) => v.status === 'open').length} on the way to the last version)`);
    loop.check();
  });

  test(`${engine.name}: an order whose recording failed: held as payment_unknown, then recorded by creating again with its key, and fulfilled`, async (t) => {
    const loop = await loopOn(t, engine);
    const { sandbox, api, receiver } = loop;
    const input = { order_ref: 'recorded late', amount: '10.00' };
    const broken = { recordCreated: async () => { throw new Error('SQLITE_FULL: database or disk is full'); } };
    const failed = await api.createPayment(input, { record: broken }).then(() => null, (e) => loop.watch.keep(e));
    assert.deepEqual([failed?.code, failed.retryable], ['record_failed', true]);
    await sandbox.pay(failed.paymentId, '1000'); // the customer pays before the order is recorded
    await settled(sandbox);
    const h = recorder();
    await drain(receiver, { confirm: loop.confirm, handle: h.handle });
    const key = `${failed.paymentId}:3`;
    assert.deepEqual(h.calls.map((c) => [c.action, c.mismatch?.code ?? null, c.order, c.idempotencyKey]), [['review', 'payment_unknown', null, key]]);
    // What the error says to do: create again with the same key; the service answers the same payment.
    const again = await api.createPayment(input, { record: receiver, idempotencyKey: failed.idempotencyKey });
    assert.equal(again.payment_id, failed.paymentId);
    await drain(receiver, { confirm: loop.confirm, handle: h.handle });
    assert.deepEqual(h.calls.map((c) => [c.action, c.mismatch?.code ?? null, c.idempotencyKey]), [['review', 'payment_unknown', key], ['fulfil', null, key]],
      'looked at again once its order is recorded: fulfilled, under the same key');
    assert.equal(h.calls[1].order.orderRef, 'recorded late');
    loop.check();
  });

  test(`${engine.name}: two accounts (two sandboxes) in one receiver: each event linked by the integration whose secret verified it; an order recorded under the other refuses its events`, async (t) => {
    const watch = canaries();
    const door = await serveReceiver();
    const accounts = {};
    for (const name of ['shop-eu', 'shop-us']) {
      const sandbox = await startSandbox({ port: 0, retryDelaysMs: [20, 40], log: watch.sandboxLog });
      t.after(() => sandbox.close());
      const api = createClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, integration: name });
      const { secret } = await api.bootstrapWebhook(door.url);
      accounts[name] = { sandbox, api, secret };
    }
    const opened = await engine.open({
      secrets: { 'shop-eu': accounts['shop-eu'].secret, 'shop-us': accounts['shop-us'].secret }, log: watch.receiverLog, onOutcome: watch.onOutcome,
    });
    t.after(async () => {
      await door.close();
      await opened.close();
    });
    door.attach(opened.receiver);
    const eu = await accounts['shop-eu'].api.createPayment({ order_ref: 'eu-1', amount: '10.00' }, { record: opened.receiver });
    const us = await accounts['shop-us'].api.createPayment({ order_ref: 'us-1', amount: '10.00' }, { record: opened.receiver });
    // A payment of shop-us recorded as shop-eu's (a misconfigured checkout, or a payment made
    // to look like shop-eu's): its events, verified with shop-us's secret, are refused.
    const crossed = await accounts['shop-us'].api.createPayment({ order_ref: 'crossed', amount: '10.00' });
    await opened.receiver.recordCreated(crossed, { integration: 'shop-eu' });
    await accounts['shop-eu'].sandbox.pay(eu.payment_id, '1000');
    await accounts['shop-us'].sandbox.pay(us.payment_id, '1000');
    await accounts['shop-us'].sandbox.pay(crossed.payment_id, '1000');
    await Promise.all(Object.values(accounts).map((a) => settled(a.sandbox)));
    const h = recorder();
    await drain(opened.receiver, {
      confirm: (paymentId, { integration }) => accounts[integration].api.getPayment(paymentId),
      handle: h.handle,
    });
    once(h.calls);
    assert.deepEqual(h.calls.map((c) => [c.order.orderRef, c.integration, c.action, c.mismatch?.code ?? null]).sort(), [
      ['eu-1', 'shop-eu', 'fulfil', null],
      ['us-1', 'shop-us', 'fulfil', null],
    ]);
    const deliveries = watch.records.filter((r) => r.kind === 'delivery');
    assert.deepEqual([...new Set(deliveries.map((r) => `${r.status} ${r.integration} ${r.secretKind}`))].sort(),
      ['200 shop-eu active', '200 shop-us active', '500 shop-us active']);
    assert.ok(deliveries.filter((r) => r.status === 500).every((r) => r.paymentId === crossed.payment_id && r.code === 'integration_mismatch'));
    assert.ok(watch.lines.some((l) => l.startsWith('error ') && l.includes(`integration_mismatch: payment "${crossed.payment_id}"`)
      && l.includes('the order was recorded under the wrong integration')), 'logged, naming the fix');
    watch.check(...Object.values(accounts).flatMap((a) => [a.sandbox.apiKey, a.secret]));
  });

  test(`${engine.name}: the receiver down while orders are paid: the sandbox exhausts its retries; after a restart, a pass with recoverAfterSecs fulfils each paid order once`, async (t) => {
    const loop = await loopOn(t, engine, { retryDelaysMs: [20, 40] });
    const { sandbox, api, door } = loop;
    const created = {};
    for (const name of ['paid in full', 'paid in two parts', 'paid in part', 'never paid']) {
      created[name] = await api.createPayment({ order_ref: name, amount: '10.00' }, { record: loop.receiver });
    }
    const recordedAt = Date.now();
    await door.stop(); // the receiver is down: connections refused
    await sandbox.pay(created['paid in full'].payment_id, '1000');
    await sandbox.pay(created['paid in two parts'].payment_id, '400');
    await sandbox.pay(created['paid in two parts'].payment_id, '600');
    await sandbox.pay(created['paid in part'].payment_id, '250');
    await settled(sandbox);
    const attempts = await sandbox.deliveries();
    const events = await sandbox.events();
    assert.equal(events.length, 8);
    assert.deepEqual(attempts.filter((a) => a.outcome === 'exhausted').map((a) => a.event_id).sort(), events.map((e) => e.event_id).sort(),
      'every event exhausted its retries');
    assert.ok(attempts.every((a) => a.error !== undefined && a.status === undefined), 'no attempt reached the receiver');

    // The restart: a new receiver on the same tables, listening again at the same URL.
    const restarted = await loop.opened.reopen(loop.receiverOptions);
    door.attach(restarted.receiver);
    await door.start();
    const h = recorder();
    const options = { confirm: loop.confirm, handle: h.handle, recoverAfterSecs: 1 };
    assert.equal((await restarted.receiver.fulfil(options)).claimed, 0, 'nothing before recoverAfterSecs: no event arrived');
    await sleepUntil(recordedAt + 1100);
    await drain(restarted.receiver, options);
    const id = (name) => created[name].payment_id;
    assert.deepEqual(h.done().sort(), [
      [id('paid in full'), 'fulfil', `${id('paid in full')}:3`],
      [id('paid in two parts'), 'fulfil', `${id('paid in two parts')}:5`],
      [id('paid in part'), 'review', `${id('paid in part')}:3`],
      [id('never paid'), 'wait', `${id('never paid')}:1`],
    ].sort());
    // Later passes, and the events replayed from the webhook log: no order is fulfilled again.
    for (const event of events) await sandbox.replay(event.event_id);
    await settled(sandbox);
    await sleep(1100);
    await drain(restarted.receiver, options);
    assert.equal(h.done().filter(([, action]) => action === 'fulfil').length, 2);
    once(h.calls);
    assert.equal(restarted.receiver.counters().deliveries.apply, events.length, 'the replays recorded');
    loop.check();
  });
}

describe('the merchant loop through the sandbox, on a SQLite file', () => endToEnd(sqliteEngine));
describe('the merchant loop through the sandbox, on PostgreSQL', () => endToEnd(postgresEngine()));
describe('the merchant loop through the sandbox, on D1 in workerd', () => endToEnd(d1Engine()));
