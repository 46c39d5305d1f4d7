// One route per integration (receiver.integration(name)): a platform's `/webhooks/:merchant`
// behind Express and a real node:http server, the Fetch face and handle, on a real SQLite
// file. A route's delivery is verified with that integration's secrets alone, recorded under
// it, refused and said with the route's integration; one only another integration's secret
// verifies is recorded under neither and retried (500, or 503 past the cross-checks); a name
// secrets does not hold is a 500 the service retries; a lazy receiver routes the same.

import assert from 'node:assert/strict';
import http from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  Database, ROOT, SIG_HEADER, TS_HEADER, captureLog, eventBody, nowSecs, pkg, rx, signedHeaders, sqliteRows, tempDir,
} from './lib/helpers.mjs';
import { send } from './lib/example.mjs';

const express = createRequire(join(ROOT, 'package.json'))('express');

const SECRETS = { 'shop-a': 'whsec_route_a_0123456789abcdef', 'shop-b': 'whsec_route_b_0123456789abcdef', 'shop-c': 'whsec_route_c_0123456789abcdef' };
const options = (store, extra = {}) => ({
  secrets: SECRETS, maxSkewSecs: 300, timestampHeader: TS_HEADER, signatureHeader: SIG_HEADER, store, ...extra,
});
let n = 0;
const next = () => {
  n += 1;
  return eventBody({ eventId: `evt_route_${n}`, paymentId: `pay_route_${n}`, statusVersion: 1 });
};
const signed = (body, shop, timestamp = nowSecs()) => signedHeaders(body, { secret: SECRETS[shop], timestamp });
const forged = (body, timestamp = nowSecs()) => signedHeaders(body, { secret: 'whsec_nobody_holds_this_one', timestamp });

function listen(app) {
  return new Promise((resolve) => {
    const server = http.createServer(app);
    server.listen(0, '127.0.0.1', () => resolve({
      base: `http://127.0.0.1:${server.address().port}`,
      close: () => new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
    }));
  });
}

describe('receiver.integration(name): Express /webhooks/:shop on a SQLite file', () => {
  const db = new Database(join(tempDir(), 'routes.sqlite'));
  const log = captureLog();
  const outcomes = [];
  let server;
  const post = (shop, body, headers) => send(`${server.base}/webhooks/${encodeURIComponent(shop)}`, body, { headers, method: 'POST', agent: false });

  before(async () => {
    const receiver = rx.createReceiver(options(rx.sqliteStore(db), { log, onOutcome: (record) => outcomes.push(record) }));
    await receiver.ready();
    const app = express();
    app.post('/webhooks/:shop', (req, res) => receiver.integration(req.params.shop).node(req, res));
    server = await listen(app);
  });
  after(() => server.close());

  test('a delivery to its integration\'s route is recorded under that integration', async () => {
    const body = next();
    const answer = await post('shop-b', body, signed(body, 'shop-b'));
    assert.deepEqual([answer.status, answer.text], [200, '{"received":true,"decision":"apply"}']);
    const row = sqliteRows(db).events.find((event) => event.event_id === `evt_route_${n}`);
    assert.equal(row.integration, 'shop-b');
    assert.equal(outcomes.at(-1).integration, 'shop-b');
    assert.equal(outcomes.at(-1).route, 'shop-b');
  });

  test('a forgery to a route is refused, recorded and said with the route\'s integration', async () => {
    const body = next();
    const answer = await post('shop-c', body, forged(body));
    assert.deepEqual([answer.status, answer.text], [400, '{"error":"signature_mismatch"}']);
    assert.deepEqual(outcomes.at(-1), { kind: 'delivery', integration: 'shop-c', route: 'shop-c', bodyBytes: body.length, status: 400, reason: 'forgery', code: 'signature_mismatch' });
    assert.ok(log.lines.at(-1).startsWith('warn cryptopay-verify/receiver: rejected at the route of integration "shop-c": '), log.lines.at(-1));
    assert.equal(sqliteRows(db).events.some((event) => event.event_id === `evt_route_${n}`), false);
  });

  test('a name secrets does not hold is answered 500 integration_unknown, unverified, and said', async () => {
    const body = next();
    const answer = await post('shop-gone', body, signed(body, 'shop-a'));
    assert.deepEqual([answer.status, answer.text], [500, '{"error":"integration_unknown"}']);
    assert.deepEqual(outcomes.at(-1), { kind: 'delivery', integration: null, route: 'shop-gone', bodyBytes: body.length, status: 500, reason: 'misconfigured', code: 'integration_unknown' });
    assert.match(log.lines.at(-1), /^error cryptopay-verify\/receiver: integration_unknown: a delivery came to the route of integration "shop-gone", which secrets does not name \(it names 3\): not verified; answered 500/);
    assert.equal(sqliteRows(db).events.some((event) => event.event_id === `evt_route_${n}`), false);
    // The name is request data: quoted as JSON and cut, never a line of its own.
    const long = `x\n${'y'.repeat(300)}`;
    await post(long, body, signed(body, 'shop-a'));
    assert.ok(log.lines.at(-1).includes(`integration "x\\n${'y'.repeat(98)}..."`), log.lines.at(-1));
    assert.equal(outcomes.at(-1).route, `x\n${'y'.repeat(98)}...`);
  });

  test('five mismatches at one route are said for that integration while another\'s deliveries verify', async () => {
    const before = log.lines.length;
    for (let i = 0; i < 5; i += 1) {
      const good = next();
      assert.equal((await post('shop-a', good, signed(good, 'shop-a'))).status, 200);
      const bad = next();
      assert.equal((await post('shop-b', bad, forged(bad))).status, 400);
    }
    const said = log.lines.slice(before).filter((line) => /deliveries to the route of integration "shop-b" failed to verify/.test(line));
    assert.equal(said.length, 1, log.lines.slice(before).join('\n'));
    assert.match(said[0], /^error cryptopay-verify\/receiver: 5 deliveries to the route of integration "shop-b" failed to verify \(signature_mismatch\) over \d+ s, none verified; the last that verified at this route came \d+ s ago: /);
  });
});

