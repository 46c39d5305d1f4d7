// `cryptopay-verify sign` and `verify`: output, exit codes, secrets from env or file only,
// and usage errors (exit 2).

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { CLI, ROOT, SECRET, SECRET_ENV, eventBody, runCli, tempDir } from './helpers.mjs';

const dir = tempDir();
const body = eventBody({ eventId: 'evt_cli_1', paymentId: 'pay_cli_1', statusVersion: '18446744073709551617' });
const bodyFile = join(dir, 'body.json');
writeFileSync(bodyFile, body);
const TS = '1700000000';
const expectedHex = createHmac('sha256', SECRET).update(`${TS}.`).update(body).digest('hex');

async function sign(args, input) {
  const run = await runCli(['sign', '--secret-env', SECRET_ENV, '--json', ...args], { input });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe('sign', () => {
  test('prints the HMAC-SHA256 of timestamp.body in lowercase hex, and the headers to send', async () => {
    const out = await sign(['--timestamp', TS, '--body-file', bodyFile,
      '--timestamp-header', 'X-Webhook-Timestamp', '--signature-header', 'X-Webhook-Signature']);
    assert.equal(out.signature, expectedHex);
    assert.equal(out.timestamp, TS);
    assert.deepEqual(out.headers, { 'X-Webhook-Timestamp': TS, 'X-Webhook-Signature': expectedHex });
  });

  test('reads the body from stdin (-) and writes base64 on request', async () => {
    const out = await sign(['--timestamp', TS, '--encoding', 'base64', '-'], body);
    assert.equal(out.signature, Buffer.from(expectedHex, 'hex').toString('base64'));
  });

  test('defaults the timestamp to now; the text output names both headers', async () => {
    const before = Math.floor(Date.now() / 1000);
    const out = await sign(['--body-file', bodyFile]);
    assert.ok(Math.abs(Number(out.timestamp) - before) <= 5);
    // Without the header names, --json gives no headers map (no placeholder a script would send).
    assert.deepEqual(Object.keys(out), ['timestamp', 'signature']);
    const text = await runCli(['sign', '--secret-env', SECRET_ENV, '--timestamp', TS, '--body-file', bodyFile]);
    assert.equal(text.code, 0);
    assert.match(text.stdout, new RegExp(`signature\\s+${expectedHex}`));
    assert.match(text.stdout, new RegExp(`<signature-header>: ${expectedHex}`));
  });

  test('a secret from --secret-file loses one trailing newline only', async () => {
    const file = join(dir, 'secret');
    writeFileSync(file, `${SECRET}\n`);
    const out = await runCli(['sign', '--secret-file', file, '--timestamp', TS, '--body-file', bodyFile, '--json']);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(JSON.parse(out.stdout).signature, expectedHex);
    // Saved by Notepad or PowerShell (a byte order mark, CRLF): refused with the reason, never shown.
    writeFileSync(file, `\uFEFF${SECRET}\r\n`);
    const bom = await runCli(['verify', '--secret-file', file, '--timestamp', TS, '--signature', expectedHex, '--now', TS, '--body-file', bodyFile]);
    assert.equal(bom.code, 2, bom.stderr);
    assert.match(bom.stderr, /the file named by --secret-file starts with a byte order mark \(Notepad and PowerShell write one\): save it as UTF-8 without BOM/);
    assert.ok(!bom.stderr.includes(SECRET) && !bom.stdout.includes(SECRET));
    writeFileSync(file, `${SECRET}\r\n`);
    const crlf = await runCli(['sign', '--secret-file', file, '--timestamp', TS, '--body-file', bodyFile, '--json']);
    assert.equal(JSON.parse(crlf.stdout).signature, expectedHex, 'a CRLF line end is one trailing newline');
    assert.equal(crlf.stderr, '', 'nothing to say of a secret that is clean once its line end is read');
  });

  test('a secret with white space or quotes around it is used as given, and said (never shown)', async () => {
    const file = join(dir, 'secret-padded');
    for (const [args, env, says] of [
      [['--secret-env', 'CPV_PADDED'], { CPV_PADDED: `${SECRET}\n` }, /--secret-env starts or ends with white space/],
      [['--secret-env', 'CPV_PADDED'], { CPV_PADDED: `"${SECRET}"` }, /--secret-env is wrapped in quotes/],
      [['--secret-file', file], {}, /--secret-file starts or ends with white space/],
    ]) {
      if (args[0] === '--secret-file') writeFileSync(file, `${SECRET}\n\n`);
      const out = await runCli(['sign', ...args, '--timestamp', TS, '--body-file', bodyFile, '--json'], { env });
      assert.equal(out.code, 0, out.stderr);
      assert.notEqual(JSON.parse(out.stdout).signature, expectedHex, 'signed with the value as given');
      assert.match(out.stderr, says);
      assert.match(out.stderr, /a receiver configured with this value verifies none of its deliveries/);
      assert.ok(!out.stderr.includes(SECRET) && !out.stdout.includes(SECRET));
    }
  });

  test('a secret file that is not UTF-8 text (PowerShell 5\'s UTF-16, a NUL, a stray byte) is refused, never used', async () => {
    const file = join(dir, 'secret-bytes');
    for (const [bytes, says] of [
      [Buffer.from(`\uFEFF${SECRET}\r\n`, 'utf16le'), /is UTF-16 \(Windows PowerShell 5's > and Out-File write it\): save it as UTF-8 without BOM/],
      [Buffer.concat([Buffer.from(SECRET), Buffer.from([0xff])]), /is not UTF-8 text/],
      [Buffer.from(`${SECRET}\0`), /holds a NUL byte/],
    ]) {
      writeFileSync(file, bytes);
      const run = await runCli(['sign', '--secret-file', file, '--timestamp', TS, '--body-file', bodyFile, '--json']);
      assert.equal(run.code, 2, run.stdout);
      assert.match(run.stderr, says);
      assert.equal(run.stdout, '');
      assert.ok(!run.stderr.includes(SECRET));
    }
    // A device or a huge file named by mistake is not read whole.
    const zero = await runCli(['sign', '--secret-file', '/dev/zero', '--timestamp', TS, '--body-file', bodyFile]);
    assert.equal(zero.code, 2);
    assert.match(zero.stderr, /is over 65536 bytes/);
  });

  test('what sign refuses is a usage error, exit 2: a malformed timestamp, an empty secret', async () => {
    const run = await runCli(['sign', '--secret-env', SECRET_ENV, '--timestamp', '17e8', '--body-file', bodyFile]);
    assert.equal(run.code, 2);
    // In the command line's terms: the option, not a header.
    assert.match(run.stderr, /^cryptopay-verify sign: timestamp_malformed: --timestamp is the Unix time in seconds, 1 to 12 digits \(e\.g\. \d+\); leave it out to sign at now\n$/);
    const none = await runCli(['sign', '--secret-env', SECRET_ENV, '--timestamp', '', '--body-file', bodyFile]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^cryptopay-verify sign: timestamp_missing: --timestamp is the Unix time in seconds/);
    assert.doesNotMatch(`${run.stderr}${none.stderr}`, /header/);
    const empty = await runCli(['sign', '--secret-env', 'EMPTY', '--timestamp', TS, '--body-file', bodyFile], { env: { EMPTY: '' } });
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /^cryptopay-verify: --secret-env: secret_empty: the environment variable it names is set but empty/);
    const emptyFile = join(dir, 'empty-secret.txt');
    writeFileSync(emptyFile, '\n');
    const fromFile = await runCli(['sign', '--secret-file', emptyFile, '--timestamp', TS, '--body-file', bodyFile]);
    assert.equal(fromFile.code, 2);
    assert.match(fromFile.stderr, /^cryptopay-verify: --secret-file: secret_empty: the file it names is empty/);
    // One header named twice (in any case) would be sent twice: refused, as conformance does.
    const same = await runCli(['sign', '--secret-env', SECRET_ENV, '--timestamp', TS, '--body-file', bodyFile,
      '--timestamp-header', 'X-Webhook', '--signature-header', 'x-webhook', '--json']);
    assert.equal(same.code, 2);
    assert.match(same.stderr, /--timestamp-header and --signature-header name the same header/);
    assert.equal(same.stdout, '');
    // Long names, words with digits, are names, not secrets pasted there: taken and printed.
    const long = await runCli(['sign', '--secret-env', SECRET_ENV, '--timestamp', TS, '--body-file', bodyFile,
      '--timestamp-header', 'X-Cryptopay-Webhook-Timestamp-256', '--signature-header', 'X-Hmac-Sha256-V2-Signature']);
    assert.equal(long.code, 0, long.stderr);
    assert.match(long.stdout, /^  X-Cryptopay-Webhook-Timestamp-256: \d+\n  X-Hmac-Sha256-V2-Signature: /m);
    for (const name of ['X-HmacSha256Signature', 'X-Webhook-Sig-Ed25519-V2', 'X-Payment-Sig-2024-01-01', 'X_WEBHOOK_SIGNATURE_V2']) {
      const taken = await runCli(['sign', '--secret-env', SECRET_ENV, '--timestamp', TS, '--body-file', bodyFile, '--signature-header', name]);
      assert.equal(taken.code, 0, `${name}: ${taken.stderr}`);
    }
  });
});

describe('verify', () => {
  const verify = (args, input) => runCli(['verify', '--secret-env', SECRET_ENV, ...args], { input });

  test('prints the verified event (exact status_version), exit 0', async () => {
    const run = await verify(['--timestamp', TS, '--signature', expectedHex, '--now', '1700000100', '--body-file', bodyFile]);
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout);
    assert.equal(out.verified, true);
    assert.equal(out.matchedSecret, 'active');
    assert.equal(out.timestamp, 1700000000);
    assert.equal(out.event.eventId, 'evt_cli_1');
    assert.equal(out.event.paymentId, 'pay_cli_1');
    assert.equal(out.event.statusVersion, '18446744073709551617');
  });

  test('reads the body from stdin and accepts a v1= marked signature', async () => {
    const run = await verify(['--timestamp', TS, '--signature', `v1=${expectedHex}`, '--now', TS, '-'], body);
    assert.equal(run.code, 0, run.stderr);
  });

  test('a changed body fails with signature_mismatch and its hint, exit 1', async () => {
    const tampered = Buffer.from(body.toString().replace('open', 'paid'));
    const run = await verify(['--timestamp', TS, '--signature', expectedHex, '--now', TS, '-'], tampered);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /signature_mismatch: .*raw request bytes/);
    assert.match(run.stderr, /^cryptopay-verify verify: not verified\n/);
    assert.equal(run.stdout, '');
  });

  test('an authentic body that is no usable event: exit 1, and the heading says the signature was valid', async () => {
    const other = Buffer.from(body.toString().replace('payment.updated', 'payment.created'));
    const signature = createHmac('sha256', SECRET).update(`${TS}.`).update(other).digest('hex');
    const run = await verify(['--timestamp', TS, '--signature', signature, '--now', TS, '-'], other);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /^cryptopay-verify verify: signature valid, event not usable\nevent_type_unknown: /);
    assert.equal(run.stdout, '');
  });

  test('header values copied with their header name, in quotes or with a carriage return: exit 1, what came with them named, never the value', async () => {
    const sig = createHmac('sha256', SECRET).update(`${TS}.`).update(body).digest('hex');
    for (const [args, said] of [
      [['--timestamp', TS, '--signature', `X-Webhook-Signature: v1=${sig}`], /^--signature starts with a header name and a colon \(X-Webhook-Signature:\): give the value alone/m],
      [['--timestamp', TS, '--signature', `"v1=${sig}"`], /^--signature is wrapped in quotes \(a JSON log or a shell line kept them\): give the value without them/m],
      [['--timestamp', TS, '--signature', `v1=${sig}\r`], /^--signature ends with a carriage return \(copied from a file with CRLF line endings\)/m],
      [['--timestamp', `X-Webhook-Timestamp: ${TS}`, '--signature', sig], /^--timestamp starts with a header name and a colon \(X-Webhook-Timestamp:\)/m],
      [['--timestamp', `'${TS}'`, '--signature', sig], /^--timestamp is wrapped in quotes/m],
    ]) {
      const run = await verify([...args, '--now', TS, '-'], body);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, said);
      assert.ok(!run.stderr.includes(sig), 'the signature is not printed');
    }
  });

  test('a body file that picked up a trailing newline, CRLF line endings or a BOM: still exit 1, and the hint names it', async () => {
    const multiline = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2)); // LF line endings
    const sig = createHmac('sha256', SECRET).update(`${TS}.`).update(multiline).digest('hex');
    const cases = [
      [Buffer.concat([multiline, Buffer.from('\n')]), /The body ends with a newline the delivery did not have \(an editor or echo adds one\): without it the signature matches/],
      [Buffer.concat([multiline, Buffer.from('\r\n')]), /The body ends with a newline the delivery did not have/],
      // Wrapped at 76 columns, as a MIME encoder writes it.
      [Buffer.from(multiline.toString('base64').replace(/.{76}/g, '$&\n')), /The body is still base64-encoded/],
      [gzipSync(multiline), /The body is gzip-compressed, as a proxy or the capture left it \(gunzip it\): without it the signature matches/],
      [Buffer.from(multiline.toString('base64')), /The body is still base64-encoded, as a platform hands over a body it marks so \(AWS Lambda: isBase64Encoded: true\): decode it before verifying: without it the signature matches/],
      [Buffer.from(multiline.toString().replace(/\n/g, '\r\n')), /The body has Windows line endings \(CRLF\) where the delivery had LF: without it the signature matches/],
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), multiline]), /The body starts with a byte order mark the delivery did not have: without it/],
      // Two at once: a Windows editor's save (CRLF and a final CRLF), Notepad's (a BOM and a newline); all three.
      [Buffer.from(`${multiline}\n`.replace(/\n/g, '\r\n')), /The body ends with a newline the delivery did not have \(an editor or echo adds one\) and has Windows line endings \(CRLF\) where the delivery had LF: without them the signature matches/],
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), multiline, Buffer.from('\n')]), /The body ends with a newline .* and starts with a byte order mark the delivery did not have: without them/],
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${multiline}\n`.replace(/\n/g, '\r\n'))]), /newline .* and has Windows line endings .* and starts with a byte order mark .*: without them/],
    ];
    for (const [changed, hint] of cases) {
      const run = await verify(['--timestamp', TS, '--signature', sig, '--now', TS, '-'], changed);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /signature_mismatch: /);
      assert.match(run.stderr, hint);
    }
    // The bytes as signed verify; a body changed otherwise gets no such guess.
    assert.equal((await verify(['--timestamp', TS, '--signature', sig, '--now', TS, '-'], multiline)).code, 0);
    const other = await verify(['--timestamp', TS, '--signature', sig, '--now', TS, '-'], Buffer.concat([Buffer.from(multiline.toString().replace('open', 'paid')), Buffer.from('\n')]));
    assert.equal(other.code, 1);
    assert.doesNotMatch(other.stderr, /without it the signature matches/);
  });

  test('the skew is checked against --now, within --max-skew', async () => {
    const late = await verify(['--timestamp', TS, '--signature', expectedHex, '--now', '1700000301', '--body-file', bodyFile]);
    assert.equal(late.code, 1);
    assert.match(late.stderr, /timestamp_too_old/);
    const early = await verify(['--timestamp', TS, '--signature', expectedHex, '--now', '1699999000', '--body-file', bodyFile]);
    assert.equal(early.code, 1);
    assert.match(early.stderr, /timestamp_in_future/);
    const wide = await verify(['--timestamp', TS, '--signature', expectedHex, '--now', '1700000301', '--max-skew', '600', '--body-file', bodyFile]);
    assert.equal(wide.code, 0, wide.stderr);
    // Without --now the clock is used: a 2023 timestamp is far too old.
    const clock = await verify(['--timestamp', TS, '--signature', expectedHex, '--body-file', bodyFile]);
    assert.equal(clock.code, 1);
    assert.match(clock.stderr, /timestamp_too_old/);
  });

  test('another secret, a malformed signature: each its code, exit 1; an empty secret is a usage error, exit 2', async () => {
    const other = await runCli(['verify', '--secret-env', 'OTHER', '--timestamp', TS, '--signature', expectedHex, '--now', TS, '--body-file', bodyFile], { env: { OTHER: 'whsec_other' } });
    assert.equal(other.code, 1);
    assert.match(other.stderr, /signature_mismatch/);
    const malformed = await verify(['--timestamp', TS, '--signature', 'not-a-signature', '--now', TS, '--body-file', bodyFile]);
    assert.equal(malformed.code, 1);
    assert.match(malformed.stderr, /signature_malformed/);
    const empty = await runCli(['verify', '--secret-env', 'EMPTY', '--timestamp', TS, '--signature', expectedHex, '--now', TS, '--body-file', bodyFile], { env: { EMPTY: '' } });
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /--secret-env: secret_empty: the environment variable it names is set but empty/);
  });

  test('a header value given empty is a header received empty: timestamp_missing or signature_missing, exit 1', async () => {
    for (const [args, code] of [[['--timestamp', '', '--signature', expectedHex], 'timestamp_missing'],
      [['--timestamp', TS, '--signature', ''], 'signature_missing'], [['--timestamp=', '--signature=', ], 'timestamp_missing']]) {
      const run = await verify([...args, '--now', TS, '--body-file', bodyFile]);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, new RegExp(`not verified\n${code}`));
      assert.doesNotMatch(run.stderr, /usage/);
    }
  });

  test('the output never contains the secret', async () => {
    const run = await verify(['--timestamp', TS, '--signature', expectedHex, '--now', TS, '--body-file', bodyFile]);
    const bad = await verify(['--timestamp', TS, '--signature', expectedHex.replace(/^./, 'f'), '--now', TS, '--body-file', bodyFile]);
    for (const text of [run.stdout, run.stderr, bad.stdout, bad.stderr]) assert.ok(!text.includes(SECRET));
  });
});

describe('verify: the rough edges say what to do, in the command line\'s terms', () => {
  const verify = (args, input) => runCli(['verify', '--secret-env', SECRET_ENV, ...args], { input });

  test('a capture older than the skew names --now (and --max-skew), never nowSecs or maxSkewSecs', async () => {
    const run = await verify(['--timestamp', TS, '--signature', expectedHex, '--body-file', bodyFile]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /timestamp_too_old: the delivery is authentic \(its signature matches\), but its timestamp 1700000000 is \d+ s before this machine's clock, more than --max-skew 300/);
    assert.match(run.stderr, /pass --now with the Unix time \(seconds\) it was received, e\.g\. --now 1700000000/);
    assert.doesNotMatch(run.stderr, /nowSecs|maxSkewSecs/);
    const early = await verify(['--timestamp', TS, '--signature', expectedHex, '--now', '1699999000', '--body-file', bodyFile]);
    assert.equal(early.code, 1);
    assert.match(early.stderr, /timestamp_in_future: .* is 1000 s after --now 1699999000, more than --max-skew 300\. --now is before the delivery/);
    assert.doesNotMatch(early.stderr, /nowSecs|maxSkewSecs/);
  });

  test('--now in milliseconds is named as such: exit 2, the seconds to give instead', async () => {
    const run = await verify(['--timestamp', TS, '--signature', expectedHex, '--now', '1700000000123', '--body-file', bodyFile]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--now is in milliseconds \(13 digits\): give Unix seconds, --now 1700000000$/m);
  });

  test('a --body-file that cannot be read: exit 2, the option and the reason named, the value never echoed', async () => {
    // A short secret pasted in the path's place must not be printed either.
    for (const absent of [join(dir, 'capture-missing.json'), 'hunter2']) {
      const run = await verify(['--timestamp', TS, '--signature', expectedHex, '--body-file', absent]);
      assert.equal(run.code, 2);
      assert.ok(run.stderr.includes('cannot read the file named by --body-file (no such file); the name given is not shown'), run.stderr);
      assert.ok(!run.stderr.includes(absent) && !run.stdout.includes(absent), run.stderr);
      // The command line was right: the message is the whole answer, no usage block.
      assert.doesNotMatch(run.stderr, /usage:/);
    }
    const typo = await verify(['--timestamp', TS, '--signature', expectedHex, '--body-fiel', 'x.json']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /usage:/, 'a mistyped command line still gets the usage');
  });

  test('an empty stdin that is not a terminal is a usage error, not signature_mismatch', async () => {
    for (const args of [['-'], []]) {
      const run = await verify(['--timestamp', TS, '--signature', expectedHex, '--now', TS, ...args], '');
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /stdin is empty: no body was piped/);
      assert.doesNotMatch(run.stderr, /signature_mismatch/);
    }
    const sign = await runCli(['sign', '--secret-env', SECRET_ENV, '-'], { input: '' });
    assert.equal(sign.code, 2);
    assert.match(sign.stderr, /stdin is empty/);
    // An empty --body-file (a download that failed) likewise.
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '');
    const file = await verify(['--timestamp', TS, '--signature', expectedHex, '--now', TS, '--body-file', empty]);
    assert.equal(file.code, 2, file.stderr);
    assert.match(file.stderr, /the file named by --body-file is empty: no body was saved there/);
    assert.doesNotMatch(file.stderr, /signature_mismatch|usage:/);
    const signed = await runCli(['sign', '--secret-env', SECRET_ENV, '--body-file', empty]);
    assert.equal(signed.code, 2);
    assert.match(signed.stderr, /--body-file is empty/);
  });

  test('a folder redirected to stdin is named as such, exit 2', () => {
    const run = spawnSync(CLI, ['verify', '--secret-env', SECRET_ENV, '--timestamp', TS, '--signature', expectedHex, '--now', TS, '-'],
      { env: { ...process.env, [SECRET_ENV]: SECRET }, stdio: [openSync(dir, 'r'), 'pipe', 'pipe'], encoding: 'utf8' });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /stdin is a folder, not the body/);
  });

  test('stdin read without being asked, left open and silent (execFile, docker -i): the command says what it waits for', async () => {
    const child = spawn(CLI, ['sign', '--secret-env', SECRET_ENV, '--timestamp', TS], {
      env: { ...process.env, [SECRET_ENV]: SECRET }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    const noted = new Promise((resolve) => {
      child.stderr.on('data', (d) => {
        stderr += d;
        if (stderr.includes('\n')) resolve();
      });
    });
    const closed = new Promise((resolve) => { child.on('close', resolve); });
    await noted; // stdin still open, nothing written
    assert.equal(stderr, 'sign: waiting for the body on stdin (no --body-file given, and stdin is not a terminal); '
      + 'give --body-file F, or close stdin (< /dev/null) to be told what is missing\n');
    child.stdin.end(body);
    assert.equal(await closed, 0, stderr);
    assert.match(stdout, new RegExp(expectedHex));
  });

  test('an endless stdin (yes | ...) or a device as --body-file: body_too_large, read no further than the limit', async () => {
    const child = spawn(CLI, ['verify', '--secret-env', SECRET_ENV, '--timestamp', TS, '--signature', expectedHex, '--now', TS, '-'], {
      env: { ...process.env, [SECRET_ENV]: SECRET }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.stdin.on('error', () => {}); // EPIPE: the command stopped reading
    const chunk = Buffer.alloc(64 * 1024, 0x79);
    const cap = 64 * 1024 * 1024;
    let written = 0;
    const pump = () => {
      while (!child.stdin.destroyed && written < cap) {
        written += chunk.length;
        if (!child.stdin.write(chunk)) return;
      }
      // Only a command that reads everything gets here: end its input so the test ends.
      if (!child.stdin.destroyed) child.stdin.end();
    };
    child.stdin.on('drain', pump);
    pump();
    const code = await new Promise((resolve) => { child.on('close', resolve); });
    assert.equal(code, 1, stderr);
    assert.match(stderr, /body_too_large/);
    assert.ok(written < cap, `the command read ${written} bytes of an endless stdin`);
    const device = await runCli(['verify', '--secret-env', SECRET_ENV, '--timestamp', TS, '--signature', expectedHex, '--now', TS, '--body-file', '/dev/zero']);
    assert.equal(device.code, 1, device.stderr);
    assert.match(device.stderr, /body_too_large/);
    // sign reads up to 64 MiB, and says so in its own terms (no delivery, no maxBodyBytes).
    const signed = await runCli(['sign', '--secret-env', SECRET_ENV, '--timestamp', TS, '--body-file', '/dev/zero']);
    assert.equal(signed.code, 2, signed.stderr);
    assert.equal(signed.stderr, 'cryptopay-verify sign: body_too_large: sign signs a body of at most 64 MiB\n');
  });

  test('a base64url signature that starts with -- is a value, not a missing one; an option after a value option is', async () => {
    const signature = `--${'A'.repeat(41)}`;
    const run = await runCli(['verify', '--secret-env', SECRET_ENV, '--timestamp', TS, '--signature', signature, '--now', TS, '--body-file', bodyFile]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /signature_mismatch|signature_malformed/);
    const missing = await runCli(['verify', '--secret-env', SECRET_ENV, '--timestamp', TS, '--signature', '--now', TS, '--body-file', bodyFile]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--signature needs a value/);
  });

  test('a 13-digit timestamp is still timestamp_malformed, with one word about milliseconds', async () => {
    const run = await verify(['--timestamp', '1700000000123', '--signature', expectedHex, '--body-file', bodyFile]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /timestamp_malformed: the timestamp has more than 12 digits \(milliseconds\?\)/);
    assert.equal(run.stderr.match(/milliseconds\?/g).length, 1, run.stderr);
  });
});

describe('usage errors exit 2, with the usage when the command line itself is wrong', () => {
  const cases = [
    ['no command', []],
    ['an unknown command', ['frobnicate']],
    ['an unknown option', ['verify', '--secret-env', SECRET_ENV, '--timestamp', TS, '--signature', 'x', '--bogus', bodyFile]],
    ['a secret on argv', ['sign', '--secret', 'whsec_on_argv', '--body-file', bodyFile]],
    ['a missing value', ['verify', '--secret-env', SECRET_ENV, '--signature', expectedHex, '--timestamp']],
    ['a missing required option', ['verify', '--secret-env', SECRET_ENV, '--signature', expectedHex, '--body-file', bodyFile]],
    ['no secret at all', ['sign', '--body-file', bodyFile]],
    ['both --secret-env and --secret-file', ['sign', '--secret-env', SECRET_ENV, '--secret-file', bodyFile, '--body-file', bodyFile]],
    ['a non-numeric --now', ['verify', '--secret-env', SECRET_ENV, '--timestamp', TS, '--signature', expectedHex, '--now', 'soon', '--body-file', bodyFile]],
    ['an unknown encoding', ['sign', '--secret-env', SECRET_ENV, '--encoding', 'base32', '--body-file', bodyFile]],
    ['both --body-file and -', ['sign', '--secret-env', SECRET_ENV, '--body-file', bodyFile, '-']],
    ['a stray argument', ['sign', '--secret-env', SECRET_ENV, 'extra']],
    ['conformance without --url', ['conformance', '--secret-env', SECRET_ENV, '--timestamp-header', 'a', '--signature-header', 'b']],
    ['conformance with a non-http URL', ['conformance', '--url', 'ftp://127.0.0.1/x', '--secret-env', SECRET_ENV, '--timestamp-header', 'a', '--signature-header', 'b']],
    ['conformance without header names', ['conformance', '--url', 'http://127.0.0.1:9/x', '--secret-env', SECRET_ENV]],
    ['conformance with a --max-skew over a day', ['conformance', '--url', 'http://127.0.0.1:9/x', '--secret-env', SECRET_ENV, '--timestamp-header', 'a', '--signature-header', 'b', '--max-skew', '86401']],
    ['conformance with a bad --timeout', ['conformance', '--url', 'http://127.0.0.1:9/x', '--secret-env', SECRET_ENV, '--timestamp-header', 'a', '--signature-header', 'b', '--timeout', '0']],
  ];
  // The command line is right but what it names cannot be used: the message alone.
  const inputs = [
    ['an unset secret variable', ['sign', '--secret-env', 'CPV_SURELY_UNSET_VARIABLE', '--body-file', bodyFile]],
    ['a body file that does not exist', ['sign', '--secret-env', SECRET_ENV, '--body-file', join(dir, 'absent.json')]],
    ['--now in milliseconds', ['verify', '--secret-env', SECRET_ENV, '--timestamp', TS, '--signature', expectedHex, '--now', '1700000000000', '--body-file', bodyFile]],
  ];
  for (const [name, args, usage] of [...cases.map((c) => [...c, true]), ...inputs.map((c) => [...c, false])]) {
    test(name, async () => {
      const run = await runCli(args);
      assert.equal(run.code, 2, `${run.stdout}\n${run.stderr}`);
      if (usage) assert.match(run.stderr, /usage:/);
      else assert.equal(run.stderr.split('\n').filter(Boolean).length, 1, run.stderr);
      assert.ok(!run.stderr.includes('whsec_on_argv'));
    });
  }

  test('a --timeout written as .5 or 5. is a number of seconds, not a usage error', async () => {
    for (const timeout of ['.5', '5.']) {
      const run = await runCli(['conformance', '--url', 'http://127.0.0.1:9/x', '--secret-env', SECRET_ENV,
        '--timestamp-header', 'a', '--signature-header', 'b', '--timeout', timeout]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /cannot reach the receiver/);
      assert.doesNotMatch(run.stderr, /usage|--timeout must/);
    }
  });

  test('-h and --help together print the command\'s usage, exit 0', async () => {
    const run = await runCli(['verify', '-h', '--help']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /cryptopay-verify verify --secret-env VAR/);
  });

  test('--help prints the usage of every command, exit 0', async () => {
    const run = await runCli(['--help']);
    assert.equal(run.code, 0);
    for (const command of ['verify', 'sign', 'conformance']) assert.match(run.stdout, new RegExp(`cryptopay-verify ${command}`));
  });
});

test('pkg/ installed as a folder (npm install <folder> links it): its command runs', async () => {
  // npm links the folder and its bin as they are: pkg/'s cli.mjs must be executable itself
  // (a tarball's is made so by npm pack).
  const project = tempDir('cpv-cli-linked-');
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(join(ROOT, 'pkg'), join(project, 'node_modules', 'cryptopay-verify'), 'dir');
  const bin = join(project, 'node_modules', '.bin', 'cryptopay-verify');
  symlinkSync(join('..', 'cryptopay-verify', 'dist', 'cli', 'cli.mjs'), bin);
  const run = spawnSync(bin, ['--help'], { encoding: 'utf8' });
  assert.equal(run.error, undefined, String(run.error));
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /conformance/);
});
