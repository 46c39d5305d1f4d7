// The receiver's HTTP answers, through each face (node(req, res) behind a real node:http
// server and Express, fetch(Request), handle()), on a real SQLite file: what is answered, what
// is stored, and that no answer or log line carries a message, a secret or the body.

import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, mock, test } from 'node:test';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  Database, ROOT, SECRET, SIG_HEADER, TS_HEADER, captureLog, createLibsqlClient, eventBody, exportedFile, nowSecs, pg, pkg, receiverOptions, rx,
  signedHeaders, sqliteRows, tempDir,
} from './lib/helpers.mjs';
import { send } from './lib/example.mjs';

const express = createRequire(join(ROOT, 'package.json'))('express');

function listen(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve({
      url: `http://127.0.0.1:${server.address().port}/webhook`,
      close: () => new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
    }));
  });
}

// A connection of its own per request (agent: false): the server is closed between suites.
const post = (url, body, headers = {}, { method = 'POST', chunked = false } = {}) => send(url, body, { headers, method, chunked, agent: false });
const deliver = (url, body, opts) => post(url, body, signedHeaders(body, opts));
let n = 0;
const next = (extra = {}) => {
  n += 1;
  return eventBody({ eventId: `evt_ans_${n}`, paymentId: `pay_ans_${n}`, statusVersion: 1, ...extra });
};

// Every answer body is one of these shapes: no message, no secret, no byte of the delivery.
const ANSWER_SHAPE = /^\{"(?:received":true,"(?:decision":"(?:apply|duplicate|stale)"|quarantined":"[a-z_]+")|error":"[a-z_]+")\}$/;

describe('receiver answers (node:http, SQLite file)', () => {
  const dir = tempDir();
  const db = new Database(join(dir, 'answers.sqlite'));
  const log = captureLog();
  let server;
  const answers = [];
  const call = async (promise) => {
    const response = await promise;
    answers.push(response);
    return response;
  };

  before(async () => {
    const receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log, maxBodyBytes: 64 * 1024 }));
    await receiver.ready();
    server = await listen(receiver.node);
  });
  after(async () => {
    await server.close();
    db.close();
  });

  test('apply, then the retry is a duplicate, an older version stale, a newer one applied (after the commit)', async () => {
    const v5 = eventBody({ eventId: 'evt_a', paymentId: 'pay_a', statusVersion: 5, status: 'confirming' });
    const first = await call(deliver(server.url, v5));
    assert.deepEqual([first.status, first.text], [200, '{"received":true,"decision":"apply"}']);
    assert.equal(first.headers['content-type'], 'application/json');
    assert.equal(first.headers['cache-control'], 'no-store');
    const retry = await call(deliver(server.url, v5, { timestamp: nowSecs() - 7 }));
    assert.deepEqual([retry.status, retry.json], [200, { received: true, decision: 'duplicate' }]);
    const v4 = await call(deliver(server.url, eventBody({ eventId: 'evt_b', paymentId: 'pay_a', statusVersion: 4 })));
    assert.deepEqual(v4.json, { received: true, decision: 'stale' });
    const equal = await call(deliver(server.url, eventBody({ eventId: 'evt_c', paymentId: 'pay_a', statusVersion: 5 })));
    assert.deepEqual(equal.json, { received: true, decision: 'stale' });
    const big = await call(deliver(server.url, eventBody({ eventId: 'evt_d', paymentId: 'pay_a', statusVersion: '9007199254740993' })));
    assert.deepEqual(big.json, { received: true, decision: 'apply' });
    const smaller = await call(deliver(server.url, eventBody({ eventId: 'evt_e', paymentId: 'pay_a', statusVersion: '9007199254740992' })));
    assert.deepEqual(smaller.json, { received: true, decision: 'stale' });

    const rows = sqliteRows(db);
    const a = rows.payments.find((p) => p.payment_id === 'pay_a');
    assert.deepEqual([a.status_version, a.event_id], ['9007199254740993', 'evt_d']);
    assert.deepEqual(rows.events.filter((e) => e.payment_id === 'pay_a').map((e) => [e.event_id, e.decision]),
      [['evt_a', 'apply'], ['evt_b', 'stale'], ['evt_c', 'stale'], ['evt_d', 'apply'], ['evt_e', 'stale']]);
    // The verified bytes, byte for byte (non-ASCII included).
    assert.deepEqual(Buffer.from(rows.events[0].body), v5);
    assert.equal(JSON.parse(a.data).payment_id, 'pay_a');
  });

  test('deliveries that fail verification are 400 with the code, and leave no row', async () => {
    const before = sqliteRows(db);
    const body = next();
    const cases = [
      [deliver(server.url, body, { secret: 'whsec_someone_else' }), 'signature_mismatch'],
      [deliver(server.url, body, { timestamp: nowSecs() - 3600 }), 'timestamp_too_old'],
      [post(server.url, body, { [TS_HEADER]: String(nowSecs()) }), 'signature_missing'],
      [post(server.url, body, {}), 'timestamp_missing'],
      [post(server.url, body, { ...signedHeaders(body), [SIG_HEADER]: 'v1=zz' }), 'signature_malformed'],
      [post(server.url, Buffer.concat([body, Buffer.from(' ')]), signedHeaders(body)), 'signature_mismatch'],
    ];
    for (const [promise, code] of cases) {
      const response = await call(promise);
      assert.deepEqual([response.status, response.json], [400, { error: code }]);
    }
    // Authentic and from the future: no replay is ahead of the clock, so the clocks disagree:
    // 500, which the service retries once they agree.
    const ahead = await call(deliver(server.url, body, { timestamp: nowSecs() + 3600 }));
    assert.deepEqual([ahead.status, ahead.json], [500, { error: 'timestamp_in_future' }]);
    // A header sent twice (rawHeaders keeps them apart).
    const headers = signedHeaders(body);
    const twice = await call(post(server.url, body, { [TS_HEADER]: headers[TS_HEADER], [SIG_HEADER]: [headers[SIG_HEADER], headers[SIG_HEADER]] }));
    assert.deepEqual([twice.status, twice.json], [400, { error: 'header_duplicated' }]);
    assert.deepEqual(sqliteRows(db), before);
  });

  test('authentic deliveries that are not readable events are quarantined (200), never applied', async () => {
    const cases = [
      ['event_not_json', Buffer.from('not json at all')],
      ['event_malformed', Buffer.from('{"schema_version":"1","event_id":"evt_q1","event_type":"payment.updated","occurred_at":"x","data":{}}')],
      ['event_duplicate_key', Buffer.from('{"schema_version":"1","event_id":"evt_q2","event_id":"evt_q3","event_type":"payment.updated","occurred_at":"x","data":{"payment_id":"pay_q","status_version":1}}')],
      ['event_type_unknown', next({ eventType: 'payment.created' })],
      ['status_version_invalid', Buffer.from('{"schema_version":"1","event_id":"evt_q4","event_type":"payment.updated","occurred_at":"x","data":{"payment_id":"pay_q","status_version":-1}}')],
    ];
    const before = sqliteRows(db);
    for (const [code, body] of cases) {
      const response = await call(deliver(server.url, body));
      assert.deepEqual([response.status, response.text], [200, `{"received":true,"quarantined":"${code}"}`]);
    }
    const rows = sqliteRows(db);
    assert.deepEqual(rows.events, before.events);
    assert.deepEqual(rows.payments, before.payments);
    const added = rows.quarantine.slice(before.quarantine.length);
    assert.deepEqual(added.map((q) => q.code), cases.map(([code]) => code));
    added.forEach((q, i) => assert.deepEqual(Buffer.from(q.body), cases[i][1]));
    assert.match(added[0].received_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // The same bodies forged: 400, nothing quarantined.
    for (const [, body] of cases) {
      const forged = await call(deliver(server.url, body, { secret: 'whsec_forger' }));
      assert.deepEqual([forged.status, forged.json], [400, { error: 'signature_mismatch' }]);
    }
    assert.equal(sqliteRows(db).quarantine.length, rows.quarantine.length);
  });

  test('405 for any method but POST, with Allow: POST', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const response = await call(post(server.url, undefined, {}, { method }));
      assert.deepEqual([response.status, response.json, response.headers.allow], [405, { error: 'method_not_allowed' }, 'POST']);
    }
  });

  test('413 for a body over maxBodyBytes, declared or streamed; one at the limit is read', async () => {
    const huge = Buffer.alloc(64 * 1024 + 1, 0x20);
    const declared = await call(post(server.url, huge, signedHeaders(huge)));
    assert.deepEqual([declared.status, declared.json], [413, { error: 'body_too_large' }]);
    const streamed = await call(post(server.url, huge, signedHeaders(huge), { chunked: true }));
    assert.deepEqual([streamed.status, streamed.json], [413, { error: 'body_too_large' }]);
    const far = Buffer.alloc(2 * 1024 * 1024, 0x20); // past 16 times the limit: answered, then closed
    const cut = await call(post(server.url, far, signedHeaders(far)));
    assert.deepEqual([cut.status, cut.headers.connection], [413, 'close']);
    // Exactly at the limit: read in full, verified (a quarantined non-JSON body here).
    const atLimit = Buffer.alloc(64 * 1024, 0x61);
    const read = await call(deliver(server.url, atLimit));
    assert.deepEqual([read.status, read.json], [200, { received: true, quarantined: 'event_not_json' }]);
  });

  test('no answer carries a message, a secret or a byte of a delivery; logs carry neither secret nor body', () => {
    assert.ok(answers.length > 20);
    for (const { text } of answers) {
      assert.match(text, ANSWER_SHAPE);
      assert.ok(!text.includes(SECRET));
    }
    const logged = log.lines.join('\n');
    assert.ok(log.lines.some((l) => l.startsWith('warn cryptopay-verify/receiver: rejected: signature_mismatch')), logged);
    // From the first mismatch: the service's own delivery answered 400 is lost until replayed.
    assert.ok(log.lines.some((l) => /rejected: signature_mismatch: .*; if the service sent it, the Secret configured is not the one it signs with \(during a rotation: the new Secret is pending until its activation, then active with the old one retiring; this receiver holds one Secret, no pending or retiring one: receiverOptionsFromEnv reads them from CRYPTOPAY_WEBHOOK_SECRET_PENDING and _RETIRING, a secrets option given as one string holds that one alone\), and a 400 is final for the service .*queue a replay/.test(l)), logged);
    assert.ok(log.lines.some((l) => l.includes('quarantined an authentic delivery that is not a readable event: event_type_unknown')), logged);
    for (const secret of [SECRET, 'whsec_someone_else', 'whsec_forger']) assert.ok(!logged.includes(secret));
    for (const fragment of ['evt_', 'pay_', 'Müller', 'not json at all']) assert.ok(!logged.includes(fragment), fragment);
  });
});

describe('a delivery header not found, where the configured name holds an underscore', () => {
  test('400 timestamp_missing, and the log names the proxy that may have dropped it (nginx)', async () => {
    const log = captureLog();
    const receiver = rx.createReceiver({ ...receiverOptions(rx.memoryStore(), { log }), timestampHeader: 'X_Webhook_Timestamp' });
    const body = eventBody({ eventId: 'evt_nginx', paymentId: 'pay_nginx', statusVersion: 1 });
    const { [TS_HEADER]: dropped, ...rest } = signedHeaders(body); // what nginx forwards
    assert.ok(dropped);
    const answer = await receiver.handle({ body, headers: rest });
    assert.deepEqual([answer.status, answer.body], [400, '{"error":"timestamp_missing"}']);
    assert.match(log.lines.join('\n'), /rejected: timestamp_missing: .*; or a proxy in front dropped X_Webhook_Timestamp: nginx drops a header whose name holds an underscore unless underscores_in_headers is on; a 400 is final for the service/);
    // With names of letters and dashes, no such guess.
    const plain = captureLog();
    const other = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: plain }));
    assert.equal((await other.handle({ body, headers: {} })).status, 400);
    assert.ok(!plain.lines.join('\n').includes('underscores_in_headers'), plain.lines.join('\n'));
  });
});

