// Deliveries against a programmable endpoint: what is retried (a network failure, 408, 425,
// 429, 5xx) and what is not (400, 404, 410, a 302 whose target is never contacted); a finite
// schedule ending `exhausted`; every attempt signed over its own timestamp; body bytes the same
// across attempts and replays; rotation; one at a time in order per payment (overlapping with
// shuffle); duplicates and shuffling, repeatable with a seed.

import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import {
  SandboxError, TS_HEADER, api, createPayment, endpoint, freePort, pkg, settled, sleep, startSandbox, verifyRecorded, waitFor,
} from './lib.mjs';

const started = [];
after(async () => {
  for (const close of started.reverse()) await close();
});
async function sandboxWith(options) {
  const sandbox = await startSandbox({ port: 0, ...options });
  started.push(() => sandbox.close());
  return sandbox;
}
async function endpointWith(answer) {
  const hook = await endpoint(answer);
  started.push(() => hook.close());
  return hook;
}

// A sandbox whose receiver refuses every connection: nothing listens on its port. The port was
// free a moment before; a server started after that (the sandbox's own included) may be given
// it, so a test starts its other servers first and this checks the sandbox's own.
async function sandboxRefused(options) {
  for (;;) {
    const port = await freePort();
    const sandbox = await startSandbox({ port: 0, webhookUrl: `http://127.0.0.1:${port}/webhook`, ...options });
    if (new URL(sandbox.baseUrl).port !== String(port)) return sandbox;
    await sandbox.close();
  }
}

const attemptsOf = async (sandbox, eventId) => (await sandbox.deliveries()).filter((d) => d.event_id === eventId);
const requestsOf = (hook, eventId) => hook.requests.filter((r) => r.event?.event_id === eventId);

describe('retried and not retried', () => {
  // One payment per case; the endpoint answers the case's status to the first attempt of the
  // payment's first event, then 200.
  const RETRIED = [408, 425, 429, 500, 502, 503, 504, 599, 'drop'];
  const NOT_RETRIED = [400, 401, 404, 409, 410, 422, 302, 301, 307];
  const cases = new Map();
  let redirectHits = 0;
  let redirectTarget;
  let hook;
  let sandbox;

  test('setup', async () => {
    redirectTarget = http.createServer((req, res) => {
      redirectHits += 1;
      res.end('{}');
    });
    await new Promise((r) => redirectTarget.listen(0, '127.0.0.1', r));
    started.push(() => new Promise((r) => redirectTarget.close(r)));
    const location = `http://127.0.0.1:${redirectTarget.address().port}/moved`;
    hook = await endpointWith((request) => {
      const answer = cases.get(request.event?.data.payment_id);
      if (answer === undefined || request.event.data.status_version !== 2 || answer.sent) return { status: 200 };
      answer.sent = true;
      if (answer.status === 'drop') return 'drop';
      return { status: answer.status, headers: answer.status >= 300 && answer.status < 400 ? { location } : {} };
    });
    sandbox = await sandboxWith({ webhookUrl: hook.url, retryDelaysMs: [30, 30] });
  });

  // One payment paid per status, its deliveries answered with that status; once all settled.
  async function paidWithAnswers(statuses) {
    const payments = [];
    for (const status of statuses) {
      const p = await createPayment(sandbox, '100');
      cases.set(p.payment_id, { status });
      payments.push([status, p]);
      await sandbox.pay(p.payment_id, '100');
    }
    await settled(sandbox);
    return payments;
  }

  test('a network failure (dropped connection), 408, 425, 429 and 5xx are retried, then acknowledged', async () => {
    const payments = await paidWithAnswers(RETRIED);
    for (const [status, p] of payments) {
      const [confirming, paid] = await sandbox.events(p.payment_id);
      const attempts = await attemptsOf(sandbox, confirming.event_id);
      assert.deepEqual(attempts.map((a) => a.outcome), ['retrying', 'acknowledged'], `${status}`);
      if (status === 'drop') assert.equal(attempts[0].error, 'ECONNRESET');
      else assert.equal(attempts[0].status, status);
      assert.equal(attempts[0].next_attempt_in_ms, 30);
      assert.equal(attempts[1].status, 200);
      // The payment's next event waited for it.
      const [paidAttempt] = await attemptsOf(sandbox, paid.event_id);
      assert.ok(Date.parse(paidAttempt.at) >= Date.parse(attempts[1].at));
      assert.equal(paidAttempt.outcome, 'acknowledged');
    }
  });

  test('400, 401, 404, 409, 410, 422 and 3xx fail permanently at once; a redirect is never followed', async () => {
    const payments = await paidWithAnswers(NOT_RETRIED);
    for (const [status, p] of payments) {
      const [confirming, paid] = await sandbox.events(p.payment_id);
      const attempts = await attemptsOf(sandbox, confirming.event_id);
      assert.deepEqual(attempts.map((a) => [a.status, a.outcome]), [[status, 'failed_permanently']], `${status}`);
      assert.equal(requestsOf(hook, confirming.event_id).length, 1);
      // The payment's later event is still delivered.
      assert.deepEqual((await attemptsOf(sandbox, paid.event_id)).map((a) => a.outcome), ['acknowledged']);
    }
    assert.equal(redirectHits, 0, 'the redirect target was contacted');
  });
});