describe('receiver.integration(name): the Fetch face and handle', () => {
  const db = new Database(join(tempDir(), 'routes-fetch.sqlite'));
  let clock = nowSecs();
  const log = captureLog();
  const outcomes = [];
  const receiver = rx.createReceiver(options(rx.sqliteStore(db), { log, nowSecs: () => clock, onOutcome: (record) => outcomes.push(record) }));
  const request = (body, headers) => new Request('https://shop.example/webhooks/x', { method: 'POST', body, headers });

  test('one frozen face per name; a name not a string, or a receiver with no names, throws at the call', () => {
    const face = receiver.integration('shop-a');
    assert.equal(receiver.integration('shop-a'), face);
    assert.ok(Object.isFrozen(face));
    assert.equal(face.name, 'shop-a');
    assert.throws(() => receiver.integration(undefined), (error) => error instanceof pkg.CryptoPayError && error.code === 'invalid_argument'
      && /integration\(name\) takes an integration's name, a string \(it was given undefined\)/.test(error.message));
    const single = rx.createReceiver({ ...options(rx.memoryStore()), secrets: SECRETS['shop-a'], log: false });
    assert.throws(() => single.integration('shop-a'), (error) => error.code === 'invalid_argument'
      && /this receiver's secrets is one set with no names: use receiver.fetch, node or handle/.test(error.message));
  });

  test('what a route\'s face answers before verifying (a GET: 405) is recorded with the route', async () => {
    const answer = await receiver.integration('shop-c').fetch(new Request('https://shop.example/webhooks/shop-c', { method: 'GET' }));
    assert.equal(answer.status, 405);
    assert.deepEqual(outcomes.at(-1), { kind: 'delivery', status: 405, reason: 'method', integration: null, route: 'shop-c' });
  });

  test('fetch and handle verify with the route\'s secrets and record under the integration', async () => {
    const one = next();
    const fetched = await receiver.integration('shop-c').fetch(request(one, signed(one, 'shop-c', clock)));
    assert.deepEqual([fetched.status, await fetched.text()], [200, '{"received":true,"decision":"apply"}']);
    const two = next();
    const handled = await receiver.integration('shop-a').handle({ body: two, headers: signed(two, 'shop-a', clock) });
    assert.deepEqual([handled.status, handled.body], [200, '{"received":true,"decision":"apply"}']);
    const rows = sqliteRows(db).events;
    assert.equal(rows.find((event) => event.event_id === `evt_route_${n - 1}`).integration, 'shop-c');
    assert.equal(rows.find((event) => event.event_id === `evt_route_${n}`).integration, 'shop-a');
  });

  test('another integration\'s delivery at a route is recorded under neither: 500 integration_mismatch, or 503 past 20 cross-checks a second', async () => {
    clock += 10;
    // Twenty forgeries in this second use up the cross-checks: a delivery of shop-a's at shop-b's
    // route is then answered 503 (retried), never a final 400; in the next second it is checked
    // against the others, found shop-a's, and answered 500, said naming both.
    for (let i = 0; i < 20; i += 1) {
      const bad = next();
      assert.equal((await receiver.integration('shop-b').handle({ body: bad, headers: forged(bad, clock) })).status, 400);
    }
    const misrouted = next();
    const busy = await receiver.integration('shop-b').handle({ body: misrouted, headers: signed(misrouted, 'shop-a', clock) });
    assert.deepEqual([busy.status, busy.body, busy.headers['retry-after']], [503, '{"error":"busy"}', '5']);
    assert.deepEqual(outcomes.at(-1), { kind: 'delivery', integration: 'shop-b', route: 'shop-b', bodyBytes: misrouted.length, status: 503, reason: 'busy', code: 'signature_mismatch' });
    clock += 1;
    const again = await receiver.integration('shop-b').handle({ body: misrouted, headers: signed(misrouted, 'shop-a', clock) });
    assert.deepEqual([again.status, again.body], [500, '{"error":"integration_mismatch"}']);
    assert.deepEqual(outcomes.at(-1), { kind: 'delivery', integration: 'shop-a', route: 'shop-b', bodyBytes: misrouted.length, status: 500, reason: 'misconfigured', code: 'integration_mismatch' });
    assert.equal(sqliteRows(db).events.some((event) => event.event_id === `evt_route_${n}`), false);
    assert.match(log.lines.at(-1), new RegExp(`^error cryptopay-verify/receiver: integration_mismatch: a delivery to the route of integration "shop-b" verified with the secret of integration "shop-a" \\(payment "pay_route_${n}"\\): not recorded; answered 500 so that the service retries it\\. Either the webhook of "shop-a" at the service points at "shop-b"'s route`));
    // Delivered to its own route, it is recorded.
    const own = await receiver.integration('shop-a').handle({ body: misrouted, headers: signed(misrouted, 'shop-a', clock) });
    assert.deepEqual([own.status, own.body], [200, '{"received":true,"decision":"apply"}']);
  });

  test('a lazy receiver routes the same; one whose secrets name none answers 500 not_configured', async () => {
    const lazy = rx.lazyReceiver(() => receiver, { log: false });
    const body = next();
    const answer = await lazy.integration('shop-c').fetch(request(body, signed(body, 'shop-c', clock)));
    assert.deepEqual([answer.status, await answer.text()], [200, '{"received":true,"decision":"apply"}']);
    assert.equal(sqliteRows(db).events.find((event) => event.event_id === `evt_route_${n}`).integration, 'shop-c');
    const lines = [];
    const single = rx.lazyReceiver(() => rx.createReceiver({ ...options(rx.memoryStore()), secrets: SECRETS['shop-a'], log: false }),
      { log: { error: (line) => lines.push(line) } });
    const refused = await single.integration('shop-a').handle({ body, headers: signed(body, 'shop-a', clock) });
    assert.deepEqual([refused.status, refused.body], [500, '{"error":"not_configured"}']);
    assert.match(lines[0], /integration\(name\) chooses one of the integrations secrets names/);
    assert.throws(() => single.integration(42), (error) => error.code === 'invalid_argument');
  });
});

test('a merchant connected later: its route is answered 500 until a receiver made with its secrets answers, then recorded', async () => {
  const db = new Database(join(tempDir(), 'routes-reload.sqlite'));
  const lines = [];
  const log = { warn: (line) => lines.push(line), error: (line) => lines.push(line) };
  const make = (names) => rx.createReceiver(options(rx.sqliteStore(db), { log, secrets: Object.fromEntries(names.map((name) => [name, SECRETS[name]])) }));
  let receiver = make(['shop-a']);
  await receiver.ready();
  const route = (name) => (request) => receiver.integration(name).fetch(request);
  const body = next();
  const deliver = () => route('shop-b')(new Request('https://platform.example/webhooks/shop-b', { method: 'POST', body, headers: signed(body, 'shop-b') }));
  const refused = await deliver();
  assert.deepEqual([refused.status, await refused.text()], [500, '{"error":"integration_unknown"}']);
  const reloaded = make(['shop-a', 'shop-b']);
  await reloaded.ready();
  receiver = reloaded;
  const retried = await deliver();
  assert.deepEqual([retried.status, await retried.text()], [200, '{"received":true,"decision":"apply"}']);
  assert.equal(sqliteRows(db).events.find((event) => event.event_id === `evt_route_${n}`).integration, 'shop-b');
});

test('each route\'s mismatch line is its own: forged requests at seven other routes do not use up the eighth\'s', async () => {
  const names = Array.from({ length: 8 }, (_, i) => `m${i}`);
  const lines = [];
  // A second per delivery: the cross-checks (20 a second) are never used up.
  let clock = nowSecs() - 100;
  const receiver = rx.createReceiver({
    ...options(rx.memoryStore()), secrets: Object.fromEntries(names.map((name) => [name, `whsec_${name}_0123456789abcdef`])),
    log: { warn: () => {}, error: (line) => lines.push(line) }, nowSecs: () => clock,
  });
  for (const name of names) {
    for (let i = 0; i < 5; i += 1) {
      const bad = next();
      clock += 1;
      assert.equal((await receiver.integration(name).handle({ body: bad, headers: forged(bad, clock) })).status, 400);
    }
  }
  const said = lines.map((line) => / deliveries to the route of integration "(m\d)" failed to verify .*none has verified at this route since this receiver started/.exec(line)?.[1]);
  assert.deepEqual(said, names, lines.join('\n'));
});