describe('a framework that parsed the body first: 500 body_not_raw (the service retries while it is fixed)', () => {
  test('Express: express.json() before receiver.node; express.raw() before it is fine', async () => {
    const log = captureLog();
    const store = rx.memoryStore();
    const receiver = rx.createReceiver(receiverOptions(store, { log }));
    const app = express();
    app.post('/raw/webhook', express.raw({ type: 'application/json' }), receiver.node);
    app.post('/plain/webhook', receiver.node);
    app.use(express.json());
    app.post('/webhook', receiver.node);
    const server = await listen(app);
    try {
      const body = eventBody({ eventId: 'evt_parsed', paymentId: 'pay_parsed', statusVersion: 1 });
      const parsed = await deliver(server.url, body);
      assert.deepEqual([parsed.status, parsed.text], [500, '{"error":"body_not_raw"}']);
      // The fixes that work with an app-wide parser in place (a route-level express.raw() does not).
      assert.ok(log.lines.some((l) => l.startsWith('error cryptopay-verify/receiver: body_not_raw: req.body is an object')
        && l.includes("Ahead of the app-wide app.use(express.json()), mount app.use('/webhook', express.raw(")
        && l.includes('or register the webhook route before it')), log.lines.join('\n'));
      assert.equal(store.events.size, 0);
      const raw = await deliver(server.url.replace('/webhook', '/raw/webhook'), body);
      assert.deepEqual([raw.status, raw.json], [200, { received: true, decision: 'apply' }]);
      const plain = await deliver(server.url.replace('/webhook', '/plain/webhook'), body);
      assert.deepEqual([plain.status, plain.json], [200, { received: true, decision: 'duplicate' }]);
    } finally {
      await server.close();
    }
    // The logged fix, as written: express.raw mounted on the path ahead of the app-wide parser,
    // which then never sees the webhook's body (a 200 KB event: express.json() alone, at its
    // 100kb default, would answer it 413, which the service never retries).
    const fixed = express();
    fixed.use('/webhook', express.raw({ type: () => true, limit: '4mb' }));
    fixed.use(express.json());
    fixed.post('/webhook', receiver.node);
    const fixedServer = await listen(fixed);
    try {
      const large = Buffer.from(eventBody({ eventId: 'evt_parsed_large', paymentId: 'pay_parsed_large', statusVersion: 1, note: 'x'.repeat(200_000) }));
      const answered = await deliver(fixedServer.url, large);
      assert.deepEqual([answered.status, answered.json], [200, { received: true, decision: 'apply' }]);
    } finally {
      await fixedServer.close();
    }
  });

  test('Express with receiver.fetch or receiver.handle mounted by mistake: a 500 naming receiver.node, not a hang', async () => {
    const log = captureLog();
    const store = rx.memoryStore();
    const receiver = rx.createReceiver(receiverOptions(store, { log }));
    const lazy = rx.lazyReceiver(() => receiver, { log });
    const app = express();
    app.post('/fetch/webhook', receiver.fetch);
    app.post('/handle/webhook', receiver.handle);
    app.post('/lazy/webhook', lazy.handle);
    // A lazy receiver whose store is down answers its 503 through the response too.
    const down = rx.lazyReceiver(async () => { throw new Error('the store is down (test)'); }, { log: false });
    app.post('/down-fetch/webhook', down.fetch);
    app.post('/down-handle/webhook', down.handle);
    const server = await listen(app);
    try {
      const body = eventBody({ eventId: 'evt_misplaced', paymentId: 'pay_misplaced', statusVersion: 1 });
      for (const face of ['fetch', 'handle', 'lazy']) {
        // Express ignores what a handler returns: without the answer written, this would wait
        // out the signal's timeout.
        const answered = await deliver(server.url.replace('/webhook', `/${face}/webhook`), body);
        assert.deepEqual([answered.status, answered.text], [500, '{"error":"invalid_argument"}'], face);
      }
      for (const face of ['down-fetch', 'down-handle']) {
        const answered = await deliver(server.url.replace('/webhook', `/${face}/webhook`), body);
        assert.deepEqual([answered.status, answered.text], [503, '{"error":"store_unavailable"}'], face);
      }
      const said = log.lines.filter((l) => l.includes("was given Node's IncomingMessage: in node:http or Express use receiver.node(req, res)"));
      assert.ok(said.some((l) => l.includes('fetch(request)')) && said.some((l) => l.includes('handle(delivery)')), log.lines.join('\n'));
      assert.equal(store.events.size, 0);
    } finally {
      await server.close();
    }
    // Your own code calling handle(req) after express.raw() (req holds the body and the
    // headers) and sending the answer: recorded, as before.
    const own = express();
    own.post('/webhook', express.raw({ type: () => true }), async (req, res) => {
      const answer = await receiver.handle(req);
      res.status(answer.status).set(answer.headers).send(answer.body);
    });
    const ownServer = await listen(own);
    try {
      const answered = await deliver(ownServer.url, eventBody({ eventId: 'evt_placed', paymentId: 'pay_placed', statusVersion: 1 }));
      assert.deepEqual([answered.status, answered.json], [200, { received: true, decision: 'apply' }]);
    } finally {
      await ownServer.close();
    }
  });

  test('a parser that kept the bytes in req.rawBody (Cloud Functions, NestJS rawBody: true, a verify callback): node() verifies those, and says once that the parser\'s limit refuses larger events', async () => {
    const store = rx.memoryStore();
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(store, { log }));
    const app = express();
    app.set('env', 'test'); // Express's own 413 below, not printed to the test's output
    app.use(express.json({ verify: (req, res, buf) => { req.rawBody = buf; } }));
    app.post('/webhook', receiver.node);
    const server = await listen(app);
    try {
      const body = eventBody({ eventId: 'evt_rawbody', paymentId: 'pay_rawbody', statusVersion: 1 });
      const response = await deliver(server.url, body);
      assert.deepEqual([response.status, response.json], [200, { received: true, decision: 'apply' }]);
      // The bytes as received, not the parsed object re-serialized.
      const changed = Buffer.from(body.toString('utf8').replace('pay_rawbody', 'pay_rawbodz'));
      assert.notDeepEqual(changed, body);
      const forged = await post(server.url, changed, signedHeaders(body));
      assert.deepEqual([forged.status, forged.json], [400, { error: 'signature_mismatch' }]);
      assert.equal(store.events.size, 1);
      // What the line warns of: express.json()'s own 100kb limit answers an authentic event
      // above it 413 (never retried) before the receiver runs.
      const large = eventBody({ eventId: 'evt_rawbody_large', paymentId: 'pay_rawbody_large', statusVersion: 1, note: 'x'.repeat(150 * 1024) });
      assert.equal((await deliver(server.url, large)).status, 413);
      assert.equal(store.events.size, 1);
      const warned = log.lines.filter((line) => line.includes('req.rawBody'));
      assert.equal(warned.length, 1, log.lines.join('\n'));
      assert.match(warned[0], /^warn cryptopay-verify\/receiver: the body was read from req\.rawBody, kept by a body parser that ran first .*answers a body over its own limit 413 before the receiver runs.*give the parser a limit of at least maxBodyBytes \(\d+ bytes\)/);
    } finally {
      await server.close();
    }
    // The tutorials' verify callback keeps buf.toString(): taken as its UTF-8 bytes.
    const textApp = express();
    textApp.use(express.json({ verify: (req, res, buf) => { req.rawBody = buf.toString('utf8'); } }));
    textApp.post('/webhook', receiver.node);
    const textServer = await listen(textApp);
    try {
      const body = eventBody({ eventId: 'evt_rawtext', paymentId: 'pay_rawtext', statusVersion: 1 });
      const response = await deliver(textServer.url, body);
      assert.deepEqual([response.status, response.json], [200, { received: true, decision: 'apply' }]);
    } finally {
      await textServer.close();
    }
  });

  test('handle() given a parsed object, fetch() given a Request whose body was already read', async () => {
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log }));
    const body = eventBody({ eventId: 'evt_h', paymentId: 'pay_h', statusVersion: 1 });
    const answer = await receiver.handle({ body: JSON.parse(body), headers: signedHeaders(body) });
    assert.deepEqual([answer.status, answer.body], [500, '{"error":"body_not_raw"}']);
    // The body is looked at before the headers (the order of checks): a parsed body with a
    // header missing or repeated too is still the retried 500, not a final 400.
    for (const [headers, what] of [[{}, 'none'], [{ ...signedHeaders(body), [TS_HEADER]: undefined }, 'no timestamp'],
      [[...Object.entries(signedHeaders(body)), [SIG_HEADER, 'v1=00']], 'a repeated signature']]) {
      for (const parsed of [JSON.parse(body), null, undefined]) {
        const late = await receiver.handle({ body: parsed, headers });
        assert.deepEqual([late.status, late.body], [500, '{"error":"body_not_raw"}'], `${what}, ${parsed === null ? 'null' : typeof parsed}`);
      }
    }
    // Ten deliveries met the misconfiguration: its line said five times a minute, not ten.
    assert.equal(log.lines.filter((line) => line.includes('body_not_raw')).length, 5, log.lines.join('\n'));
    assert.match(log.lines.at(-1), /more like it in the next 60 s are counted, not said$/);
    // A raw body with a header missing is the header's 400, as before.
    const missing = await receiver.handle({ body, headers: {} });
    assert.deepEqual([missing.status, missing.body], [400, '{"error":"timestamp_missing"}']);
    const request = new Request('http://receiver.test/webhook', { method: 'POST', body, headers: signedHeaders(body) });
    await request.json();
    const response = await receiver.fetch(request);
    assert.deepEqual([response.status, await response.text()], [500, '{"error":"body_not_raw"}']);
    // The log names what happened and a fix that works (not "await request.arrayBuffer()",
    // which a used body refuses too).
    assert.match(log.lines.at(-1), /body_not_raw: the Request body was already read \(await request\.json\(\), c\.req\.json\(\), in Nitro 3 readBody\(event\), in Elysia a handler, hook, derive or plugin that names body, \.\.\.\): pass the untouched Request to receiver\.fetch/);
    // Every request meets it: said five times a minute, then counted.
    for (let i = 0; i < 6; i += 1) {
      const used = new Request('http://receiver.test/webhook', { method: 'POST', body, headers: signedHeaders(body) });
      await used.text();
      assert.equal((await receiver.fetch(used)).status, 500);
    }
    assert.equal(log.lines.filter((line) => line.includes('the Request body was already read')).length, 5, log.lines.join('\n'));
  });

  test('no body passed for a request whose whole headers say it had none (an empty POST: Fastify runs no parser): an empty body, 400', async () => {
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log }));
    const body = eventBody({ eventId: 'evt_empty', paymentId: 'pay_empty', statusVersion: 1 });
    const signed = signedHeaders(body);
    for (const headers of [{ host: 'shop.example' }, { host: 'shop.example', 'content-length': '0', ...signed },
      ['Host', 'shop.example', ...Object.entries(signed).flat()], new Headers({ host: 'shop.example', ...signed })]) {
      const answer = await receiver.handle({ body: undefined, headers });
      assert.equal(answer.status, 400, JSON.stringify(headers));
      assert.notEqual(JSON.parse(answer.body).error, 'body_not_raw');
    }
    // A body there was (a length, a type, chunks), or headers picked by hand: the body a
    // framework took, 500 body_not_raw as before.
    for (const extra of [{ 'content-length': String(body.length) }, { 'content-type': 'application/json' }, { 'transfer-encoding': 'chunked' }]) {
      const answer = await receiver.handle({ body: undefined, headers: { host: 'shop.example', ...signed, ...extra } });
      assert.deepEqual([answer.status, answer.body], [500, '{"error":"body_not_raw"}'], JSON.stringify(extra));
    }
    const picked = await receiver.handle({ body: undefined, headers: signed });
    assert.deepEqual([picked.status, picked.body], [500, '{"error":"body_not_raw"}']);
  });

  test('node() given a request whose stream a framework read, leaving no req.body (Fastify)', async () => {
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log }));
    const body = eventBody({ eventId: 'evt_n', paymentId: 'pay_n', statusVersion: 1 });
    const server = http.createServer(async (req, res) => {
      for await (const chunk of req) void chunk; // a framework's own body parser, before the handler
      await receiver.node(req, res);
    });
    await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
    try {
      const { port } = server.address();
      const response = await fetch(`http://127.0.0.1:${port}/webhook`, { method: 'POST', body, headers: signedHeaders(body) });
      assert.deepEqual([response.status, await response.text()], [500, '{"error":"body_not_raw"}']);
      assert.match(log.lines.at(-1), /body_not_raw: the request stream was already read and req\.body is undefined .*: pass the raw bytes to receiver\.handle\(\{ body, headers \}\) instead/);
    } finally {
      await new Promise((resolve) => { server.close(resolve); });
    }
  });
});