describe('the schedule is finite', () => {
  test('a receiver that always answers 503 gets 1 + the number of delays attempts, the last exhausted', async () => {
    const hook = await endpointWith(() => ({ status: 503 }));
    const sandbox = await sandboxWith({ webhookUrl: hook.url, retryDelaysMs: [10, 20, 40] });
    const p = await createPayment(sandbox, '100');
    await sandbox.review(p.payment_id);
    await settled(sandbox);
    const [event] = await sandbox.events(p.payment_id);
    const attempts = await attemptsOf(sandbox, event.event_id);
    assert.deepEqual(attempts.map((a) => [a.attempt, a.outcome, a.next_attempt_in_ms]),
      [[1, 'retrying', 10], [2, 'retrying', 20], [3, 'retrying', 40], [4, 'exhausted', undefined]]);
    assert.equal(requestsOf(hook, event.event_id).length, 4);
  });

  test('no receiver at all (connection refused) and one that never answers (timeout) are retried, then exhausted', async () => {
    const hang = await endpointWith(() => 'hang');
    const slowSandbox = await sandboxWith({ webhookUrl: hang.url, retryDelaysMs: [10], timeoutMs: 150 });
    const refusedSandbox = await sandboxRefused({ retryDelaysMs: [10] });
    started.push(() => refusedSandbox.close());
    for (const [sandbox, error] of [[refusedSandbox, 'ECONNREFUSED'], [slowSandbox, 'timeout']]) {
      const p = await createPayment(sandbox, '100');
      await sandbox.expire(p.payment_id);
      await settled(sandbox);
      const attempts = await sandbox.deliveries();
      assert.deepEqual(attempts.map((a) => [a.error, a.outcome]), [[error, 'retrying'], [error, 'exhausted']]);
    }
  });

  // A receiver that answers every delivery with `head` (a raw status line and headers), the
  // log of one event delivered to it: [error or status, outcome] per attempt.
  async function attemptsAgainst(head) {
    const raw = net.createServer((socket) => {
      socket.once('data', () => socket.end(head));
    });
    await new Promise((resolve) => raw.listen(0, '127.0.0.1', resolve));
    after(() => raw.close());
    const sandbox = await sandboxWith({ webhookUrl: `http://127.0.0.1:${raw.address().port}/webhook`, retryDelaysMs: [10, 10] });
    const p = await createPayment(sandbox, '100');
    await sandbox.review(p.payment_id);
    await settled(sandbox);
    return (await sandbox.deliveries()).map((a) => [a.error ?? a.status, a.outcome]);
  }

  test('an answer whose status is no HTTP status (600) is a network failure: retried on the schedule, then exhausted, never at once', async () => {
    assert.deepEqual(await attemptsAgainst('HTTP/1.1 600 Odd\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'),
      [['invalid_status', 'retrying'], ['invalid_status', 'retrying'], ['invalid_status', 'exhausted']]);
  });

  test('a 101 Switching Protocols answer is a status, not a network failure: failed permanently at once, never retried', async () => {
    assert.deepEqual(await attemptsAgainst('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'),
      [[101, 'failed_permanently']]);
  });

  test('retries and a replay within a second: each attempt has a newer timestamp, so a new signature', async () => {
    const hook = await endpointWith((request, n) => ({ status: n < 4 ? 503 : 200 }));
    const sandbox = await sandboxWith({ webhookUrl: hook.url, retryDelaysMs: [0, 0, 0] });
    const p = await createPayment(sandbox, '100');
    await sandbox.review(p.payment_id);
    await settled(sandbox);
    await sandbox.replay((await sandbox.events(p.payment_id))[0].event_id);
    await settled(sandbox);
    const stamps = hook.requests.map((r) => Number(r.headers['x-webhook-timestamp']));
    assert.equal(stamps.length, 5);
    for (let i = 1; i < stamps.length; i += 1) assert.ok(stamps[i] > stamps[i - 1], `timestamps ${stamps}`);
    // Ahead of the clock by at most a second per attempt.
    for (const r of hook.requests) assert.ok(Number(r.headers['x-webhook-timestamp']) <= Math.floor(r.at / 1000) + 5);
    assert.equal(new Set(hook.requests.map((r) => r.headers['x-webhook-signature'])).size, 5);
  });

  test('no retry delays: one attempt, exhausted', async () => {
    const hook = await endpointWith(() => ({ status: 500 }));
    const sandbox = await sandboxWith({ webhookUrl: hook.url, retryDelaysMs: [] });
    const p = await createPayment(sandbox, '100');
    await sandbox.review(p.payment_id);
    await settled(sandbox);
    assert.deepEqual((await sandbox.deliveries()).map((a) => a.outcome), ['exhausted']);
  });
});

