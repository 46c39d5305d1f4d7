// `cryptopay-verify sandbox` (the installed bin): what it prints at start (text and --json),
// its subcommands against the running sandbox, exit codes (0 done, 1 refused, 2 usage or no
// sandbox), and what it never prints (a URL's credentials); a restart on --data prints the
// same key and secret.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { runCli, startServer } from '../cli/helpers.mjs';
import { CLI, PACKAGE_DIR, api, endpoint, freePort, settled, startProcess, tempDir, verifyRecorded, waitFor } from './lib.mjs';

const Database = createRequire(join(PACKAGE_DIR, 'package.json'))('better-sqlite3');

/** Runs the installed bin to the end: { code, stdout, stderr } (the command line tests' runner). */
const run = (args, { timeoutMs = 20_000, env } = {}) => runCli(args, { timeoutMs, env });

const stops = [];
after(async () => {
  for (const stop of stops.reverse()) await stop();
});

describe('cryptopay-verify sandbox --json, then its subcommands', () => {
  let hook;
  let server;
  let started;
  /** Shaped like a Sandbox for lib's api(). */
  let sandbox;

  test('prints the base URL, a key with the three scopes, the webhook and its secret', async () => {
    hook = await endpoint(() => ({ status: 200 }));
    stops.push(() => hook.close());
    server = await startProcess(CLI, ['sandbox', '--port', '0', '--json', '--webhook-url', hook.url, '--retry-delays', '0.02,0.05',
      '--seed', '42', '--pricing', 'crypto:eip155:1/erc20:0xa0b8:6', '--timestamp-header', 'X-Ts', '--signature-header', 'X-Sig'],
    { ready: /"type":"started"[^\n]*\n/ });
    stops.push(() => server.stop('SIGINT'));
    started = JSON.parse(server.output().split('\n').find((line) => line.includes('"type":"started"')));
    assert.match(started.base_url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(started.api_key, /^sk_sandbox_/);
    assert.deepEqual(started.scopes, ['payment:write', 'payment:read', 'webhook:bootstrap']);
    assert.equal(started.webhook.url, hook.url);
    assert.match(started.webhook.secret, /^whsec_/);
    assert.equal(started.webhook.timestamp_header, 'X-Ts');
    assert.deepEqual(started.primary_source, { kind: 'crypto', ref: 'eip155:1/erc20:0xa0b8', decimals: 6 });
    assert.deepEqual(started.retry_delays_secs, [0.02, 0.05]);
    assert.equal(started.seed, 42);
    sandbox = { baseUrl: started.base_url, apiKey: started.api_key };
    assert.deepEqual((await api(sandbox, 'GET', '/v1/store')).json.primary_source, started.primary_source);
  });

  test('pay, review, expire, replay, rotate, activate and deliveries act on it', async () => {
    const created = await api(sandbox, 'POST', '/v1/payments', {
      idem: 'cli-1', body: { order_ref: 'cli', source_amount: { kind: 'crypto', pricing_ref: 'eip155:1/erc20:0xa0b8', amount_raw: '5000000' } },
    });
    assert.equal(created.status, 200, created.text);
    const id = created.json.payment_id;
    const url = ['--url', started.base_url];

    const pay = await run(['sandbox', 'pay', ...url, '--payment', id, '--amount-raw', '2000000']);
    assert.equal(pay.code, 0, pay.stderr);
    assert.equal(pay.stdout, `${id}: partially_paid (status_version 3), received 2000000 of 5000000\n`);
    const json = await run(['sandbox', 'pay', ...url, '--payment', id, '--amount-raw', '3000000', '--hold', '--json']);
    assert.deepEqual([JSON.parse(json.stdout).status, JSON.parse(json.stdout).status_version], ['confirming', 4]);
    const settle = await run(['sandbox', 'settle', ...url, '--payment', id]);
    assert.equal(settle.stdout, `${id}: paid (status_version 5), received 5000000 of 5000000\n`);
    const settled = await run(['sandbox', 'settle', ...url, '--payment', id]);
    assert.equal(settled.code, 1);
    assert.match(settled.stderr, /payment_not_confirming: /);
    const review = await run(['sandbox', 'review', ...url, '--payment', id]);
    assert.match(review.stdout, /review_required \(status_version 6\)/);
    const expire = await run(['sandbox', 'expire', ...url, '--payment', id]);
    assert.equal(expire.code, 1);
    assert.match(expire.stderr, /payment_not_expirable: /);
    assert.equal(expire.stdout, '');
    // With --json the refusal's ErrorResponse is on stdout too, the exit code unchanged.
    const refusedJson = await run(['sandbox', 'expire', ...url, '--payment', id, '--json']);
    assert.equal(refusedJson.code, 1);
    assert.equal(JSON.parse(refusedJson.stdout).error.code, 'payment_not_expirable');
    assert.match(refusedJson.stderr, /payment_not_expirable: /);

    await waitFor(async () => (await api(sandbox, 'GET', '/sandbox/deliveries')).json.pending.length === 0, { what: 'deliveries' });
    const [first] = (await api(sandbox, 'GET', `/sandbox/events?payment_id=${id}`)).json.events;
    const replay = await run(['sandbox', 'replay', ...url, '--event', first.event_id]);
    assert.equal(replay.code, 0);
    assert.match(replay.stdout, /replay queued/);

    const rotate = await run(['sandbox', 'rotate', ...url]);
    assert.equal(rotate.code, 0);
    const pending = /pending secret {2}(whsec_\S+)/.exec(rotate.stdout)[1];
    assert.equal((await run(['sandbox', 'activate', ...url])).code, 0);
    const again = await run(['sandbox', 'activate', ...url]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /no_pending_secret/);
    await run(['sandbox', 'replay', ...url, '--event', first.event_id]);
    await waitFor(async () => (await api(sandbox, 'GET', '/sandbox/deliveries')).json.pending.length === 0, { what: 'deliveries' });
    const last = hook.requests.at(-1);
    assert.equal(verifyRecorded(last, pending, { timestampHeader: 'X-Ts', signatureHeader: 'X-Sig' }).event.eventId, first.event_id);

    const table = await run(['sandbox', 'deliveries', ...url, '--event', first.event_id]);
    assert.equal(table.code, 0);
    const rows = table.stdout.trim().split('\n');
    assert.match(rows[0], /^#\s+event_id\s+kind\s+version\s+attempt\s+answer\s+outcome\s+at\s+said$/);
    // The event, a replay, the request in flight at the activation (the last attempt's event
    // once more), a replay.
    assert.equal(rows.length, 5);
    assert.match(rows[2], /replay\s+2\s+1\s+200\s+acknowledged\s+\S+\s+\{"received":true\}$/, 'what the receiver said');
    assert.match(rows[3], /overlap\s+2\s+1\s+200\s+acknowledged/);
    const overlap = hook.requests.at(-2);
    assert.equal(verifyRecorded(overlap, started.webhook.secret, { timestampHeader: 'X-Ts', signatureHeader: 'X-Sig' }).event.eventId, first.event_id,
      'signed with the secret active before the activation');
    const listed = JSON.parse((await run(['sandbox', 'deliveries', ...url, '--json'])).stdout);
    assert.ok(listed.deliveries.length >= 7);
  });

  test('the log: one JSON line per request, event and attempt, never a key or a secret', async () => {
    await waitFor(() => server.output().includes('"type":"attempt"'), { what: 'an attempt line' });
    const lines = server.output().trim().split('\n').map((line) => JSON.parse(line));
    const types = new Set(lines.map((l) => l.type));
    for (const type of ['started', 'request', 'event', 'attempt', 'rotated', 'activated', 'replay']) assert.ok(types.has(type), type);
    // status_version as the API writes it, the same in every line: a JSON number here.
    for (const line of lines.filter((l) => l.type === 'event' || l.type === 'attempt')) {
      assert.equal(typeof line.status_version, 'number', JSON.stringify(line));
    }
    // A request line names its path, as the text line does.
    assert.ok(lines.some((l) => l.type === 'request' && l.method === 'POST' && /^\/sandbox\/payments\/[^/]+\/pay$/.test(l.path)), 'a pay request');
    const after = lines.filter((l) => l.type !== 'started').map((l) => JSON.stringify(l)).join('\n');
    assert.ok(!after.includes(started.api_key) && !after.includes(started.webhook.secret));
  });

  test('SIGINT stops it with exit 0', async () => {
    assert.equal(await server.stop('SIGINT'), 0);
  });
});

describe('sandbox deliveries --wait: what a CI job runs before asserting on its receiver', () => {
  // A sandbox on its own process, its receiver answering `status` (a number, or a function
  // read at each delivery), a payment paid (two events).
  async function paidOn(status, retryDelays, name = String(status)) {
    const hook = await endpoint(() => ({ status: typeof status === 'function' ? status() : status }));
    stops.push(() => hook.close());
    const sandboxed = await startProcess(CLI, ['sandbox', '--port', '0', '--json', '--webhook-url', hook.url, '--retry-delays', retryDelays],
      { ready: /"type":"started"[^\n]*\n/ });
    stops.push(() => sandboxed.stop('SIGINT'));
    const started = JSON.parse(sandboxed.output().split('\n').find((line) => line.includes('"type":"started"')));
    const sandbox = { baseUrl: started.base_url, apiKey: started.api_key };
    const created = await api(sandbox, 'POST', '/v1/payments', { idem: `cli-wait-${name}`, body: { source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' } } });
    assert.equal(created.status, 200, created.text);
    const url = ['--url', started.base_url];
    assert.equal((await run(['sandbox', 'pay', ...url, '--payment', created.json.payment_id, '--amount-raw', '100'])).code, 0);
    return { hook, sandboxed, url, paymentId: created.json.payment_id };
  }

  test('exit 1 naming the delivery that holds the line when something is still pending after --wait; exit 2 for a bad --wait', async () => {
    // The receiver answers 503: the first delivery retried in 60 s, the second queued behind it.
    const { sandboxed, url } = await paidOn(503, '60');
    const waited = await run(['sandbox', 'deliveries', ...url, '--wait', '1']);
    assert.equal(waited.code, 1, waited.stderr);
    assert.match(waited.stderr, /^cryptopay-verify sandbox deliveries: 2 still pending after --wait 1 s \(first in line: dlv_1 of evt_\w+, attempt 2\): the answers above say why/);
    assert.match(waited.stdout, /\s503\s+retrying\s/);
    for (const bad of ['0', '3601', 'x', '1.5']) {
      const refused = await run(['sandbox', 'deliveries', ...url, '--wait', bad]);
      assert.equal(refused.code, 2, bad);
      assert.match(refused.stderr, /--wait is how long to wait for pending deliveries: an integer from 1 to 3600 \(seconds\)/);
    }
    assert.equal(await sandboxed.stop('SIGINT'), 0);
  });

  test('exit 1 when nothing is pending but an event was not acknowledged (a 400 is never retried)', async () => {
    const { sandboxed, url } = await paidOn(400, '1');
    const done = await run(['sandbox', 'deliveries', ...url, '--wait', '20']);
    assert.equal(done.code, 1, done.stderr);
    assert.match(done.stderr, /^cryptopay-verify sandbox deliveries: 2 events not acknowledged \(first: evt_\w+, its last attempt failed_permanently on 400\): the answers above say why; once the receiver is fixed, cryptopay-verify sandbox replay --event ID sends one again\n$/);
    assert.match(done.stdout, /\s400\s+failed_permanently\s/);
    // Without --wait the log is only shown.
    assert.equal((await run(['sandbox', 'deliveries', ...url])).code, 0);
    assert.equal(await sandboxed.stop('SIGINT'), 0);
  });

  test('exit 1 naming the fix when the request in flight at an activation is refused (the old secret dropped at once)', async () => {
    let status = 200;
    const { sandboxed, url } = await paidOn(() => status, '1', 'overlap');
    assert.equal((await run(['sandbox', 'deliveries', ...url, '--wait', '20'])).code, 0);
    // The receiver now knows only the new secret: the old one's request in flight is a 400.
    status = 400;
    assert.equal((await run(['sandbox', 'rotate', ...url])).code, 0);
    assert.equal((await run(['sandbox', 'activate', ...url])).code, 0);
    const done = await run(['sandbox', 'deliveries', ...url, '--wait', '20']);
    assert.equal(done.code, 1, done.stderr);
    assert.match(done.stderr, /^cryptopay-verify sandbox deliveries: 1 event not acknowledged \(first: evt_\w+, its last attempt failed_permanently on 400\): the answers above say why; it is the request in flight at the activation, signed with the old secret: keep the old secret as retiring for a bounded overlap after an activation \(the receiver: CRYPTOPAY_WEBHOOK_SECRET_RETIRING and CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL\)\n$/);
    assert.match(done.stdout, /\soverlap\s[^\n]*\s400\s+failed_permanently\s/);
    assert.equal(await sandboxed.stop('SIGINT'), 0);
  });

  test('exit 0 with the log once nothing is pending', async () => {
    const { hook, sandboxed, url, paymentId } = await paidOn(200, '1');
    const done = await run(['sandbox', 'deliveries', ...url, '--wait', '20']);
    assert.equal(done.code, 0, done.stderr);
    assert.doesNotMatch(done.stdout, /pending/);
    assert.equal(done.stdout.trim().split('\n').length, 3, done.stdout); // the header and two acknowledged attempts
    assert.equal(hook.requests.filter((r) => r.event?.data.payment_id === paymentId).length, 2);
    assert.equal(await sandboxed.stop('SIGINT'), 0);
  });
});

describe('usage errors, refusals and what is never printed', () => {
  test('bad options are exit 2 naming the option', async () => {
    for (const [args, pattern] of [
      [['sandbox', '--port', '70000'], /--port must be 0 to 65535/],
      [['sandbox', '--pricing', 'fiat:USD'], /--pricing must be/],
      [['sandbox', '--retry-delays', '1,x'], /--retry-delays must be/],
      [['sandbox', '--duplicate-rate', '2'], /--duplicate-rate must be/],
      [['sandbox', '--seed', '-1'], /--seed/],
      [['sandbox', '--website', 'http://shop.example', '--port', '0'], /--website: origin_not_https/],
      // The core names the field (checkout_origin): the command line names its flag.
      [['sandbox', '--website', 'https://shop.example/', '--port', '0'], /--website: origin_invalid: .*; --website must be an origin: /],
      [['sandbox', '--webhook-url', 'http://shop.example/webhook', '--port', '0'], /--webhook-url: webhook_url_not_https/],
      [['sandbox', '--pricing', 'fiat:USD:99', '--port', '0'], /--pricing: store_source_invalid/],
      ...['fiat: USD:2', 'fiat:usd:2', 'fiat:dollars:2'].map((bad) => [['sandbox', '--pricing', bad, '--port', '0'],
        /--pricing: store_source_invalid: pricing: a fiat currency is a three-letter code in capitals, as requests send it \(e\.g\. USD\)/]),
      [['sandbox', '--pricing', 'crypto:usdc eth:6', '--port', '0'], /--pricing: store_source_invalid: pricing: a pricing ref holds no white space or control characters/],
      [['sandbox', '--public-url', 'http://localhost:8080/shop', '--port', '0'], /--public-url is an origin only/],
      // The library's refusals, in the command line's words: its flags, seconds for --retry-delays.
      [['sandbox', '--retry-delays', '999999', '--port', '0'], /each delay of --retry-delays must be from 0 to 86400 s \(one day\)/],
      [['sandbox', '--retry-delays', Array.from({ length: 21 }, (_, i) => i + 1).join(','), '--port', '0'], /--retry-delays may list at most 20 delays.*sandbox --help/],
      [['sandbox', '--timestamp-header', 'X-A', '--signature-header', 'x-a', '--port', '0'], /--timestamp-header and --signature-header must differ/],
      [['sandbox', '--data', '', '--port', '0'], /--data must be the path of a SQLite file/],
      [['sandbox', '--host', '', '--port', '0'], /--host must be an address/],
      [['sandbox', '--bogus'], /not an option of sandbox/],
      [['sandbox', 'pay', '--url', 'http://127.0.0.1:1'], /--payment is required/],
      [['sandbox', 'pay', '--payment', 'p', '--amount-raw', '1', '--url', 'nope'], /--url is not an absolute URL/],
    ]) {
      const result = await run(args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, pattern, args.join(' '));
      // The sandbox's usage, without the block on secrets it does not take.
      assert.doesNotMatch(result.stderr, /^Secrets: --secret-env/m, args.join(' '));
    }
  });

  test('no sandbox at --url is exit 2; a refusal is exit 1 with the code', async () => {
    const port = await freePort();
    const none = await run(['sandbox', 'review', '--url', `http://user:hunter2hunter2@127.0.0.1:${port}`, '--payment', 'p']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no sandbox answers at http:\/\/\*\*\*@127\.0\.0\.1/);
    assert.ok(!none.stderr.includes('hunter2'));
    const server = await startProcess(CLI, ['sandbox', '--port', '0'], { ready: /base URL\s+(http:\/\/\S+)/ });
    stops.push(() => server.stop('SIGINT'));
    const unknown = await run(['sandbox', 'pay', '--url', server.match[1], '--payment', 'pay_nope', '--amount-raw', '1']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^cryptopay-verify sandbox pay: payment_not_found: /);
    assert.doesNotMatch(unknown.stderr, /payment_not_found: payment_not_found/, 'the code said once');
    assert.match(server.output(), /webhook {9}none: set one up with POST \/v1\/webhook-endpoints/);
    const port2 = Number(new URL(server.match[1]).port);
    const busy = await run(['sandbox', '--port', String(port2)]);
    assert.equal(busy.code, 2);
    assert.match(busy.stderr, /port \d+ is in use/);
  });

  test('a server at --url that answers without end is cut at 64 MiB: exit 2, the command never buffers it all', async () => {
    const chunk = Buffer.alloc(1 << 20, 120);
    const endless = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => { while (res.write(chunk)); };
      res.on('drain', pump);
      res.on('error', () => {});
      pump();
    });
    try {
      const result = await run(['sandbox', 'deliveries', '--url', new URL(endless.url).origin]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /no sandbox answers at http:\/\/127\.0\.0\.1:\d+\/ \(answer over 64 MiB: not a sandbox, or a webhook log to filter with --payment or --event\)/);
    } finally {
      await endless.close();
    }
  });

  test('an answer cut short (the sandbox stopped mid-answer): exit 2 at once, never an empty answer taken as 0', async () => {
    const cut = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"deliveries": [');
      setTimeout(() => res.socket.destroy(), 50);
    });
    try {
      const started = Date.now();
      const result = await run(['sandbox', 'deliveries', '--url', new URL(cut.url).origin]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /\(answer cut short\)/);
      assert.ok(Date.now() - started < 15_000);
    } finally {
      await cut.close();
    }
  });

  test('--public-url: the banner names the checkout origin apart from the API\'s, and checkout links use it', async () => {
    const server = await startProcess(CLI, ['sandbox', '--port', '0', '--host', '0.0.0.0', '--public-url', 'http://localhost:8080'],
      { ready: /checkout {8}(http:\/\/\S+)/ });
    stops.push(() => server.stop('SIGINT'));
    assert.equal(server.match[1], 'http://localhost:8080');
    const [, base] = server.output().match(/base URL {8}(http:\/\/\S+) {3}\(the API, \/v1\/\.\.\.\)\n/);
    const key = server.output().match(/API key {9}(\S+)/)[1];
    const created = await api({ baseUrl: base, apiKey: key }, 'POST', '/v1/payments', {
      idem: 'public-1', body: { source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' } },
    });
    assert.equal(created.json.checkout_url, `http://localhost:8080/#payment_id=${created.json.payment_id}`);
    // The command the banner offers runs as printed in a project that installed the package.
    assert.match(server.output(), new RegExp(`Ready\\. Try: npx cryptopay-verify sandbox pay --url ${base.replace(/[.]/g, '\\.')} --payment `));
    assert.equal(await server.stop('SIGINT'), 0);
  });

  test('a second sandbox on a data file in use: exit 2, one line naming --data, no stack', async () => {
    const data = join(tempDir(), 'shared.sqlite');
    const first = await startProcess(CLI, ['sandbox', '--port', '0', '--data', data], { ready: /Ready\./ });
    stops.push(() => first.stop('SIGINT'));
    const second = await run(['sandbox', '--port', '0', '--data', data]);
    assert.equal(second.code, 2, second.stderr);
    assert.match(second.stderr, /^cryptopay-verify: --data: another sandbox \(process \d+ of this machine\) is using the data file/);
    assert.doesNotMatch(second.stderr, /unexpected error|\n\s+at /);
    assert.equal(await first.stop('SIGINT'), 0);
  });

  test('a data file of another version of the sandbox: exit 2, one line naming --data, no stack', async () => {
    const data = join(tempDir(), 'other.sqlite');
    const first = await startProcess(CLI, ['sandbox', '--port', '0', '--data', data], { ready: /Ready\./ });
    assert.equal(await first.stop('SIGINT'), 0);
    const db = new Database(data);
    db.prepare("UPDATE sandbox_meta SET value = '0' WHERE name = 'schema'").run();
    db.close();
    const second = await run(['sandbox', '--port', '0', '--data', data]);
    assert.equal(second.code, 2, second.stderr);
    assert.match(second.stderr, /^cryptopay-verify: --data: the data file was written by another version of the sandbox \(schema 0, this one 1\): start with a new file\n$/);
  });

  test('sandbox help is its --help', async () => {
    const [help, flag] = [await run(['sandbox', 'help']), await run(['sandbox', '--help'])];
    assert.equal(help.code, 0, help.stderr);
    assert.equal(help.stdout, flag.stdout);
    assert.match(help.stdout, /usage:/);
  });

  test('a --data path that looks like a secret (pasted in the wrong place) is not printed, in the banner or --json', async () => {
    const { mkdirSync } = await import('node:fs');
    const folder = join(tempDir(), 'whsec_LEAKCANARY0123456789');
    mkdirSync(folder);
    for (const json of [[], ['--json']]) {
      const server = await startProcess(CLI, ['sandbox', '--port', '0', '--data', join(folder, 'state.db'), ...json],
        { ready: json.length ? /"type":"started"[^\n]*\n/ : /Ready\./ });
      stops.push(() => server.stop('SIGINT'));
      assert.match(server.output(), /its name is not shown/);
      assert.ok(!server.output().includes('LEAKCANARY'), server.output());
      assert.equal(await server.stop('SIGINT'), 0);
    }
  });

  test('a reader that goes away (| head) ends the log, not the sandbox: it keeps serving, then closes its data file on SIGTERM', async () => {
    const { spawn } = await import('node:child_process');
    const { existsSync } = await import('node:fs');
    const data = join(tempDir(), 'piped.sqlite');
    const child = spawn(CLI, ['sandbox', '--port', '0', '--json', '--data', data], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    const exited = new Promise((resolve) => { child.on('exit', (code, signal) => resolve(code ?? signal)); });
    stops.push(() => { child.kill('SIGKILL'); return exited; });
    // The first line, as `| head -1` reads it, then the pipe closed.
    const first = await new Promise((resolve) => {
      let text = '';
      child.stdout.on('data', (chunk) => {
        text += chunk;
        if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
      });
    });
    child.stdout.destroy();
    const started = JSON.parse(first);
    const sandbox = { baseUrl: started.base_url, apiKey: started.api_key };
    // Every request logs a line: the writes after the close fail, the service does not.
    for (let i = 0; i < 5; i += 1) assert.equal((await api(sandbox, 'GET', '/v1/store')).status, 200);
    await waitFor(() => stderr.includes('reader closed'), { what: 'the note on stderr' });
    assert.equal(child.exitCode, null, `still running: ${stderr}`);
    child.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
    assert.ok(!existsSync(`${data}-wal`), 'the data file was closed (no WAL left)');
    assert.doesNotMatch(stderr, /Unhandled|EPIPE.*at /);
  });

  test('a server that is not the sandbox (a page, a redirect, an empty answer): exit 2 for every subcommand, never a success', async () => {
    const { createServer } = await import('node:http');
    const answers = {
      page: (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>shop</html>'),
      redirect: (res) => res.writeHead(302, { location: 'https://127.0.0.1/' }).end(),
      empty: (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
      none: (res) => res.writeHead(204).end(),
      // The merchant's receiver on that port: its refusals are no ErrorResponse of the sandbox.
      receiver: (res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"timestamp_missing"}'),
      html404: (res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'),
    };
    for (const [kind, answer] of Object.entries(answers)) {
      const server = createServer((req, res) => { req.resume(); answer(res); });
      await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
      try {
        const url = `http://127.0.0.1:${server.address().port}`;
        for (const sub of [['pay', '--payment', 'p', '--amount-raw', '1'], ['settle', '--payment', 'p'], ['review', '--payment', 'p'],
          ['expire', '--payment', 'p'], ['replay', '--event', 'e'], ['rotate'], ['activate'], ['deliveries']]) {
          for (const json of [[], ['--json']]) {
            const result = await run(['sandbox', ...sub, '--url', url, ...json]);
            const what = `${kind}: ${sub[0]} ${json.join(' ')}`;
            assert.equal(result.code, 2, `${what}: ${result.stdout}${result.stderr}`);
            assert.match(result.stderr, /no sandbox answers at http:\/\/127\.0\.0\.1:\d+\/?: it answered HTTP \d+ without the sandbox's answer/, what);
            assert.equal(result.stdout, '', what);
            assert.doesNotMatch(result.stderr, /TypeError|\n\s+at /, what);
          }
        }
      } finally {
        server.close();
      }
    }
  });

  test('--webhook-secret-env: deliveries signed with the receiver\'s own secret, never printed (text or --json); on argv, refused', async () => {
    const secret = `whsec_ci_${'k'.repeat(12)}${Date.now()}`;
    const hook = await endpoint(() => ({ status: 200 }));
    stops.push(() => hook.close());
    const data = join(tempDir(), 'sandbox.sqlite');
    // Given, then given again, then a start on the data file without the flag: never printed.
    for (const [json, flag] of [[false, true], [true, true], [false, false]]) {
      const server = await startProcess(CLI, ['sandbox', '--port', '0', '--data', data, '--webhook-url', hook.url,
        ...(flag ? ['--webhook-secret-env', 'CI_WEBHOOK_SECRET'] : []), ...(json ? ['--json'] : [])],
      { env: { CI_WEBHOOK_SECRET: secret }, ready: json ? /"type":"started"[^\n]*\n/ : /Ready\./ });
      try {
        if (json) {
          const started = JSON.parse(server.output().split('\n').find((line) => line.includes('"type":"started"')));
          assert.equal(started.webhook.secret, null);
          const box = { baseUrl: started.base_url, apiKey: started.api_key };
          const created = await api(box, 'POST', '/v1/payments', { idem: 'ci-1', body: { source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' } } });
          await api(box, 'POST', `/sandbox/payments/${created.json.payment_id}/pay`, { body: { amount_raw: '100' } });
          await waitFor(() => hook.requests.length > 0, { what: 'a delivery' });
          assert.equal(verifyRecorded(hook.requests[0], secret).matchedSecret, 'active');
        } else {
          assert.match(server.output(), /signing secret {2}your own, from --webhook-secret-env or -file \(not printed\)/);
        }
      } finally {
        await server.stop('SIGINT');
      }
      assert.ok(!server.output().includes(secret), server.output());
    }
    const short = await run(['sandbox', '--port', '0', '--webhook-secret-env', 'CI_SHORT'], { env: { CI_SHORT: 'tooshort' } });
    assert.equal(short.code, 2);
    assert.match(short.stderr, /the secret of --webhook-secret-env \(or -file\) must be 16 to 256 visible ASCII characters/);
    assert.ok(!short.stderr.includes('tooshort'));
    const pasted = await run(['sandbox', '--port', '0', '--webhook-secret', secret]);
    assert.equal(pasted.code, 2);
    assert.match(pasted.stderr, /a secret is never taken from argv: use --webhook-secret-env VAR or --webhook-secret-file F/);
    assert.ok(!`${pasted.stdout}${pasted.stderr}`.includes(secret));
  });

  test('a webhook URL with credentials is refused without printing them', async () => {
    const result = await run(['sandbox', '--port', '0', '--webhook-url', 'http://admin:s3cr3tpassw0rd@127.0.0.1:9/webhook']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /webhook_url_credentials/);
    assert.ok(!`${result.stdout}${result.stderr}`.includes('s3cr3tpassw0rd'));
  });

  test('a secret pasted as --host, a header name or a subcommand is refused (exit 2) and never printed', async () => {
    const pasted = 'whsec_pastedSecret0123456789';
    const HEX_SECRET = '9f86d081884c7d659a2feaa0c55ad0159f86d081884c7d659a2feaa0c55ad015';
    for (const [args, pattern] of [
      // Node's own error names the host it could not resolve.
      [['sandbox', '--port', '0', '--host', pasted], /--host must be an address of this machine to listen on.*\(ENOTFOUND\)/],
      [['sandbox', '--port', '0', '--host', '10.255.255.254'], /--host must be an address of this machine.*\(EADDRNOTAVAIL\)/],
      [['sandbox', '--port', '0', '--timestamp-header', pasted], /--timestamp-header must be the NAME of an HTTP header/],
      [['sandbox', '--port', '0', '--signature-header', 'X Sig'], /--signature-header must be the NAME of an HTTP header/],
      // A base64url secret is a valid header name: a long run of letters and digits is refused too.
      [['sandbox', '--port', '0', '--signature-header', 'q3Vb8xK1mZ0fT7rY2wLp9sN4hD6gJ5cR0aE8uW1iO3kpastedSecret'], /--signature-header must be the NAME of an HTTP header/],
      [['sandbox', '--port', '0', '--signature-header', HEX_SECRET], /--signature-header must be the NAME/],
      [['sandbox', '--port', '0', '--signature-header', `sk_sandbox_${HEX_SECRET.slice(0, 48)}`], /--signature-header must be the NAME/],
      [['sandbox', '--port', '0', '--timestamp-header', 'X-Webhook-Signature-V2', '--signature-header', 'Content-Length'],
        /--signature-header names a header HTTP itself uses \(Content-Length\)/],
      [['sandbox', '--port', '0', '--timeout', '1000'], /--timeout must be a number of seconds from 0.05 to 600\b/],
      [['sandbox', 'deliverys', '--url', 'http://127.0.0.1:1'], /the argument after sandbox is not a subcommand \(not shown\): give one of pay, settle, review/],
      [['sandbox', pasted.toLowerCase()], /argument 1 after "sandbox" is not an option \(not shown\)/],
    ]) {
      const result = await run(args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, pattern, args.join(' '));
      const printed = `${result.stdout}${result.stderr}`;
      assert.ok(!printed.toLowerCase().includes('pastedsecret') && !printed.includes('10.255.255.254') && !printed.includes('deliverys'), printed);
      assert.ok(!printed.includes(HEX_SECRET) && !printed.includes('q3Vb8xK1mZ0fT7rY2wLp9sN4hD6gJ5cR0aE8uW1iO3k'), printed);
      assert.ok(!/unexpected error|\n\s+at /.test(result.stderr), result.stderr);
    }
  });
});

describe('--data: a restart keeps the key, the webhook and what is pending', () => {
  test('the same key and secret are printed again; a retry due during the stop is made', async () => {
    const data = join(tempDir(), 'sandbox.sqlite');
    let down = true;
    const hook = await endpoint(() => ({ status: down ? 500 : 200 }));
    stops.push(() => hook.close());
    const args = ['sandbox', '--port', '0', '--json', '--data', data, '--webhook-url', hook.url, '--retry-delays', '0.3'];
    const first = await startProcess(CLI, args, { ready: /"type":"started"[^\n]*\n/ });
    const a = JSON.parse(first.output().split('\n')[0]);
    assert.equal(a.data, data);
    const sandbox = { baseUrl: a.base_url, apiKey: a.api_key };
    const p = await api(sandbox, 'POST', '/v1/payments', { idem: 'd1', body: { source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '100' } } });
    await api(sandbox, 'POST', `/sandbox/payments/${p.json.payment_id}/review`);
    await waitFor(() => hook.requests.length === 1, { what: 'the first attempt' });
    assert.equal(await first.stop('SIGTERM'), 0);
    down = false;
    const second = await startProcess(CLI, args, { ready: /"type":"started"[^\n]*\n/ });
    stops.push(() => second.stop('SIGINT'));
    const b = JSON.parse(second.output().split('\n')[0]);
    assert.equal(b.api_key, a.api_key);
    assert.deepEqual(b.webhook, a.webhook);
    await settled({ pendingDeliveries: async () => (await api({ baseUrl: b.base_url }, 'GET', '/sandbox/deliveries', { key: null })).json.pending });
    const { deliveries } = (await api({ baseUrl: b.base_url }, 'GET', '/sandbox/deliveries', { key: null })).json;
    assert.deepEqual(deliveries.map((d) => [d.attempt, d.outcome]), [[1, 'retrying'], [2, 'acknowledged']]);
  });
});