describe('receiver.fetch (Fetch API)', () => {
  test('the same answers through Request and Response', async () => {
    const store = rx.memoryStore();
    const receiver = rx.createReceiver(receiverOptions(store, { log: false, maxBodyBytes: 1024 }));
    const request = (body, headers, method = 'POST') => new Request('http://receiver.test/webhook', { method, body, headers });
    const body = eventBody({ eventId: 'evt_f', paymentId: 'pay_f', statusVersion: '18446744073709551617' });
    const ok = await receiver.fetch(request(body, signedHeaders(body)));
    assert.deepEqual([ok.status, ok.headers.get('content-type'), await ok.json()], [200, 'application/json', { received: true, decision: 'apply' }]);
    assert.equal(store.payments.get('pay_f').status_version, '18446744073709551617');
    const again = await receiver.fetch(request(body, signedHeaders(body)));
    assert.deepEqual(await again.json(), { received: true, decision: 'duplicate' });
    const forged = await receiver.fetch(request(body, signedHeaders(body, { secret: 'whsec_forger' })));
    assert.deepEqual([forged.status, await forged.json()], [400, { error: 'signature_mismatch' }]);
    const get = await receiver.fetch(new Request('http://receiver.test/webhook'));
    assert.deepEqual([get.status, get.headers.get('allow'), await get.json()], [405, 'POST', { error: 'method_not_allowed' }]);
    // Over the limit, with no content-length declared (a stream).
    const big = new Uint8Array(4096);
    const stream = new ReadableStream({ start(c) { c.enqueue(big); c.close(); } });
    const tooLarge = await receiver.fetch(new Request('http://receiver.test/webhook', { method: 'POST', body: stream, duplex: 'half', headers: signedHeaders(big) }));
    assert.deepEqual([tooLarge.status, await tooLarge.json()], [413, { error: 'body_too_large' }]);
    const quarantined = await receiver.fetch(request('[]', signedHeaders('[]')));
    assert.deepEqual(await quarantined.json(), { received: true, quarantined: 'event_malformed' });
    assert.deepEqual(store.quarantined.map((q) => q.code), ['event_malformed']);
  });

  test('secret rotation: the pending secret is accepted, a retiring one until its bound', async () => {
    const store = rx.memoryStore();
    const receiver = rx.createReceiver(receiverOptions(store, {
      log: false,
      secrets: [{ secret: SECRET, kind: 'active' }, { secret: 'whsec_next', kind: 'pending' }, { secret: 'whsec_old', kind: 'retiring', acceptUntilSecs: nowSecs() - 1 }],
    }));
    const body = eventBody({ eventId: 'evt_rot', paymentId: 'pay_rot', statusVersion: 1 });
    const pending = await receiver.handle({ body, headers: signedHeaders(body, { secret: 'whsec_next' }) });
    assert.deepEqual([pending.status, JSON.parse(pending.body)], [200, { received: true, decision: 'apply' }]);
    const retired = await receiver.handle({ body, headers: signedHeaders(body, { secret: 'whsec_old' }) });
    assert.deepEqual([retired.status, JSON.parse(retired.body)], [400, { error: 'signature_mismatch' }]);
  });

  test('fetch(): a body stream a framework ended at a limit of its own is a logged 500 body_not_raw; a sender gone is not', async () => {
    // STAND-IN for SvelteKit's adapter-node past BODY_SIZE_LIMIT: the body's stream errors with
    // its SvelteKitError (status 413) while the sender waits (tests/recipes run real frameworks).
    const log = captureLog();
    const outcomes = [];
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log, onOutcome: (o) => outcomes.push(o) }));
    const erroring = (failure) => new Request('http://receiver.test/webhook', {
      method: 'POST', duplex: 'half', headers: { 'content-type': 'application/json' },
      body: new ReadableStream({ start(c) { c.enqueue(new Uint8Array(1000)); c.error(failure); } }),
    });
    const limit = Object.assign(new Error('Content-length of 600000 exceeds limit of 524288 bytes.'), { status: 413 });
    const refused = await receiver.fetch(erroring(limit));
    assert.deepEqual([refused.status, await refused.json()], [500, { error: 'body_not_raw' }]);
    assert.match(log.lines.join('\n'), /^error cryptopay-verify\/receiver: rejected: body_not_raw: the request's body stream was ended by what runs in front of the receiver, at a limit of its own \(Error: Content-length of 600000 exceeds limit of 524288 bytes\.\), after \d+ bytes: raise that limit above the receiver's maxBodyBytes \(\d+ bytes\): SvelteKit's adapter-node reads BODY_SIZE_LIMIT/m);
    assert.deepEqual(outcomes.map((o) => [o.status, o.reason, o.code]), [[500, 'misconfigured', 'body_not_raw']]);
    // A stream that fails otherwise (the sender went away): nobody to answer, nothing said.
    const gone = await receiver.fetch(erroring(new TypeError('terminated')));
    assert.equal(gone.status, 500);
    assert.equal(outcomes.length, 1);
    assert.equal(log.lines.length, 1);
  });

  test('an id holding a line break, ESC or a bidirectional override is escaped in every line, the fulfilment\'s too', async () => {
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log }));
    const paymentId = 'pay_1\r\ncryptopay-verify/receiver: all deliveries verified \u001b[32mOK\u001b[0m \u009b\u202e\u2028';
    const body = eventBody({ eventId: 'evt_esc', paymentId, statusVersion: 1 });
    assert.equal((await receiver.handle({ body, headers: signedHeaders(body) })).status, 200);
    const pass = await receiver.fulfil({ confirm: async () => { throw new Error('down\r\nfor \u001b[1mmaintenance'); }, handle: async () => {} });
    assert.equal(pass.claimed, 1);
    const line = log.lines.find((l) => l.includes('confirm_failed'));
    assert.ok(line, log.lines.join('\n'));
    assert.ok(line.includes('pay_1\\u000d\\u000acryptopay-verify/receiver: all deliveries verified \\u001b[32mOK\\u001b[0m \\u009b\\u202e\\u2028'), line);
    for (const l of log.lines) assert.doesNotMatch(l, /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/, l);
  });

  test('a mismatch says a secret given as one string holds no pending or retiring one; a rotation set is not told so', async () => {
    // The rotation done by the variables alone, on a receiver given secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET:
    // from the activation on, every delivery is signed with a Secret it never read.
    const body = eventBody({ eventId: 'evt_rot_one', paymentId: 'pay_rot_one', statusVersion: 1 });
    const one = /this receiver holds one Secret, no pending or retiring one: receiverOptionsFromEnv reads them from CRYPTOPAY_WEBHOOK_SECRET_PENDING/;
    // Several named integrations, each one string: receiverOptionsFromEnv reads one integration's, so the line names the list.
    const each = /each of this receiver's 2 integrations holds one Secret, no pending or retiring one: during a rotation give that integration's secrets as a list with the pending or retiring one \(\{ secret, kind \}\)\)/;
    const rotation = [{ secret: SECRET, kind: 'active' }, { secret: 'whsec_next', kind: 'pending' }];
    for (const [secrets, said] of [[SECRET, one], [{ a: SECRET, b: 'whsec_shop_b_0123456789' }, each], [rotation, null], [{ a: rotation, b: 'whsec_shop_b_0123456789' }, null]]) {
      const log = captureLog();
      const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log, secrets }));
      const refused = await receiver.handle({ body, headers: signedHeaders(body, { secret: 'whsec_activated' }) });
      assert.deepEqual([refused.status, JSON.parse(refused.body)], [400, { error: 'signature_mismatch' }]);
      const line = log.lines.find((l) => l.includes('rejected: signature_mismatch'));
      assert.ok(line, log.lines.join('\n'));
      assert.equal(/holds one Secret/.test(line), said !== null, line);
      if (said !== null) assert.match(line, said);
      assert.ok(!/receiverOptionsFromEnv/.test(line) || said === one, line);
      assert.ok(!line.includes('whsec_activated') && !line.includes(SECRET), line);
    }
  });

  test('a retiring secret whose bound is already past is said at start (a duration given for a time)', () => {
    const log = captureLog();
    rx.createReceiver(receiverOptions(rx.memoryStore(), {
      log, secrets: [{ secret: SECRET, kind: 'active' }, { secret: 'whsec_old', kind: 'retiring', acceptUntilSecs: 7200 }],
    }));
    assert.ok(log.lines.some((l) => /^warn .*the retiring secret stopped verifying \d+ s ago: acceptUntilSecs is the Unix second the overlap ends, not a duration/.test(l)),
      log.lines.join('\n'));
    assert.ok(!log.lines.join('\n').includes('whsec_old'));
    const quiet = captureLog();
    rx.createReceiver(receiverOptions(rx.memoryStore(), {
      log: quiet, secrets: [{ secret: SECRET, kind: 'active' }, { secret: 'whsec_old', kind: 'retiring', acceptUntilSecs: nowSecs() + 3600 }],
    }));
    assert.ok(!quiet.lines.some((l) => /stopped verifying|keeps verifying/.test(l)), quiet.lines.join('\n'));
    // An end a digit too many ahead (a year and more): the old Secret would verify that long.
    const long = captureLog();
    rx.createReceiver(receiverOptions(rx.memoryStore(), {
      log: long, secrets: [{ secret: SECRET, kind: 'active' }, { secret: 'whsec_old', kind: 'retiring', acceptUntilSecs: nowSecs() * 10 }],
    }));
    assert.ok(long.lines.some((l) => /^warn .*the retiring secret keeps verifying for \d{5,} days: an overlap covers the deliveries in flight/.test(l)),
      long.lines.join('\n'));
    assert.ok(!long.lines.join('\n').includes('whsec_old'));
    // Made at a Worker's global scope, where the clock reads 0 until a request: no overlap is
    // judged by it (a right end would read as 20,000 days ahead).
    const unset = captureLog();
    rx.createReceiver(receiverOptions(rx.memoryStore(), {
      log: unset, nowSecs: () => 0,
      secrets: [{ secret: SECRET, kind: 'active' }, { secret: 'whsec_old', kind: 'retiring', acceptUntilSecs: nowSecs() + 3600 }],
    }));
    assert.ok(!unset.lines.some((l) => /stopped verifying|keeps verifying/.test(l)), unset.lines.join('\n'));
  });

  test('a pg.Pool made without a connection or query timeout is said at start, without its password', async () => {
    const url = 'postgres://shop:pool-canary-pw@127.0.0.1:1/shop';
    const warned = (config) => {
      const pool = new pg.Pool(config);
      const log = captureLog();
      rx.createReceiver(receiverOptions(rx.postgresStore(pool), { log }));
      pool.end();
      assert.ok(!log.lines.join('\n').includes('pool-canary-pw'), log.lines.join('\n'));
      return log.lines.filter((l) => l.includes('pg.Pool')).join('\n');
    };
    // What most tutorials write: both named, and what to give.
    assert.match(warned({ connectionString: url }),
      /^warn .*postgresStore: the pg\.Pool was made without connectionTimeoutMillis or query_timeout, so a database that stalls .* holds each delivery open .* give the pool connectionTimeoutMillis: 5_000 and query_timeout: 10_000/);
    assert.match(warned({ connectionString: url, query_timeout: 10_000 }), /made without connectionTimeoutMillis, so/);
    assert.match(warned({ connectionString: url, connectionTimeoutMillis: 5_000 }), /made without query_timeout, so/);
    // Given in the options (statement_timeout is the server's: it ends a stalled statement too),
    // or in the URL: nothing said.
    assert.equal(warned({ connectionString: url, connectionTimeoutMillis: 5_000, query_timeout: 10_000 }), '');
    assert.equal(warned({ connectionString: url, connectionTimeoutMillis: 5_000, statement_timeout: 10_000 }), '');
    assert.equal(warned({ connectionString: `${url}?connect_timeout=5&statement_timeout=10000` }), '');
    // Another client (postgres.js, Bun.SQL, Hyperdrive's per-statement one): not a pg.Pool, not judged.
    const log = captureLog();
    rx.createReceiver(receiverOptions(rx.postgresStore({ query: async () => ({ rows: [] }) }), { log }));
    assert.deepEqual(log.lines.filter((l) => l.includes('pg.Pool')), []);
  });

  test('the pending secret left set after an activation is said at start, with the fix', () => {
    const log = captureLog();
    rx.createReceiver(receiverOptions(rx.memoryStore(), {
      log,
      secrets: [{ secret: SECRET, kind: 'active' }, { secret: SECRET, kind: 'pending' }, { secret: 'whsec_old', kind: 'retiring', acceptUntilSecs: nowSecs() + 3600 }],
    }));
    const said = log.lines.join('\n');
    assert.match(said, /the pending secret equals the active one, after an activation \(a retiring secret is set\): .*remove the pending secret \(CRYPTOPAY_WEBHOOK_SECRET_PENDING/);
    assert.doesNotMatch(said, /will not verify/);
    // Before an activation (no retiring secret), the same pair is the old advice: one of them is wrong.
    const before = captureLog();
    rx.createReceiver(receiverOptions(rx.memoryStore(), { log: before, secrets: [{ secret: SECRET, kind: 'active' }, { secret: SECRET, kind: 'pending' }] }));
    assert.match(before.lines.join('\n'), /the pending secret equals the active one: during a rotation the pending secret is the new one .* will not verify/);
  });

  test('a rotation written as { active, pending } is refused: it would name two integrations', () => {
    for (const secrets of [{ active: SECRET, pending: 'whsec_next' }, { Active: SECRET }, { main: SECRET, retiring: 'whsec_old' }]) {
      assert.throws(() => rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, secrets })), (error) => error.code === 'invalid_argument'
        && /a rotation set is an array, \[\{ secret, kind: 'active' \}, \{ secret, kind: 'pending' \}\]/.test(error.message)
        && !error.message.includes(SECRET));
    }
  });

  test('a log that throws changes no answer and ends no process; console says so once', async () => {
    const thrower = { warn() { throw new TypeError('this[writeSym] is not a function'); }, error() { throw new TypeError('this[writeSym] is not a function'); } };
    const store = rx.memoryStore();
    const receiver = rx.createReceiver(receiverOptions(store, { log: thrower, onOutcome: () => { throw new Error('observer down'); } }));
    const said = [];
    const consoleError = console.error;
    console.error = (line) => said.push(line);
    const server = await listen(receiver.node);
    try {
      const unsigned = await post(server.url, '{"hi":1}', {});
      assert.equal(unsigned.status, 400, unsigned.text);
      const body = next();
      assert.deepEqual((await deliver(server.url, body)).json, { received: true, decision: 'apply' });
      const unknown = next({ eventType: 'payment.created' });
      const kept = await deliver(server.url, unknown);
      assert.deepEqual([kept.status, kept.json], [200, { received: true, quarantined: 'event_type_unknown' }]);
      assert.equal(store.quarantined.length, 1);
      assert.equal(said.length, 1, said.join('\n'));
      assert.match(said[0], /the log given to the receiver threw \(TypeError: this\[writeSym\] is not a function\): its lines are dropped, the answers stand/);
      // The lazy receiver's log too: an answer, not a rejection.
      const lazy = rx.lazyReceiver(() => { throw new Error('driver missing'); }, { log: thrower });
      const answer = await lazy.fetch(new Request('http://localhost/webhook', { method: 'POST', body: '{}' }));
      assert.equal(answer.status, 503);
    } finally {
      console.error = consoleError;
      await server.close();
    }
  });

  test('node(): a request whose sender went away before the handler ran settles, answering nothing', async () => {
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false }));
    const settled = [];
    const server = await listen((req, res) => {
      req.socket.destroy(); // the sender is gone, its close already emitted, before the receiver's turn
      setTimeout(() => { receiver.node(req, res).then(() => settled.push('settled')); }, 50);
    });
    try {
      await post(server.url, next()).catch(() => {});
      const deadline = Date.now() + 2000;
      while (settled.length === 0 && Date.now() < deadline) await new Promise((resolve) => { setTimeout(resolve, 20); });
      assert.deepEqual(settled, ['settled']);
    } finally {
      await server.close();
    }
  });

  test('node(): a body answered unread (405, a lazy receiver whose store is down) is let go, but its connection closed past 1 MiB', async () => {
    const net = await import('node:net');
    const faces = [
      ['receiver, PUT', rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false })), 'PUT', 405],
      ['lazyReceiver, PUT', rx.lazyReceiver(async () => { throw new Error('the store is down (test)'); }, { log: false }), 'PUT', 405],
      ['lazyReceiver, POST', rx.lazyReceiver(async () => { throw new Error('the store is down (test)'); }, { log: false }), 'POST', 503],
    ];
    for (const [name, face, method, status] of faces) {
      const server = await listen((req, res) => { face.node(req, res); });
      const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      const reply = { text: '', closed: false };
      socket.on('data', (chunk) => { reply.text += chunk; });
      socket.on('close', () => { reply.closed = true; });
      socket.on('error', () => {});
      try {
        socket.write(`${method} /webhook HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n`);
        // An endless body, 64 KiB a chunk: at most 8 MiB are offered.
        const chunk = `${(64 * 1024).toString(16)}\r\n${' '.repeat(64 * 1024)}\r\n`;
        let written = 0;
        while (!reply.closed && written < 8 * 1024 * 1024) {
          if (!socket.write(chunk)) await new Promise((resolve) => { socket.once('drain', resolve); socket.once('close', resolve); });
          written += 64 * 1024;
        }
        for (let i = 0; i < 100 && !reply.closed; i += 1) await new Promise((resolve) => { setTimeout(resolve, 20); });
        assert.match(reply.text, new RegExp(`^HTTP/1\\.1 ${status} `), name);
        assert.equal(reply.closed, true, `${name}: closed, not read for ever`);
        assert.ok(written < 6 * 1024 * 1024, `${name}: ${written} bytes offered before the connection closed`);
      } finally {
        socket.destroy();
        await server.close();
      }
    }
  });

  test('node(): a response that cannot be written (its writeHead throws) is destroyed; node() still never rejects', async () => {
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false }));
    // lazyReceiver's own answers too (405, and 503 while its store cannot be had).
    const lazy = rx.lazyReceiver(async () => { throw new Error('the store is down (test)'); }, { log: false });
    let face = receiver;
    const server = await listen((req, res) => {
      let destroyed = false;
      const broken = new Proxy(res, {
        get(target, key) {
          if (key === 'writeHead') return () => { throw new Error('boom (test)'); };
          if (key === 'destroy') return (...args) => { destroyed = true; return target.destroy(...args); };
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      face.node(req, broken).then(() => { server.outcome = { settled: true, destroyed }; }, (error) => { server.outcome = { rejected: String(error) }; });
    });
    try {
      for (const [name, which] of [['receiver', receiver], ['lazyReceiver', lazy]]) {
        face = which;
        for (const method of ['GET', 'POST']) {
          server.outcome = undefined;
          await post(server.url, next(), {}, { method }).catch(() => {});
          const deadline = Date.now() + 2000;
          while (server.outcome === undefined && Date.now() < deadline) await new Promise((resolve) => { setTimeout(resolve, 20); });
          assert.deepEqual(server.outcome, { settled: true, destroyed: true }, `${name} ${method}`);
        }
      }
    } finally {
      await server.close();
    }
  });
});