describe('signatures, bytes and replays', () => {
  test('each attempt verifies with its own timestamp; a retry keeps event_id and bytes, with a new timestamp', async () => {
    let first = true;
    const hook = await endpointWith(() => {
      if (!first) return { status: 200 };
      first = false;
      return { status: 500 };
    });
    // A delay past a second, so that the retry's timestamp is another second.
    const sandbox = await sandboxWith({ webhookUrl: hook.url, retryDelaysMs: [1100] });
    const p = await createPayment(sandbox, '100');
    await sandbox.review(p.payment_id);
    await settled(sandbox);
    const [event] = await sandbox.events(p.payment_id);
    const [a, b] = requestsOf(hook, event.event_id);
    assert.ok(a && b, 'two attempts');
    assert.ok(a.body.equals(b.body), 'the same bytes');
    assert.ok(a.body.equals(Buffer.from(event.body, 'utf8')));
    assert.notEqual(a.headers['x-webhook-timestamp'], b.headers['x-webhook-timestamp']);
    assert.notEqual(a.headers['x-webhook-signature'], b.headers['x-webhook-signature']);
    const log = await attemptsOf(sandbox, event.event_id);
    for (const [i, request] of [a, b].entries()) {
      const verified = verifyRecorded(request, sandbox.webhook.secret);
      assert.equal(verified.event.eventId, event.event_id);
      assert.equal(verified.timestamp, Number(request.headers['x-webhook-timestamp']));
      assert.equal(log[i].timestamp, request.headers['x-webhook-timestamp']);
      // Signed over this attempt's timestamp, not the other's.
      const other = [a, b][1 - i].headers['x-webhook-timestamp'];
      assert.throws(() => pkg.verifyWebhook({ body: request.body, timestamp: other, signature: request.headers['x-webhook-signature'],
        secrets: sandbox.webhook.secret, nowSecs: Math.floor(Date.now() / 1000), maxSkewSecs: 300 }), { code: 'signature_mismatch' });
    }
  });

  test('the body is not what JSON.stringify writes: a receiver that verifies re-serialized JSON fails here', async () => {
    const hook = await endpointWith(() => ({ status: 200 }));
    const sandbox = await sandboxWith({ webhookUrl: hook.url });
    const p = await createPayment(sandbox, '100');
    await sandbox.review(p.payment_id);
    await settled(sandbox);
    const [event] = await sandbox.events(p.payment_id);
    const [request] = requestsOf(hook, event.event_id);
    const text = request.body.toString('utf8');
    const again = JSON.stringify(JSON.parse(text));
    assert.notEqual(again, text);
    const delivery = { timestamp: request.headers['x-webhook-timestamp'], signature: request.headers['x-webhook-signature'],
      secrets: sandbox.webhook.secret, nowSecs: Math.floor(Date.now() / 1000), maxSkewSecs: 300 };
    assert.equal(pkg.verifyWebhook({ ...delivery, body: request.body }).event.eventId, event.event_id);
    assert.throws(() => pkg.verifyWebhook({ ...delivery, body: again }), { code: 'signature_mismatch' });
  });

  test('the log keeps the start of what the receiver answered, with an echoed signature or secret and a URL\'s credentials masked', async () => {
    let refusing;
    let failing;
    const hook = await endpointWith((request) => {
      if (request.event.data.payment_id === refusing) return { status: 400, body: '{"error":"signature_mismatch"}' };
      // An error page naming the receiver's database, password and all.
      if (request.event.data.payment_id === failing) return { status: 400, body: 'db error: postgres://app:hunter2@db/shop' };
      // A receiver that echoes what it got (and a newline, and more than the log keeps).
      return { status: 200, body: `got\n${request.headers['x-webhook-signature']} ${'x'.repeat(300)}` };
    });
    const sandbox = await sandboxWith({ webhookUrl: hook.url });
    const [a, b, c] = [await createPayment(sandbox, '100'), await createPayment(sandbox, '100'), await createPayment(sandbox, '100')];
    refusing = a.payment_id;
    failing = c.payment_id;
    await sandbox.review(a.payment_id);
    await sandbox.review(b.payment_id);
    await sandbox.review(c.payment_id);
    await settled(sandbox);
    const log = await sandbox.deliveries();
    const failed = log.find((d) => d.payment_id === c.payment_id);
    assert.equal(failed.answer, 'db error: postgres://***@db/shop');
    const refused = log.find((d) => d.payment_id === a.payment_id);
    const echoed = log.find((d) => d.payment_id === b.payment_id);
    assert.deepEqual([refused.status, refused.answer], [400, '{"error":"signature_mismatch"}']);
    assert.equal(echoed.status, 200);
    assert.match(echoed.answer, /^got \*\*\* x+\.\.\.$/);
    assert.equal(echoed.answer.length, 203);
    assert.ok(!echoed.answer.includes(sandbox.webhook.secret));
  });

  test('a replay: the same event_id and bytes, a new signature; a queued replay is only queued', async () => {
    const hook = await endpointWith(() => ({ status: 204 }));
    const sandbox = await sandboxWith({ webhookUrl: hook.url, retryDelaysMs: [10] });
    const p = await createPayment(sandbox, '100');
    await sandbox.pay(p.payment_id, '40');
    await settled(sandbox);
    const [event] = await sandbox.events(p.payment_id);
    const res = await api(sandbox, 'POST', `/sandbox/events/${event.event_id}/replay`, { key: null });
    assert.equal(res.status, 202);
    assert.deepEqual(res.json, { event_id: event.event_id, replay: 'queued' });
    assert.deepEqual(await sandbox.replay(event.event_id), { event_id: event.event_id, replay: 'queued' });
    await settled(sandbox);
    const copies = requestsOf(hook, event.event_id);
    assert.equal(copies.length, 3);
    for (const copy of copies) {
      assert.ok(copy.body.equals(copies[0].body));
      assert.equal(verifyRecorded(copy, sandbox.webhook.secret).event.eventId, event.event_id);
    }
    assert.deepEqual((await attemptsOf(sandbox, event.event_id)).map((a) => [a.kind, a.status, a.outcome]),
      [['event', 204, 'acknowledged'], ['replay', 204, 'acknowledged'], ['replay', 204, 'acknowledged']]);
  });

  test('rotation: signed with the active secret until activation, then only with the new one (retries too)', async () => {
    let failNext = false;
    const hook = await endpointWith(() => {
      if (!failNext) return { status: 200 };
      failNext = false;
      return { status: 503 };
    });
    const sandbox = await sandboxWith({ webhookUrl: hook.url, retryDelaysMs: [300] });
    const old = sandbox.webhook.secret;
    const p = await createPayment(sandbox, '1000');
    const { secret: next } = await sandbox.rotate();
    await sandbox.pay(p.payment_id, '100');
    await settled(sandbox);
    const pendingPhase = hook.requests.length;
    for (const request of hook.requests) {
      assert.equal(verifyRecorded(request, old).matchedSecret, 'active');
      assert.throws(() => verifyRecorded(request, next), { code: 'signature_mismatch' });
      // A receiver that already accepts the pending secret still matches the active one.
      assert.equal(verifyRecorded(request, [{ secret: old, kind: 'active' }, { secret: next, kind: 'pending' }]).matchedSecret, 'active');
    }
    // An attempt fails, activation happens during the retry delay: the retry is signed with the
    // new secret; the request in flight at the switch (the last attempt's event once more) with the old.
    failNext = true;
    await sandbox.review(p.payment_id);
    await waitFor(() => hook.requests.length > pendingPhase, { what: 'the failed attempt' });
    const reviewed = hook.requests.at(-1).event.event_id;
    const activatedAt = Math.floor(Date.now() / 1000);
    await sandbox.activate();
    await settled(sandbox);
    const afterActivation = hook.requests.slice(pendingPhase + 1);
    const signedBy = (request, secret) => {
      try {
        return verifyRecorded(request, secret).matchedSecret === 'active';
      } catch (error) {
        assert.equal(error.code, 'signature_mismatch');
        return false;
      }
    };
    const inFlight = afterActivation.filter((request) => signedBy(request, old));
    const signedAnew = afterActivation.filter((request) => signedBy(request, next));
    assert.equal(inFlight.length + signedAnew.length, afterActivation.length, 'each signed with one of the two');
    assert.equal(inFlight.length, 1, 'one request in flight at the switch, signed with the old secret');
    assert.equal(inFlight[0].event.event_id, reviewed, 'the last attempt\'s event');
    // Signed at the second of the activation, or just past the event's last timestamp when its
    // attempts came within a second (a retry's timestamp is always newer).
    const signedAt = Number(inFlight[0].headers[TS_HEADER.toLowerCase()]);
    assert.ok(signedAt >= activatedAt && signedAt <= Math.floor(Date.now() / 1000) + 3, `signed at ${signedAt}, activated at ${activatedAt}`);
    assert.ok(signedAnew.length >= 1);
    assert.equal(requestsOf(hook, reviewed).length, 3, 'the failed attempt, its retry, the request in flight');
    // Sent at once, not queued behind the retry of its payment: it was in flight already.
    const log = (await sandbox.deliveries()).filter((a) => a.event_id === reviewed);
    assert.deepEqual(log.map((a) => [a.kind, a.attempt, a.outcome]),
      [['event', 1, 'retrying'], ['overlap', 1, 'acknowledged'], ['event', 2, 'acknowledged']]);
  });

  test('rotation: activated twice before the request in flight could go (every slot taken), only the second goes, signed with the secret it retired', async () => {
    // The first delivery answered; the next eight hang until the sandbox's timeout, taking
    // every slot, so the requests in flight of two activations wait for one.
    const hook = await endpointWith((request) => (request.n >= 2 && request.n <= 9 ? 'hang' : { status: 200 }));
    const entries = [];
    const sandbox = await sandboxWith({ webhookUrl: hook.url, retryDelaysMs: [], timeoutMs: 600, log: (line, entry) => entries.push(entry) });
    const original = sandbox.webhook.secret;
    const first = await createPayment(sandbox, '100');
    await sandbox.review(first.payment_id);
    await settled(sandbox);
    for (let i = 0; i < 8; i += 1) await sandbox.review((await createPayment(sandbox, '100')).payment_id);
    await waitFor(() => hook.requests.length === 9, { what: 'eight attempts hanging' });
    const { secret: second } = await sandbox.rotate();
    await sandbox.activate();
    const { secret: third } = await sandbox.rotate();
    await sandbox.activate();
    await settled(sandbox);
    const late = hook.requests.slice(9);
    assert.equal(late.length, 1, 'one request in flight sent');
    assert.equal(late[0].event.event_id, hook.requests[0].event.event_id, 'the last attempt\'s event');
    assert.equal(verifyRecorded(late[0], second).matchedSecret, 'active', 'signed with the secret the second activation retired');
    for (const secret of [original, third]) assert.throws(() => verifyRecorded(late[0], secret), { code: 'signature_mismatch' });
    assert.equal(entries.filter((e) => e.type === 'overlap_dropped').length, 1, 'the first activation\'s, its secret replaced');
  });

  test('rotation: a receiver that dropped the old secret at activation refuses the request in flight, a permanent failure in the log', async () => {
    let old;
    let next;
    // Verifies as a receiver that took the new secret alone at activation: 400 on the old one.
    const hook = await endpointWith((request) => {
      try {
        verifyRecorded(request, next ?? old);
      } catch (error) {
        return { status: 400, body: JSON.stringify({ error: error.code }) };
      }
      return { status: 200 };
    });
    const sandbox = await sandboxWith({ webhookUrl: hook.url, retryDelaysMs: [100] });
    old = sandbox.webhook.secret;
    const p = await createPayment(sandbox, '1000');
    await sandbox.pay(p.payment_id, '100');
    await settled(sandbox);
    ({ secret: next } = await sandbox.rotate());
    await sandbox.activate();
    await settled(sandbox);
    const log = await sandbox.deliveries();
    const events = await sandbox.events(p.payment_id);
    assert.equal(hook.requests.length, events.length + 1, 'the events, then the request in flight');
    assert.equal(hook.requests.at(-1).event.event_id, events.at(-1).event_id, 'the last attempt\'s event once more');
    const overlap = log.filter((a) => a.kind === 'overlap');
    assert.deepEqual(overlap.map((a) => [a.attempt, a.status, a.outcome, a.answer]),
      [[1, 400, 'failed_permanently', '{"error":"signature_mismatch"}']]);
    assert.ok(!JSON.stringify(log).includes(old) && !JSON.stringify(log).includes(next), 'no secret in the log');
  });
});

