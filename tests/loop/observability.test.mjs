// What the receiver tells, on a SQLite file: onOutcome for every answer and fulfilment outcome,
// the counters, authentic deliveries refused for configuration reasons (skew, header names, a
// body over the limit) logged as such and not as forgeries, a start-up warning for a secret with
// white space around it, the quarantined deliveries listed with their payment_id; several
// integrations in one receiver (the one that verified each event recorded, and linked); and
// canary secrets that appear in no log line, no onOutcome record and no error.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  Database, ROOT, SECRET, SIG_HEADER, TS_HEADER, captureLog, eventBody, nowSecs, pkg, receiverOptions, rx, signedHeaders, sqliteRows,
  tempDir,
} from '../receiver/lib/helpers.mjs';
import { send } from '../receiver/lib/example.mjs';
import { drain, recorder, sleep } from './lib/suite.mjs';
import { scriptedWorld } from './lib/world.mjs';

const CANARY_EU = 'whsec_canary_eu_7c1f';
const CANARY_US = 'whsec_canary_us_2b9e';

function open(extra = {}) {
  const db = new Database(join(tempDir(), 'observe.sqlite'));
  const log = captureLog();
  const records = [];
  const receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log, onOutcome: (r) => records.push(r), ...extra }));
  return { db, log, records, receiver };
}

/** An order created and recorded, then paid in full: its payment is due to the loop. */
async function paidOrder(receiver, world, orderRef) {
  const created = world.create({ orderRef });
  await receiver.recordCreated(created);
  await world.change(created.payment_id, { status: 'paid' });
  return created;
}

const everything = (log, records, errors = []) => [...log.lines, ...records.map((r) => JSON.stringify(r)), ...errors.map((e) => `${e.message}\n${e.stack}`)].join('\n');

