// `cryptopay-verify conformance` against the example receiver (every rule holds, rotation
// included), its table and --json output, and careless receivers built on the package, each
// caught by the rule it breaks (careless.test.mjs has one per defect class).

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  CONSUMER_DIR, PENDING_SECRET, RETIRED_SECRET, ROOT, ROTATION_ARGS, SECRET, SECRET_ENV, SIG_HEADER, TS_HEADER, acknowledgeEverything, against,
  conformance, gotOf, nowSecs, pkg, plainReceiver, runCli, shown, startExample, startServer, tempDir, verifyingReceiver,
} from './helpers.mjs';
import { Database } from '../receiver/lib/helpers.mjs';
import { exampleDir } from '../receiver/lib/example.mjs';
import { inheritedEnv } from '../receiver/lib/example-env.mjs';
import { freePort } from '../runtimes/lib.mjs';

const RULES = ['valid_delivery', 'retry_same_event', 'older_version', 'non_ascii_body', 'formatted_body', 'unknown_fields', 'large_body',
  'old_event', 'bad_signature', 'other_secret',
  'stale_timestamp', 'future_timestamp', 'tampered_body', 'reserialized_body', 'missing_headers', 'header_case',
  'no_redirect', 'response_time'];
const ROTATION = ['pending_secret', 'retired_secret'];
const REFUSALS = ['bad_signature', 'other_secret', 'stale_timestamp', 'future_timestamp', 'tampered_body',
  'reserialized_body', 'missing_headers'];
// What a broken valid_delivery leaves unjudged (without the rotation rules).
const AFTER_VALID = RULES.filter((r) => !['valid_delivery', 'no_redirect', 'response_time'].includes(r));


/** A self-signed certificate (made with openssl) for `name`: { key, cert }, the paths of its PEM files. */
function selfSigned(name, altName) {
  const dir = tempDir();
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
    '-subj', `/CN=${name}`, '-addext', `subjectAltName=${altName}`, '-keyout', key, '-out', cert], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  return { key, cert };
}