describe('order, duplicates and shuffling', () => {
  /** An endpoint that answers after `ms` and notes the most attempts in flight at once per payment. */
  async function slowEndpoint(ms) {
    const inFlight = new Map();
    const most = new Map();
    const hook = await endpointWith(async (request) => {
      const id = request.event.data.payment_id;
      inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
      most.set(id, Math.max(most.get(id) ?? 0, inFlight.get(id)));
      await sleep(ms);
      inFlight.set(id, inFlight.get(id) - 1);
      return { status: 200 };
    });
    return { hook, most };
  }

  /** Four payments, each paid in two parts and then reviewed (versions 2 to 6), all delivered. */
  async function fourPaymentsOfFiveEvents(sandbox) {
    const payments = [];
    for (let i = 0; i < 4; i += 1) {
      const p = await createPayment(sandbox, '1000');
      payments.push(p.payment_id);
      await sandbox.pay(p.payment_id, '300');
      await sandbox.pay(p.payment_id, '700');
      await sandbox.review(p.payment_id);
    }
    await settled(sandbox);
    return payments;
  }

  test('without shuffle: one at a time per payment, in the order the events occurred; payments in parallel', async () => {
    const { hook, most } = await slowEndpoint(15);
    const sandbox = await sandboxWith({ webhookUrl: hook.url, retryDelaysMs: [10] });
    const payments = await fourPaymentsOfFiveEvents(sandbox);
    for (const id of payments) {
      const versions = hook.requests.filter((r) => r.event.data.payment_id === id).map((r) => r.event.data.status_version);
      assert.deepEqual(versions, [2, 3, 4, 5, 6]);
      assert.equal(most.get(id), 1);
    }
    assert.ok(Math.max(...hook.requests.map((r) => r.at)) - Math.min(...hook.requests.map((r) => r.at)) < 20 * 15,
      'payments are delivered in parallel');
  });

  test('with shuffle, a slow receiver gets deliveries of one payment at once, as a real network sends them', async () => {
    const { hook, most } = await slowEndpoint(300);
    const sandbox = await sandboxWith({ webhookUrl: hook.url, retryDelaysMs: [10], shuffle: true, seed: 5 });
    const payments = await fourPaymentsOfFiveEvents(sandbox);
    for (const id of payments) {
      const versions = hook.requests.filter((r) => r.event.data.payment_id === id).map((r) => r.event.data.status_version);
      assert.deepEqual([...versions].sort((a, b) => a - b), [2, 3, 4, 5, 6], 'each event once');
    }
    // Five events of a payment held within 250 ms, each answered after 300 ms: they overlap.
    assert.ok(payments.some((id) => most.get(id) > 1), `at most in flight per payment: ${payments.map((id) => most.get(id))}`);
  });

  /** The same script on a sandbox: 8 payments paid in full. Resolves { sandbox, hook }. */
  async function script(options) {
    const hook = await endpointWith(() => ({ status: 200 }));
    const sandbox = await sandboxWith({ webhookUrl: hook.url, retryDelaysMs: [10], ...options });
    for (let i = 0; i < 8; i += 1) {
      const p = await createPayment(sandbox, '500');
      await sandbox.pay(p.payment_id, '500');
    }
    await settled(sandbox);
    return { sandbox, hook };
  }

  test('duplicateRate: acknowledged events delivered again, same bytes; the same seed picks the same events', async () => {
    const all = await script({ duplicateRate: 1 });
    const events = await all.sandbox.events();
    for (const event of events) {
      const copies = requestsOf(all.hook, event.event_id);
      assert.equal(copies.length, 2, 'each event twice');
      assert.ok(copies[1].body.equals(copies[0].body));
      assert.equal(verifyRecorded(copies[1], all.sandbox.webhook.secret).event.eventId, event.event_id);
    }
    assert.equal((await all.sandbox.deliveries()).filter((d) => d.kind === 'duplicate').length, events.length);

    const duplicated = async (seed) => {
      const run = await script({ duplicateRate: 0.5, seed });
      const numbers = new Map((await run.sandbox.events()).map((e) => [e.event_id, e.number]));
      return (await run.sandbox.deliveries()).filter((d) => d.kind === 'duplicate').map((d) => numbers.get(d.event_id)).sort((a, b) => a - b);
    };
    const [a, b] = [await duplicated(7), await duplicated(7)];
    assert.deepEqual(a, b);
    assert.ok(a.length > 0 && a.length < 16, `about half of 16 events: ${a.length}`);
    const none = await script({ seed: 7 });
    assert.equal((await none.sandbox.deliveries()).filter((d) => d.kind === 'duplicate').length, 0);
  });

  test('shuffle: a payment\'s events arrive out of order, the same way for the same seed', async () => {
    const order = async (seed) => {
      const run = await script({ shuffle: true, seed });
      const byPayment = new Map();
      for (const r of run.hook.requests) {
        const list = byPayment.get(r.event.data.payment_id) ?? [];
        list.push(r.event.data.status_version);
        byPayment.set(r.event.data.payment_id, list);
      }
      // In the order the payments were created (their events' numbers), whatever the arrival order across payments.
      const created = [...new Set((await run.sandbox.events()).map((e) => e.payment_id))];
      return created.map((id) => byPayment.get(id).join(','));
    };
    const [a, b] = [await order(11), await order(11)];
    assert.deepEqual(a, b);
    assert.ok(a.includes('3,2'), `some payment's paid arrives before its confirming: ${a.join(' ')}`);
    assert.ok(a.includes('2,3'), `and some in order: ${a.join(' ')}`);
  });
});