describe('observability', () => {
  test('onOutcome and the counters: every answer, why each refusal was made; configuration refusals logged as such, with the header names carried (never values)', async () => {
    const { db, log, records, receiver } = open({ maxBodyBytes: 4096 });
    await receiver.ready();
    const body = eventBody({ eventId: 'evt_o1', paymentId: 'pay_o1', statusVersion: 2 });
    const handle = (b, headers) => receiver.handle({ body: b, headers });
    await handle(body, signedHeaders(body));
    await handle(body, signedHeaders(body));
    await handle(eventBody({ eventId: 'evt_o0', paymentId: 'pay_o1', statusVersion: 1 }), signedHeaders(eventBody({ eventId: 'evt_o0', paymentId: 'pay_o1', statusVersion: 1 })));
    await handle(body, signedHeaders(body, { secret: 'whsec_forger' }));
    await handle(body, signedHeaders(body, { timestamp: nowSecs() - 3600 }));
    await handle(body, { 'X-Timestamp': String(nowSecs()), 'X-Signature': 'v1=secretvalue', 'Content-Type': 'application/json' });
    await handle(Buffer.from('{"schema_version":1,"event_id":"evt_q","event_type":"payment.refunded","occurred_at":1,"data":{"payment_id":"pay_q","status_version":1}}'),
      signedHeaders(Buffer.from('{"schema_version":1,"event_id":"evt_q","event_type":"payment.refunded","occurred_at":1,"data":{"payment_id":"pay_q","status_version":1}}')));
    await handle(Buffer.alloc(5000, 0x20), signedHeaders(Buffer.alloc(5000, 0x20)));
    // Through the HTTP face: 405, and a 413 read from the stream.
    const server = http.createServer(receiver.node);
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${server.address().port}/webhook`;
    await send(url, undefined, { method: 'GET', agent: false });
    await send(url, Buffer.alloc(6000, 0x61), { headers: signedHeaders(Buffer.alloc(6000, 0x61)), agent: false, chunked: true });
    await new Promise((resolve) => server.close(resolve));

    const summary = records.map((r) => [r.kind, r.status, r.reason, r.decision ?? r.code]);
    assert.deepEqual(summary, [
      ['delivery', 200, 'recorded', 'apply'],
      ['delivery', 200, 'recorded', 'duplicate'],
      ['delivery', 200, 'recorded', 'stale'],
      ['delivery', 400, 'forgery', 'signature_mismatch'],
      ['delivery', 400, 'skew', 'timestamp_too_old'],
      ['delivery', 400, 'headers', 'timestamp_missing'],
      ['delivery', 200, 'quarantined', 'event_type_unknown'],
      ['delivery', 413, 'too_large', 'body_too_large'],
      ['delivery', 405, 'method', undefined],
      ['delivery', 413, 'too_large', 'body_too_large'],
    ]);
    assert.deepEqual([records[0].eventId, records[0].paymentId, records[0].statusVersion, records[0].secretKind, records[0].integration, records[0].bodyBytes],
      ['evt_o1', 'pay_o1', '2', 'active', null, body.length]);
    assert.deepEqual(records[5].headerNames, ['content-type', 'x-signature', 'x-timestamp']);
    // The deliveries whose signature verified say how far their timestamp was from this clock.
    assert.ok(Math.abs(records[0].ageSecs) <= 2, JSON.stringify(records[0]));
    assert.ok(Math.abs(records[4].ageSecs - 3600) <= 2, JSON.stringify(records[4]));
    assert.ok(Math.abs(records[6].ageSecs) <= 2, JSON.stringify(records[6]));
    assert.equal(records[3].ageSecs, undefined, 'a forgery says nothing of its timestamp');
    assert.equal(records[7].bodyBytes, 5000);
    assert.ok(records[9].bodyBytes > 4096);
    assert.ok(records.every((r) => Object.isFrozen(r)));
    const { deliveries } = receiver.counters();
    assert.deepEqual({ ...deliveries }, {
      total: 10, recorded: 3, quarantined: 1, forgery: 1, skew: 1, headers: 1, too_large: 2, misconfigured: 0, store_unavailable: 0, busy: 0, body_timeout: 0,
      method: 1, internal: 0, apply: 1, duplicate: 1, stale: 1,
    });
    const lines = log.lines.join('\n');
    assert.match(lines, /warn cryptopay-verify\/receiver: rejected: signature_mismatch/);
    assert.match(lines, /error cryptopay-verify\/receiver: refused an authentic delivery \(its signature verified\): timestamp_too_old \(its timestamp is 3\d{3} s behind this host's clock\), over maxSkewSecs: check this host's clock/);
    assert.match(lines, /rejected: timestamp_missing: .*; the delivery carried the headers content-type, x-signature, x-timestamp \(expected X-Webhook-Timestamp and X-Webhook-Signature\): if the service names them otherwise, set timestampHeader and signatureHeader; it carried x-timestamp: if that is the service's timestamp header, set timestampHeader to it; a 400 is final for the service/);
    // The skew refusal's record names the event to replay.
    assert.deepEqual([records[4].eventId, records[4].paymentId], ['evt_o1', 'pay_o1']);
    assert.match(lines, /refused a delivery of 5000 bytes \(413 body_too_large\), unverified: over maxBodyBytes; the service does not retry a 413: if it sends bodies this large, raise maxBodyBytes/);
    assert.ok(!lines.includes('secretvalue'), 'a header value is never logged');
    assert.ok(!/refused an authentic delivery.*signature_mismatch/.test(lines));
    // The events table records the secret kind that verified each event.
    assert.deepEqual(sqliteRows(db).events.map((e) => [e.event_id, e.integration, e.secret_kind]), [['evt_o0', null, 'active'], ['evt_o1', null, 'active']]);
    db.close();
  });

  test('five signature mismatches: said at error level with what they cost if they are the service\'s, then at most once per 10 minutes', async () => {
    let clock = nowSecs();
    const { db, log, receiver } = open({ nowSecs: () => clock });
    const body = eventBody({ eventId: 'evt_streak', paymentId: 'pay_streak', statusVersion: 1 });
    const rotated = () => receiver.handle({ body, headers: signedHeaders(body, { secret: 'whsec_rotated_in_the_dashboard', timestamp: clock }) });
    const said = () => log.lines.filter((l) => /failed to verify \(signature_mismatch\) over/.test(l));
    for (let i = 0; i < 4; i += 1) assert.equal((await rotated()).status, 400);
    assert.equal(said().length, 0);
    // Deliveries verifying between them (another integration's) do not rule it out.
    assert.equal((await receiver.handle({ body, headers: signedHeaders(body, { timestamp: clock }) })).status, 200);
    clock += 30;
    await rotated();
    assert.equal(said().length, 1);
    assert.match(said()[0], /^error cryptopay-verify\/receiver: 5 deliveries failed to verify \(signature_mismatch\) over 30 s, 1 verified \(forgeries, or, with several integrations, one whose secret changed while the others verify\): if the service sent them .*the secret configured is not its signing Secret \(rotated and activated in the dashboard\?.*every such event is lost until replayed.*queue a replay from its webhook log.*said at most once per 600 s$/);
    // A flood of forgeries says it no more often than once per 10 minutes.
    for (let i = 0; i < 40; i += 1) await rotated();
    assert.equal(said().length, 1);
    clock += 600;
    await rotated();
    assert.equal(said().length, 2);
    assert.match(said()[1], /: 41 deliveries failed to verify \(signature_mismatch\) over 600 s since this was last said, none verified: /);
    db.close();
  });

  test('five mismatches whose bodies were compressed on the way: the summary points at what is in front, not at the secret', async () => {
    const { gzipSync } = await import('node:zlib');
    let clock = nowSecs();
    const { db, log, receiver } = open({ nowSecs: () => clock });
    const body = eventBody({ eventId: 'evt_gzs', paymentId: 'pay_gzs', statusVersion: 1 });
    const said = () => log.lines.filter((l) => /failed to verify \(signature_mismatch\) over/.test(l));
    for (let i = 0; i < 5; i += 1) assert.equal((await receiver.handle({ body: gzipSync(body), headers: signedHeaders(body, { timestamp: clock }) })).status, 400);
    assert.match(said()[0], /5 deliveries failed to verify .*: if the service sent them .*, their bodies were changed on the way \(compressed, or a byte order mark added, as each of their lines says\): a proxy, gateway or middleware in front of the receiver changes the request body.*Let the body through unchanged; a 400 is final/);
    assert.doesNotMatch(said()[0], /is not its signing Secret/);
    // Mixed with mismatches of another secret: both said.
    clock += 600;
    for (let i = 0; i < 3; i += 1) await receiver.handle({ body: gzipSync(body), headers: signedHeaders(body, { timestamp: clock }) });
    for (let i = 0; i < 2; i += 1) await receiver.handle({ body, headers: signedHeaders(body, { secret: 'whsec_rotated', timestamp: clock }) });
    assert.match(said()[1], /answered 400\), 3 of them with bodies changed on the way, as their lines say; for the others, the secret configured is not its signing Secret/);
    db.close();
  });

  test('a shop with a delivery an hour whose secret was rotated in the dashboard is told at its fifth', async () => {
    let clock = nowSecs();
    const { db, log, receiver } = open({ nowSecs: () => clock });
    const body = eventBody({ eventId: 'evt_slow', paymentId: 'pay_slow', statusVersion: 1 });
    for (let i = 0; i < 5; i += 1) {
      assert.equal((await receiver.handle({ body, headers: signedHeaders(body, { secret: 'whsec_rotated', timestamp: clock }) })).status, 400);
      clock += 3600;
    }
    assert.match(log.lines.join('\n'), /5 deliveries failed to verify \(signature_mismatch\) over 14400 s, none verified/);
    db.close();
  });

  test('one delivery header arrived and the other did not: the line says the names are likely right and something on the way dropped it', async () => {
    const { db, log, receiver } = open({});
    const body = eventBody({ eventId: 'evt_drop', paymentId: 'pay_drop', statusVersion: 1 });
    const { [SIG_HEADER]: dropped, ...rest } = signedHeaders(body);
    assert.ok(dropped);
    assert.equal((await receiver.handle({ body, headers: rest })).status, 400);
    assert.match(log.lines.join('\n'), /rejected: signature_missing: .*; X-Webhook-Timestamp arrived and X-Webhook-Signature did not, so the names are likely right: a proxy, load balancer, API gateway or middleware in front may drop X-Webhook-Signature; a 400 is final for the service/);
    // A proxy's own headers (Envoy's timeout) are not taken for the missing one.
    const envoy = captureLog();
    const behind = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: envoy }));
    const { [TS_HEADER]: gone, ...kept } = signedHeaders(body);
    assert.ok(gone);
    assert.equal((await behind.handle({ body, headers: { ...kept, 'x-envoy-expected-rq-timeout-ms': '15000' } })).status, 400);
    assert.match(envoy.lines.join('\n'), /X-Webhook-Signature arrived and X-Webhook-Timestamp did not, so the names are likely right/);
    assert.doesNotMatch(envoy.lines.join('\n'), /it carried x-envoy/);
    // A name configured wrong, the service's header beside it: that one is named, not a proxy
    // (for a delivery no secret verifies under it; one that verifies is a 500, below).
    const typo = captureLog();
    const mistyped = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: typo, timestampHeader: 'X-Timestamp' }));
    assert.equal((await mistyped.handle({ body, headers: signedHeaders(body, { secret: 'whsec_forger' }) })).status, 400);
    assert.match(typo.lines.join('\n'), /rejected: timestamp_missing: .*; it carried x-webhook-timestamp: if that is the service's timestamp header, set timestampHeader to it; X-Webhook-Signature arrived and X-Timestamp did not, so if the names are right, a proxy, .* may drop X-Timestamp; a 400 is final/);
    assert.doesNotMatch(typo.lines.join('\n'), /names are likely right/);
    // Neither arrived: no such guess.
    const none = captureLog();
    const other = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: none }));
    assert.equal((await other.handle({ body, headers: {} })).status, 400);
    assert.doesNotMatch(none.lines.join('\n'), /names are likely right/);
    db.close();
  });

  test('a body that is not the bytes signed: compressed, 400 and the log says so; a newline, CRLF or a byte order mark added, 500 (retried) naming it', async () => {
    const { gzipSync } = await import('node:zlib');
    const log = captureLog();
    const outcomes = [];
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log, onOutcome: (o) => outcomes.push(o) }));
    const body = eventBody({ eventId: 'evt_gz', paymentId: 'pay_gz', statusVersion: 1 });
    const headers = signedHeaders(body);
    const compressed = [
      [{ body: gzipSync(body), headers: { ...headers, 'Content-Encoding': 'gzip' } }, /the body is compressed \(Content-Encoding: gzip\): the signature covers the bytes the service sent/],
      [{ body: gzipSync(body), headers }, /the body is compressed: the signature covers/],
    ];
    for (const [delivery, said] of compressed) {
      const answer = await receiver.handle(delivery);
      assert.deepEqual([answer.status, answer.body], [400, '{"error":"signature_mismatch"}']);
      assert.match(log.lines.at(-1), said);
      // The compression explains it: the line does not blame the secret too.
      assert.doesNotMatch(log.lines.at(-1), /Secret configured is not/);
    }
    // What a proxy adds that can be undone: the delivery is the service's, its body is not the
    // bytes signed. 500, so that the service retries once the proxy lets the body through.
    const text = Buffer.from(body).toString();
    const lines = text.replace(/,/g, ',\n');
    const linesHeaders = signedHeaders(lines);
    const undone = [
      [{ body: `${text}\n`, headers }, /it ends with a newline the delivery did not have\. A proxy, gateway or middleware in front of the receiver, or the code that hands it the body, changes the request body/],
      // A Lambda handler that passed event.body on without decoding it (isBase64Encoded: true).
      [{ body: Buffer.from(body).toString('base64'), headers }, /it is still base64-encoded, as a platform hands over a body it marks so \(AWS Lambda: isBase64Encoded: true\): decode it before verifying\. A proxy/],
      [{ body: Buffer.from(body).toString('base64url'), headers: new Headers(headers) }, /it is still base64-encoded/],
      // Wrapped in lines of 76, CRLF, as a MIME encoder writes it.
      [{ body: Buffer.from(body).toString('base64').replace(/.{76}/g, '$&\r\n'), headers }, /it is still base64-encoded/],
      [{ body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]), headers }, /it starts with a byte order mark the delivery did not have\. A proxy/],
      [{ body: `\ufeff${text}`, headers: new Headers(headers) }, /it starts with a byte order mark the delivery did not have\. A proxy/],
      [{ body: lines.replace(/\n/g, '\r\n'), headers: linesHeaders }, /it has Windows line endings \(CRLF\) where the delivery had LF\. A proxy/],
      [{ body: `\ufeff${lines.replace(/\n/g, '\r\n')}\r\n`, headers: linesHeaders },
        /it ends with a newline the delivery did not have and has Windows line endings \(CRLF\) where the delivery had LF and starts with a byte order mark the delivery did not have\. A proxy/],
    ];
    for (const [delivery, said] of undone) {
      // A receiver each: such lines are said five times a minute (a captured delivery sent
      // again so must not fill the log).
      const own = captureLog();
      const fresh = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: own, onOutcome: (o) => outcomes.push(o) }));
      const answer = await fresh.handle(delivery);
      assert.deepEqual([answer.status, answer.body], [500, '{"error":"invalid_argument"}']);
      assert.match(own.lines.at(-1), said);
      assert.equal(outcomes.at(-1).reason, 'misconfigured');
    }
    // The same, sent six times to one receiver: five lines, then counted.
    for (let i = 0; i < 6; i += 1) await receiver.handle(undone[0][0]);
    assert.equal(log.lines.filter((line) => /what its body picked up on the way/.test(line)).length, 5);
    assert.match(log.lines.filter((line) => /what its body picked up/.test(line)).at(-1), /captured delivery sent again with that change.*; more like it in the next 60 s are counted, not said$/);
    // Forged with a byte order mark or a newline: 400, the mark named as before.
    const forged = signedHeaders(body, { secret: 'whsec_forger' });
    // Forged base64, and text that only starts as base64 of JSON does: 400.
    const apart = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false }));
    for (const forgedBody of [Buffer.from(body).toString('base64'), 'eyJub3QgYmFzZTY0!', 'eyJub3QgYmFzZTY0']) {
      const answer = await apart.handle({ body: forgedBody, headers: forged });
      assert.deepEqual([answer.status, answer.body], [400, '{"error":"signature_mismatch"}']);
    }
    for (const forgedBody of [`\ufeff${text}`, `${text}\n`]) {
      const answer = await receiver.handle({ body: forgedBody, headers: forged });
      assert.deepEqual([answer.status, answer.body], [400, '{"error":"signature_mismatch"}']);
    }
    assert.match(log.lines.join('\n'), /starts with a byte order mark \(EF BB BF\)/);
    // A plain forgery says nothing of the kind.
    await receiver.handle({ body, headers: forged });
    assert.doesNotMatch(log.lines.at(-1), /compressed|byte order mark|picked up/);
  });

  test('timestampHeader and signatureHeader swapped: an authentic delivery is answered 500 (retried) and the log names the swap; a forgery stays 400', async () => {
    const log = captureLog();
    const outcomes = [];
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log, onOutcome: (o) => outcomes.push(o) }));
    const body = eventBody({ eventId: 'evt_swap', paymentId: 'pay_swap', statusVersion: 1 });
    const right = signedHeaders(body);
    const swapped = { [TS_HEADER]: right[SIG_HEADER], [SIG_HEADER]: right[TS_HEADER] };
    const answer = await receiver.handle({ body, headers: swapped });
    assert.deepEqual([answer.status, answer.body], [500, '{"error":"invalid_argument"}']);
    assert.match(log.lines.join('\n'), new RegExp(`${TS_HEADER} holds the signature and ${SIG_HEADER} the timestamp, so timestampHeader and signatureHeader are swapped`));
    assert.equal(outcomes.at(-1).reason, 'misconfigured');
    // Swapped and forged: no secret verifies it either way round, a 400 as any forgery.
    const forged = signedHeaders(body, { secret: 'whsec_forger' });
    const refused = await receiver.handle({ body, headers: { [TS_HEADER]: forged[SIG_HEADER], [SIG_HEADER]: forged[TS_HEADER] } });
    assert.deepEqual([refused.status, refused.body], [400, '{"error":"timestamp_malformed"}']);
    // An old authentic delivery replayed with its headers swapped is no sign of a swap: 400.
    const old = signedHeaders(body, { timestamp: nowSecs() - 7 * 86_400 });
    const replayed = await receiver.handle({ body, headers: { [TS_HEADER]: old[SIG_HEADER], [SIG_HEADER]: old[TS_HEADER] } });
    assert.deepEqual([replayed.status, replayed.body], [400, '{"error":"timestamp_malformed"}']);
    // Read the right way round, it is recorded.
    assert.equal((await receiver.handle({ body, headers: right })).status, 200);
  });

  test('a typo in timestampHeader or signatureHeader: an authentic delivery carrying the header under its real name is answered 500 (retried), the log names it; a forgery or a stale one stays 400', async () => {
    const log = captureLog();
    const outcomes = [];
    const body = eventBody({ eventId: 'evt_typo', paymentId: 'pay_typo', statusVersion: 1 });
    const right = signedHeaders(body);
    for (const option of ['timestampHeader', 'signatureHeader']) {
      const typo = option === 'timestampHeader' ? `${TS_HEADER}-typo` : `${SIG_HEADER}-typo`;
      const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log, onOutcome: (o) => outcomes.push(o), [option]: typo }));
      const answer = await receiver.handle({ body, headers: right });
      assert.deepEqual([answer.status, answer.body], [500, '{"error":"invalid_argument"}']);
      const sent = option === 'timestampHeader' ? TS_HEADER : SIG_HEADER;
      assert.match(log.lines.at(-1), new RegExp(`read from ${sent.toLowerCase()}, which it carried instead of ${typo}: set ${option} to ${sent.toLowerCase()}`, 'i'));
      assert.equal(outcomes.at(-1).reason, 'misconfigured');
      // No secret verifies it under either name (a forgery), or it is not fresh: 400, as before.
      for (const headers of [signedHeaders(body, { secret: 'whsec_forger' }), signedHeaders(body, { timestamp: nowSecs() - 7 * 86_400 })]) {
        const refused = await receiver.handle({ body, headers });
        assert.deepEqual([refused.status, refused.body], [400, `{"error":"${option === 'timestampHeader' ? 'timestamp' : 'signature'}_missing"}`]);
      }
    }
    // Both names wrong (a pair copied from another provider's guide): read together, the same.
    const both = rx.createReceiver(receiverOptions(rx.memoryStore(), {
      log, onOutcome: (o) => outcomes.push(o), timestampHeader: 'X-Timestamp', signatureHeader: 'X-Signature',
    }));
    const answer = await both.handle({ body, headers: right });
    assert.deepEqual([answer.status, answer.body], [500, '{"error":"invalid_argument"}']);
    assert.match(log.lines.at(-1), new RegExp(`verifies only with its timestamp read from ${TS_HEADER} and signature read from ${SIG_HEADER}, which it carried `
      + `instead of X-Timestamp and X-Signature: set timestampHeader to ${TS_HEADER} and signatureHeader to ${SIG_HEADER}`, 'i'));
    assert.equal(outcomes.at(-1).reason, 'misconfigured');
    for (const headers of [signedHeaders(body, { secret: 'whsec_forger' }), signedHeaders(body, { timestamp: nowSecs() - 7 * 86_400 })]) {
      const refused = await both.handle({ body, headers });
      assert.deepEqual([refused.status, refused.body], [400, '{"error":"timestamp_missing"}']);
    }
  });

  test('a secret with white space around it is warned about at start, without its value; an observer that throws is logged once', async () => {
    const log = captureLog();
    const padded = `${SECRET}\n`;
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), {
      log, secrets: [{ secret: padded, kind: 'active' }, { secret: ` ${CANARY_EU}`, kind: 'pending' }], onOutcome: () => { throw new Error('metrics down'); },
    }));
    assert.deepEqual(log.lines.filter((l) => l.includes('white space')).map((l) => l.replace(/:.*/, '')), ['warn cryptopay-verify/receiver', 'warn cryptopay-verify/receiver']);
    assert.match(log.lines[0], /the active secret starts or ends with white space: secrets are used exactly as saved/);
    assert.match(log.lines[1], /the pending secret starts or ends with white space/);
    // A delivery signed with the secret as the dashboard gave it (no newline): 500, retried
    // once the configuration is fixed, never a 400 (final: the event lost); the log says why.
    const signed = eventBody({ eventId: 'evt_pad', paymentId: 'pay_pad', statusVersion: 1 });
    for (const secret of [SECRET, CANARY_EU]) {
      const answer = await receiver.handle({ body: signed, headers: signedHeaders(signed, { secret }) });
      assert.deepEqual([answer.status, answer.body], [500, '{"error":"invalid_argument"}']);
    }
    assert.match(log.lines.join('\n'), /verifies with the secret once the white space or quotes around it are removed: the configured secret holds a pasted space or newline/);
    // Signed with the secret exactly as configured (it is used exactly): recorded; a forgery
    // stays a 400.
    assert.equal((await receiver.handle({ body: signed, headers: signedHeaders(signed, { secret: padded }) })).status, 200);
    const forged = eventBody({ eventId: 'evt_pad_f', paymentId: 'pay_pad', statusVersion: 2 });
    assert.equal((await receiver.handle({ body: forged, headers: signedHeaders(forged, { secret: 'whsec_forger' }) })).status, 400);
    // Under a named integration: the log names it.
    const named = captureLog();
    const shops = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: named, secrets: { eu: CANARY_US, us: `${CANARY_EU} ` } }));
    assert.equal((await shops.handle({ body: signed, headers: signedHeaders(signed, { secret: CANARY_EU }) })).status, 500);
    assert.match(named.lines.join('\n'), /verifies with the secret of integration "us" once the white space/);
    assert.ok(!(log.lines.join('\n') + named.lines.join('\n')).includes(CANARY_EU), 'no secret in the log');
    // A secret an env file or YAML value kept in quotes: warned about at start, answered 500 and
    // logged as such; the plain Verifier's message says so too.
    const quotedLog = captureLog();
    const quoted = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: quotedLog, secrets: `"${CANARY_EU}"` }));
    assert.match(quotedLog.lines[0], /the active secret is wrapped in quotes: secrets are used exactly as saved, quotes included/);
    assert.equal((await quoted.handle({ body: signed, headers: signedHeaders(signed, { secret: CANARY_EU }) })).status, 500);
    assert.match(quotedLog.lines.join('\n'), /verifies with the secret once the white space or quotes around it are removed/);
    assert.ok(!quotedLog.lines.join('\n').includes(CANARY_EU), 'no secret in the log');
    const headers = signedHeaders(signed, { secret: CANARY_EU });
    assert.throws(() => pkg.verifyWebhook({ body: signed, timestamp: headers[TS_HEADER], signature: headers[SIG_HEADER], secrets: `'${CANARY_EU}'`,
      nowSecs: Math.floor(Date.now() / 1000), maxSkewSecs: 300 }), (e) => e.code === 'signature_mismatch' && /wrapped in quotes/.test(e.message));
    // A rotation's end in milliseconds is refused at start (it would keep the old secret
    // verifying for thousands of years), in one set and under an integration; never named.
    for (const secrets of [
      [{ secret: SECRET, kind: 'active' }, { secret: CANARY_EU, kind: 'retiring', acceptUntilSecs: Date.now() }],
      { eu: [{ secret: SECRET, kind: 'active' }, { secret: CANARY_EU, kind: 'retiring', acceptUntilSecs: Date.now() }] },
    ]) {
      assert.throws(() => rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, secrets })), (e) => e.code === 'invalid_argument'
        && /the retiring secret( of integration "eu")? has an acceptUntilSecs of 13 digits or more, milliseconds/.test(e.message) && !e.message.includes(CANARY_EU));
    }
    // The same secret twice in one set (after an activation, the active one left at the old
    // Secret): warned, as the new Secret's deliveries will not verify.
    const twice = captureLog();
    rx.createReceiver(receiverOptions(rx.memoryStore(), {
      log: twice, secrets: [{ secret: CANARY_EU, kind: 'active' }, { secret: CANARY_EU, kind: 'retiring', acceptUntilSecs: 1_900_000_000 }],
    }));
    assert.match(twice.lines.join('\n'), /the retiring secret equals the active one: after an activation the active secret is the new Secret/);
    const pendingTwin = captureLog();
    rx.createReceiver(receiverOptions(rx.memoryStore(), { log: pendingTwin, secrets: [{ secret: CANARY_EU, kind: 'active' }, { secret: CANARY_EU, kind: 'pending' }] }));
    assert.match(pendingTwin.lines.join('\n'), /the pending secret equals the active one: during a rotation the pending secret is the new one/);
    // A bound that is not a safe integer is the Verifier's refusal, not called milliseconds.
    assert.throws(() => rx.createReceiver(receiverOptions(rx.memoryStore(), {
      log: false, secrets: [{ secret: SECRET, kind: 'active' }, { secret: CANARY_EU, kind: 'retiring', acceptUntilSecs: Infinity }],
    })), (e) => e.code === 'invalid_argument' && !/milliseconds/.test(e.message));
    assert.ok(!twice.lines.join('\n').includes(CANARY_EU), 'the warning names no secret');
    // A skew that is likely a mistake: warned at start.
    for (const [skew, said] of [[0, /maxSkewSecs is 0: a delivery the network or a queue delayed by a second is refused/],
      [300_000, /maxSkewSecs is 300000, over a day: is it in milliseconds\?/], [7200, /maxSkewSecs is 7200: a captured delivery can be replayed for that long/]]) {
      const lines = captureLog();
      rx.createReceiver(receiverOptions(rx.memoryStore(), { log: lines, maxSkewSecs: skew }));
      assert.match(lines.lines.join('\n'), said);
    }
    const usual = captureLog();
    rx.createReceiver(receiverOptions(rx.memoryStore(), { log: usual, maxSkewSecs: 300 }));
    assert.ok(!usual.lines.some((l) => l.includes('maxSkewSecs')), usual.lines.join('\n'));
    // Header names no header can have, the same header twice, or a secret in their place:
    // refused at start (each delivery would be a 400 the service never retries), never echoed.
    for (const [names, said] of [
      [{ timestampHeader: 'X-Webhook-Timestamp ' }, /timestampHeader is not a header name/],
      [{ signatureHeader: 'X-Webhook-Signature:' }, /signatureHeader is not a header name/],
      [{ timestampHeader: 'X-Same', signatureHeader: 'x-same' }, /timestampHeader and signatureHeader name the same header/],
      [{ signatureHeader: 'Content-Type' }, /signatureHeader names a header HTTP itself uses \(Content-Type\)/],
      [{ secrets: CANARY_US, signatureHeader: CANARY_US }, /signatureHeader holds one of the secrets/],
    ]) {
      assert.throws(() => rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, ...names })),
        (e) => e.code === 'invalid_argument' && said.test(e.message) && !e.message.includes(CANARY_US) && !e.message.includes('X-Same'));
    }
    const body = eventBody({ eventId: 'evt_w', paymentId: 'pay_w', statusVersion: 1 });
    for (let i = 0; i < 3; i += 1) await receiver.handle({ body, headers: signedHeaders(body, { secret: padded }) });
    assert.equal(log.lines.filter((l) => l.includes('onOutcome threw')).length, 1);
    assert.ok(!log.lines.join('\n').includes(SECRET) && !log.lines.join('\n').includes(CANARY_EU));
  });

  test('quarantined(): authentic deliveries that are no readable event, with their event_id and payment_id where readable, paged', async () => {
    const { db, receiver } = open({ log: false });
    const bodies = [
      '{"schema_version":1,"event_id":"evt_q1","event_type":"payment.refunded","occurred_at":1,"data":{"payment_id":"pay_q1","status_version":1}}',
      '{"schema_version":1,"event_id":"evt_q2","event_type":"payment.updated","occurred_at":1,"data":{"payment_id":"pay_q2","status_version":-1}}',
      'not json at all',
    ].map((text) => Buffer.from(text));
    for (const body of bodies) assert.equal((await receiver.handle({ body, headers: signedHeaders(body) })).status, 200);
    const listed = await receiver.quarantined();
    assert.deepEqual(listed.map((q) => [q.id, q.code, q.eventId, q.paymentId]), [
      [1, 'event_type_unknown', 'evt_q1', 'pay_q1'], [2, 'status_version_invalid', 'evt_q2', 'pay_q2'], [3, 'event_not_json', null, null]]);
    assert.ok(Buffer.from(listed[2].body).equals(bodies[2]));
    assert.match(listed[0].receivedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual((await receiver.quarantined({ afterId: 1, limit: 1 })).map((q) => q.id), [2]);
    await assert.rejects(receiver.quarantined({ after: 1 }), (e) => e.code === 'invalid_argument');
    db.close();
  });

  test('several integrations: each delivery verified against each, the one that verified it recorded; an order\'s payment takes events of its own integration only; canaries nowhere', async () => {
    const { db, log, records, receiver } = open({ secrets: { 'shop-eu': CANARY_EU, 'shop-us': [{ secret: CANARY_US, kind: 'active' }] } });
    await receiver.ready();
    const eu = scriptedWorld(receiver, { secret: CANARY_EU, prefix: 'eu' });
    const us = scriptedWorld(receiver, { secret: CANARY_US, prefix: 'us' });
    const mine = eu.create({ orderRef: 'eu-1' });
    await receiver.recordCreated(mine, { integration: 'shop-eu' });
    const crossed = us.create({ orderRef: 'us-1' });
    await receiver.recordCreated(crossed, { integration: 'shop-eu' }); // recorded under the wrong integration
    await eu.change(mine.payment_id, { status: 'paid' });
    // Its events, verified with shop-us's secret, are refused (500) and written nowhere.
    await assert.rejects(us.change(crossed.payment_id, { status: 'paid' }), /integration_mismatch/);
    assert.deepEqual([records.at(-1).status, records.at(-1).code, records.at(-1).integration], [500, 'integration_mismatch', 'shop-us']);
    assert.match(log.lines.at(-1), /^error .*integration_mismatch: payment "pay_us[^"]*" .*Either two integrations' secrets are swapped in secrets .*the order was recorded under the wrong integration/);
    assert.deepEqual(sqliteRows(db).events.map((e) => [e.payment_id, e.integration, e.secret_kind]), [[mine.payment_id, 'shop-eu', 'active']]);
    const h = recorder();
    const confirmed = [];
    const confirm = (id, context) => {
      confirmed.push([id, context.integration]);
      return (id.startsWith('pay_eu') ? eu : us).confirm(id);
    };
    await drain(receiver, { confirm, handle: h.handle });
    assert.deepEqual(confirmed, [[mine.payment_id, 'shop-eu']]);
    assert.deepEqual(h.calls.map((c) => [c.paymentId, c.action, c.mismatch?.code ?? null, c.integration]), [[mine.payment_id, 'fulfil', null, 'shop-eu']]);
    // The order's integration mended, the service's retry of the event is recorded and fulfilled.
    db.prepare('UPDATE cryptopay_orders SET integration = ? WHERE payment_id = ?').run('shop-us', crossed.payment_id);
    await us.redeliver(crossed.payment_id);
    await drain(receiver, { confirm, handle: h.handle });
    assert.deepEqual(h.calls.at(-1) && [h.calls.at(-1).paymentId, h.calls.at(-1).action, h.calls.at(-1).integration], [crossed.payment_id, 'fulfil', 'shop-us']);
    // A forged delivery (neither secret): signature_mismatch, no integration.
    const body = eventBody({ eventId: 'evt_f', paymentId: 'pay_f', statusVersion: 1 });
    assert.equal((await receiver.handle({ body, headers: signedHeaders(body, { secret: 'whsec_forger' }) })).status, 400);
    assert.deepEqual([records.at(-1).reason, records.at(-1).integration], ['forgery', null]);
    // recordCreated names an integration of this receiver, always.
    const errors = [];
    for (const options of [undefined, { integration: 'shop-xx' }]) {
      errors.push(await receiver.recordCreated(eu.create(), options).then(() => null, (e) => e));
    }
    assert.ok(errors.every((e) => e?.code === 'invalid_argument' && /one of the receiver's: "shop-eu", "shop-us"/.test(e.message)));
    const single = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false }));
    errors.push(await single.recordCreated(eu.create(), { integration: 'shop-eu' }).then(() => null, (e) => e));
    assert.match(errors.at(-1).message, /this receiver has one set of secrets/);
    // A map that is one secret entry is refused, not read as integrations named "secret" and "kind".
    assert.throws(() => rx.createReceiver(receiverOptions(rx.memoryStore(), { secrets: { secret: CANARY_EU, kind: 'active' } })),
      (e) => e.code === 'invalid_argument' && !e.message.includes(CANARY_EU));
    errors.push(...[() => rx.createReceiver(receiverOptions(rx.memoryStore(), { secrets: { a: CANARY_EU, b: { x: CANARY_US } } }))].map((fn) => {
      try { fn(); return null; } catch (e) { return e; }
    }));
    // Of several integrations' mismatches, the log keeps the one the core could say more of
    // (here: the second integration's retiring secret, whose overlap ended).
    const ended = captureLog();
    const rotated = rx.createReceiver(receiverOptions(rx.memoryStore(), {
      log: ended, nowSecs: () => 2_000_000_000,
      secrets: { a: CANARY_US, b: [{ secret: 'whsec_new_b', kind: 'active' }, { secret: CANARY_EU, kind: 'retiring', acceptUntilSecs: 1_999_999_000 }] },
    }));
    const late = eventBody({ eventId: 'evt_late', paymentId: 'pay_late', statusVersion: 1 });
    const answer = await rotated.handle({ body: late, headers: signedHeaders(late, { secret: CANARY_EU, timestamp: 2_000_000_000 }) });
    assert.equal(answer.status, 400);
    assert.match(ended.lines.join('\n'), /overlap ended/);
    // ... over another integration's secret with white space around it (a longer detail).
    const both = captureLog();
    const padded = rx.createReceiver(receiverOptions(rx.memoryStore(), {
      log: both, nowSecs: () => 2_000_000_000,
      secrets: { a: `${CANARY_US}\n`, b: [{ secret: 'whsec_new_b', kind: 'active' }, { secret: CANARY_EU, kind: 'retiring', acceptUntilSecs: 1_999_999_000 }] },
    }));
    assert.equal((await padded.handle({ body: late, headers: signedHeaders(late, { secret: CANARY_EU, timestamp: 2_000_000_000 }) })).status, 400);
    const rejected = both.lines.filter((l) => /signature_mismatch/.test(l)).join('\n');
    assert.match(rejected, /overlap ended/);
    assert.doesNotMatch(rejected, /whitespace/);
    // Two integrations sharing a secret: warned.
    const shared = captureLog();
    rx.createReceiver(receiverOptions(rx.memoryStore(), { log: shared, secrets: { a: CANARY_EU, b: CANARY_EU } }));
    assert.match(shared.lines.join('\n'), /integrations "a" and "b" share a signing secret/);
    const seen = everything(log, records, errors.filter(Boolean)) + shared.lines.join('\n');
    for (const canary of [CANARY_EU, CANARY_US]) assert.ok(!seen.includes(canary), canary);
    db.close();
  });

  test('an integration renamed with the guide\'s statements: a retry of an event recorded under the old name is a duplicate; its payment goes on under the new', async () => {
    const guide = readFileSync(join(ROOT, 'docs', 'merchant-loop.md'), 'utf8');
    const statements = /```sql\n(UPDATE cryptopay_payments SET integration = 'shop-europe'[\s\S]*?)\n```/.exec(guide)?.[1];
    assert.ok(statements, 'docs/merchant-loop.md holds the renaming statements');
    const { db, receiver } = open({ secrets: { 'shop-eu': CANARY_EU, 'shop-us': CANARY_US } });
    await receiver.ready();
    const created = scriptedWorld(receiver, { secret: CANARY_EU, prefix: 'rn' }).create({ orderRef: 'eu-7' });
    await receiver.recordCreated(created, { integration: 'shop-eu' });
    const deliverTo = async (to, eventId, statusVersion) => {
      const body = eventBody({ eventId, paymentId: created.payment_id, statusVersion, status: 'confirming' });
      return (await to.handle({ body, headers: signedHeaders(body, { secret: CANARY_EU }) })).body;
    };
    const decided = (decision) => `{"received":true,"decision":"${decision}"}`;
    assert.equal(await deliverTo(receiver, 'evt_rn_1', 2), decided('apply'));
    db.exec(statements);
    const renamed = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log: false, secrets: { 'shop-europe': CANARY_EU, 'shop-us': CANARY_US } }));
    assert.equal(await deliverTo(renamed, 'evt_rn_1', 2), decided('duplicate'), 'the service\'s retry of the event recorded before');
    assert.equal(await deliverTo(renamed, 'evt_rn_2', 3), decided('apply'));
    db.close();
  });

  test('a second integration added with the guide\'s naming statements: an order of the first, open at the deploy and paid after, is fulfilled, not held', async () => {
    const guide = readFileSync(join(ROOT, 'docs', 'merchant-loop.md'), 'utf8');
    const statements = /```sql\n(UPDATE cryptopay_orders +SET integration = 'shop-eu' WHERE integration IS NULL;[\s\S]*?)\n```/.exec(guide)?.[1];
    assert.ok(statements, 'docs/merchant-loop.md holds the naming statements');
    for (const named of [false, true]) {
      // One store, its secret unnamed: an order recorded and its first event applied.
      const { db, receiver } = open({ secrets: CANARY_EU });
      const world = scriptedWorld(receiver, { secret: CANARY_EU, prefix: named ? 'nm' : 'un' });
      const created = world.create({ orderRef: 'eu-9' });
      await receiver.recordCreated(created);
      await world.change(created.payment_id, { status: 'confirming' });
      // The deploy that adds shop-us (with the statements, or without them).
      if (named) db.exec(statements);
      const two = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log: false, secrets: { 'shop-eu': CANARY_EU, 'shop-us': CANARY_US } }));
      world.attach(two);
      await world.change(created.payment_id, { status: 'paid' });
      const h = recorder();
      await drain(two, { confirm: world.confirm, handle: h.handle });
      assert.deepEqual(h.done().map(([, action]) => action), [named ? 'fulfil' : 'review'], named ? 'named in the deploy' : 'left unnamed');
      if (!named) assert.equal(h.calls[0].mismatch?.code, 'integration_mismatch');
      db.close();
    }
  });

  test('a review without a link mismatch says in onOutcome which status it is about: part paid, overpaid', async () => {
    const { db, records, receiver } = open({ secrets: SECRET });
    const world = scriptedWorld(receiver);
    const h = recorder();
    for (const [orderRef, amountRaw, status] of [['short', '100', 'partially_paid'], ['over', '20000', 'overpaid'], ['exact', '12800', 'paid']]) {
      const created = world.create({ orderRef });
      await receiver.recordCreated(created);
      await world.pay(created.payment_id, amountRaw);
      await drain(receiver, { confirm: world.confirm, handle: h.handle });
      const outcome = status === 'paid' ? 'fulfil' : 'review';
      assert.deepEqual(records.filter((r) => r.kind === 'fulfilment' && r.paymentId === created.payment_id).map((r) => [r.outcome, r.code ?? null, r.paymentStatus]),
        [[outcome, null, status]], orderRef);
    }
    db.close();
  });

  test('fulfilment outcomes reach onOutcome and the counters; a failing handler logs its error (credentials masked), never a secret', async () => {
    const { db, log, records, receiver } = open({ secrets: SECRET });
    const world = scriptedWorld(receiver);
    const paid = await paidOrder(receiver, world, 'p');
    const failing = async () => { throw new Error(`POST https://ship:${CANARY_US}@shipping.example/orders?token=${CANARY_EU} failed`); };
    await receiver.fulfil({ confirm: world.confirm, handle: failing });
    const h = recorder();
    await sleep(1100);
    await drain(receiver, { confirm: world.confirm, handle: h.handle });
    const fulfilment = records.filter((r) => r.kind === 'fulfilment');
    assert.deepEqual(fulfilment.map((r) => [r.outcome, r.code ?? null, r.statusVersion, r.paymentStatus]), [['retry', 'handle_failed', '2', undefined], ['fulfil', null, '2', 'paid']]);
    assert.equal(fulfilment[1].idempotencyKey, `${paid.payment_id}:2`);
    assert.deepEqual([fulfilment[0].attempts, fulfilment[0].retryInSecs], [1, 1]);
    // The failed handler's call: its action and key, in the record and the line (with the order's ref).
    assert.deepEqual([fulfilment[0].action, fulfilment[0].idempotencyKey], ['fulfil', `${paid.payment_id}:2`]);
    const counted = receiver.counters().fulfilment;
    assert.deepEqual([counted.retry, counted.fulfil, counted.passes >= 2, counted.claimed, counted.failedPasses], [1, 1, true, 2, 0]);
    const lines = log.lines.join('\n');
    assert.match(lines, /fulfilment: handle_failed for payment pay_\w+ \(handle was called with action fulfil, key pay_\w+:2, order_ref "p"\) \(attempt 1; tried again in 1 s\): .*https:\/\/\*\*\*@shipping\.example\/orders\?token=\*\*\*/);
    for (const canary of [CANARY_EU, CANARY_US, SECRET]) assert.ok(!everything(log, records).includes(canary), canary);
    db.close();
  });

  test('a handle that outlasts its lease: the lease is kept while it runs, so another pass never calls it meanwhile; said with leaseSecs', async () => {
    const { db, log, receiver } = open({});
    const world = scriptedWorld(receiver);
    const created = await paidOrder(receiver, world, 'slow');
    const calls = [];
    const slow = async ({ idempotencyKey }) => {
      calls.push(idempotencyKey);
      await sleep(4600);
    };
    // Renewed every 667 ms while handle runs (a third of 2 s: a loaded machine's late timers
    // leave the lease time to spare).
    const first = receiver.fulfil({ confirm: world.confirm, handle: slow, leaseSecs: 2 });
    // Past the lease the first pass took (2 s), twice: without its renewals, these would take
    // the payment and call handle again while the first call runs.
    await sleep(2200);
    const second = await receiver.fulfil({ confirm: world.confirm, handle: slow, leaseSecs: 2 });
    await sleep(1500);
    const third = await receiver.fulfil({ confirm: world.confirm, handle: slow, leaseSecs: 2 });
    const a = await first;
    assert.deepEqual([a.outcomes, second.claimed, third.claimed], [{ fulfil: 1 }, 0, 0]);
    assert.deepEqual(calls, [`${created.payment_id}:2`]);
    const said = log.lines.filter((l) => /past leaseSecs/.test(l));
    assert.equal(said.length, 1, log.lines.join('\n'));
    assert.match(said[0], new RegExp(`fulfilment: handle for payment ${created.payment_id} \\(action fulfil, key ${created.payment_id}:2\\) has run [2-4]\\.\\d s, `
      + 'past leaseSecs 2: its lease is kept while it runs, .*Bound what handle awaits'));
    // Handled: a later pass has nothing to do.
    assert.equal((await receiver.fulfil({ confirm: world.confirm, handle: slow, leaseSecs: 2 })).claimed, 0);
    db.close();
  });

  test('a handle whose lease the store could not renew while it ran, taken by another pass: lease_lost, said with leaseSecs', async () => {
    const db = new Database(join(tempDir(), 'unrenewed.sqlite'));
    const inner = rx.sqliteStore(db);
    let down = false;
    const store = { ...inner, renew: async (...args) => {
      if (down) throw new Error('connect ECONNREFUSED /tmp/.s.PGSQL.5432');
      return inner.renew(...args);
    } };
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(store, { log }));
    const world = scriptedWorld(receiver);
    const created = await paidOrder(receiver, world, 'unrenewed');
    const calls = [];
    const slow = async ({ idempotencyKey }) => {
      calls.push(idempotencyKey);
      down = true; // right after the renewal before handle: every one while it runs fails
      await sleep(1600);
    };
    const first = receiver.fulfil({ confirm: world.confirm, handle: slow, leaseSecs: 1 });
    await sleep(1150); // the first's lease has run out
    down = false;
    const second = receiver.fulfil({ confirm: world.confirm, handle: async ({ idempotencyKey }) => {
      calls.push(idempotencyKey);
      await sleep(1000);
    }, leaseSecs: 1 });
    const [a, b] = await Promise.all([first, second]);
    // The first ended while the second held the payment, before its note: not written, said.
    assert.deepEqual([a.outcomes, b.outcomes], [{ lease_lost: 1 }, { fulfil: 1 }]);
    assert.deepEqual(calls, [`${created.payment_id}:2`, `${created.payment_id}:2`]);
    const said = log.lines.filter((l) => /past its lease/.test(l));
    assert.equal(said.length, 1, log.lines.join('\n'));
    assert.match(said[0], new RegExp(`fulfilment: handle for payment ${created.payment_id} \\(action fulfil, key ${created.payment_id}:2\\) took 1\\.\\d s, `
      + 'past its lease \\(leaseSecs 1\\): .*its lease was not renewed while handle ran \\(the store failed'));
    db.close();
  });

  test('a custom store that answers outside its contract (intend, renew, claim): the member named, never a key made of its answer', async () => {
    const db = new Database(join(tempDir(), 'misanswered.sqlite'));
    const inner = rx.sqliteStore(db);
    const answers = { intend: undefined, renew: undefined, claim: undefined };
    const answering = (member) => async (...args) => {
      const real = await inner[member](...args);
      return answers[member] === undefined ? real : answers[member](real);
    };
    const store = { ...inner, intend: answering('intend'), renew: answering('renew'), claim: answering('claim') };
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(store, { log }));
    const world = scriptedWorld(receiver);
    const created = await paidOrder(receiver, world, 'misanswered');
    const keys = [];
    const handle = async ({ idempotencyKey }) => {
      keys.push(idempotencyKey);
      await sleep(600); // past the first renewal, at a third of leaseSecs
    };

    // intend resolving nothing (a store that forgot to return its row's version).
    answers.intend = () => undefined;
    const unkeyed = await receiver.fulfil({ confirm: world.confirm, handle, leaseSecs: 1 });
    assert.deepEqual(unkeyed.outcomes, { retry: 1 });
    assert.deepEqual(keys, [], 'handle is not called with a key made of the answer');
    assert.ok(log.lines.some((l) => l.includes(`pass_failed for payment ${created.payment_id}`)
      && l.includes("the store's intend resolved a value of type undefined, not a version's decimal digits or null")), log.lines.join('\n'));

    // renew resolving 1 (a row count) while handle runs: said once, and not asked again.
    answers.intend = undefined;
    let renewals = 0;
    answers.renew = () => {
      renewals += 1;
      return 1;
    };
    await db.prepare("UPDATE cryptopay_fulfilment SET next_attempt_at = '2000-01-01T00:00:00.000Z'").run();
    const misrenewed = await receiver.fulfil({ confirm: world.confirm, handle, leaseSecs: 1 });
    assert.deepEqual(misrenewed.outcomes, { fulfil: 1 });
    assert.deepEqual(keys, [`${created.payment_id}:2`]);
    assert.equal(renewals, 1);
    const renewLines = log.lines.filter((l) => /store's renew resolved 1, not true or false/.test(l));
    assert.equal(renewLines.length, 1, log.lines.join('\n'));
    assert.match(renewLines[0], new RegExp(`handle for payment ${created.payment_id} \\(action fulfil, key ${created.payment_id}:2\\)`));

    // claim resolving its rows instead of their ids: the pass fails with the member named (a
    // copy of the error, as for every store failure: receiver.mjs, masking).
    answers.claim = (ids) => ({ rows: ids });
    await assert.rejects(receiver.fulfil({ confirm: world.confirm, handle, leaseSecs: 1 }),
      (e) => e.name === 'TypeError' && /the store's claim resolved a value of type object, not an array of the payment ids it leased/.test(e.message));
    db.close();
  });

  test('a handle whose lease was taken away while it ran (an order recorded meanwhile marks the payment): lease_lost, handled again at the next pass', async () => {
    const { db, log, receiver } = open({});
    const world = scriptedWorld(receiver);
    const created = world.create({ orderRef: 'marked' });
    await world.change(created.payment_id, { status: 'paid' });
    const calls = [];
    let marking = true;
    const handle = async ({ action, idempotencyKey }) => {
      calls.push([action, idempotencyKey]);
      // The order recorded while the first call runs (the /checkout route answering late).
      if (marking) {
        marking = false;
        await receiver.recordCreated(created);
      }
    };
    const first = await receiver.fulfil({ confirm: world.confirm, handle, leaseSecs: 300 });
    assert.deepEqual(first.outcomes, { lease_lost: 1 });
    // Handled again at the next pass: the pass that lost the lease gave the marked one back
    // (sql/*.sql: an order recorded marks it; `release` frees it), not in leaseSecs.
    const again = await receiver.fulfil({ confirm: world.confirm, handle, leaseSecs: 300 });
    assert.deepEqual(again.outcomes, { fulfil: 1 });
    assert.equal(calls.length, 2);
    assert.equal(calls[1][0], 'fulfil');
    assert.ok(!log.lines.some((l) => /past (its lease|leaseSecs)/.test(l)), log.lines.join('\n'));
    db.close();
  });

  test('a pass the store failed mid-way, and again at giving its batch back: the next pass gives it back, not the leases\' end', async () => {
    const db = new Database(join(tempDir(), 'owed.sqlite'));
    const inner = rx.sqliteStore(db);
    let down = false;
    const failing = (name) => async (...args) => {
      if (down) throw new Error('connect ECONNREFUSED /tmp/.s.PGSQL.5432');
      return inner[name](...args);
    };
    const store = { ...inner, load: failing('load'), retry: failing('retry'), release: failing('release') };
    const receiver = rx.createReceiver(receiverOptions(store, { log: captureLog() }));
    const world = scriptedWorld(receiver);
    for (let i = 0; i < 3; i += 1) {
      await paidOrder(receiver, world, `owed-${i}`);
    }
    const h = recorder();
    down = true; // after the claim: the first load fails, then setting it aside, then the release
    await assert.rejects(receiver.fulfil({ confirm: world.confirm, handle: h.handle }), /ECONNREFUSED/);
    down = false;
    // The default lease is 300 s: without the give-back, nothing would be due again until then.
    const next = await receiver.fulfil({ confirm: world.confirm, handle: h.handle });
    assert.deepEqual([next.claimed, next.outcomes], [3, { fulfil: 3 }]);
    assert.equal(h.calls.length, 3);
    db.close();
  });

  test('the service down for a pass: three lines with the cause, then one counting the rest; every retry in onOutcome', async () => {
    const { db, log, records, receiver } = open({});
    const world = scriptedWorld(receiver);
    for (let i = 0; i < 5; i += 1) {
      await paidOrder(receiver, world, `down-${i}`);
    }
    const down = async () => { throw new Error('internal_error: the service answered 500'); };
    const result = await receiver.fulfil({ confirm: down, handle: async () => {} });
    assert.deepEqual(result.outcomes, { retry: 5 });
    const lines = log.lines.filter((l) => /confirm_failed/.test(l));
    assert.equal(lines.length, 4, lines.join('\n'));
    assert.ok(lines.slice(0, 3).every((l) => /confirm_failed for payment pay_\w+ \(attempt 1; tried again in 1 s\): .*the service answered 500/.test(l)), lines.join('\n'));
    assert.match(lines[3], /fulfilment: 2 more payments retried with confirm_failed for the same cause in this pass \(the first 3 are logged above with it; onOutcome has each payment\)/);
    assert.equal(records.filter((r) => r.kind === 'fulfilment' && r.code === 'confirm_failed').length, 5);
    // A cause of its own, a line of its own: five handlers failing each for its order's reason.
    const own = captureLog();
    const { db: db2, receiver: each } = open({ log: own });
    const world2 = scriptedWorld(each);
    for (let i = 0; i < 5; i += 1) {
      const created = world2.create({ orderRef: `own-${i}` });
      await each.recordCreated(created);
      await world2.change(created.payment_id, { status: 'paid' });
    }
    await each.fulfil({ confirm: world2.confirm, handle: async ({ order }) => { throw new Error(`carrier refused ${order.orderRef}`); } });
    const causes = own.lines.filter((l) => /handle_failed/.test(l));
    assert.deepEqual(causes.map((l) => /carrier refused (own-\d)/.exec(l)?.[1]).sort(), ['own-0', 'own-1', 'own-2', 'own-3', 'own-4']);
    db2.close();
    db.close();
  });

  test('a pass that fails as a whole is counted in failedPasses, and startFulfilment logs the fix when no retry can get past it', async () => {
    const { db, log, receiver: base } = open({});
    await base.ready();
    const readOnly = Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' });
    const store = rx.sqliteStore(db);
    const failing = rx.createReceiver(receiverOptions({ ...store, claim: async () => { throw readOnly; } }, { log }));
    const world = scriptedWorld(failing);
    await assert.rejects(failing.fulfil({ confirm: world.confirm, handle: async () => {} }), /readonly database/);
    assert.deepEqual([failing.counters().fulfilment.failedPasses, failing.counters().fulfilment.passes], [1, 0]);
    const loop = failing.startFulfilment({ confirm: world.confirm, handle: async () => {}, intervalMs: 20 });
    for (let i = 0; i < 200 && failing.counters().fulfilment.failedPasses < 9; i += 1) await sleep(10);
    await loop.stop();
    assert.ok(failing.counters().fulfilment.failedPasses >= 9, JSON.stringify(failing.counters().fulfilment));
    assert.match(log.lines.join('\n'), /fulfilment: a pass failed \(SQLITE_READONLY: attempt to write a readonly database\); the next one in 20 ms, but every pass will fail the same way until this is fixed: the SQLite database became read-only .*restore write access/);
    // A line every 20 ms would bury the log: five a minute, the fifth saying the rest are counted.
    const said = log.lines.filter((line) => line.includes('a pass failed'));
    assert.equal(said.length, 5, said.join('\n'));
    assert.match(said[4], /more like it in the next 60 s are counted, not said$/);
    db.close();
  });

  test('fulfil and startFulfilment: options checked; a loop that stops; a store without the loop\'s tables refused', async () => {
    const { db, receiver } = open({ log: false });
    const world = scriptedWorld(receiver);
    const base = { confirm: world.confirm, handle: async () => {} };
    for (const [options, pattern] of [
      [{ handle: base.handle }, /needs confirm/],
      [{ ...base, batch: 0 }, /batch is an integer from 1 to 1000/],
      [{ ...base, leaseSecs: 1.5 }, /leaseSecs is an integer/],
      [{ ...base, policy: 'default' }, /policy is a function/],
      [{ ...base, lease: 5 }, /unknown option/],
    ]) {
      await assert.rejects(receiver.fulfil(options), (e) => e instanceof pkg.CryptoPayError && e.code === 'invalid_argument' && pattern.test(e.message));
    }
    assert.throws(() => receiver.startFulfilment(base), /intervalMs is an integer/);
    // A mistyped intervalMs is an unknown option, with the name meant (never echoed itself).
    assert.throws(() => receiver.startFulfilment({ ...base, intervalMS: 5000 }), /unknown option .*did you mean "intervalMs"\?/);
    const h = recorder();
    const created = await paidOrder(receiver, world, 'loop');
    const loop = receiver.startFulfilment({ ...base, handle: h.handle, intervalMs: 50 });
    for (let i = 0; i < 100 && h.calls.length === 0; i += 1) await sleep(20);
    await loop.stop();
    assert.deepEqual(h.done(), [[created.payment_id, 'fulfil', `${created.payment_id}:2`]]);
    const bare = rx.createReceiver(receiverOptions({ ready: async () => {}, record: async () => 'apply', quarantine: async () => {} }, { log: false }));
    await assert.rejects(bare.fulfil(base), /needs a store that holds the merchant loop's tables/);
    db.close();
  });
});
