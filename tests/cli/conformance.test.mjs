// `cryptopay-verify conformance` against the example receiver (every rule holds) and
// against careless receivers, each caught by the rule it breaks.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  SECRET_ENV, SIG_HEADER, TS_HEADER, acknowledgeEverything, conformance, runCli, startExample, startServer, tempDir,
  verifyingReceiver,
} from './helpers.mjs';

const RULES = ['valid_delivery', 'retry_same_event', 'bad_signature', 'other_secret', 'stale_timestamp',
  'future_timestamp', 'tampered_body', 'reserialized_body', 'missing_headers', 'header_case', 'no_redirect',
  'response_time'];

async function against(handler, extra = []) {
  const server = await startServer(handler);
  try {
    return await conformance(server.url, extra);
  } finally {
    await server.close();
  }
}

describe('against the example receiver', () => {
  let receiver;
  before(async () => {
    receiver = await startExample({ dataDir: tempDir() });
  });
  after(() => receiver?.stop());

  test('every rule holds: exit 0, a JSON array of { rule, expected, got, pass }', async () => {
    const run = await conformance(receiver.webhookUrl);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}\n${receiver.output}`);
    assert.deepEqual(run.results.map((r) => r.rule), RULES);
    for (const r of run.results) {
      assert.deepEqual(Object.keys(r), ['rule', 'expected', 'got', 'pass']);
      assert.equal(r.pass, true, `${r.rule}: ${r.got}`);
    }
    assert.match(run.results.find((r) => r.rule === 'bad_signature').got, /^400 permanent_failure \(signature_mismatch\)$/);
    assert.match(run.results.find((r) => r.rule === 'stale_timestamp').got, /timestamp_too_old/);
  });

  test('the table: progress while it runs, rule, expected, got, verdict at the end', async () => {
    const run = await runCli(['conformance', '--url', receiver.webhookUrl, '--secret-env', SECRET_ENV,
      '--timestamp-header', TS_HEADER.toLowerCase(), '--signature-header', SIG_HEADER.toUpperCase(), '--encoding', 'base64']);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^rule\s+expected\s+got\s+verdict$/m);
    for (const rule of RULES) assert.match(run.stdout, new RegExp(`^${rule}\\s+.*\\spass$`, 'm'));
    assert.match(run.stdout, /all 12 rules hold/);
    assert.match(run.stderr, /conformance \[12\/12\] response_time/);
  });

  test('a second run against the same receiver (new events) holds too', async () => {
    const run = await conformance(receiver.webhookUrl, ['--max-skew', '600', '--timeout', '5']);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  });
});

describe('careless receivers are caught by the rule they break', () => {
  test('one that acknowledges everything', async () => {
    const run = await against(acknowledgeEverything);
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(run.broken, ['bad_signature', 'other_secret', 'stale_timestamp', 'future_timestamp',
      'tampered_body', 'reserialized_body', 'missing_headers']);
    for (const rule of run.broken) assert.match(run.stderr, new RegExp(rule));
  });

  test('the table names each broken rule and what to fix (exit 1)', async () => {
    const server = await startServer(acknowledgeEverything);
    try {
      const run = await runCli(['conformance', '--url', server.url, '--secret-env', SECRET_ENV,
        '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER]);
      assert.equal(run.code, 1);
      assert.match(run.stdout, /^bad_signature\s+non-2xx\s+200 acknowledged\s+FAIL$/m);
      assert.match(run.stdout, /^valid_delivery\s+2xx\s+200 acknowledged\s+pass$/m);
      assert.match(run.stdout, /7 of 12 rules broken/);
      assert.match(run.stdout, /reserialized_body: verify the raw request bytes/);
      assert.match(run.stderr, /7 rules broken: bad_signature, other_secret, stale_timestamp, future_timestamp, tampered_body, reserialized_body, missing_headers/);
    } finally {
      await server.close();
    }
  });

  test('one without de-duplication that answers 409 on a retry', async () => {
    const run = await against(verifyingReceiver({ onRetry: 409 }));
    assert.equal(run.code, 1);
    assert.deepEqual(run.broken, ['retry_same_event']);
    assert.equal(run.results[1].got, '409 permanent_failure (already_processed)');
  });

  test('one without de-duplication that answers 500 on a retry', async () => {
    const run = await against(verifyingReceiver({ onRetry: 500 }));
    assert.equal(run.code, 1);
    assert.deepEqual(run.broken, ['retry_same_event']);
    assert.match(run.results[1].got, /^500 retry/);
  });

  test('one that answers valid deliveries with a redirect (never followed)', async () => {
    const run = await against(verifyingReceiver({ redirect: true }));
    assert.equal(run.code, 1);
    assert.ok(run.broken.includes('no_redirect'), run.broken.join());
    assert.ok(run.broken.includes('valid_delivery'));
    assert.ok(!run.broken.includes('bad_signature'));
    assert.equal(run.results.find((r) => r.rule === 'no_redirect').got, '302 permanent_failure redirect, not followed');
  });

  test('one slower than --timeout', async () => {
    const run = await against(verifyingReceiver({ delayMs: 1500 }), ['--timeout', '0.2']);
    assert.equal(run.code, 1);
    assert.ok(run.broken.includes('response_time'), run.broken.join());
    assert.match(run.results.find((r) => r.rule === 'response_time').got, /^no answer within 0\.2 s to 13 of 13/);
    assert.equal(run.results[0].got, 'no answer within 0.2 s');
  });

  test('one that reads header names case-sensitively', async () => {
    const run = await against(verifyingReceiver({ exactHeaderCase: true }));
    assert.equal(run.code, 1);
    assert.deepEqual(run.broken, ['header_case']);
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
      assert.match(run.stderr, /secret_empty/);
      assert.equal(hits, 0);
    } finally {
      await server.close();
    }
  });

  test('a receiver that cannot be reached: exit 2, no verdict', async () => {
    const server = await startServer(acknowledgeEverything);
    const { url } = server;
    await server.close(); // nothing listens on that port any more
    const run = await conformance(url, ['--timeout', '2']);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.results, null);
    assert.match(run.stderr, /cannot reach the receiver .*ECONNREFUSED/);
  });
});
