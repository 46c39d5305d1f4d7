// The axum receiver's merchant loop (src/fulfil.rs), on its SQLite file and on PostgreSQL,
// against a scripted stand-in of the service (tests/loop/lib/standin.mjs, not the service):
// POST /orders records an order; the deliveries are recorded; passes confirm each changed
// payment with GET /v1/payments/{id}, link it with link_event and decide with default_policy,
// printing what a shop would do: only the payment of a recorded order for its amount, paid
// exactly, is shipped, once; the API key is printed nowhere. POST /orders answers only the
// bearer of ADMIN_TOKEN (a refused order records nothing: the shop's own one still records),
// and is off without it; a CRYPTOPAY_BASE_URL with a query or a fragment is refused at start.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startStandin } from '../../../tests/loop/lib/standin.mjs';
import { startPostgres } from '../../../tests/receiver/lib/postgres.mjs';
import { ROOT, deliver, event, request, start } from './lib.mjs';

const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');

const API_KEY = 'sk_canary_axum_4d2a';
const ADMIN_TOKEN = `admin_canary_${randomBytes(16).toString('hex')}`;
const asShop = { authorization: `Bearer ${ADMIN_TOKEN}` };
const amount = (raw) => ({ kind: 'fiat', currency: 'USD', amount_raw: raw });
const views = new Map();