describe('a merchant\'s test suite around the sandbox', () => {
  test('a receiver that answers 200 and then holds its body open has answered 200: one attempt, acknowledged', async () => {
    const held = new Set();
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('accepted'); // and never ends
        held.add(res);
      });
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    started.push(() => new Promise((r) => {
      server.closeAllConnections();
      server.close(r);
    }));
    const sandbox = await sandboxWith({ webhookUrl: `http://127.0.0.1:${server.address().port}/webhook`, timeoutMs: 300, retryDelaysMs: [20] });
    const p = await createPayment(sandbox, '100');
    await sandbox.pay(p.payment_id, '100');
    const log = await sandbox.delivered({ timeoutMs: 10_000 });
    const mine = log.filter((a) => a.payment_id === p.payment_id);
    assert.deepEqual(mine.map((a) => [a.attempt, a.status, a.outcome]), [[1, 200, 'acknowledged'], [1, 200, 'acknowledged']]);
    assert.equal(mine[0].answer, 'accepted');
    assert.equal(held.size, 2, 'one request per event');
  });

  test('a receiver that answers 200 and then resets the connection has answered 200: acknowledged, not retried', async () => {
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      let seen = '';
      socket.on('data', (chunk) => {
        seen += chunk;
        if (!seen.includes('\r\n\r\n')) return;
        // The status read by the sandbox, then the reset, while the body is still owed.
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\npartial');
        setTimeout(() => socket.resetAndDestroy(), 30);
      });
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    started.push(() => new Promise((r) => server.close(r)));
    const sandbox = await sandboxWith({ webhookUrl: `http://127.0.0.1:${server.address().port}/webhook`, timeoutMs: 2000, retryDelaysMs: [20, 20] });
    const p = await createPayment(sandbox, '100');
    await sandbox.pay(p.payment_id, '100');
    const log = await sandbox.delivered({ timeoutMs: 10_000 });
    const mine = log.filter((a) => a.payment_id === p.payment_id);
    assert.deepEqual(mine.map((a) => [a.attempt, a.status, a.outcome]), [[1, 200, 'acknowledged'], [1, 200, 'acknowledged']]);
  });

  test('close() while delivered() waits: it rejects at once with sandbox_closed, and so does every method after', async () => {
    const sandbox = await sandboxRefused({ retryDelaysMs: [60_000], log: false }); // every attempt refused, retried
    const p = await createPayment(sandbox, '100');
    await sandbox.pay(p.payment_id, '100');
    const begun = performance.now();
    const waiting = sandbox.delivered({ timeoutMs: 30_000 });
    await sleep(100);
    await sandbox.close();
    await assert.rejects(waiting, (error) => {
      assert.ok(error instanceof SandboxError);
      assert.equal(error.code, 'sandbox_closed');
      assert.match(error.message, /^delivered: the sandbox was closed/);
      return true;
    });
    assert.ok(performance.now() - begun < 5_000, 'rejected at close, not at its timeout');
    for (const [name, call] of [['pay', () => sandbox.pay(p.payment_id, '1')], ['expire', () => sandbox.expire(p.payment_id)],
      ['delivered', () => sandbox.delivered()], ['rotate', () => sandbox.rotate()], ['issueKey', () => sandbox.issueKey(['payment:read'])]]) {
      await assert.rejects(call(), (error) => error.code === 'sandbox_closed' && error.message.startsWith(`${name}: `), name);
    }
    // What happened stays readable, for the assertions of a test's after().
    assert.deepEqual((await sandbox.deliveries()).map((a) => a.outcome), ['retrying']);
    assert.equal((await sandbox.pendingDeliveries()).length, 2);
    assert.deepEqual((await sandbox.events(p.payment_id)).map((e) => e.status), ['confirming', 'paid']);
    await sandbox.close(); // idempotent
  });

  test('a log function that throws, or an async one that rejects, loses its line, not the sandbox', async () => {
    const hook = await endpointWith(() => ({ status: 200 }));
    let calls = 0;
    const sandbox = await sandboxWith({ webhookUrl: hook.url, log: () => {
      calls += 1;
      if (calls % 2 === 0) return Promise.reject(new Error('the test\'s async logger broke'));
      throw new Error('the test\'s logger broke');
    } });
    const p = await createPayment(sandbox, '100');
    await sandbox.pay(p.payment_id, '100');
    const log = await sandbox.delivered({ timeoutMs: 10_000 });
    assert.deepEqual(log.filter((a) => a.payment_id === p.payment_id).map((a) => a.outcome), ['acknowledged', 'acknowledged']);
    assert.ok(calls > 2, `the log was called (${calls})`);
  });

  test('a run that shuffles or duplicates gives its log the seed first; one that does neither says none', async () => {
    const hook = await endpointWith(() => ({ status: 200 }));
    const entries = [];
    await sandboxWith({ webhookUrl: hook.url, shuffle: true, duplicateRate: 0.5, seed: 7, log: (line, entry) => entries.push([line, entry]) });
    const [line, entry] = entries.find(([, e]) => e.type !== 'webhook_loopback');
    assert.deepEqual(entry, { type: 'seeded', seed: 7 });
    assert.equal(line, 'deliveries shuffled and duplicated at rate 0.5 by seed 7: startSandbox({ seed: 7 }) repeats them');
    const plain = [];
    await sandboxWith({ webhookUrl: hook.url, seed: 7, log: (l, e) => plain.push(e.type) });
    assert.ok(!plain.includes('seeded'), plain.join());
  });

  test('a faked Date moved ahead, then restored: a replay is signed with the clock the test shows again, not ahead of it', async (t) => {
    const hook = await endpointWith(() => ({ status: 200 }));
    const sandbox = await sandboxWith({ webhookUrl: hook.url });
    const p = await createPayment(sandbox, '100');
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() + 300 * 1000 });
    try {
      await sandbox.pay(p.payment_id, '100');
      await sandbox.delivered({ timeoutMs: 10_000 });
    } finally {
      t.mock.timers.reset();
    }
    const ahead = Number(hook.requests.at(-1).headers['x-webhook-timestamp']);
    assert.ok(ahead - Math.floor(Date.now() / 1000) > 250, 'signed with the faked clock');
    const [event] = (await sandbox.delivered()).filter((a) => a.payment_id === p.payment_id).slice(-1);
    await sandbox.replay(event.event_id);
    await sandbox.delivered({ timeoutMs: 10_000 });
    assert.ok(Math.abs(Number(hook.requests.at(-1).headers['x-webhook-timestamp']) - Math.floor(Date.now() / 1000)) <= 1,
      `replayed at ${hook.requests.at(-1).headers['x-webhook-timestamp']}, now ${Math.floor(Date.now() / 1000)}`);
  });

  test('fake timers and a fake Date in the test (node:test mock.timers, after the import): deliveries, retries and delivered() go on', async (t) => {
    let n = 0;
    const hook = await endpointWith(() => ({ status: (n += 1) === 1 ? 503 : 200 }));
    const sandbox = await sandboxWith({ webhookUrl: hook.url, retryDelaysMs: [50] });
    const p = await createPayment(sandbox, '100');
    t.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() });
    try {
      await sandbox.pay(p.payment_id, '100');
      const log = await sandbox.delivered({ timeoutMs: 10_000 });
      assert.deepEqual(log.filter((a) => a.payment_id === p.payment_id).map((a) => a.outcome), ['retrying', 'acknowledged', 'acknowledged']);
      // Signed with the clock the test sees: a receiver reading the same fake Date finds it fresh.
      for (const request of hook.requests) {
        assert.ok(Math.abs(Number(request.headers['x-webhook-timestamp']) - Math.floor(Date.now() / 1000)) <= 1);
      }
    } finally {
      t.mock.timers.reset();
    }
  });
});