describe('a header that arrived empty', () => {
  test('timestamp_missing for an empty timestamp header says it arrived empty, not to rename it', async () => {
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log }));
    const body = eventBody({ eventId: 'evt_empty_ts', paymentId: 'pay_empty_ts', statusVersion: 2 });
    const headers = { ...signedHeaders(body), [TS_HEADER]: '' };
    const answer = await receiver.handle({ body, headers });
    assert.equal(answer.status, 400);
    const said = log.lines.join('\n');
    assert.match(said, new RegExp(`rejected: timestamp_missing: .*; ${TS_HEADER} arrived empty: the name is right, and a proxy, gateway or middleware in front may blank its value`));
    assert.doesNotMatch(said, /set timestampHeader to/);
    assert.doesNotMatch(said, /arrived and .* did not/);
  });
});

describe('lines anyone can cause are said a few times a minute', () => {
  test('twelve forged deliveries: five lines, the fifth saying the rest are counted; onOutcome has all twelve; an authentic one far outside the skew reads as a replay', async () => {
    const log = captureLog();
    const outcomes = [];
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log, onOutcome: (o) => outcomes.push(o) }));
    for (let i = 0; i < 12; i += 1) {
      const body = eventBody({ eventId: `evt_forged_${i}`, paymentId: 'pay_forged', statusVersion: 2 });
      const answer = await receiver.handle({ body, headers: signedHeaders(body, { secret: 'whsec_forger' }) });
      assert.equal(answer.status, 400);
    }
    const rejected = log.lines.filter((line) => line.includes('rejected: signature_mismatch'));
    assert.equal(rejected.length, 5, log.lines.join('\n'));
    assert.match(rejected[4], /; more like it in the next 60 s are counted, not said$/);
    assert.equal(outcomes.filter((o) => o.reason === 'forgery').length, 12);
    // A genuine delivery captured a day ago and replayed: refused, and said to look like a replay.
    const old = eventBody({ eventId: 'evt_captured', paymentId: 'pay_captured', statusVersion: 2 });
    const timestamp = String(Math.floor(Date.now() / 1000) - 86_400);
    const replayed = await receiver.handle({ body: old, headers: signedHeaders(old, { timestamp }) });
    assert.equal(replayed.status, 400);
    assert.match(log.lines.join('\n'), /timestamp_too_old \(its timestamp is 864\d\d s behind this host's clock\) \(more than 3600 s: if this host's clock is right, a replay of a captured delivery, refused as it should be\)/);
  });
});

describe('a flood that stops says its count when its window ends', () => {
  test('eight forged deliveries, then quiet: the window\'s end says the last of the three counted; the next window starts afresh', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() });
    try {
      const log = captureLog();
      const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log }));
      const forged = async (i) => {
        const body = eventBody({ eventId: `evt_flood_${i}`, paymentId: 'pay_flood', statusVersion: 2 });
        const answer = await receiver.handle({ body, headers: signedHeaders(body, { secret: 'whsec_forger' }) });
        assert.equal(answer.status, 400);
      };
      for (let i = 0; i < 8; i += 1) await forged(i);
      const rejected = () => log.lines.filter((line) => line.includes('rejected: signature_mismatch'));
      assert.equal(rejected().length, 5, log.lines.join('\n'));
      mock.timers.tick(59_000);
      assert.equal(rejected().length, 5, 'nothing said before the window ends');
      mock.timers.tick(1_000);
      assert.equal(rejected().length, 6, log.lines.join('\n'));
      assert.match(rejected()[5], /\(the last of 3 like it in 60 s that were counted, not said\)$/);
      // The count was said: the next window's first line does not say it again.
      mock.timers.tick(5_000);
      await forged(8);
      assert.equal(rejected().length, 7);
      assert.doesNotMatch(rejected()[6], /counted/);
    } finally {
      mock.timers.reset();
    }
  });
});

describe('a flood whose window ended unsaid (no timer ran)', () => {
  test('the first line of the next window says how many the window before left unsaid', async () => {
    // Only the clock is faked: the receiver's real timer for the window's end never fires here
    // (as where a runtime drops it), and the next window's first line is cleared of it.
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    try {
      const log = captureLog();
      const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log }));
      const forged = async (i) => {
        const body = eventBody({ eventId: `evt_unsaid_${i}`, paymentId: 'pay_unsaid', statusVersion: 2 });
        assert.equal((await receiver.handle({ body, headers: signedHeaders(body, { secret: 'whsec_forger' }) })).status, 400);
      };
      for (let i = 0; i < 8; i += 1) await forged(i);
      mock.timers.tick(61_000);
      await forged(8);
      const rejected = log.lines.filter((line) => line.includes('rejected: signature_mismatch'));
      assert.equal(rejected.length, 6, log.lines.join('\n'));
      assert.match(rejected[5], /\(3 more like it were counted, not said, in the window before\)$/);
    } finally {
      mock.timers.reset();
    }
  });
});

describe('bodies sent a byte at a time', () => {
  test('node() and fetch(): a delivery in one-byte chunks is verified and recorded byte for byte', async () => {
    const store = rx.memoryStore();
    const receiver = rx.createReceiver(receiverOptions(store, { log: false }));
    const server = await listen(receiver.node);
    try {
      const body = eventBody({ eventId: 'evt_bytes_node', paymentId: 'pay_bytes', statusVersion: 1, status: 'caf\u00e9' });
      const { port } = new URL(server.url);
      // Chunked transfer encoding, one byte per chunk, over a raw socket.
      const net = await import('node:net');
      const answer = await new Promise((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1');
        let text = '';
        socket.on('data', (chunk) => { text += chunk; });
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
        const head = Object.entries(signedHeaders(body)).map(([name, value]) => `${name}: ${value}\r\n`).join('');
        socket.write(`POST /webhook HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n${head}\r\n`);
        for (const byte of body) socket.write(`1\r\n${String.fromCharCode(byte)}`, 'latin1') && socket.write('\r\n');
        socket.write('0\r\n\r\n');
      });
      assert.match(answer, /^HTTP\/1\.1 200 [\s\S]*\{"received":true,"decision":"apply"\}$/);
      const second = eventBody({ eventId: 'evt_bytes_fetch', paymentId: 'pay_bytes', statusVersion: 2, status: 'caf\u00e9' });
      const stream = new ReadableStream({ start(c) { for (const byte of second) c.enqueue(new Uint8Array([byte])); c.close(); } });
      const fetched = await receiver.fetch(new Request('http://receiver.test/webhook', { method: 'POST', body: stream, duplex: 'half', headers: signedHeaders(second) }));
      assert.deepEqual([fetched.status, await fetched.json()], [200, { received: true, decision: 'apply' }]);
      assert.deepEqual(Buffer.from(store.events.get('evt_bytes_fetch').body), second);
      assert.deepEqual(Buffer.from(store.events.get('evt_bytes_node').body), body);
    } finally {
      await server.close();
    }
  });

  test('node(): a body of many tiny chunks is not kept chunk by chunk (memory stays near its size, not hundreds of times it)', async () => {
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false }));
    const { EventEmitter } = await import('node:events');
    const req = Object.assign(new EventEmitter(), { method: 'POST', headers: {}, rawHeaders: [], readableEnded: false, destroyed: false });
    const res = { headersSent: false, writableEnded: false, destroyed: false, writeHead() {}, end() { this.writableEnded = true; } };
    const handled = receiver.node(req, res);
    await new Promise((resolve) => { setImmediate(resolve); });
    const before = process.memoryUsage().heapUsed;
    // 512 KiB in one-byte chunks: kept one object per byte, they held over 200 MB.
    for (let i = 0; i < 512 * 1024; i += 1) req.emit('data', Buffer.of(0x61));
    const grown = process.memoryUsage().heapUsed - before;
    req.emit('end');
    await handled;
    assert.ok(grown < 64 * 1024 * 1024, `the heap grew by ${Math.round(grown / 1e6)} MB while 512 KiB arrived`);
  });

  test('node(): a declared Content-Length sets nothing aside before the bytes come (4 MiB declared, two bytes sent, 40 requests)', async () => {
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, maxBodyBytes: 4 * 1024 * 1024 }));
    const { EventEmitter } = await import('node:events');
    const requests = [];
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 40; i += 1) {
      const req = Object.assign(new EventEmitter(), {
        method: 'POST', headers: { 'content-length': String(4 * 1024 * 1024) }, rawHeaders: [], readableEnded: false, destroyed: false,
      });
      const res = { headersSent: false, writableEnded: false, destroyed: false, writeHead() {}, end() { this.writableEnded = true; } };
      const handled = receiver.node(req, res);
      await new Promise((resolve) => { setImmediate(resolve); });
      // Two chunks: the second makes the buffer the body is copied into.
      req.emit('data', Buffer.of(0x7b));
      req.emit('data', Buffer.of(0x7d));
      requests.push([req, handled]);
    }
    const grown = process.memoryUsage().arrayBuffers - before;
    for (const [req, handled] of requests) {
      req.emit('end');
      await handled;
    }
    // Sized from the declared length, the 40 buffers held 160 MiB (then 2.5 MiB, 64 KiB each).
    assert.ok(grown < 1024 * 1024, `array buffers grew by ${Math.round(grown / 1e3)} KB for 80 bytes received`);
  });

  test('node(): a request built by hand (serverless-http: rawHeaders [] and req.headers set) is read by its req.headers', async () => {
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false }));
    const body = next();
    const req = new http.IncomingMessage(null);
    Object.assign(req, { method: 'POST', url: '/webhook', headers: { ...signedHeaders(body), 'content-length': String(body.length) } });
    assert.deepEqual(req.rawHeaders, []);
    req.push(body);
    req.push(null);
    const res = { headersSent: false, writableEnded: false, destroyed: false, status: null, body: null,
      writeHead(status) { this.status = status; this.headersSent = true; }, end(bytes) { this.body = Buffer.from(bytes).toString(); this.writableEnded = true; } };
    await receiver.node(req, res);
    assert.deepEqual([res.status, JSON.parse(res.body)], [200, { received: true, decision: 'apply' }]);
  });

  test('no headers given to handle(), or an object with no method given to node() or fetch(): the caller\'s, 500 invalid_argument (retried), never a 4xx', async () => {
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log }));
    const body = next();
    for (const delivery of [{ body }, { body, headers: undefined }, { body, headers: null }]) {
      const answer = await receiver.handle(delivery);
      assert.deepEqual([answer.status, answer.body], [500, '{"error":"invalid_argument"}'], JSON.stringify(Object.keys(delivery)));
    }
    // Hono's context c instead of c.req.raw; a framework's wrapper instead of Node's request.
    const fetched = await receiver.fetch({ req: { raw: new Request('http://receiver.test/webhook', { method: 'POST', body }) } });
    assert.deepEqual([fetched.status, await fetched.json()], [500, { error: 'invalid_argument' }]);
    const res = { headersSent: false, writableEnded: false, destroyed: false, status: null, body: null,
      writeHead(status) { this.status = status; this.headersSent = true; }, end(bytes) { this.body = Buffer.from(bytes).toString(); this.writableEnded = true; } };
    await receiver.node({ raw: {} }, res);
    assert.deepEqual([res.status, JSON.parse(res.body)], [500, { error: 'invalid_argument' }]);
    assert.ok(log.lines.some((l) => /pass the Fetch Request \(Hono: c\.req\.raw/.test(l)), log.lines.join('\n'));
    assert.ok(log.lines.some((l) => /pass Node's IncomingMessage/.test(l)), log.lines.join('\n'));
  });

  test('fetch(): a body a reader locked is body_not_raw; a stream that fails mid-body (the sender gone) is no internal error', async () => {
    const log = captureLog();
    const outcomes = [];
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log, onOutcome: (o) => outcomes.push(o) }));
    const body = next();
    const locked = new Request('http://receiver.test/webhook', { method: 'POST', body, headers: signedHeaders(body) });
    locked.body.getReader();
    const refused = await receiver.fetch(locked);
    assert.deepEqual([refused.status, await refused.json()], [500, { error: 'body_not_raw' }]);
    const failing = new ReadableStream({ pull(c) { c.error(new Error('aborted')); } });
    await receiver.fetch(new Request('http://receiver.test/webhook', { method: 'POST', body: failing, duplex: 'half', headers: signedHeaders(body) }));
    assert.ok(!log.lines.some((l) => /internal/.test(l)), log.lines.join('\n'));
    assert.ok(!outcomes.some((o) => o.reason === 'internal'), JSON.stringify(outcomes));
  });
});

/**
 * A raw connection to `url` that sends a POST declaring `declared` bytes, sends `sent` of them
 * and then nothing (50 ms later it resolves): { text, closed }, what it was answered so far.
 * Its socket goes into `sockets`, for the test to destroy.
 */
async function stalledSender(url, declared, sent, sockets) {
  const net = await import('node:net');
  const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
  const answer = { text: '', closed: false };
  socket.on('data', (chunk) => { answer.text += chunk; });
  socket.on('close', () => { answer.closed = true; });
  socket.on('error', () => {});
  socket.write(`POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: ${declared}\r\n\r\n${' '.repeat(sent)}`);
  sockets.push(socket);
  await new Promise((resolve) => { setTimeout(resolve, 50); });
  return answer;
}

