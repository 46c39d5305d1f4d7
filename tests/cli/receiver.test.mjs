// The example receiver (examples/node-receiver) on its own: verify first, record durably,
// de-duplicate, apply only newer status versions, and survive a restart without losing or
// re-applying events.

import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  SECRET, SIG_HEADER, TS_HEADER, deliver, eventBody, nowSecs, pkg, request, startExample, tempDir,
} from './helpers.mjs';

const logLines = (dataDir) => readFileSync(join(dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean);

describe('the example receiver', () => {
  test('records, de-duplicates and orders events; rejects what does not verify', async () => {
    const dataDir = tempDir();
    const rx = await startExample({ dataDir });
    try {
      const v2 = eventBody({ eventId: 'evt_a', paymentId: 'pay_1', statusVersion: 2, status: 'confirming' });
      const first = await deliver(rx.webhookUrl, v2);
      assert.equal(first.status, 200);
      assert.deepEqual(first.json, { received: true, event_id: 'evt_a', decision: 'apply' });

      // The service's retry: same bytes, new timestamp and signature.
      const retry = await deliver(rx.webhookUrl, v2, { timestamp: nowSecs() + 1 });
      assert.equal(retry.status, 200);
      assert.equal(retry.json.decision, 'duplicate');

      // An older status_version arriving late is recorded, acknowledged, not applied.
      const v1 = eventBody({ eventId: 'evt_b', paymentId: 'pay_1', statusVersion: 1, status: 'open' });
      const stale = await deliver(rx.webhookUrl, v1);
      assert.equal(stale.status, 200);
      assert.equal(stale.json.decision, 'stale');

      // Versions compare exactly, beyond 2^53.
      const big = eventBody({ eventId: 'evt_c', paymentId: 'pay_2', statusVersion: '9007199254740993' });
      const bigger = eventBody({ eventId: 'evt_d', paymentId: 'pay_2', statusVersion: '9007199254740992' });
      assert.equal((await deliver(rx.webhookUrl, big)).json.decision, 'apply');
      assert.equal((await deliver(rx.webhookUrl, bigger)).json.decision, 'stale');

      const payment = await request(`${rx.url}/payments/pay_1`);
      assert.equal(payment.status, 200);
      assert.equal(payment.json.status_version, '2');
      assert.equal(payment.json.data.status, 'confirming');
      assert.equal((await request(`${rx.url}/payments/pay_2`)).json.status_version, '9007199254740993');
      assert.equal((await request(`${rx.url}/payments/pay_unknown`)).status, 404);

      const events = await request(`${rx.url}/events`);
      assert.equal(events.json.count, 4);
      assert.deepEqual(events.json.events.map((e) => [e.event_id, e.decision]),
        [['evt_a', 'apply'], ['evt_b', 'stale'], ['evt_c', 'apply'], ['evt_d', 'stale']]);
      assert.equal(events.json.events[0].body, v2.toString('utf8'));
      assert.equal(logLines(dataDir).length, 4);

      // Rejected: 400 with the code only, nothing recorded.
      const body = eventBody({ eventId: 'evt_x', paymentId: 'pay_x', statusVersion: 1 });
      const other = await deliver(rx.webhookUrl, body, { secret: 'whsec_not_ours' });
      assert.deepEqual([other.status, other.json], [400, { error: 'signature_mismatch' }]);
      const old = await deliver(rx.webhookUrl, body, { timestamp: nowSecs() - 1000 });
      assert.deepEqual([old.status, old.json], [400, { error: 'timestamp_too_old' }]);
      const none = await deliver(rx.webhookUrl, body, { headers: {} });
      assert.deepEqual([none.status, none.json], [400, { error: 'timestamp_missing' }]);
      const ts = String(nowSecs());
      const signature = pkg.signWebhook({ secret: SECRET, timestamp: ts, body });
      const twice = await deliver(rx.webhookUrl, body, { headers: { [TS_HEADER]: ts, [SIG_HEADER]: [signature, signature] } });
      assert.deepEqual([twice.status, twice.json], [400, { error: 'header_duplicated' }]);
      const huge = await request(rx.webhookUrl, { method: 'POST', body: Buffer.alloc(2 * 1024 * 1024, 0x20), headers: { [TS_HEADER]: ts, [SIG_HEADER]: signature } });
      assert.equal(huge.status, 413);
      const get = await request(rx.webhookUrl);
      assert.equal(get.status, 405);

      // Authentic but of an unknown type: acknowledged, ignored, not recorded.
      const unknown = await deliver(rx.webhookUrl, eventBody({ eventId: 'evt_u', paymentId: 'pay_u', statusVersion: 1, eventType: 'payment.created' }));
      assert.deepEqual([unknown.status, unknown.json.ignored], [200, 'event_type_unknown']);
      assert.equal(logLines(dataDir).length, 4);
    } finally {
      await rx.stop();
    }
  });

  test('the same new event delivered concurrently is recorded and applied once', async () => {
    const dataDir = tempDir();
    const rx = await startExample({ dataDir });
    try {
      const body = eventBody({ eventId: 'evt_burst', paymentId: 'pay_burst', statusVersion: 7 });
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => deliver(rx.webhookUrl, body, { timestamp: nowSecs() - i })));
      assert.ok(answers.every((a) => a.status === 200));
      assert.deepEqual(answers.map((a) => a.json.decision).sort(), ['apply', ...Array(7).fill('duplicate')]);
      assert.equal(logLines(dataDir).length, 1);
    } finally {
      await rx.stop();
    }
  });

  test('a restart keeps every recorded event and re-applies none', async () => {
    const dataDir = tempDir();
    const e1 = eventBody({ eventId: 'evt_r1', paymentId: 'pay_r', statusVersion: 5, status: 'confirming' });
    const e2 = eventBody({ eventId: 'evt_r2', paymentId: 'pay_r', statusVersion: 3, status: 'open' });
    let rx = await startExample({ dataDir });
    try {
      assert.equal((await deliver(rx.webhookUrl, e1)).json.decision, 'apply');
      assert.equal((await deliver(rx.webhookUrl, e2)).json.decision, 'stale');
    } finally {
      assert.equal(await rx.stop(), 0);
    }
    const before = readFileSync(join(dataDir, 'events.jsonl'), 'utf8');

    rx = await startExample({ dataDir });
    try {
      assert.match(rx.output, /2 events in .*, 1 payments/);
      const events = await request(`${rx.url}/events`);
      assert.deepEqual(events.json.events.map((e) => e.event_id), ['evt_r1', 'evt_r2']);
      assert.equal((await request(`${rx.url}/payments/pay_r`)).json.status_version, '5');
      // Retries after the restart are duplicates: nothing new is written or applied.
      assert.equal((await deliver(rx.webhookUrl, e1)).json.decision, 'duplicate');
      assert.equal((await deliver(rx.webhookUrl, e2)).json.decision, 'duplicate');
      assert.equal(readFileSync(join(dataDir, 'events.jsonl'), 'utf8'), before);
      assert.equal((await request(`${rx.url}/payments/pay_r`)).json.data.status, 'confirming');
      // A newer version still applies.
      const e3 = eventBody({ eventId: 'evt_r3', paymentId: 'pay_r', statusVersion: 6, status: 'expired' });
      assert.equal((await deliver(rx.webhookUrl, e3)).json.decision, 'apply');
      assert.equal((await request(`${rx.url}/payments/pay_r`)).json.status_version, '6');
    } finally {
      await rx.stop();
    }
  });

  test('a line cut off by a crash is dropped at start; a damaged log stops the start', async () => {
    const dataDir = tempDir();
    let rx = await startExample({ dataDir });
    try {
      await deliver(rx.webhookUrl, eventBody({ eventId: 'evt_t1', paymentId: 'pay_t', statusVersion: 1 }));
    } finally {
      await rx.stop();
    }
    const file = join(dataDir, 'events.jsonl');
    appendFileSync(file, '{"event_id":"evt_t2","payment_id":"pay_t","status_ver');
    rx = await startExample({ dataDir });
    try {
      assert.equal((await request(`${rx.url}/events`)).json.count, 1);
      assert.ok(readFileSync(file, 'utf8').endsWith('\n'));
      // The never-acknowledged delivery comes again and is recorded in full.
      const t2 = await deliver(rx.webhookUrl, eventBody({ eventId: 'evt_t2', paymentId: 'pay_t', statusVersion: 2 }));
      assert.equal(t2.json.decision, 'apply');
      assert.equal(logLines(dataDir).length, 2);
    } finally {
      await rx.stop();
    }
    writeFileSync(file, `not json\n${readFileSync(file, 'utf8')}`);
    await assert.rejects(startExample({ dataDir }), (error) => error.exitCode === 1 && /line 1 is not JSON/.test(error.message));
  });

  test('during a rotation it accepts the pending secret and says which one matched', async () => {
    const dataDir = tempDir();
    const pending = 'whsec_rotated_in';
    const rx = await startExample({ dataDir, env: { CRYPTOPAY_WEBHOOK_SECRET_PENDING: pending } });
    try {
      const body = eventBody({ eventId: 'evt_rot', paymentId: 'pay_rot', statusVersion: 1 });
      assert.equal((await deliver(rx.webhookUrl, body, { secret: pending })).json.decision, 'apply');
      assert.equal((await request(`${rx.url}/events`)).json.events[0].matched_secret, 'pending');
      assert.equal((await deliver(rx.webhookUrl, body, { secret: 'whsec_neither' })).status, 400);
    } finally {
      await rx.stop();
    }
  });

  test('refuses to start without the header names', async () => {
    await assert.rejects(startExample({ dataDir: tempDir(), env: { SIGNATURE_HEADER: '' } }), (error) => error.exitCode === 2);
  });
});