function scenario(label, database) {
  describe(`the axum receiver's merchant loop on ${label}`, () => {
    let standin;
    let receiver;
    before(async () => {
      standin = await startStandin((req) => {
        const id = decodeURIComponent(req.path.replace('/v1/payments/', ''));
        return views.has(id) ? { text: views.get(id) } : { status: 404, json: { error: { code: 'payment_not_found', message: 'no' } } };
      });
      receiver = await start({ ...database(), CRYPTOPAY_BASE_URL: standin.baseUrl, CRYPTOPAY_API_KEY: API_KEY, FULFIL_INTERVAL_MS: '100', ADMIN_TOKEN });
    });
    after(async () => {
      await receiver?.stop();
      await standin?.close();
    });

    test('only the recorded order paid exactly is shipped, once; an unknown payment and another amount are held for review', async () => {
      const p = `${label.length}_${Date.now()}`;
      const paid = `pay_ok_${p}`;
      const unknown = `pay_unknown_${p}`;
      const other = `pay_other_${p}`;
      const orders = `${new URL(receiver.url).origin}/orders`;
      assert.match(receiver.output(), /POST \/orders answers Authorization: Bearer with ADMIN_TOKEN only/);
      // Someone who knows the payment id records a false order first: refused, nothing recorded.
      const wrong = `admin_${randomBytes(16).toString('hex')}`;
      const forged = Buffer.from(JSON.stringify({ payment_id: paid, order_ref: 'forged', source_amount: amount('1') }));
      for (const headers of [{}, { authorization: `Bearer ${wrong}` }, { authorization: `Bearer ${ADMIN_TOKEN}x` }, { authorization: `Basic ${ADMIN_TOKEN}` },
        { authorization: `Bearer ${API_KEY}` }, { authorization: ADMIN_TOKEN }, [['authorization', `Bearer ${ADMIN_TOKEN}`], ['authorization', `Bearer ${ADMIN_TOKEN}`]]]) {
        const refused = await request(orders, { method: 'POST', body: forged, headers: Array.isArray(headers) ? headers.flat() : headers });
        assert.deepEqual([refused.status, refused.headers['www-authenticate'], refused.json], [401, 'Bearer', { error: 'unauthorized' }], JSON.stringify(headers));
        assert.ok(!refused.text.includes(wrong) && !refused.text.includes(ADMIN_TOKEN));
      }
      for (const [id, recorded] of [[paid, amount('12800')], [other, amount('12900')]]) {
        const answer = await request(orders, { method: 'POST', body: Buffer.from(JSON.stringify({ payment_id: id, order_ref: `order-${id}`, source_amount: recorded })), headers: asShop });
        assert.deepEqual([answer.status, answer.json], [200, { recorded: true }], 'the shop\'s order records: no refused one came first');
      }
      const conflict = await request(orders, { method: 'POST', body: Buffer.from(JSON.stringify({ payment_id: paid, source_amount: amount('1') })), headers: asShop });
      assert.deepEqual([conflict.status, conflict.json], [409, { error: 'order_conflict' }]);
      const strict = await request(orders, { method: 'POST', body: Buffer.from(JSON.stringify({ payment_id: 'x', source_amount: { ...amount('1'), memo: 'no' } })), headers: asShop });
      assert.deepEqual([strict.status, strict.json], [400, { error: 'source_amount_invalid' }]);
      // An amount of the right shape but not a positive integer in canonical digits: refused
      // now, not stored to fail every link check of its payment.
      for (const raw of ['-012', '012', '0', '1.5']) {
        const refused = await request(orders, { method: 'POST', body: Buffer.from(JSON.stringify({ payment_id: `pay_raw_${p}`, source_amount: amount(raw) })), headers: asShop });
        assert.deepEqual([refused.status, refused.json], [400, { error: 'amount_raw_invalid' }], raw);
      }
      for (const id of [paid, unknown, other]) {
        views.set(id, JSON.stringify({ payment_id: id, order_ref: `order-${id}`, source_amount: amount('12800'), status: 'paid', status_version: 3, amount_received_raw: '12800' }));
        assert.equal((await deliver(receiver.url, event(`evt_${id}`, id, 3, { status: 'paid' }))).status, 200);
      }
      const until = async (pattern) => {
        for (let i = 0; !pattern.test(receiver.output()); i += 1) {
          assert.ok(i < 200, `no ${pattern} in:\n${receiver.output()}`);
          await new Promise((resolve) => { setTimeout(resolve, 25); });
        }
      };
      await until(new RegExp(`would ship order order-${paid} \\(payment ${paid}, paid at version 3; key ${paid}:3\\)`));
      await until(new RegExp(`would hold a payment no order of ours holds for review \\(payment_unknown; payment ${unknown},`));
      await until(new RegExp(`would hold order order-${other} for review \\(source_amount_mismatch; payment ${other},`));
      await new Promise((resolve) => { setTimeout(resolve, 400); });
      assert.equal(receiver.output().match(/would ship/g).length, 1);
      assert.ok(!receiver.output().includes(API_KEY) && !receiver.output().includes(ADMIN_TOKEN));
      assert.ok(standin.requests.every((r) => r.headers.authorization === `Bearer ${API_KEY}` && !r.url.includes(API_KEY)));

      // Shipped, so settled. The service then holds it for review; the only event of that
      // arrives with a version the receiver cannot read: quarantined, and the payment is
      // confirmed at the next pass all the same (the view, not the event, tells what changed).
      views.set(paid, JSON.stringify({ payment_id: paid, order_ref: `order-${paid}`, source_amount: amount('12800'), status: 'review_required', status_version: 4, amount_received_raw: '12800' }));
      const unreadable = await deliver(receiver.url, null, {
        body: Buffer.from(`{"schema_version":"1","event_id":"evt_unreadable_${paid}","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"${paid}","status":"review_required","status_version":4.0}}`),
      });
      assert.deepEqual([unreadable.status, unreadable.json], [200, { received: true, quarantined: 'status_version_invalid' }]);
      await until(new RegExp(`would hold order order-${paid} for review \\(review_required; payment ${paid}, review_required at version 4; key ${paid}:4\\)`));

      // A confirm answered with a view of another payment (a proxy's or a cache's mistake):
      // tried again, never linked or settled on it; once the right view comes, shipped.
      const mixed = `pay_mixed_${p}`;
      const recorded = await request(orders, { method: 'POST', body: Buffer.from(JSON.stringify({ payment_id: mixed, order_ref: `order-${mixed}`, source_amount: amount('12800') })), headers: asShop });
      assert.equal(recorded.status, 200);
      const right = { payment_id: mixed, order_ref: `order-${mixed}`, source_amount: amount('12800'), status: 'paid', status_version: 3, amount_received_raw: '12800' };
      views.set(mixed, JSON.stringify({ ...right, payment_id: paid, status_version: 9 }));
      assert.equal((await deliver(receiver.url, event(`evt_${mixed}`, mixed, 3, { status: 'paid' }))).status, 200);
      await until(new RegExp(`view_invalid for payment ${mixed} \\(attempt 1; tried again in 1 s\\): the view is of another payment`));
      assert.ok(!receiver.output().includes(`order-${mixed} (`) && !receiver.output().includes(`payment ${mixed},`), receiver.output());
      views.set(mixed, JSON.stringify(right));
      await until(new RegExp(`would ship order order-${mixed} \\(payment ${mixed}, paid at version 3; key ${mixed}:3\\)`));

      // A payment recorded before the loop existed, as the migration from the first schema
      // leaves it (its version handled, no outcome, settled): an event of it quarantined makes
      // it due once; looked at, nothing new, it is settled again, never a failing pass.
      const file = database().DATABASE;
      if (file !== undefined) {
        const db = new Database(file);
        try {
          db.prepare('UPDATE cryptopay_fulfilment SET outcome = NULL, code = NULL, settled = 1 WHERE payment_id = ?').run(unknown);
          const odd = await deliver(receiver.url, null, {
            body: Buffer.from(`{"schema_version":"1","event_id":"evt_unreadable_${unknown}","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"${unknown}","status":"paid","status_version":3.0}}`),
          });
          assert.deepEqual([odd.status, odd.json], [200, { received: true, quarantined: 'status_version_invalid' }]);
          const row = () => db.prepare('SELECT handled_version, outcome, settled, lease_owner, attempts FROM cryptopay_fulfilment WHERE payment_id = ?').get(unknown);
          for (let i = 0; row().settled !== 1 || row().lease_owner !== null; i += 1) {
            assert.ok(i < 200, `not settled again: ${JSON.stringify(row())}\n${receiver.output()}`);
            await new Promise((resolve) => { setTimeout(resolve, 25); });
          }
          assert.deepEqual(row(), { handled_version: '3', outcome: null, settled: 1, lease_owner: null, attempts: 0 });
          assert.ok(!receiver.output().includes(`pass_failed for payment ${unknown}`), receiver.output());
        } finally {
          db.close();
        }
      }
    });
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'cryptopay-axum-loop-'));
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
scenario('SQLite', () => ({ DATABASE: join(dataDir, 'loop.db') }));

describe('the axum receiver\'s shop route and service URL', () => {
  test('without ADMIN_TOKEN, POST /orders is off (404) and the start says so once, with how to turn it on', async () => {
    const receiver = await start({ DATABASE: join(dataDir, 'off.db'), CRYPTOPAY_BASE_URL: 'http://127.0.0.1:9', CRYPTOPAY_API_KEY: API_KEY });
    try {
      assert.equal(receiver.output().match(/POST \/orders is off: set ADMIN_TOKEN .* Authorization: Bearer/g)?.length, 1, receiver.output());
      const body = Buffer.from(JSON.stringify({ payment_id: 'pay_off', source_amount: amount('1') }));
      for (const headers of [{}, asShop]) {
        const off = await request(`${new URL(receiver.url).origin}/orders`, { method: 'POST', body, headers });
        assert.deepEqual([off.status, off.json], [404, { error: 'not_found' }]);
      }
      // The webhook needs no token: its signature authenticates it.
      assert.equal((await deliver(receiver.url, event('evt_off', 'pay_off', 1))).status, 200);
    } finally {
      await receiver.stop();
    }
  });

  test('SIGTERM (docker stop, Kubernetes) or Ctrl-C: the receiver and its loop stop, exit 0, saying so', async () => {
    for (const signal of ['SIGTERM', 'SIGINT']) {
      const receiver = await start({ DATABASE: join(dataDir, `stop-${signal}.db`), CRYPTOPAY_BASE_URL: 'http://127.0.0.1:9', CRYPTOPAY_API_KEY: API_KEY, FULFIL_INTERVAL_MS: '60000' });
      assert.equal((await deliver(receiver.url, event(`evt_${signal}`, `pay_${signal}`, 1))).status, 200);
      const began = Date.now();
      assert.equal(await receiver.stop(signal), 0, receiver.output());
      // The loop's 60 s wait between passes is cut short by the stop.
      assert.ok(Date.now() - began < 10_000, `stopped in ${Date.now() - began} ms`);
      assert.match(receiver.output(), /stopping: no new requests; those under way are answered/);
    }
  });

  test('a stop waits for a request under way; a second signal stops at once (exit 130)', async () => {
    const receiver = await start({ DATABASE: join(dataDir, 'stop-twice.db') });
    const { hostname, port } = new URL(receiver.url);
    // A delivery whose body never finishes arriving: the stop waits for it (up to 20 s).
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => { socket.once('connect', resolve); });
    socket.write('POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
    socket.on('error', () => {});
    await new Promise((resolve) => { setTimeout(resolve, 200); });
    receiver.child.kill('SIGTERM');
    const stillUp = await Promise.race([receiver.exited.then(() => false), new Promise((resolve) => { setTimeout(() => resolve(true), 500); })]);
    assert.ok(stillUp, `stopped without waiting for the request under way:\n${receiver.output()}`);
    assert.match(receiver.output(), /Ctrl-C or SIGTERM again stops at once/);
    const began = Date.now();
    assert.equal(await receiver.stop('SIGTERM'), 130, receiver.output());
    assert.ok(Date.now() - began < 5_000);
    assert.match(receiver.output(), /stopping at once/);
    socket.destroy();
  });

  test('an ADMIN_TOKEN too short, or with a space: no start, the variable named, never the value', async () => {
    for (const token of ['short_admin', `admin token ${randomBytes(8).toString('hex')}`]) {
      const failed = await start({ DATABASE: join(dataDir, 'bad.db'), ADMIN_TOKEN: token }).then(
        async (receiver) => { await receiver.stop(); assert.fail('started'); },
        (error) => error,
      );
      assert.notEqual(failed.exitCode, 0);
      assert.match(failed.output, /ADMIN_TOKEN must be at least 16 visible ASCII characters/);
      assert.ok(!failed.output.includes(token));
    }
  });

  test('a CRYPTOPAY_BASE_URL with a query or a fragment: no start, the fix named, never the value; the start-up line shows no more than the path', async () => {
    for (const url of ['http://127.0.0.1:9/?api_key=sk_live_canary_7f1e#tok_canary', 'http://127.0.0.1:9/api#tok_canary']) {
      const failed = await start({ DATABASE: join(dataDir, 'url.db'), CRYPTOPAY_BASE_URL: url, CRYPTOPAY_API_KEY: API_KEY }).then(
        async (receiver) => { await receiver.stop(); assert.fail(`started with ${url}`); },
        (error) => error,
      );
      assert.notEqual(failed.exitCode, 0);
      assert.match(failed.output, /CRYPTOPAY_BASE_URL must not hold a query or a fragment/);
      assert.ok(!failed.output.includes('sk_live_canary') && !failed.output.includes('tok_canary'), failed.output);
    }
    // Plain http to anything but a sandbox on this machine or beside it: the key would cross
    // the network in the clear with every confirm.
    for (const url of ['http://api.example.com', 'http://10.1.2.3:4010']) {
      const failed = await start({ DATABASE: join(dataDir, 'url.db'), CRYPTOPAY_BASE_URL: url, CRYPTOPAY_API_KEY: API_KEY }).then(
        async (receiver) => { await receiver.stop(); assert.fail(`started with ${url}`); },
        (error) => error,
      );
      assert.notEqual(failed.exitCode, 0);
      assert.match(failed.output, /CRYPTOPAY_BASE_URL must be https:\/\/ .* http:\/\/ only to a local sandbox/);
      assert.ok(!failed.output.includes(API_KEY), failed.output);
    }
    const receiver = await start({ DATABASE: join(dataDir, 'url.db'), CRYPTOPAY_BASE_URL: 'http://127.0.0.1:9/api/', CRYPTOPAY_API_KEY: API_KEY });
    try {
      assert.match(receiver.output(), /confirming with the service at http:\/\/127\.0\.0\.1:9\/api\/\n/);
    } finally {
      await receiver.stop();
    }
  });
});

let server;
before(() => { server = startPostgres(); });
after(() => server?.destroy());
scenario('PostgreSQL', () => ({ DATABASE_URL: server.url }));