describe('the bytes of bodies being read are bounded across deliveries (maxBufferedBytes)', () => {
  // A request node() reads from, fed by hand, and the answer it is given.
  async function nodeRequest(receiver, headers = {}) {
    const { EventEmitter } = await import('node:events');
    const req = Object.assign(new EventEmitter(), {
      method: 'POST', headers, rawHeaders: [], readableEnded: false, destroyed: false, destroy() { this.destroyed = true; },
    });
    const res = Object.assign(new EventEmitter(), {
      headersSent: false, writableEnded: false, destroyed: false, status: null, headers: null, body: null,
      writeHead(status, headers) { this.status = status; this.headers = headers; this.headersSent = true; },
      end(bytes) { this.body = Buffer.from(bytes).toString(); this.writableEnded = true; setImmediate(() => this.emit('finish')); },
    });
    const handled = receiver.node(req, res);
    await new Promise((resolve) => { setImmediate(resolve); });
    return { req, res, handled, send: (n) => req.emit('data', Buffer.alloc(n, 0x20)) };
  }

  // A POST to fetch() whose body is `stream`.
  const streamed = (receiver, stream, headers = {}) => receiver.fetch(
    new Request('http://receiver.test/webhook', { method: 'POST', body: stream, duplex: 'half', headers }),
  );

  test('node() as fetch(): a body declared over maxBodyBytes is drained for its 413, never buffered (no 503 busy for it)', async () => {
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, maxBodyBytes: 1000, maxBufferedBytes: 1500 }));
    const holder = await nodeRequest(receiver);
    holder.send(900); // 900 of the 1500 held
    const big = await nodeRequest(receiver, { 'content-length': '5000' });
    big.send(700);
    big.send(700);
    big.req.emit('end');
    await big.handled;
    assert.deepEqual([big.res.status, JSON.parse(big.res.body)], [413, { error: 'body_too_large' }]);
    const fetched = await streamed(receiver, new ReadableStream({ start(c) { c.enqueue(new Uint8Array(700)); c.enqueue(new Uint8Array(700)); c.close(); } }),
      { 'content-length': '5000' });
    assert.deepEqual([fetched.status, await fetched.json()], [413, { error: 'body_too_large' }]);
    holder.req.emit('end');
    await holder.handled;
  });

  test('node(): past the budget a delivery is 503 busy unread, its connection closed; bytes given back as reads end; one alone is always read', async () => {
    const log = captureLog();
    const outcomes = [];
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log, onOutcome: (o) => outcomes.push(o), maxBufferedBytes: 1000 }));
    const a = await nodeRequest(receiver);
    const b = await nodeRequest(receiver);
    const c = await nodeRequest(receiver);
    a.send(600);
    b.send(300);
    c.send(200); // 1100 held: past 1000
    await c.handled;
    await new Promise((resolve) => { setImmediate(resolve); });
    assert.equal(c.res.status, 503);
    assert.deepEqual(JSON.parse(c.res.body), { error: 'busy' });
    assert.equal(c.res.headers['retry-after'], '5');
    assert.equal(c.res.headers.connection, 'close');
    assert.equal(c.req.destroyed, true, 'the rest of the body is not read: the connection is closed');
    assert.deepEqual(outcomes.map((o) => [o.status, o.reason, o.bufferedBytes]), [[503, 'busy', 900]]);
    assert.equal(receiver.counters().deliveries.busy, 1);
    const line = log.lines.find((l) => /busy/.test(l));
    assert.match(line, /^warn .*503 busy, unread: the bodies being read held 900 bytes, at maxBufferedBytes \(1000\); the service retries it/);
    assert.match(line, /requestTimeout/);
    // A sender gone mid-body gives its bytes back: 300 held, 500 more fit.
    a.req.emit('close');
    await a.handled;
    const d = await nodeRequest(receiver);
    d.send(500);
    d.req.emit('end');
    await d.handled;
    assert.equal(d.res.status, 400, 'read to its end (unsigned: refused by verification, not by the budget)');
    // So does a body read to its end: nothing is held now, and one delivery alone is read past the budget.
    b.req.emit('end');
    await b.handled;
    const e = await nodeRequest(receiver);
    for (let i = 0; i < 6; i += 1) e.send(500);
    e.req.emit('end');
    await e.handled;
    assert.equal(e.res.status, 400);
    // And a body over maxBodyBytes, drained, holds nothing: its bytes are not kept.
    const small = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, maxBodyBytes: 1000, maxBufferedBytes: 1500 }));
    const over = await nodeRequest(small);
    over.send(900);
    over.send(900); // past maxBodyBytes: the 900 kept are given back, the rest drained
    const beside = await nodeRequest(small);
    beside.send(1000);
    beside.req.emit('end');
    await beside.handled;
    assert.equal(beside.res.status, 400);
    over.req.emit('end');
    await over.handled;
    assert.equal(over.res.status, 413);
  });

  test('node() behind node:http: slow senders past the budget answered 503 busy at once, the rest held; once they are gone a delivery is recorded', async () => {
    const store = rx.memoryStore();
    const receiver = rx.createReceiver(receiverOptions(store, { log: false, maxBufferedBytes: 64 * 1024 }));
    const server = await listen(receiver.node);
    const slow = [];
    try {
      // Each declares 40 KiB and sends 24 KiB of it, then waits: two or three fit in 64 KiB.
      const answers = [];
      for (let i = 0; i < 6; i += 1) {
        answers.push(await stalledSender(server.url, 40 * 1024, 24 * 1024, slow));
      }
      await new Promise((resolve) => { setTimeout(resolve, 200); });
      const busy = answers.filter((a) => a.closed);
      const held = answers.filter((a) => !a.closed);
      assert.ok(busy.length >= 3 && held.length >= 1, JSON.stringify(answers.map((a) => [a.closed, a.text.slice(0, 20)])));
      for (const a of busy) {
        assert.match(a.text, /^HTTP\/1\.1 503 /);
        assert.match(a.text, /\r\nretry-after: 5\r\n/i);
        assert.match(a.text, /\{"error":"busy"\}$/);
      }
      assert.ok(held.every((a) => a.text === ''), 'the senders within the budget are still being read');
      for (const socket of slow) socket.destroy();
      await new Promise((resolve) => { setTimeout(resolve, 100); });
      const body = next();
      const answer = await deliver(server.url, body);
      assert.equal(answer.status, 200, answer.text);
      assert.ok(store.events.has(JSON.parse(body).event_id));
    } finally {
      for (const socket of slow) socket.destroy();
      await server.close();
    }
  });

  test('node() behind node:http: a Content-Length past the drain limit is a 413 unread, its line saying the length was declared', async () => {
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log }));
    const server = await listen(receiver.node);
    const sockets = [];
    try {
      const answer = await stalledSender(server.url, 10_737_418_240, 10, sockets);
      for (let i = 0; i < 50 && !answer.closed; i += 1) await new Promise((resolve) => { setTimeout(resolve, 20); });
      assert.match(answer.text, /^HTTP\/1\.1 413 /);
      assert.match(log.lines.join('\n'), /refused a delivery declaring 10737418240 bytes \(its Content-Length\) \(413 body_too_large\)/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await server.close();
    }
  });

  // Senders that each send part of a body and then nothing more can hold the whole budget for
  // bodyTimeoutMs at a time, answering every delivery busy (events exhausted at the service's
  // last retry). A delivery that finds the budget held by a read arriving for a second or more
  // ends that read (503 busy, retried) and takes its room.
  test('node() behind node:http: senders holding the budget for a second give it up to deliveries, the oldest first, each ended 503 busy', async () => {
    const store = rx.memoryStore();
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(store, { log, maxBufferedBytes: 64 * 1024 }));
    const server = await listen(receiver.node);
    const slow = [];
    try {
      // Each declares 4 MB and sends 21 KiB of it, then nothing: three fill 64 KiB.
      const answers = [];
      for (let i = 0; i < 3; i += 1) answers.push(await stalledSender(server.url, 4_000_000, 21 * 1024, slow));
      // Within a second of their start a delivery needing room is still busy (a burst of the
      // service's own is not cut short) ...
      const early = await deliver(server.url, next({ note: 'x'.repeat(4096) }));
      assert.equal(early.status, 503, early.text);
      assert.ok(answers.every((a) => !a.closed), 'no sender ended yet');
      // ... after it, each delivery takes the room of the one that has held it longest.
      await new Promise((resolve) => { setTimeout(resolve, 1100); });
      for (let i = 0; i < 2; i += 1) {
        const body = next({ note: 'x'.repeat(4096) }); // needs more room than the senders left
        const answer = await deliver(server.url, body);
        assert.equal(answer.status, 200, answer.text);
        assert.ok(store.events.has(JSON.parse(body).event_id));
      }
      await new Promise((resolve) => { setTimeout(resolve, 100); });
      assert.deepEqual(answers.map((a) => a.closed), [true, false, false], 'the oldest sender ended, once: the room it gave held the next too');
      assert.match(answers[0].text, /^HTTP\/1\.1 503 [\s\S]*\{"error":"busy"\}$/);
      assert.match(log.lines.join('\n'), /ended a delivery still arriving after 1 s, answered 503 busy \(the service retries it\), to read a newer one: .*an attack on that limit, not the service .*a reverse proxy that reads whole request bodies/);
    } finally {
      for (const socket of slow) socket.destroy();
      await server.close();
    }
  });

  test('node(): what a body holds is counted as the room of its buffer, not only its bytes', async () => {
    const outcomes = [];
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, onOutcome: (o) => outcomes.push(o), maxBufferedBytes: 20_000 }));
    const grown = await nodeRequest(receiver);
    grown.send(6000);
    grown.send(100); // copied into a buffer of twice that: 12,200 held for 6,100 bytes
    const other = await nodeRequest(receiver);
    other.send(8000);
    await other.handled;
    assert.deepEqual(outcomes.map((o) => [o.status, o.reason, o.bufferedBytes]), [[503, 'busy', 12_200]]);
    grown.req.emit('end');
    await grown.handled;
    assert.equal(grown.res.status, 400);
  });

  test('node(): a sender that declares a large body and sends a few bytes holds about what it sent, not room for what it declared', async () => {
    const outcomes = [];
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, onOutcome: (o) => outcomes.push(o), maxBufferedBytes: 4096 }));
    const idle = [];
    for (let i = 0; i < 3; i += 1) {
      const request = await nodeRequest(receiver, { 'content-length': '1000000' });
      request.send(1);
      request.send(1); // two bytes: 1 KiB of room, not 64 KiB or 1 MB
      idle.push(request);
    }
    const last = await nodeRequest(receiver);
    last.send(1000); // 3 x 1024 + 1000 = 4072, within 4096
    last.req.emit('end');
    await last.handled;
    assert.equal(last.res.status, 400, 'read (unsigned), not refused busy');
    assert.deepEqual(outcomes.filter((o) => o.reason === 'busy'), []);
    for (const { req, handled } of idle) {
      req.emit('close');
      await handled;
    }
  });

  test('fetch(): past the budget 503 busy, the stream cancelled; the bytes given back however the read ends', async () => {
    const outcomes = [];
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, onOutcome: (o) => outcomes.push(o), maxBufferedBytes: 1000 }));
    // A body that sends `n` bytes, then waits until told to fail or end.
    const held = (n) => {
      let controller;
      let cancelled = false;
      const stream = new ReadableStream({
        start(c) { controller = c; c.enqueue(new Uint8Array(n).fill(0x20)); },
        cancel() { cancelled = true; },
      });
      const answer = streamed(receiver, stream);
      return { answer, fail: () => controller.error(new Error('gone')), end: () => controller.close(), cancelled: () => cancelled };
    };
    const tick = () => new Promise((resolve) => { setTimeout(resolve, 20); });
    const a = held(700);
    await tick();
    const b = held(400);
    const refused = await b.answer;
    assert.deepEqual([refused.status, refused.headers.get('retry-after'), await refused.json()], [503, '5', { error: 'busy' }]);
    assert.equal(b.cancelled(), true);
    assert.deepEqual(outcomes.map((o) => [o.status, o.reason, o.bufferedBytes]), [[503, 'busy', 700]]);
    a.fail();
    await a.answer;
    const c = held(900);
    await tick();
    c.end();
    assert.equal((await c.answer).status, 400, 'read to its end once the first sender went away');
    const body = next();
    const signed = await receiver.fetch(new Request('http://receiver.test/webhook', { method: 'POST', body, headers: signedHeaders(body) }));
    assert.equal(signed.status, 200);
  });

  test('fetch(): a body held past a second gives its room to a delivery that needs it: its stream cancelled, answered 503 busy', async () => {
    const outcomes = [];
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, onOutcome: (o) => outcomes.push(o), maxBufferedBytes: 1000 }));
    let cancelled = false;
    const stream = new ReadableStream({
      start(c) { c.enqueue(new Uint8Array(900).fill(0x20)); },
      cancel() { cancelled = true; },
    });
    const holder = streamed(receiver, stream);
    await new Promise((resolve) => { setTimeout(resolve, 1100); });
    const body = next();
    const signed = await receiver.fetch(new Request('http://receiver.test/webhook', { method: 'POST', body, headers: signedHeaders(body) }));
    assert.equal(signed.status, 200, 'the delivery took the room');
    const ended = await holder;
    assert.deepEqual([ended.status, await ended.json(), cancelled], [503, { error: 'busy' }, true]);
    // Said when ended: the bytes then held are the delivery's that took the room.
    assert.deepEqual(outcomes.filter((o) => o.status === 503).map((o) => [o.reason, o.bufferedBytes]), [['busy', body.length]]);
  });

  test('fetch(): chunks an adapter made of strings, ArrayBuffers or other views are read as bytes; anything else is a 500 with the budget intact', async () => {
    const outcomes = [];
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, onOutcome: (o) => outcomes.push(o), maxBufferedBytes: 1000 }));
    const body = next();
    const text = body.toString('utf8');
    const half = Math.floor(body.length / 2);
    const kinds = {
      strings: [text.slice(0, half), text.slice(half)],
      arrayBuffers: [body.buffer.slice(body.byteOffset, body.byteOffset + half), body.buffer.slice(body.byteOffset + half, body.byteOffset + body.length)],
      views: [new DataView(body.buffer, body.byteOffset, half), new Uint16Array(new Uint8Array(body.subarray(half, half + 2 * Math.floor((body.length - half) / 2))).buffer)],
    };
    // The views' odd last byte, if any, as a Uint8Array of its own.
    if ((body.length - half) % 2 === 1) kinds.views.push(body.subarray(body.length - 1));
    for (const [kind, chunks] of Object.entries(kinds)) {
      const stream = new ReadableStream({ start(c) { for (const chunk of chunks) c.enqueue(chunk); c.close(); } });
      const answer = await streamed(receiver, stream, signedHeaders(body));
      assert.equal(answer.status, 200, `${kind}: ${await answer.text()}`);
    }
    const odd = new ReadableStream({ start(c) { c.enqueue({ not: 'bytes' }); c.close(); } });
    assert.equal((await streamed(receiver, odd)).status, 500);
    // The budget still refuses: nothing was counted as NaN.
    const waiting = new ReadableStream({ start(c) { c.enqueue(new Uint8Array(700)); } });
    const holding = streamed(receiver, waiting);
    await new Promise((resolve) => { setTimeout(resolve, 20); });
    const more = new ReadableStream({ start(c) { c.enqueue(new Uint8Array(400)); } });
    const refused = await streamed(receiver, more);
    assert.equal(refused.status, 503);
    void holding;
  });

  test('fetch(): a refused delivery is answered, and its bytes given back, though its stream\'s cancel never settles', async () => {
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, maxBufferedBytes: 1000, maxBodyBytes: 1000 }));
    const hanging = (...chunks) => new ReadableStream({
      start(c) { for (const n of chunks) c.enqueue(new Uint8Array(n)); },
      cancel: () => new Promise(() => {}),
    });
    const request = (stream) => streamed(receiver, stream);
    const holding = request(new ReadableStream({ start(c) { c.enqueue(new Uint8Array(600)); } }));
    await new Promise((resolve) => { setTimeout(resolve, 20); });
    // 300 bytes held, then the next chunk refused: answered though its cancel hangs.
    assert.equal((await request(hanging(300, 500))).status, 503);
    // Its 300 were given back: 600 + 400 fit.
    const fits = new ReadableStream({ start(c) { c.enqueue(new Uint8Array(400)); c.close(); } });
    assert.equal((await request(fits)).status, 400);
    // Past 16 times maxBodyBytes: 413 at once, the cancel not awaited either.
    assert.equal((await request(hanging(17_000))).status, 413);
    void holding;
  });

  test('maxBufferedBytes is a positive integer', () => {
    for (const maxBufferedBytes of [0, -1, 1.5, '65536', Number.NaN, 2 ** 53]) {
      assert.throws(() => rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, maxBufferedBytes })),
        (error) => error.code === 'invalid_argument' && /maxBufferedBytes is a positive integer/.test(error.message), String(maxBufferedBytes));
    }
    assert.ok(rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, maxBufferedBytes: 1 })));
  });
});

