// The axum receiver's merchant loop (src/fulfil.rs), on its SQLite file and on PostgreSQL,
// against a scripted stand-in of the service (tests/loop/lib/standin.mjs, not the service):
// POST /orders records an order; the deliveries are recorded; passes confirm each changed
// payment with GET /v1/payments/{id}, link it with link_event and decide with default_policy,
// printing what a shop would do: only the payment of a recorded order for its amount, paid
// exactly, is shipped, once; the API key is printed nowhere.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startStandin } from '../../../tests/loop/lib/standin.mjs';
import { startPostgres } from '../../../tests/receiver/lib/postgres.mjs';
import { deliver, event, request, start } from './lib.mjs';

const API_KEY = 'sk_canary_axum_4d2a';
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
      receiver = await start({ ...database(), CRYPTOPAY_BASE_URL: standin.baseUrl, CRYPTOPAY_API_KEY: API_KEY, FULFIL_INTERVAL_MS: '100' });
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
      for (const [id, recorded] of [[paid, amount('12800')], [other, amount('12900')]]) {
        const answer = await request(`${new URL(receiver.url).origin}/orders`, { method: 'POST', body: Buffer.from(JSON.stringify({ payment_id: id, order_ref: `order-${id}`, source_amount: recorded })) });
        assert.deepEqual([answer.status, answer.json], [200, { recorded: true }]);
      }
      const conflict = await request(`${new URL(receiver.url).origin}/orders`, { method: 'POST', body: Buffer.from(JSON.stringify({ payment_id: paid, source_amount: amount('1') })) });
      assert.deepEqual([conflict.status, conflict.json], [409, { error: 'order_conflict' }]);
      const strict = await request(`${new URL(receiver.url).origin}/orders`, { method: 'POST', body: Buffer.from(JSON.stringify({ payment_id: 'x', source_amount: { ...amount('1'), memo: 'no' } })) });
      assert.deepEqual([strict.status, strict.json], [400, { error: 'source_amount_invalid' }]);
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
      assert.ok(!receiver.output().includes(API_KEY));
      assert.ok(standin.requests.every((r) => r.headers.authorization === `Bearer ${API_KEY}` && !r.url.includes(API_KEY)));
    });
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'cryptopay-axum-loop-'));
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
scenario('SQLite', () => ({ DATABASE: join(dataDir, 'loop.db') }));

let server;
before(() => { server = startPostgres(); });
after(() => server?.destroy());
scenario('PostgreSQL', () => ({ DATABASE_URL: server.url }));