describe('against the example receiver, during a rotation', () => {
  let receiver;
  const dataDir = tempDir();
  before(async () => {
    receiver = await startExample({
      dataDir,
      env: {
        CRYPTOPAY_WEBHOOK_SECRET_PENDING: PENDING_SECRET,
        CRYPTOPAY_WEBHOOK_SECRET_RETIRING: RETIRED_SECRET,
        CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: String(nowSecs() - 3600), // the overlap has ended
      },
    });
  });
  after(() => receiver?.stop());

  test('every rule holds, rotation included: exit 0, a JSON array of { rule, expected, got, verdict }', async () => {
    const run = await conformance(receiver.webhookUrl, ROTATION_ARGS);
    assert.equal(run.code, 0, `${shown(run)}\n${receiver.output}`);
    assert.deepEqual(run.results.map((r) => r.rule), [...RULES, ...ROTATION]);
    for (const r of run.results) {
      assert.deepEqual(Object.keys(r), ['rule', 'expected', 'got', 'verdict']);
      assert.equal(r.verdict, 'pass', `${r.rule}: ${r.got}`);
    }
    assert.match(gotOf(run, 'bad_signature'), /^wrong signature of the right shape: 400 permanent_failure \(signature_mismatch\); its last character changed: 400 permanent_failure \(signature_mismatch\); empty value: 400 permanent_failure \(signature_missing\); /);
    assert.equal(gotOf(run, 'bad_signature').split('; ').length, 10);
    assert.match(gotOf(run, 'bad_signature'), /forged: an older version of a known payment: 400 permanent_failure \(signature_mismatch\); forged: event_type payment\.refunded: 400 permanent_failure \(signature_mismatch\); valid_delivery's bytes again, a wrong signature: 400 permanent_failure \(signature_mismatch\)$/);
    assert.match(gotOf(run, 'missing_headers'), /; valid_delivery's bytes again, neither header: 400 permanent_failure \([a-z_]+\)$/);
    assert.match(gotOf(run, 'other_secret'), /^other secret: 400 .*; signed with an empty secret: 400 .*; signed with the text "undefined" as secret: 400/);
    // A byte order mark or a newline added to an authentic body is what a proxy adds: the
    // receiver answers 500 (retried once the proxy is fixed), never accepting it.
    assert.match(gotOf(run, 'tampered_body'), /a byte order mark prepended: 500 retry \(invalid_argument\).*a newline appended: 500 retry \(invalid_argument\).*U\+FFFD sent as the invalid byte 0xFF: 400 .*valid_delivery's event changed, its signature: 400/);
    assert.match(gotOf(run, 'stale_timestamp'), /stale, with t=<now> in the signature header: 400 permanent_failure \(signature_malformed\); replayed: a fresh timestamp header, the stale t= and signature: 400 permanent_failure \(signature_malformed\); stale, after a second timestamp header holding now: 400 permanent_failure \(header_duplicated\); stale, before a second timestamp header holding now: 400 permanent_failure \(header_duplicated\)/);
    assert.match(gotOf(run, 'stale_timestamp'), /timestamp_too_old/);
    assert.equal(gotOf(run, 'retired_secret'), '400 permanent_failure (signature_mismatch)');
    assert.equal(gotOf(run, 'older_version'), 'higher: 200 acknowledged; older: 200 acknowledged; equal version: 200 acknowledged; '
      + 'digit string: 200 acknowledged; digit string, older: 200 acknowledged');
    assert.match(run.stderr, /all 20 rules hold/);
  });

  test('the package README\'s clean-up statements remove what the run recorded, and nothing else', () => {
    const readme = readFileSync(join(CONSUMER_DIR, 'node_modules', 'cryptopay-verify', 'README.md'), 'utf8');
    const cleanup = /\*\*What a run leaves behind\.\*\*[\s\S]*?```sql\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(cleanup, 'the README has the clean-up statements');
    const db = new Database(join(dataDir, 'receiver.sqlite'));
    try {
      // The shop's own event, whose id an unescaped LIKE (_ is any character) would match.
      db.prepare("INSERT INTO cryptopay_events (event_id, payment_id, status_version, decision, body) VALUES ('evt_conformancex', 'pay_shop', '1', 'apply', x'7b7d')").run();
      const left = () => db.prepare("SELECT (SELECT count(*) FROM cryptopay_events WHERE substr(event_id, 1, 16) = 'evt_conformance_') AS events, "
        + "(SELECT count(*) FROM cryptopay_payments WHERE substr(payment_id, 1, 16) = 'pay_conformance_') AS payments, "
        + '(SELECT count(*) FROM cryptopay_events) AS every').get();
      const before = left();
      assert.ok(before.events > 0 && before.payments > 0, JSON.stringify(before));
      db.exec(cleanup);
      assert.deepEqual(left(), { events: 0, payments: 0, every: 1 }, 'the shop\'s own event kept');
      // The run's quarantined payment.refunded: the SQLite statement of the block after it.
      const after = /\*\*What a run leaves behind\.\*\*[\s\S]*?```sql\n[\s\S]*?```[\s\S]*?```sql\n([\s\S]*?)```/.exec(readme)?.[1];
      const sqlite = /^-- SQLite, libsql, D1\n([\s\S]*)$/m.exec(after ?? '')?.[1];
      assert.ok(sqlite, 'the README has the quarantine\'s clean-up statement for SQLite');
      // The shop's own quarantined delivery, the table's newest row, kept; one that merely
      // names evt_conformanceX is not the kit's.
      const ins = db.prepare('INSERT INTO cryptopay_quarantine (code, body) VALUES (?, ?)');
      ins.run('event_malformed', Buffer.from('{"event_id":"evt_conformanceX"}'));
      ins.run('event_malformed', Buffer.from([0x7b, 0xff, 0x00]));
      const quarantined = () => db.prepare("SELECT (SELECT count(*) FROM cryptopay_quarantine WHERE CAST(body AS TEXT) LIKE '%\"evt!_conformance!_%' ESCAPE '!') AS kits, "
        + '(SELECT count(*) FROM cryptopay_quarantine) AS every').get();
      const held = quarantined();
      assert.ok(held.kits > 0, `the run's payment.refunded is quarantined: ${JSON.stringify(held)}`);
      db.exec(sqlite);
      assert.deepEqual(quarantined(), { kits: 0, every: held.every - held.kits }, 'the shop\'s own rows kept');
    } finally {
      db.close();
    }
  });

  test('the table: progress while it runs, rule, expected, got, verdict, every line within 100 columns', async () => {
    const run = await runCli(['conformance', '--url', receiver.webhookUrl, '--secret-env', SECRET_ENV,
      '--timestamp-header', TS_HEADER.toLowerCase(), '--signature-header', SIG_HEADER.toUpperCase(), '--encoding', 'base64',
      ...ROTATION_ARGS]);
    assert.equal(run.code, 0, shown(run));
    assert.match(run.stdout, /^rule\s+expected\s+got\s+verdict$/m);
    for (const rule of [...RULES, ...ROTATION]) assert.match(run.stdout, new RegExp(`^${rule}\\s+.*\\spass$`, 'm'));
    assert.match(run.stdout, /all 20 rules hold/);
    assert.match(run.stdout.replace(/\n {4}/g, " "), /retry_same_event and older_version judge answers only: no URL-only kit can see durable recording, de-duplication by event_id \(a retry is answered 2xx whether it was applied again or not\) or ordering/);
    // A receiver that forwards is told where that work went.
    assert.match(run.stdout.replace(/\n {4}/g, ' '), /a receiver that forwards events to a queue or another service leaves them to whatever consumes it/);
    assert.doesNotMatch(run.stdout, /not checked/);
    // What the run leaves in the receiver's store, and where the cleanup is.
    assert.match(run.stdout.replace(/\n {4}/g, ' '), /^left behind: its valid deliveries were authentic events \(evt_conformance_\.\.\., payments pay_conformance_\.\.\.\).* or delete them \(the package README, "What a run leaves behind"\)$/m);
    assert.match(run.stderr, /conformance \[20\/20\] retired_secret/);
    for (const line of run.stdout.split('\n')) assert.ok(line.length <= 100, `${line.length} columns: ${line}`);
  });

  test('without the rotation options the table says that rotation was not checked', async () => {
    const run = await runCli(['conformance', '--url', receiver.webhookUrl, '--secret-env', SECRET_ENV,
      '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER, '--max-skew', '600', '--timeout', '5']);
    assert.equal(run.code, 0, shown(run));
    assert.match(run.stdout, /all 18 rules hold/);
    assert.match(run.stdout, /^not checked: pending_secret and retired_secret \(during a rotation/m);
  });

  test('a URL the service would not deliver to is a warning, not a failure', async () => {
    const run = await conformance(receiver.webhookUrl);
    assert.equal(run.code, 0, shown(run));
    assert.match(run.stderr, /warning: the service would not deliver to this URL\s+\(webhook_url_not_https/);
  });
});

describe('careless receivers are caught by the rule they break', () => {
  test('one that acknowledges everything: every refusal rule fails, nothing else', async () => {
    const run = await against(acknowledgeEverything, ROTATION_ARGS);
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(run.failed, [...REFUSALS, 'retired_secret']);
    assert.deepEqual(run.notJudged, []);
    assert.match(gotOf(run, 'bad_signature'), /^wrong signature of the right shape: 200 acknowledged; its last character changed: 200 acknowledged; empty value: 200 acknowledged/);
    assert.match(run.stderr, /8 rules failed: bad_signature, other_secret, stale_timestamp, future_timestamp, tampered_body, reserialized_body, missing_headers, retired_secret$/m);
  });

  test('the table names each failed rule and what to fix (exit 1), within 100 columns', async () => {
    const server = await startServer(acknowledgeEverything);
    try {
      const run = await runCli(['conformance', '--url', server.url, '--secret-env', SECRET_ENV,
        '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER]);
      assert.equal(run.code, 1);
      assert.match(run.stdout, /^bad_signature\s+non-2xx, each\s+accepted: wrong, end char, empty, separators\.\.\.\s+fail$/m);
      assert.match(run.stdout, /^missing_headers\s+non-2xx, each\s+accepted: neither, ts only, sig only\b.*\s+fail$/m);
      assert.match(run.stdout, /^valid_delivery\s+2xx\s+200 acknowledged\s+pass$/m);
      assert.match(run.stdout, /7 of 18 rules failed/);
      assert.match(run.stdout, /bad_signature: a wrong signature of the right shape was accepted: the receiver does not verify/);
      // Forged deliveries acknowledged: the other refusal rules name that cause, not their own.
      assert.match(run.stdout, /reserialized_body: the same cause as bad_signature/);
      assert.match(run.stdout, /stale_timestamp: an authentic delivery 3600 s old/);
      for (const line of run.stdout.split('\n')) assert.ok(line.length <= 100, `${line.length} columns: ${line}`);
    } finally {
      await server.close();
    }
  });

  test('one without de-duplication that answers 409 on a retry', async () => {
    const run = await against(verifyingReceiver({ onRetry: 409 }));
    assert.equal(run.code, 1);
    assert.deepEqual(run.failed, ['retry_same_event']);
    assert.equal(gotOf(run, 'retry_same_event'), 'first: 200 acknowledged; retry: 409 permanent_failure (already_processed)');
  });

  test('one without de-duplication that answers 500 on a retry', async () => {
    const run = await against(verifyingReceiver({ onRetry: 500 }));
    assert.equal(run.code, 1);
    assert.deepEqual(run.failed, ['retry_same_event']);
    assert.match(gotOf(run, 'retry_same_event'), /; retry: 500 retry/);
  });

  test('one that answers valid deliveries with a redirect: valid_delivery and no_redirect, the rest not judged', async () => {
    const run = await against(verifyingReceiver({ redirect: true }));
    assert.equal(run.code, 1);
    assert.deepEqual(run.failed, ['valid_delivery', 'no_redirect']);
    assert.deepEqual(run.notJudged, AFTER_VALID);
    assert.equal(gotOf(run, 'valid_delivery'), '302 permanent_failure redirect, not followed');
    assert.match(gotOf(run, 'no_redirect'), /^14 of 46 answered 3xx \(never followed\): valid_delivery \(valid\): 302; /);
    assert.match(run.stderr, /valid_delivery failed: fix it first .*; also failed: no_redirect/);
  });

  test('a 404 everywhere breaks valid_delivery only, never no_redirect', async () => {
    const run = await against((req, res) => {
      res.writeHead(404);
      res.end('not found');
    });
    assert.equal(run.code, 1);
    assert.deepEqual(run.failed, ['valid_delivery']);
    assert.deepEqual(run.notJudged, AFTER_VALID);
    assert.equal(gotOf(run, 'no_redirect'), 'no 3xx in 46 answers');
  });

  // Answered as JSON, or as text the way Stripe's guides answer (400 `Webhook Error: <message>`):
  // the code is read from either.
  for (const [how, answer] of [
    ['500 body_not_raw', (res, error) => {
      res.writeHead(error.code === 'body_not_raw' ? 500 : 400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: error.code }));
    }],
    ['400 "Webhook Error: <message>" as text', (res, error) => {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(`Webhook Error: ${error.message}`);
    }],
  ]) {
    test(`one whose framework parsed the body first (${how}): valid_delivery, with the raw-body hint`, async () => {
      const verifier = new pkg.Verifier({ secrets: SECRET, maxSkewSecs: 300 });
      const parsedFirst = (req, res, raw) => {
        let body;
        try {
          body = JSON.parse(raw.toString('utf8')); // what express.json() would hand the route
        } catch {
          body = {};
        }
        try {
          const headers = pkg.readDeliveryHeaders(req.headers, { timestampHeader: TS_HEADER, signatureHeader: SIG_HEADER });
          verifier.verifyWebhook({ body, ...headers, nowSecs: nowSecs() });
          res.writeHead(200).end();
        } catch (error) {
          answer(res, error);
        }
      };
      const run = await against(parsedFirst);
      assert.deepEqual(run.failed, ['valid_delivery']);
      assert.deepEqual(run.notJudged, AFTER_VALID);
      const server = await startServer(parsedFirst);
      try {
        const table = await runCli(['conformance', '--url', server.url, '--secret-env', SECRET_ENV, '--timestamp-header',
          TS_HEADER, '--signature-header', SIG_HEADER]);
        assert.match(table.stdout.replace(/\n {4}/g, ' '), /valid_delivery: the framework parsed the body before the receiver saw it: .*express\.raw/);
      } finally {
        await server.close();
      }
    });
  }

  test('one behind a proxy that drops header names holding an underscore (nginx by default): the hint says so', async () => {
    const names = { timestampHeader: 'X_Webhook_Timestamp', signatureHeader: 'X_Webhook_Signature' };
    const verifier = new pkg.Verifier({ secrets: SECRET, maxSkewSecs: 300 });
    const behindNginx = (req, res, raw) => {
      const kept = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !name.includes('_')));
      try {
        verifier.verifyWebhook({ body: raw, ...pkg.readDeliveryHeaders(kept, names), nowSecs: nowSecs() });
        res.writeHead(200).end();
      } catch (error) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: error.code }));
      }
    };
    const server = await startServer(behindNginx);
    try {
      const table = await runCli(['conformance', '--url', server.url, '--secret-env', SECRET_ENV,
        '--timestamp-header', names.timestampHeader, '--signature-header', names.signatureHeader]);
      assert.equal(table.code, 1, table.stdout + table.stderr);
      assert.match(table.stdout.replace(/\n {4}/g, ' '), new RegExp('valid_delivery: the receiver did not find a delivery header \\(timestamp_missing\\): the kit sent them as ' +
        'X_Webhook_Timestamp and X_Webhook_Signature. The receiver must read the names the service documents for your ' +
        'account; if those are what it reads, give the kit the same names with --timestamp-header and ' +
        '--signature-header; or a proxy in front dropped X_Webhook_Timestamp and ' +
        'X_Webhook_Signature: nginx drops a header whose name holds an underscore unless underscores_in_headers is on'));
    } finally {
      await server.close();
    }
    // Names without an underscore: no such guess.
    const plain = await against((req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"timestamp_missing"}'));
    assert.ok(!JSON.stringify(plain.results).includes('underscores_in_headers'));
  });

  test('an answer HTTP cannot read (a bare LF, two Content-Lengths) is named as such, not as a crash or TLS', async () => {
    for (const answer of ['HTTP/1.1 200 OK\nContent-Length: 2\n\nok', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok']) {
      const server = net.createServer((socket) => {
        socket.on('error', () => {});
        socket.once('data', () => socket.end(answer));
      });
      await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
      try {
        const url = `http://127.0.0.1:${server.address().port}/webhook`;
        const run = await conformance(url, ['--timeout', '2']);
        assert.equal(run.code, 1);
        assert.match(gotOf(run, 'valid_delivery'), /^no answer: HPE_/);
        const text = await runCli(['conformance', '--url', url, '--secret-env', SECRET_ENV,
          '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER, '--timeout', '2']);
        const said = text.stdout.replace(/\s+/g, ' ');
        assert.match(said, /valid_delivery: the answer was not well-formed HTTP \(HPE_[A-Z_]+\): the service cannot read such an answer either/);
        assert.match(said, /response_time: the answer to \d+ deliveries \([a-z_, ]+\) was not well-formed HTTP/);
        assert.doesNotMatch(said, /TLS|crash/);
      } finally {
        await new Promise((resolve) => { server.close(resolve); });
      }
    }
  });

  test('one that answers, then hangs (a lock left held): after three unanswered in a row nothing more is sent', async () => {
    const receiver = verifyingReceiver();
    let requests = 0;
    const run = await against((req, res, body) => {
      requests += 1;
      if (requests <= 2) return receiver(req, res, body);
      return undefined; // never answered
    }, ['--timeout', '0.2']);
    assert.equal(run.code, 1);
    // Stopped after the rule in which three in a row went unanswered (a rule may send several).
    assert.ok(requests >= 5 && requests < 12, `${requests} requests`);
    assert.ok(run.failed.includes('response_time'), JSON.stringify(run.failed));
    const notSent = run.results.filter((r) => r.got.startsWith('not sent'));
    assert.ok(notSent.length > 10, JSON.stringify(run.results));
    for (const r of notSent) assert.equal(r.got, 'not sent: the receiver answered none of 3 deliveries in a row within 0.2 s');
  });

  test('one slower than --timeout: valid_delivery and response_time fail; after three unanswered deliveries nothing more is sent', async () => {
    const started = Date.now();
    const run = await against(verifyingReceiver({ delayMs: 1500 }), ['--timeout', '0.2']);
    assert.equal(run.code, 1);
    assert.deepEqual(run.failed, ['valid_delivery', 'response_time']);
    assert.deepEqual(run.notJudged, [...AFTER_VALID, 'no_redirect']); // no_redirect: nothing was answered
    assert.match(gotOf(run, 'response_time'), /^no answer to 3 of 3: valid_delivery \(valid\): no answer within 0\.2 s; /);
    assert.equal(gotOf(run, 'valid_delivery'), 'no answer within 0.2 s');
    // The rules after the third delivery were not sent (a run of 45 timeouts, stopped).
    const notSent = run.results.filter((r) => r.got.startsWith('not sent'));
    assert.ok(notSent.length >= AFTER_VALID.length - 2, JSON.stringify(run.results));
    for (const r of notSent) assert.equal(r.got, 'not sent: the receiver answered none of 3 deliveries in a row within 0.2 s');
    assert.ok(Date.now() - started < 35 * 200, `took ${Date.now() - started} ms`);
    // The report says so and what to do.
    const server = await startServer(verifyingReceiver({ delayMs: 1500 }));
    try {
      const text = await runCli(['conformance', '--url', server.url, '--secret-env', SECRET_ENV,
        '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER, '--timeout', '0.2']);
      assert.equal(text.code, 1);
      assert.match(text.stdout.replace(/\s+/g, ' '), /not sent: [a-z_, ]+: the receiver answered none of 3 deliveries in a row within 0\.2 s, so the run stopped rather than wait for each \(make the receiver answer every delivery/);
    } finally {
      await server.close();
    }
  });

  test('one that leaves only forged deliveries unanswered (a tarpit): every rule is still sent', async () => {
    const inner = verifyingReceiver();
    const verifier = new pkg.Verifier({ secrets: SECRET, maxSkewSecs: 300 });
    const run = await against((req, res, body) => {
      try {
        const headers = pkg.readDeliveryHeaders(req.headers, { timestampHeader: TS_HEADER, signatureHeader: SIG_HEADER });
        verifier.verifySignature({ body, ...headers, nowSecs: nowSecs() });
      } catch (error) {
        if (/^signature_(mismatch|malformed)$/.test(error.code)) return undefined; // never answered
      }
      return inner(req, res, body);
    }, ['--timeout', '0.4']);
    assert.equal(run.code, 1);
    assert.ok(!run.results.some((r) => r.got.startsWith('not sent')), JSON.stringify(run.results));
    assert.ok(run.failed.includes('response_time'));
    // Only forged deliveries late: the fix named is refusing them at once, not acknowledging faster.
    assert.match(run.stderr.replace(/\s+/g, ' '), /no answer within --timeout to \d+ forged deliveries \(bad_signature, [a-z_, ]+\), the first bad_signature \(wrong signature of the right shape\): refuse a hostile delivery at once with 4xx/);
    assert.doesNotMatch(run.stderr, /acknowledge quickly/);
  });

  test('one that stops answering at its first forged delivery (an exception left a lock held): a valid one is sent to see, then nothing more', async () => {
    const receiver = verifyingReceiver();
    const verifier = new pkg.Verifier({ secrets: SECRET, maxSkewSecs: 300 });
    let requests = 0;
    let hung = false;
    const run = await against((req, res, body) => {
      requests += 1;
      if (hung) return undefined;
      try {
        const headers = pkg.readDeliveryHeaders(req.headers, { timestampHeader: TS_HEADER, signatureHeader: SIG_HEADER });
        verifier.verifySignature({ body, ...headers, nowSecs: nowSecs() });
      } catch (error) {
        if (/^signature_(mismatch|malformed)$/.test(error.code)) {
          hung = true;
          return undefined;
        }
      }
      return receiver(req, res, body);
    }, ['--timeout', '0.2']);
    assert.equal(run.code, 1);
    const sentFor = (rule) => run.results.find((r) => r.rule === rule);
    // Every rule before bad_signature (14 deliveries), three of bad_signature's, one valid: no more.
    assert.ok(requests <= 18, `${requests} requests`);
    assert.equal(sentFor('bad_signature').verdict, 'not_judged');
    for (const rule of ['other_secret', 'stale_timestamp', 'missing_headers', 'header_case']) {
      assert.equal(sentFor(rule).got, 'not sent: the receiver answered none of 3 deliveries in a row within 0.2 s', rule);
    }
    assert.ok(run.failed.includes('response_time'));
    assert.match(run.stderr.replace(/\s+/g, ' '), /no answer within --timeout to 3 forged deliveries \(bad_signature\), nor to a valid one sent after them: the receiver stopped answering at the first bad_signature \(wrong signature of the right shape\): look for an exception left unhandled/);
  });

  // Over https a stalled process's connections are still accepted (by the kernel), with no
  // TLS handshake: those deliveries count as unanswered too.
  test('over https://, one that answers, then hangs before the TLS handshake: after three unanswered in a row nothing more is sent', async () => {
    const { key, cert } = selfSigned('127.0.0.1', 'IP:127.0.0.1');
    const receiver = verifyingReceiver();
    const tls = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => receiver(req, res, Buffer.concat(chunks)));
    });
    let connections = 0;
    const held = [];
    const front = net.createServer((socket) => {
      connections += 1;
      if (connections <= 2) tls.emit('connection', socket);
      else held.push(socket.on('error', () => {})); // accepted, never read: no handshake
    });
    await new Promise((resolve) => { front.listen(0, '127.0.0.1', resolve); });
    try {
      const run = await conformance(`https://127.0.0.1:${front.address().port}/webhook`, ['--timeout', '0.2'], { env: { NODE_EXTRA_CA_CERTS: cert } });
      assert.equal(run.code, 1, shown(run));
      assert.ok(connections >= 5 && connections < 12, `${connections} connections`);
      const notSent = run.results.filter((r) => r.got.startsWith('not sent'));
      assert.ok(notSent.length > 10, JSON.stringify(run.results));
    } finally {
      for (const socket of held) socket.destroy();
      front.close();
      tls.close();
    }
  });

  test('one that reads header names case-sensitively', async () => {
    const run = await against(verifyingReceiver({ exactHeaderCase: true }));
    assert.equal(run.code, 1);
    assert.deepEqual(run.failed, ['header_case']);
    assert.match(gotOf(run, 'header_case'), /^400 permanent_failure \(timestamp_missing\), names sent as x-wEBHOOK-tIMESTAMP, x-wEBHOOK-sIGNATURE$/);
  });

  test('one that closes the connection on a malformed signature: response_time names it, bad_signature is not judged', async () => {
    const inner = verifyingReceiver();
    const run = await against((req, res, body) => {
      const signature = req.headers[SIG_HEADER.toLowerCase()];
      if (signature !== undefined && !/^[0-9a-f]{64}$/.test(signature)) {
        req.socket.destroy(); // a crash on hostile input: no answer at all
        return undefined;
      }
      return inner(req, res, body);
    });
    assert.equal(run.code, 1, shown(run));
    assert.deepEqual(run.failed, ['response_time']);
    // stale_timestamp's two t= variants are such signatures too.
    assert.deepEqual(run.notJudged, ['bad_signature', 'stale_timestamp']);
    assert.match(gotOf(run, 'response_time'), /^no answer to 7 of 46: bad_signature \(empty value\): ECONNRESET; /);
  });
});

describe('the wrong scheme in --url', () => {
  test('a host name that does not resolve: exit 2, the fix is its spelling', async () => {
    // .invalid never resolves (RFC 6761): answered by the resolver at once, no network needed.
    const run = await conformance('https://receiver.invalid/webhook');
    assert.equal(run.code, 2, shown(run));
    assert.match(run.stderr, /cannot reach the receiver at https:\/\/receiver\.invalid\/webhook: (ENOTFOUND|EAI_AGAIN).*\nno rule was checked \(exit 2\)\. The host name of --url does not resolve: check its spelling/);
  });

  test('https:// to a plain-HTTP receiver: exit 2, the fix is http://, not a certificate', async () => {
    const server = await startServer(verifyingReceiver());
    try {
      const run = await conformance(server.url.replace('http://', 'https://'));
      assert.equal(run.code, 2, shown(run));
      assert.match(run.stderr, /cannot reach the receiver at https:\/\/127\.0\.0\.1:\d+\/webhook: EPROTO \(wrong version number\)\nno rule was checked \(exit 2\)\. Nothing at that address speaks TLS: .*give --url as http:\/\//);
      assert.doesNotMatch(run.stderr, /NODE_EXTRA_CA_CERTS/);
    } finally {
      await server.close();
    }
  });

  // A receiver over TLS whose certificate (made with openssl) is for another name: untrusted,
  // the local-CA advice; trusted (NODE_EXTRA_CA_CERTS) but for another host, the URL's host.
  test('https:// to a certificate not trusted, or for another host: exit 2, each its own fix', async () => {
    const { key, cert } = selfSigned('receiver.example', 'DNS:receiver.example');
    const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => res.end('{}'));
    await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
    try {
      const url = `https://127.0.0.1:${server.address().port}/webhook`;
      const untrusted = await conformance(url);
      assert.equal(untrusted.code, 2, shown(untrusted));
      assert.match(untrusted.stderr, /no rule was checked \(exit 2\)\. The TLS certificate is not trusted: for a local test CA, set NODE_EXTRA_CA_CERTS/);
      const elsewhere = await conformance(url, [], { env: { NODE_EXTRA_CA_CERTS: cert } });
      assert.equal(elsewhere.code, 2, shown(elsewhere));
      assert.match(elsewhere.stderr, /ERR_TLS_CERT_ALTNAME_INVALID.*\nno rule was checked \(exit 2\)\. The receiver's TLS certificate is for another host name: give --url the name it was issued for/);
      assert.doesNotMatch(elsewhere.stderr, /NODE_EXTRA_CA_CERTS/);
    } finally {
      server.close();
    }
  });

  test('http:// where every connection is closed unanswered (as a TLS receiver closes plain HTTP): the hint names https://', async () => {
    // A stand-in for a TLS server met with plain HTTP: it closes each connection unanswered.
    const server = net.createServer((socket) => socket.once('data', () => socket.destroy()));
    await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
    try {
      const run = await runCli(['conformance', '--url', `http://127.0.0.1:${server.address().port}/webhook`, '--secret-env', SECRET_ENV,
        '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER], { env: { [SECRET_ENV]: SECRET } });
      assert.equal(run.code, 1, shown(run));
      // The table wraps its hints: read them as one line.
      assert.match(run.stdout.replace(/\s+/g, ' '), /every delivery's connection was closed without an answer \(ECONNRESET\): a receiver served over TLS closes a plain-HTTP connection so; if yours is, give --url as https:\/\//);
    } finally {
      await new Promise((resolve) => { server.close(resolve); });
    }
  });
  // The status line is the answer, for the kit as for the sandbox's sender: a 200 whose body
  // never ends is acknowledged, within --timeout, and the run does not wait --timeout for each.
  test('a receiver whose 2xx body never ends: acknowledged by its status line, at once', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"received":true');
      });
    });
    await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
    try {
      const started = Date.now();
      const run = await runCli(['conformance', '--url', `http://127.0.0.1:${server.address().port}/webhook`, '--secret-env', SECRET_ENV,
        '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER, '--timeout', '3', '--json'], { env: { [SECRET_ENV]: SECRET } });
      const took = Date.now() - started;
      assert.equal(run.code, 1, shown(run)); // it acknowledges forgeries too
      const verdicts = Object.fromEntries(JSON.parse(run.stdout).map((r) => [r.rule, r.verdict]));
      assert.deepEqual([verdicts.valid_delivery, verdicts.response_time, verdicts.bad_signature], ['pass', 'pass', 'fail']);
      assert.ok(took < 25_000, `the run took ${took} ms: it waited for the bodies`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => { server.close(resolve); });
    }
  });

  // Reset as soon as accepted (a proxy with nothing behind it): whether the client saw the
  // connect event before the reset is a race; the verdict is not. Judged (exit 1), each time.
  test('a receiver that resets every connection at once: judged, exit 1, every run', async () => {
    const server = net.createServer((socket) => socket.resetAndDestroy());
    await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
    try {
      for (let n = 0; n < 4; n += 1) {
        const run = await runCli(['conformance', '--url', `http://127.0.0.1:${server.address().port}/webhook`, '--secret-env', SECRET_ENV,
          '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER, '--json'], { env: { [SECRET_ENV]: SECRET } });
        assert.equal(run.code, 1, shown(run));
        const valid = JSON.parse(run.stdout).find((r) => r.rule === 'valid_delivery');
        assert.deepEqual([valid.verdict, valid.got], ['fail', 'no answer: ECONNRESET']);
      }
      // Over https://, the same reset cuts the TLS handshake off (an ingress with no route for
      // the host): no receiver was reached, exit 2.
      const tls = await runCli(['conformance', '--url', `https://127.0.0.1:${server.address().port}/webhook`, '--secret-env', SECRET_ENV,
        '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER], { env: { [SECRET_ENV]: SECRET } });
      assert.equal(tls.code, 2, shown(tls));
      assert.match(tls.stderr, /cannot reach the receiver at https:\/\/127\.0\.0\.1:\d+\/webhook: ECONNRESET\nno rule was checked \(exit 2\)/);
    } finally {
      await new Promise((resolve) => { server.close(resolve); });
    }
  });
});

describe('the receiver\'s max skew', () => {
  test('a receiver with a 1-hour skew fails stale/future at 1 hour, with a hint naming --max-skew; declared, it passes', async () => {
    const server = await startServer(plainReceiver({ maxSkewSecs: 3600 }));
    try {
      const run = await conformance(server.url);
      assert.deepEqual(run.failed, ['stale_timestamp', 'future_timestamp']);
      const table = await runCli(['conformance', '--url', server.url, '--secret-env', SECRET_ENV, '--timestamp-header',
        TS_HEADER, '--signature-header', SIG_HEADER]);
      assert.match(table.stdout.replace(/\n {4}/g, ' '), /stale_timestamp: an authentic delivery 3600 s old \(it may be a replay\) was accepted: .* give it with --max-skew/);
      const declared = await conformance(server.url, ['--max-skew', '3600']);
      assert.equal(declared.code, 0, shown(declared));
    } finally {
      await server.close();
    }
  });
});

describe('a run that cannot be made', () => {
  test('an empty secret stops it before anything is sent: exit 2, secret_empty', async () => {
    let hits = 0;
    const server = await startServer((req, res) => {
      hits += 1;
      acknowledgeEverything(req, res);
    });
    try {
      const run = await runCli(['conformance', '--url', server.url, '--secret-env', 'EMPTY_SECRET',
        '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER], { env: { EMPTY_SECRET: '' } });
      assert.equal(run.code, 2);
      assert.match(run.stderr, /--secret-env: secret_empty/);
      const pending = await runCli(['conformance', '--url', server.url, '--secret-env', SECRET_ENV,
        '--pending-secret-env', 'EMPTY_SECRET', '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER],
      { env: { EMPTY_SECRET: '' } });
      assert.equal(pending.code, 2);
      assert.match(pending.stderr, /--pending-secret-env: secret_empty/);
      assert.equal(hits, 0);
    } finally {
      await server.close();
    }
  });

  test('a rotation secret equal to another one is a usage error: the rule would prove nothing', async () => {
    const base = ['conformance', '--url', 'http://127.0.0.1:9/webhook', '--secret-env', SECRET_ENV,
      '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER];
    const same = await runCli([...base, '--pending-secret-env', SECRET_ENV]);
    assert.equal(same.code, 2);
    assert.match(same.stderr, /--pending-secret-env gives the same secret as --secret-env: pending_secret would prove nothing/);
    const retired = await runCli([...base, '--retired-secret-env', SECRET_ENV]);
    assert.equal(retired.code, 2);
    assert.match(retired.stderr, /--retired-secret-env gives the same secret as --secret-env/);
    const both = await runCli([...base, '--pending-secret-env', 'A_SECRET', '--retired-secret-env', 'A_SECRET'],
      { env: { A_SECRET: 'whsec_one_and_the_same' } });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /one secret cannot be both pending and retired/);
  });

  test('a receiver answering a status outside HTTP\'s 100-599 (600): every rule judged, none of its answers an acknowledgment', async () => {
    const run = await against((req, res) => {
      res.writeHead(600);
      res.end();
    });
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(run.failed, ['valid_delivery']);
    assert.deepEqual(run.notJudged, AFTER_VALID);
    assert.equal(gotOf(run, 'valid_delivery'), '600 retry');
  });

  test('a 101 Switching Protocols is an answer (not an acknowledgment), and a 200 whose body never ends is answered at its status', async () => {
    const started = Date.now();
    const upgraded = await against((req, res) => {
      res.socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    }, ['--timeout', '3']);
    assert.equal(upgraded.code, 1, upgraded.stderr);
    assert.deepEqual(upgraded.failed, ['valid_delivery']);
    assert.equal(gotOf(upgraded, 'valid_delivery'), '101 permanent_failure');
    assert.ok(Date.now() - started < 20_000, 'no delivery waited for its timeout');
    // A receiver that answers 200 and then streams without end: acknowledged, not "no answer".
    const streaming = await against((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(8192, 0x61);
      const timer = setInterval(() => { if (!res.write(chunk)) res.once('drain', () => {}); }, 5);
      res.on('close', () => clearInterval(timer));
    }, ['--timeout', '3']);
    assert.equal(gotOf(streaming, 'valid_delivery'), '200 acknowledged');
    assert.equal(streaming.results.find((r) => r.rule === 'response_time').verdict, 'pass', shown(streaming));
  });

  test('usage errors, never a stack trace: % in the URL\'s credentials, a header HTTP itself uses, a timeout too short for a request', async () => {
    for (const [url, headers, extra, says] of [
      ['http://bob%zz:50%off@127.0.0.1:9/webhook', [TS_HEADER, SIG_HEADER], [], /write % as %25/],
      ['http://127.0.0.1:9/webhook', ['Host', SIG_HEADER], [], /header HTTP itself uses/],
      ['http://127.0.0.1:9/webhook', [TS_HEADER, 'Content-Length'], [], /header HTTP itself uses/],
      ['http://127.0.0.1:9/webhook', [TS_HEADER, SIG_HEADER], ['--timeout', '0.01'], /--timeout must be a number of seconds from 0\.05 to 3600/],
    ]) {
      const run = await runCli(['conformance', '--url', url, '--secret-env', SECRET_ENV, '--timestamp-header', headers[0],
        '--signature-header', headers[1], ...extra]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, says);
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
      assert.ok(!run.stderr.includes('50%off') && !run.stderr.includes('bob'), run.stderr);
    }
  });

  test('a receiver that cannot be reached: exit 2, no verdict', async () => {
    const server = await startServer(acknowledgeEverything);
    const { url } = server;
    await server.close(); // nothing listens on that port any more
    const run = await conformance(url, ['--timeout', '2']);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.results, null);
    assert.equal(run.stdout, '', '--json: no JSON at all (never an empty array read as "nothing failed")');
    assert.match(run.stderr, /cannot reach the receiver .*ECONNREFUSED/);
  });
});

// The CI job of docs/conformance.md, run as written (bash -e, GitHub Actions' default shell)
// from the folder the package is installed in, against the example receiver: every rule holds,
// rotation included; a receiver that exits at start ends it at once with exit 2 (not 20 s of
// waiting, nor exit 1 from the trap's kill), and so does a port another process holds.
describe('docs/conformance.md\'s CI job, run by bash -e', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'conformance.md'), 'utf8');
  const job = [...doc.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]).find((block) => block.includes('trap '));
  assert.ok(job, 'docs/conformance.md has a ```sh block with the CI job (a trap)');

  async function runJob(receiverCommand, port) {
    const text = job.replaceAll('8787', String(port)).replace('node server.mjs', receiverCommand);
    assert.notEqual(text, job.replaceAll('8787', String(port)), 'the job starts its receiver with `node server.mjs`');
    const child = spawn('bash', ['-e', '-c', text], {
      cwd: CONSUMER_DIR,
      env: { ...inheritedEnv(), TIMESTAMP_HEADER: TS_HEADER, SIGNATURE_HEADER: SIG_HEADER, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: tempDir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const code = await new Promise((resolve) => { child.on('close', resolve); });
    return { code, output };
  }

  test('as written, on the example receiver: every rule holds, exit 0', async () => {
    const run = await runJob(`node '${join(exampleDir(), 'server.mjs')}'`, await freePort());
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /all 20 rules hold/);
  });

  test('a receiver that exits at start: exit 2 at once, saying so', async () => {
    const run = await runJob('node -e "process.exit(1)"', await freePort());
    assert.equal(run.code, 2, run.output);
    assert.match(run.output, /the receiver exited at start/);
    assert.doesNotMatch(run.output, /cannot reach the receiver/, 'the kit was not run');
  });

  test('the port held by another process: exit 2 before anything starts', async () => {
    const other = await startServer(acknowledgeEverything);
    try {
      const port = Number(new URL(other.url).port);
      const run = await runJob('node -e "process.exit(1)"', port);
      assert.equal(run.code, 2, run.output);
      assert.match(run.output, new RegExp(`port ${port} is in use: free it first`));
    } finally {
      await other.close();
    }
  });
});