describe('a body that does not arrive within bodyTimeoutMs is answered 408 body_timeout, unread', () => {
  const wait = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

  test('fetch(): a body trickling a byte every 100 ms is cut at the deadline (one for the whole body), its stream cancelled', async () => {
    const log = captureLog();
    const outcomes = [];
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log, onOutcome: (o) => outcomes.push(o), bodyTimeoutMs: 1000 }));
    let cancelled = false;
    let interval;
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new Uint8Array(10).fill(0x20));
        interval = setInterval(() => c.enqueue(new Uint8Array([0x20])), 100);
      },
      cancel() { cancelled = true; clearInterval(interval); },
    });
    const started = performance.now();
    try {
      const answer = await receiver.fetch(new Request('http://receiver.test/webhook', { method: 'POST', body: stream, duplex: 'half' }));
      assert.ok(performance.now() - started >= 990, 'it waited for the deadline, no less');
      assert.deepEqual([answer.status, await answer.json()], [408, { error: 'body_timeout' }]);
    } finally {
      clearInterval(interval);
    }
    assert.equal(cancelled, true);
    assert.deepEqual(outcomes.map((o) => [o.status, o.reason]), [[408, 'body_timeout']]);
    assert.ok(outcomes[0].bodyBytes >= 10, String(outcomes[0].bodyBytes));
    assert.equal(receiver.counters().deliveries.body_timeout, 1);
    assert.match(log.lines.join('\n'), /^warn .*408 body_timeout, unread: its body did not arrive within bodyTimeoutMs \(1000 ms; \d+ bytes came\); the service retries it/m);
    // The deadline is per delivery: the next one, sent at once, is read and recorded.
    const body = next();
    const signed = await receiver.fetch(new Request('http://receiver.test/webhook', { method: 'POST', body, headers: signedHeaders(body) }));
    assert.equal(signed.status, 200);
  });

  test('node() behind node:http: a sender that stops mid-body gets 408 and its connection closed; a delivery beside it is recorded', async () => {
    const store = rx.memoryStore();
    const receiver = rx.createReceiver(receiverOptions(store, { log: false, bodyTimeoutMs: 1000 }));
    const server = await listen(receiver.node);
    const net = await import('node:net');
    const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
    const answer = { text: '', closed: false };
    socket.on('data', (chunk) => { answer.text += chunk; });
    socket.on('close', () => { answer.closed = true; });
    socket.on('error', () => {});
    try {
      socket.write(`POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n${' '.repeat(10)}`);
      const body = next();
      const recorded = await deliver(server.url, body);
      assert.equal(recorded.status, 200, recorded.text);
      assert.equal(answer.text, '', 'not answered before its deadline');
      for (let i = 0; i < 60 && !answer.closed; i += 1) await wait(50);
      assert.match(answer.text, /^HTTP\/1\.1 408 /);
      assert.match(answer.text, /\r\nconnection: close\r\n/i);
      assert.match(answer.text, /\{"error":"body_timeout"\}$/);
      assert.equal(answer.closed, true);
    } finally {
      socket.destroy();
      await server.close();
    }
  });

  test('fetch(): a body sent in one-byte chunks costs what its bytes do while it is read, not hundreds of bytes a byte', async () => {
    setFlagsFromString('--expose_gc');
    const gc = runInNewContext('gc');
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false }));
    const CHUNKS = 400_000;
    let sent = 0;
    let heldMiB = null;
    gc();
    const base = process.memoryUsage().heapUsed;
    const stream = new ReadableStream({
      pull(c) {
        for (let i = 0; i < 1000 && sent < CHUNKS; i += 1, sent += 1) c.enqueue(new Uint8Array([0x20]));
        // Half way: what the read holds, once the garbage is collected.
        if (heldMiB === null && sent >= CHUNKS / 2) {
          gc();
          heldMiB = (process.memoryUsage().heapUsed - base) / (1024 * 1024);
        }
        if (sent >= CHUNKS) c.close();
      },
    }, { highWaterMark: 0 });
    const answer = await receiver.fetch(new Request('http://receiver.test/webhook', { method: 'POST', body: stream, duplex: 'half' }));
    assert.equal(answer.status, 400, 'read to its end and refused: no signature');
    assert.ok(heldMiB < 32, `${heldMiB.toFixed(1)} MiB held half way through a body of ${CHUNKS / 1000} kB`);
  });

  test('the skew is judged from when the delivery arrived, not from when its body ended: fetch() and node()', async () => {
    // A clock the test moves: 400 s pass while the body arrives (bodyTimeoutMs may be ten
    // minutes). Judged at the body's end, the delivery would be refused as stale, a 400 the
    // service never retries.
    const start = Math.floor(Date.now() / 1000);
    let current = start;
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, nowSecs: () => current, bodyTimeoutMs: 600_000 }));
    const body = next();
    const stream = new ReadableStream({
      start(c) { c.enqueue(body.subarray(0, 10)); },
      async pull(c) {
        await wait(20);
        current = start + 400;
        c.enqueue(body.subarray(10));
        c.close();
      },
    });
    const answer = await receiver.fetch(new Request('http://receiver.test/webhook', { method: 'POST', body: stream, duplex: 'half', headers: signedHeaders(body, { timestamp: start }) }));
    assert.deepEqual([answer.status, (await answer.json()).decision], [200, 'apply']);
    current = start;
    const server = await listen(receiver.node);
    const net = await import('node:net');
    const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
    const reply = { text: '' };
    socket.on('data', (chunk) => { reply.text += chunk; });
    socket.on('error', () => {});
    try {
      const again = next();
      const headers = Object.entries(signedHeaders(again, { timestamp: start })).map(([name, value]) => `${name}: ${value}\r\n`).join('');
      socket.write(`POST /webhook HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: ${again.length}\r\n\r\n`);
      socket.write(again.subarray(0, 10));
      await wait(100);
      current = start + 400;
      socket.write(again.subarray(10));
      for (let i = 0; i < 100 && !/\r\n\r\n\{/.test(reply.text); i += 1) await wait(20);
      assert.match(reply.text, /^HTTP\/1\.1 200 /, reply.text);
    } finally {
      socket.destroy();
      await server.close();
    }
  });

  test('bodyTimeoutMs is milliseconds, from a second to ten minutes', () => {
    for (const bodyTimeoutMs of [0, 30, 999, 600_001, 1.5e3 + 0.5, '30000', Number.NaN]) {
      assert.throws(() => rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, bodyTimeoutMs })),
        (error) => error.code === 'invalid_argument' && /bodyTimeoutMs is how long a delivery's body may take to arrive, in milliseconds, from 1000 to 600000/.test(error.message), String(bodyTimeoutMs));
    }
    assert.ok(rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, bodyTimeoutMs: 1000 })));
  });
});

describe('store failures answer 503 store_unavailable, never 2xx', () => {
  test('a closed or read-only SQLite database: 503, logged without the body', async () => {
    const dir = tempDir();
    const db = new Database(join(dir, 'closed.sqlite'));
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log }));
    await receiver.ready();
    db.close();
    const body = eventBody({ eventId: 'evt_closed', paymentId: 'pay_closed', statusVersion: 1 });
    const answer = await receiver.handle({ body, headers: signedHeaders(body) });
    assert.deepEqual([answer.status, answer.body], [503, '{"error":"store_unavailable"}']);
    const quarantined = await receiver.handle({ body: 'x', headers: signedHeaders('x') });
    assert.deepEqual([quarantined.status, quarantined.body], [503, '{"error":"store_unavailable"}']);
    assert.ok(log.lines.some((l) => l.startsWith('error cryptopay-verify/receiver: store_unavailable:')), log.lines.join('\n'));
    // No retry gets past a closed database: the log says so, and why.
    assert.ok(log.lines.every((l) => l.endsWith('but every retry will fail the same way: the SQLite database was closed (db.close()) while the receiver still uses it')), log.lines.join('\n'));
    assert.ok(!log.lines.join('\n').includes('evt_closed'));
    // ready() of a store that cannot be used rejects (so a start fails loudly); a delivery
    // to a receiver whose store never got ready is 503 too.
    const unready = rx.createReceiver(receiverOptions(rx.sqliteStore(db), { log: false }));
    await assert.rejects(unready.ready(), /not open/);
    assert.equal((await unready.handle({ body, headers: signedHeaders(body) })).status, 503);
    // A database that turns read-only while the receiver runs (here PRAGMA query_only; a file
    // system remounted read-only after a disk error does the same): 503, and the log says no
    // retry gets past it.
    const turning = new Database(join(dir, 'turning.sqlite'));
    const turningLog = captureLog();
    const turned = rx.createReceiver(receiverOptions(rx.sqliteStore(turning), { log: turningLog }));
    await turned.ready();
    turning.pragma('query_only = ON');
    assert.equal((await turned.handle({ body, headers: signedHeaders(body) })).status, 503);
    assert.match(turningLog.lines.join('\n'), /attempt to write a readonly database.*every retry will fail the same way: the SQLite database became read-only for this process/);
    turning.close();
    // A file that is not a database (damaged, or overwritten): the same, naming the restore.
    const damagedFile = join(dir, 'damaged.sqlite');
    writeFileSync(damagedFile, Buffer.alloc(8192, 0x41));
    const damaged = new Database(damagedFile);
    const damagedLog = captureLog();
    const broken = rx.createReceiver(receiverOptions(rx.sqliteStore(damaged), { log: damagedLog }));
    assert.equal((await broken.handle({ body, headers: signedHeaders(body) })).status, 503);
    assert.match(damagedLog.lines.join('\n'), /file is not a database.*every retry will fail the same way: the SQLite file is damaged: stop the receiver, then restore the file from a backup/);
    damaged.close();
    // A read-only file: ready() rejects naming the fix (the tables exist, but no delivery
    // could be recorded), and a delivery is 503.
    const reopened = new Database(join(dir, 'closed.sqlite'), { readonly: true });
    const readOnly = rx.createReceiver(receiverOptions(rx.sqliteStore(reopened), { log: false }));
    await assert.rejects(readOnly.ready(), /sqliteStore: this process cannot write the database \(SQLITE_READONLY\): open it read-write, and let the process write both the file and its folder/);
    assert.equal((await readOnly.handle({ body, headers: signedHeaders(body) })).status, 503);
    reopened.close();
    // query_only on a writable file: the same.
    const queryOnly = new Database(join(dir, 'closed.sqlite'));
    queryOnly.pragma('query_only = ON');
    await assert.rejects(rx.createReceiver(receiverOptions(rx.sqliteStore(queryOnly), { log: false })).ready(), /cannot write the database/);
    queryOnly.close();
  });
});

describe('a ready() that has not settled (a migration, a Worker request gone mid-ready, a driver without timeouts)', () => {
  // A store whose ready() calls settle after the given seconds of the mocked clock (Infinity:
  // never).
  const slowStore = (...secs) => {
    const calls = { ready: 0, record: 0 };
    const store = {
      ready() {
        const after = secs[Math.min(calls.ready, secs.length - 1)];
        calls.ready += 1;
        if (after === Infinity) return new Promise(() => {});
        return after === 0 ? Promise.resolve() : new Promise((resolve) => { setTimeout(resolve, after * 1000); });
      },
      async record() {
        calls.record += 1;
        return 'apply';
      },
      async quarantine() {},
    };
    return { store, calls };
  };
  const flush = async () => {
    for (let i = 0; i < 20; i += 1) await new Promise((resolve) => { setImmediate(resolve); });
  };
  // `times` waits of 10 s on the mocked clock, the calls' promises run between them.
  const elapse = async (t, times) => {
    for (let i = 0; i < times; i += 1) {
      await flush();
      t.mock.timers.tick(10_000);
    }
    await flush();
  };
  const delivery = (n) => {
    const body = eventBody({ eventId: `evt_slow_${n}`, paymentId: `pay_slow_${n}`, statusVersion: 1 });
    return { body, headers: signedHeaders(body) };
  };
  // Cloudflare Workers, named so: the runtime's user agent, where a cancelled request's I/O
  // leaves the attempt it started pending for ever (not reproducible in workerd here).
  const asWorkers = (t) => {
    const before = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    Object.defineProperty(globalThis, 'navigator', { value: { userAgent: 'Cloudflare-Workers' }, configurable: true, writable: true });
    t.after(() => {
      if (before) Object.defineProperty(globalThis, 'navigator', before);
      else delete globalThis.navigator;
    });
  };

  test('a migration of 45 s: deliveries are answered 503 after 20 s, no second attempt; ready() at start waits it out', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { store, calls } = slowStore(45);
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(store, { log }));
    let started = null;
    receiver.ready().then(() => { started = 'ready'; }, (error) => { started = `rejected: ${error.message}`; });
    const early = receiver.handle(delivery(1));
    await elapse(t, 2);
    assert.deepEqual([(await early).status, calls], [503, { ready: 1, record: 0 }]);
    assert.match(log.lines.join('\n'), /could not record an event \((Error: )?the store's ready\(\) has not settled in 20 s/);
    assert.equal(started, null, 'ready() still waits');
    await elapse(t, 3);
    assert.equal(started, 'ready');
    assert.deepEqual([(await receiver.handle(delivery(2))).status, calls], [200, { ready: 1, record: 1 }]);
  });

  test('one that never settles: each delivery 503 after 20 s, the log naming it; lazyReceiver the same', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { store, calls } = slowStore(Infinity);
    const receiver = rx.createReceiver(receiverOptions(store, { log: captureLog() }));
    const pending = receiver.handle(delivery(3));
    await elapse(t, 2);
    assert.deepEqual([(await pending).status, calls.ready], [503, 1]);
    const lazyLog = captureLog();
    const lazy = rx.lazyReceiver(async () => rx.createReceiver(receiverOptions(slowStore(Infinity).store)), { log: lazyLog });
    const lazyPending = lazy.handle(delivery(4));
    await elapse(t, 2);
    const lazyAnswer = await lazyPending;
    assert.deepEqual([lazyAnswer.status, lazyAnswer.body], [503, '{"error":"store_unavailable"}']);
    assert.match(lazyLog.lines.join('\n'), /have not settled in 20 s/);
  });

  test('elsewhere an attempt still running after 11 minutes is taken as hung: a delivery starts the next', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() });
    const { store, calls } = slowStore(Infinity, 0);
    const receiver = rx.createReceiver(receiverOptions(store, { log: captureLog() }));
    const early = receiver.handle(delivery(12));
    await elapse(t, 2);
    assert.deepEqual([(await early).status, calls.ready], [503, 1], 'a migration may run 10 minutes: waited on');
    t.mock.timers.tick(11 * 60_000);
    const late = receiver.handle(delivery(13));
    await elapse(t, 1);
    assert.deepEqual([(await late).status, calls.ready], [200, 2]);
  });

  test('on Workers: the calls waiting on an attempt that never settles start the next after 10 s, once, and are answered', async (t) => {
    asWorkers(t);
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { store, calls } = slowStore(Infinity, 0);
    const receiver = rx.createReceiver(receiverOptions(store, { log: captureLog() }));
    const answers = [5, 6, 7].map((n) => receiver.handle(delivery(n)));
    await flush();
    assert.deepEqual(calls, { ready: 1, record: 0 }, 'all three wait on the first attempt');
    await elapse(t, 1);
    for (const answer of await Promise.all(answers)) assert.equal(answer.status, 200);
    assert.deepEqual(calls, { ready: 2, record: 3 }, 'one more attempt for the three');
    assert.equal((await receiver.handle(delivery(8))).status, 200);
    assert.equal(calls.ready, 2, 'ready from then on');
  });

  test('on Workers: an attempt given up on that succeeds first is the one kept, and wakes the calls waiting on the next', async (t) => {
    asWorkers(t);
    t.mock.timers.enable({ apis: ['setTimeout'] });
    // The first receiver's store is ready at 15 s; the second's, started at 10 s, at 18 s.
    const made = [];
    const lazy = rx.lazyReceiver(async () => {
      const slow = slowStore(made.length === 0 ? 15 : 8);
      made.push(slow.calls);
      return rx.createReceiver(receiverOptions(slow.store, { log: false }));
    }, { log: false });
    const first = lazy.handle(delivery(9));
    await elapse(t, 1); // 10 s: a second attempt starts
    assert.equal(made.length, 2);
    const second = lazy.handle(delivery(10)); // waits on the second attempt
    t.mock.timers.tick(5_000); // 15 s: the first receiver is ready
    await flush();
    assert.deepEqual([(await first).status, (await second).status], [200, 200]);
    await elapse(t, 1); // the second receiver is ready too: the first stays the one used
    assert.equal((await lazy.handle(delivery(11))).status, 200);
    assert.deepEqual(made.map((calls) => calls.record), [3, 0]);
  });
});

describe('a custom store (the documented interface) that fails', () => {
  test('a statement that outlasted its timeout: 503, and the line says where to look', async () => {
    const log = captureLog();
    const timeouts = [new Error('Query read timeout'), Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })];
    const slow = { async ready() {}, async record() { throw timeouts.shift(); }, async quarantine() {} };
    const receiver = rx.createReceiver(receiverOptions(slow, { log }));
    for (const n of [1, 2]) {
      const body = eventBody({ eventId: `evt_slow_${n}`, paymentId: 'pay_slow', statusVersion: n });
      const answer = await receiver.handle({ body, headers: signedHeaders(body) });
      assert.deepEqual([answer.status, answer.body], [503, '{"error":"store_unavailable"}']);
    }
    const lines = log.lines.filter((l) => l.includes('store_unavailable: could not record an event'));
    assert.equal(lines.length, 2, log.lines.join('\n'));
    for (const line of lines) {
      assert.match(line, /answered 503 so the service retries; the statement outlasted query_timeout or statement_timeout: .*FROM pg_stat_activity/);
      assert.doesNotMatch(line, /every retry will fail/);
    }
  });

  test('any rejection is 503; the log masks credentials in a URL and holds no body', async () => {
    const log = captureLog();
    const failing = {
      async ready() {},
      async record() {
        throw Object.assign(new Error('could not reach postgresql://merchant:pw-do-not-print@db.internal:5432/shop'), { code: 'ECONNREFUSED' });
      },
      quarantine() {
        throw new Error('quarantine is down');
      },
    };
    const receiver = rx.createReceiver(receiverOptions(failing, { log }));
    const body = eventBody({ eventId: 'evt_custom', paymentId: 'pay_custom', statusVersion: 1 });
    const answer = await receiver.handle({ body, headers: signedHeaders(body) });
    assert.deepEqual([answer.status, answer.body], [503, '{"error":"store_unavailable"}']);
    const kept = await receiver.handle({ body: 'x', headers: signedHeaders('x') });
    assert.deepEqual([kept.status, kept.body], [503, '{"error":"store_unavailable"}']);
    const logged = log.lines.join('\n');
    assert.match(logged, /store_unavailable: could not record an event \(ECONNREFUSED: could not reach postgresql:\/\/\*\*\*@db\.internal:5432\/shop\)/);
    assert.ok(!logged.includes('pw-do-not-print') && !logged.includes('merchant') && !logged.includes('evt_custom'), logged);
    // The other places a driver's message may hold a credential: each masked.
    for (const text of [
      'postgres://user:Pw@Canary@db.example/x failed',
      'password=Pw_Canary host=db.example',
      'connect user:Pw_Canary@db.example refused',
      'GET https://api.example/x?authToken=Pw_Canary&password=Pw_Canary failed',
      'rejected: api_key: Pw_Canary',
      'PGPASSWORD=Pw_Canary psql failed',
      'DB_PASSWORD: Pw_Canary (from the environment)',
      'X_API_KEY=Pw_Canary',
      'password "Pw_Canary with spaces" refused',
      "secret: 'Pw_Canary'",
      'postgres://bob:s3cr/Pw_Canary?#@db.example/shop failed',
      'auth failed for {"user":"shop","password":"Pw_Canary"}',
      "options {'secret': 'Pw_Canary'}",
      'Authorization: Bearer Pw_Canary.x-y',
      'Basic Pw_Canary== refused',
      'connect bob:pa/ss_Pw_Canary@db.example refused',
      `store failed:${'\n'.repeat(4049)} postgres://alice:Pw_Canary@db/shop`,
      'connect 1.postgres://alice:Pw_Canary@db refused',
      'password=ab}Pw_Canary',
      'auth failed: "pass": "Pw_Canary"',
      'PGPASS=Pw_Canary psql failed',
      'HTTP 401: Authorization: Token Pw_Canary',
      'proxy answered: Proxy-Authorization: Digest Pw_Canary',
      'private_key: Pw_Canary',
      'libsql://db.example authToken Pw_Canary0123',
      'credentials Pw_Canary0123 refused',
      'Cookie: session=Pw_Canary; sid=Pw_Canary after',
      'connect //alice:Pw_Canary@db refused',
      'notify failed: webhook_secret=https://hooks.example/services/T0/B0/Pw_Canary_x9Qz',
      'PGPASSWORD=ftp://Pw_Canary0123',
      '{"credentials":"Pw_Canary"}',
      'client_credentials=Pw_Canary',
      'Authorization: Bot Pw_Canary.abc',
      'Authorization: SharedKey acct:Pw_Canary=',
      'authorization: "Pw_Canary"',
      'pass: Pw_Canary',
      'pass "Pw_Canary" refused',
      'Authorization: AWS4-HMAC-SHA256 Credential=AKIAPw_Canary/20260101/us-east-1/s3/aws4_request, SignedHeaders=host',
      'password: hunter2Pw_Canary: refused',
      Object.assign(new Error('connection failed'), { name: 'postgres://bob:Pw_Canary@db.example' }),
      // A payment API's key in a message of the merchant's own code (a refund that failed).
      'Invalid API Key provided: sk_live_51Pw_Canary9xYz',
      'restricted key rk_test_Pw_Canary0123 may not refund',
    ]) {
      const lines = captureLog();
      const thrown = text instanceof Error ? text : new Error(text);
      const leaky = rx.createReceiver(receiverOptions({ ...failing, record: async () => { throw thrown; } }, { log: lines }));
      assert.equal((await leaky.handle({ body, headers: signedHeaders(body) })).status, 503);
      const line = lines.lines.join('\n');
      assert.match(line, /store_unavailable: could not record an event/);
      assert.ok(!line.includes('Canary'), line);
    }
    // The receiver's own secret, without a form that marks it (no whsec_), quoted by a
    // message it did not write: replaced wherever a line holds it.
    const own = 'Pw_Canary_own_secret_0123';
    const ownLog = captureLog();
    const quoting = rx.createReceiver(receiverOptions({ ...failing, record: async () => { throw new Error(`config dump: ${own} (signing)`); } },
      { log: ownLog, secrets: own }));
    assert.equal((await quoting.handle({ body, headers: signedHeaders(body, { secret: own }) })).status, 503);
    assert.match(ownLog.lines.join('\n'), /could not record an event \(Error: config dump: \*\*\* \(signing\)\)/);
    assert.ok(!ownLog.lines.join('\n').includes('Canary'), ownLog.lines.join('\n'));
    // fetch's own failure says why only in its cause (libsql over HTTP): the line names it, masked.
    const fetchLog = captureLog();
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:8080 (https://tok:Pw_Canary@db.example.turso.io)'), { code: 'ECONNREFUSED' });
    const wrapped = rx.createReceiver(receiverOptions({ ...failing, record: async () => { throw new TypeError('fetch failed', { cause: refused }); } },
      { log: fetchLog }));
    assert.equal((await wrapped.handle({ body, headers: signedHeaders(body) })).status, 503);
    assert.match(fetchLog.lines.join('\n'), /could not record an event \(TypeError: fetch failed \(cause: connect ECONNREFUSED 10\.0\.0\.5:8080 \(https:\/\/\*\*\*@db\.example\.turso\.io\)\)\)/);
    assert.ok(!fetchLog.lines.join('\n').includes('Canary'), fetchLog.lines.join('\n'));
    // An empty message leaves the code alone, with no dangling ": ", the cause's too.
    for (const [thrown, said] of [
      [Object.assign(new Error(''), { code: '57P01' }), '(57P01)'],
      [new TypeError('fetch failed', { cause: Object.assign(new Error(''), { code: 'ECONNRESET' }) }), '(TypeError: fetch failed (cause: ECONNRESET))'],
      ['', '(a failure with no message)'],
    ]) {
      const bare = captureLog();
      const silent = rx.createReceiver(receiverOptions({ ...failing, record: async () => { throw thrown; } }, { log: bare }));
      assert.equal((await silent.handle({ body, headers: signedHeaders(body) })).status, 503);
      assert.ok(bare.lines.some((l) => l.includes(`could not record an event ${said}`)), bare.lines.join('\n'));
    }
    // What tells the fix is kept: a driver's words after a credential's name, a token of JSON.
    for (const text of ['password authentication failed for user "shop"', 'Unexpected token u in JSON at position 0',
      'Could not load credentials: ENOENT: no such file', 'includes credentials: http://***@db.example:5432/shop']) {
      const words = captureLog();
      const plain = rx.createReceiver(receiverOptions({ ...failing, record: async () => { throw new Error(text); } }, { log: words }));
      assert.equal((await plain.handle({ body, headers: signedHeaders(body) })).status, 503);
      assert.ok(words.lines.join('\n').includes(text), words.lines.join('\n'));
    }
    // A server error from Bun's SQL client: its SQLSTATE (in errno) is what the log names.
    const bun = captureLog();
    const bunError = Object.assign(new Error('could not extend file "base/5/16384"'), { code: 'ERR_POSTGRES_SERVER_ERROR', errno: '53100' });
    const disk = rx.createReceiver(receiverOptions({ ...failing, record: async () => { throw bunError; } }, { log: bun }));
    assert.equal((await disk.handle({ body, headers: signedHeaders(body) })).status, 503);
    assert.match(bun.lines.join('\n'), /could not record an event \(53100: could not extend file/);
    // A rejection String() cannot print (no prototype; a toString that throws): 503 all the same,
    // through handle() and through a lazy receiver's node() (which answers, not rejects).
    const unprintables = [Object.create(null), { toString() { throw new Error('no'); } }, Object.assign(Object.create(null), { message: Object.create(null) })];
    for (const thrown of unprintables) {
      const lines = captureLog();
      const strange = rx.createReceiver(receiverOptions({ ...failing, record: async () => { throw thrown; }, quarantine: async () => { throw thrown; } }, { log: lines }));
      assert.equal((await strange.handle({ body, headers: signedHeaders(body) })).status, 503);
      assert.equal((await strange.handle({ body: 'x', headers: signedHeaders('x') })).status, 503);
      assert.match(lines.lines.join('\n'), /store_unavailable: could not record an event \(an unprintable object value\)/);
      const lazyLines = captureLog();
      const lazy = rx.lazyReceiver(async () => { throw thrown; }, { log: lazyLines });
      const server = await listen((req, res) => lazy.node(req, res));
      try {
        const answered = await post(server.url, body);
        assert.equal(answered.status, 503);
      } finally {
        await server.close();
      }
      assert.match(lazyLines.lines.join('\n'), /store_unavailable .*could not create the receiver \(an unprintable object value\)/);
      await assert.rejects(lazy.ready(), (error) => error instanceof Error && /unprintable/.test(error.message));
    }
    // A store that answers something other than a decision is not trusted either.
    const odd = rx.createReceiver(receiverOptions({ ...failing, record: async () => 'applied' }, { log: false }));
    assert.equal((await odd.handle({ body, headers: signedHeaders(body) })).status, 503);
  });
});

describe('createReceiver and the stores check their options at once', () => {
  test('invalid_argument for a missing header name, store or secret; unknown keys are not echoed', () => {
    const store = rx.memoryStore();
    const code = (fn) => {
      try {
        fn();
      } catch (error) {
        assert.ok(error instanceof pkg.CryptoPayError, String(error));
        return [error.code, error.message];
      }
      return null;
    };
    assert.equal(code(() => rx.createReceiver({ ...receiverOptions(store), timestampHeader: '' }))[0], 'invalid_argument');
    assert.equal(code(() => rx.createReceiver({ ...receiverOptions(store), store: undefined }))[0], 'invalid_argument');
    assert.equal(code(() => rx.createReceiver({ ...receiverOptions(store), secrets: [] }))[0], 'no_secrets');
    assert.equal(code(() => rx.createReceiver({ ...receiverOptions(store), maxSkewSecs: undefined }))[0], 'invalid_argument');
    const [unknown, message] = code(() => rx.createReceiver({ ...receiverOptions(store), whsec_pasted_by_mistake: 1 }));
    assert.equal(unknown, 'invalid_argument');
    assert.ok(!message.includes('whsec_pasted_by_mistake'));
    assert.equal(code(() => rx.postgresStore({}))[0], 'invalid_argument');
    // postgres.js's sql and Bun's SQL (tagged-template functions with .unsafe), given as they are.
    const taggedTemplate = Object.assign(() => [], { unsafe: async () => [] });
    assert.match(code(() => rx.postgresStore(taggedTemplate))[1],
      /postgresStore was given a tagged-template SQL client \(postgres\.js, Bun's SQL\), which has no query\(text, values\): wrap it, postgresStore\(\{ query: async \(text, values\) => \(\{ rows: await sql\.unsafe\(text, values\) \}\) \}\)/);
    // A node-postgres Client from before pg 8.21 (no getTransactionStatus, hidden here): it could
    // not tell the store of a transaction of your code on it. A Pool of any version is taken.
    const pg = createRequire(join(ROOT, 'package.json'))('pg');
    const client = new pg.Client({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
    const oldClient = new Proxy(client, { get: (target, name) => (name === 'getTransactionStatus' ? undefined : target[name]) });
    assert.match(code(() => rx.postgresStore(oldClient))[1], /^invalid_argument: postgresStore was given a node-postgres Client older than pg 8\.21.*give the store a pg\.Pool, or upgrade pg/);
    assert.equal(typeof rx.postgresStore(client).ready, 'function');
    assert.equal(typeof rx.postgresStore(new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' })).ready, 'function');
    assert.equal(code(() => rx.sqliteStore({ prepare() {}, exec() {}, batch() {} }))[1].includes('d1Store'), true);
    assert.equal(code(() => rx.sqliteStore(new Database(':memory:'), { synchronous: 'OFF' }))[0], 'invalid_argument');
    assert.equal(code(() => rx.sqliteStore(new Database(':memory:'), { prefix: 'Bad-Prefix' }))[0], 'invalid_argument');
    assert.equal(code(() => rx.d1Store({}))[0], 'invalid_argument');
    // The usual slips are named: an unset variable, a near-miss key, a store not made.
    assert.match(code(() => rx.createReceiver({ ...receiverOptions(store), signatureHeader: undefined }))[1], /signatureHeader is undefined: is the environment variable set\?/);
    assert.match(code(() => rx.createReceiver({ ...receiverOptions(store), maxSkewSecs: undefined, max_skew_secs: 300 }))[1], /did you mean "maxSkewSecs"\?/);
    assert.match(code(() => rx.createReceiver({ ...receiverOptions(store), store: rx.sqliteStore }))[1], /store is a function \(sqliteStore\), not a store: call it with your client/);
    assert.match(code(() => rx.createReceiver({ ...receiverOptions(store), store: new Database(':memory:') }))[1], /store is a database client, not a store: wrap it/);
  });

  test('an adapter whose query answers the rows themselves, not { rows }: ready() says the shape, and a delivery is 503, never a 2xx', async () => {
    // The natural one-liner for postgres.js or Bun's SQL: (text, values) => sql.unsafe(text, values).
    const log = captureLog();
    const store = rx.postgresStore({ query: async () => [] });
    await assert.rejects(store.ready(), (error) => error.code === 'invalid_argument'
      && /postgresStore's query\(text, values\) answered an array: it resolves \{ rows: \[\.\.\.\] \}, as node-postgres does; for postgres\.js's or Bun's SQL client, wrap it/.test(error.message));
    const receiver = rx.createReceiver(receiverOptions(rx.postgresStore({ query: async () => ({}) }), { log }));
    const body = eventBody({ eventId: 'evt_shape', paymentId: 'pay_shape', statusVersion: 1 });
    const answer = await receiver.handle({ body, headers: signedHeaders(body) });
    assert.ok(answer.status >= 500, answer.body);
    assert.ok(log.lines.some((l) => l.includes('answered no { rows } array: it resolves { rows: [...] }')), log.lines.join('\n'));
  });

  test('a SQLite database in memory is refused at ready(): nothing it acknowledged would outlive the process', async () => {
    for (const [what, store, close] of [
      ['better-sqlite3 :memory:', rx.sqliteStore(new Database(':memory:')), () => {}],
      ...[':memory:', 'file::memory:'].map((url) => {
        const client = createLibsqlClient({ url });
        return [`libsql ${url}`, rx.libsqlStore(client), () => client.close()];
      }),
    ]) {
      try {
        const receiver = rx.createReceiver(receiverOptions(store, { log: false }));
        await assert.rejects(receiver.ready(), (error) => {
          assert.match(error.message, /the database is in memory \(':memory:'\), so every event it acknowledged would be lost when the process ends/, what);
          assert.match(error.message, /open a file .*; for tests, memoryStore\(\) is named so/, what);
          return true;
        });
        const body = eventBody({ eventId: 'evt_mem', paymentId: 'pay_mem', statusVersion: 1 });
        assert.equal((await receiver.handle({ body, headers: signedHeaders(body) })).status, 503, what);
      } finally {
        close();
      }
    }
    // A file is taken, by either driver.
    const dir = tempDir();
    const file = rx.createReceiver(receiverOptions(rx.sqliteStore(new Database(join(dir, 'a.sqlite'))), { log: false }));
    await file.ready();
    const client = createLibsqlClient({ url: `file:${join(dir, 'b.sqlite')}` });
    try {
      await rx.createReceiver(receiverOptions(rx.libsqlStore(client), { log: false })).ready();
    } finally {
      client.close();
    }
  });

  test('a clock in milliseconds is a 500 (retried), never a 400 the service would not retry', async () => {
    const log = captureLog();
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log, nowSecs: () => Date.now() }));
    const body = eventBody({ eventId: 'evt_ms', paymentId: 'pay_ms', statusVersion: 1 });
    const answer = await receiver.handle({ body, headers: signedHeaders(body) });
    assert.deepEqual([answer.status, answer.body], [500, '{"error":"invalid_argument"}']);
    assert.ok(log.lines.some((l) => /nowSecs\(\) returned a time in milliseconds \(13 digits or more\): return Math\.floor\(Date\.now\(\) \/ 1000\)/.test(l)), log.lines.join('\n'));
  });

  test('a delivery signed with the retiring secret inside its overlap that arrives after it is a 500 (retried), not a forgery', async () => {
    const OLD = `${SECRET}_old`;
    const until = 1_800_000_000;
    let clock = until + 10;
    const log = captureLog();
    const outcomes = [];
    const secrets = { shop: [{ secret: SECRET, kind: 'active' }, { secret: OLD, kind: 'retiring', acceptUntilSecs: until }] };
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { secrets, log, nowSecs: () => clock, onOutcome: (o) => outcomes.push(o) }));
    const body = eventBody({ eventId: 'evt_late', paymentId: 'pay_late', statusVersion: 1 });
    // Signed at the overlap's last second (and one before it), arriving 10 s after it ended.
    for (const signedAt of [until, until - 1]) {
      const late = await receiver.handle({ body, headers: signedHeaders(body, { secret: OLD, timestamp: signedAt }) });
      assert.deepEqual([late.status, late.body], [500, '{"error":"signature_mismatch"}'], `signed at ${signedAt}`);
      assert.deepEqual(outcomes.pop(), { kind: 'delivery', integration: 'shop', bodyBytes: body.length, status: 500, reason: 'misconfigured', code: 'signature_mismatch' });
    }
    assert.ok(log.lines.some((l) => l.includes(`signed with the retiring secret of integration "shop" inside its overlap (its timestamp ${until}, `
      + `acceptUntilSecs ${until}) arrived 10 s after the overlap ended: answered 500`)), log.lines.join('\n'));
    // Said once a minute at most (a replay of one gets the same answer), with the count since.
    assert.equal(log.lines.filter((l) => /inside its overlap/.test(l)).length, 1, log.lines.join('\n'));
    clock += 60;
    assert.equal((await receiver.handle({ body, headers: signedHeaders(body, { secret: OLD, timestamp: until }) })).status, 500);
    assert.match(log.lines.filter((l) => /inside its overlap/.test(l))[1], /arrived 70 s after the overlap ended \(and 1 more such since the last line\): answered 500/);
    outcomes.pop();
    clock = until + 10;
    // The service's retry, signed with the active secret, is recorded.
    const retry = await receiver.handle({ body, headers: signedHeaders(body, { timestamp: clock }) });
    assert.equal(retry.status, 200, retry.body);
    // Signed after the overlap with the old secret (the service signs only with the active one
    // then), or inside it but older than maxSkewSecs: refused, 400, as before.
    for (const [signedAt, now] of [[until + 1, until + 10], [until, until + 301]]) {
      clock = now;
      const refused = await receiver.handle({ body, headers: signedHeaders(body, { secret: OLD, timestamp: signedAt }) });
      assert.deepEqual([refused.status, refused.body], [400, '{"error":"signature_mismatch"}'], `signed at ${signedAt}, now ${now}`);
      assert.equal(outcomes.pop().reason, 'forgery');
    }
    // A secret nobody configured, inside the window: a plain forgery.
    clock = until + 10;
    const forged = await receiver.handle({ body, headers: signedHeaders(body, { secret: `${SECRET}_other`, timestamp: until }) });
    assert.deepEqual([forged.status, outcomes.pop().reason], [400, 'forgery']);
  });

  test('a clock too small to be Unix seconds (uptime, a part of the date) is a 500 too, never a 400 from the future', async () => {
    for (const [name, nowSecs] of [['uptime', () => Math.floor(performance.now() / 1000)], ['seconds of the minute', () => new Date().getSeconds()],
      ['just before September 2001', () => 999_999_999]]) {
      const log = captureLog();
      const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log, nowSecs }));
      const body = eventBody({ eventId: 'evt_small', paymentId: 'pay_small', statusVersion: 1 });
      const answer = await receiver.handle({ body, headers: signedHeaders(body) });
      assert.deepEqual([answer.status, answer.body], [500, '{"error":"invalid_argument"}'], name);
      assert.ok(log.lines.some((l) => /nowSecs\(\) returned \d+, before September 2001: not the current Unix time in seconds .*return Math\.floor\(Date\.now\(\) \/ 1000\)/.test(l)), `${name}: ${log.lines.join('\n')}`);
    }
    // The first second it takes: a delivery signed then is accepted.
    const receiver = rx.createReceiver(receiverOptions(rx.memoryStore(), { log: false, nowSecs: () => 1_000_000_000 }));
    const body = eventBody({ eventId: 'evt_2001', paymentId: 'pay_2001', statusVersion: 1 });
    const answer = await receiver.handle({ body, headers: signedHeaders(body, { timestamp: 1_000_000_000 }) });
    assert.equal(answer.status, 200, answer.body);
  });

  test('a prefix names other tables; createTables: false only checks they exist', async () => {
    const db = new Database(join(tempDir(), 'prefix.sqlite'));
    const checking = rx.createReceiver(receiverOptions(rx.sqliteStore(db, { prefix: 'shop1_', createTables: false }), { log: false }));
    // What makes the tables is named (createTables: false before the migration), not what mends columns.
    await assert.rejects(checking.ready(), /^Error: sqliteStore: no such table: shop1_events; .*\. With createTables: false nothing is created: run the schema statements of dist\/receiver\/schema\/sqlite\.sql first/);
    // The migration file the package ships (its exports name it), prefix replaced, as a user runs it.
    const migrated = new Database(join(tempDir(), 'migrated.sqlite'));
    migrated.exec(readFileSync(exportedFile('./schema/sqlite-schema.sql'), 'utf8').replaceAll('cryptopay_', 'made_'));
    const onMigrated = rx.createReceiver(receiverOptions(rx.sqliteStore(migrated, { prefix: 'made_', createTables: false }), { log: false }));
    await onMigrated.ready();
    const made = eventBody({ eventId: 'evt_made', paymentId: 'pay_made', statusVersion: 1 });
    assert.equal((await onMigrated.handle({ body: made, headers: signedHeaders(made) })).body, '{"received":true,"decision":"apply"}');
    migrated.close();
    const creating = rx.createReceiver(receiverOptions(rx.sqliteStore(db, { prefix: 'shop1_' }), { log: false }));
    await creating.ready();
    await checking.ready();
    const body = eventBody({ eventId: 'evt_p', paymentId: 'pay_p', statusVersion: 3 });
    assert.equal((await checking.handle({ body, headers: signedHeaders(body) })).body, '{"received":true,"decision":"apply"}');
    assert.deepEqual(sqliteRows(db, 'shop1_').events.map((e) => e.event_id), ['evt_p']);
    assert.equal(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'cryptopay_%'").get().n, 0);
    // The pragmas it set on the connection: WAL, synchronous=FULL, a busy timeout, and a WAL
    // cut back to 64 MiB after a checkpoint (unset, -1: it kept its largest size).
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(db.pragma('synchronous', { simple: true }), 2);
    assert.equal(db.pragma('busy_timeout', { simple: true }), 5000);
    assert.equal(db.pragma('journal_size_limit', { simple: true }), 64 * 1024 * 1024);
    db.close();
  });
});
