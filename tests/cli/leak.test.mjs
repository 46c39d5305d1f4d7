// No output of the command line holds a secret or a URL credential: a secret-looking value
// typed in every option that takes a name (and every other option), as a stray argument, as
// an option name or a command; the real secrets of a run; credentials and tokens in --url.
// Every such usage error exits 2. stdout, stderr and --json are all searched.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  PENDING_SECRET, RETIRED_SECRET, ROTATION_ARGS, SECRET, SECRET_ENV, SIG_HEADER, TS_HEADER, acknowledgeEverything,
  against, plainReceiver, runCli, startServer, tempDir,
} from './helpers.mjs';

// A whole secret as a merchant would paste it, and the parts that must not show either; and
// one without the whsec_ prefix, shaped like a variable name, that nothing can tell from one.
const PROBE = `whsec_${randomBytes(24).toString('base64url')}`;
const MARKS = [PROBE, PROBE.slice(6, 18), PROBE.slice(-12)];
const PLAIN = `K${randomBytes(20).toString('hex')}`;
const PLAIN_MARKS = [PLAIN, PLAIN.slice(0, 12), PLAIN.slice(-12)];

const dir = tempDir();
const bodyFile = join(dir, 'body.json');
writeFileSync(bodyFile, '{}');

function assertClean(run, marks, what) {
  for (const [name, text] of [['stdout', run.stdout], ['stderr', run.stderr]]) {
    for (const mark of marks) assert.ok(!text.includes(mark), `${what}: ${name} holds a secret part:\n${text}`);
  }
}

const HEADERS = ['--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER];
const URL_ARG = ['--url', 'http://127.0.0.1:9/webhook'];
const BASE = {
  verify: ['verify', '--secret-env', SECRET_ENV, '--timestamp', '1700000000', '--signature', 'a'.repeat(64), '--body-file', bodyFile],
  sign: ['sign', '--secret-env', SECRET_ENV, '--body-file', bodyFile],
  conformance: ['conformance', ...URL_ARG, '--secret-env', SECRET_ENV, ...HEADERS],
};

// [command, option]: the option given PROBE instead of what it takes (the base's own value removed).
const PROBES = [
  ...['verify', 'sign', 'conformance'].flatMap((c) => [[c, '--secret-env'], [c, '--secret-file']]),
  ...['--pending-secret-env', '--pending-secret-file', '--retired-secret-env', '--retired-secret-file']
    .map((o) => ['conformance', o]),
  ['sign', '--timestamp-header'], ['sign', '--signature-header'],
  ['conformance', '--timestamp-header'], ['conformance', '--signature-header'],
  ['verify', '--body-file'], ['sign', '--body-file'],
  ['verify', '--now'], ['verify', '--max-skew'], ['sign', '--encoding'],
  ['conformance', '--url'], ['conformance', '--timeout'], ['conformance', '--max-skew'], ['conformance', '--encoding'],
];

function withProbe(command, option, form, probe = PROBE) {
  const args = [...BASE[command]];
  const at = args.indexOf(option);
  if (at !== -1) args.splice(at, 2);
  // --secret-file replaces --secret-env (both together are refused before either is read).
  if (option.startsWith('--secret-')) args.splice(args.indexOf('--secret-env'), 2);
  return form === '=' ? [...args, `${option}=${probe}`] : [...args, option, probe];
}

describe('a secret typed where a name or a value belongs is never echoed (exit 2)', () => {
  for (const [command, option] of PROBES) {
    test(`${command} ${option} <secret>, ${option}=<secret>, ${option} <a secret shaped like a name>`, async () => {
      const tries = [[' ', PROBE, MARKS], ['=', PROBE, MARKS]];
      // A header name is used as given (sign prints the headers to send): only a whsec_ value
      // can be told from one there.
      if (!option.endsWith('-header')) tries.push([' ', PLAIN, PLAIN_MARKS]);
      for (const [form, probe, marks] of tries) {
        const run = await runCli(withProbe(command, option, form, probe));
        assert.equal(run.code, 2, `${run.stdout}\n${run.stderr}`);
        assertClean(run, marks, `${command} ${option}${form}`);
        assert.ok(run.stderr.includes(option), `the message names the option:\n${run.stderr}`);
      }
    });
  }

  for (const command of ['verify', 'sign', 'conformance']) {
    test(`${command}: a stray positional argument, an unknown option named like a secret`, async () => {
      for (const probe of [PROBE, PLAIN]) {
        for (const args of [[...BASE[command], probe], [...BASE[command], `--${probe}`], [probe, ...BASE[command]]]) {
          const run = await runCli(args);
          assert.equal(run.code, 2, run.stderr);
          assertClean(run, [...MARKS, ...PLAIN_MARKS], args.join(' '));
        }
      }
    });
  }

  test('an unknown command and a secret on argv', async () => {
    for (const args of [[PROBE], ['sign', `--secret=${PROBE}`], ['conformance', '--pending-secret', PROBE]]) {
      const run = await runCli(args);
      assert.equal(run.code, 2);
      assertClean(run, MARKS, args.join(' '));
    }
  });

  test('the value of the secret variable given instead of its name (a shell-expanded $VAR) is named, not shown', async () => {
    const run = await runCli(['sign', '--secret-env', SECRET, '--body-file', bodyFile]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, new RegExp(`--secret-env was given the VALUE of the environment variable ${SECRET_ENV} \\(not shown\\)`));
    assertClean(run, [SECRET, SECRET.slice(-12)], 'expanded');
  });

  test('a secret file that cannot be read: its name is not shown', async () => {
    const run = await runCli(['sign', '--secret-file', join(dir, PROBE), '--body-file', bodyFile]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /cannot read the file named by --secret-file \(no such file\)/);
    assertClean(run, MARKS, 'secret file');
  });
});

describe('credentials and tokens in --url print as ***', () => {
  const PASSWORD = `pw-${randomBytes(12).toString('hex')}`;
  const USER = `merchant${randomBytes(4).toString('hex')}`;
  const TOKEN = randomBytes(12).toString('hex');
  const CREDS = [PASSWORD, USER, TOKEN, encodeURIComponent(PASSWORD)];
  const withCreds = (url) => url.replace('http://', `http://${USER}:${PASSWORD}@`) + `?token=${TOKEN}`;

  test('progress, table, warnings and --json of a whole run (with rotation): no credential, no secret', async () => {
    for (const handler of [acknowledgeEverything, plainReceiver()]) {
      const server = await startServer(handler);
      try {
        const url = withCreds(server.url);
        const args = ['conformance', '--url', url, '--secret-env', SECRET_ENV, ...HEADERS, ...ROTATION_ARGS];
        for (const run of [await runCli(args), await runCli([...args, '--json'])]) {
          assert.ok(run.code === 0 || run.code === 1, run.stderr);
          assertClean(run, [...CREDS, SECRET, PENDING_SECRET, RETIRED_SECRET], 'run');
          assert.match(run.stderr, /playing the service against http:\/\/\*\*\*@127\.0\.0\.1:\d+\/webhook\?\*\*\*/);
          assert.match(run.stderr, /webhook_url_credentials|webhook_url_not_https/);
        }
      } finally {
        await server.close();
      }
    }
  });

  test('a receiver that answers with a secret where its error code goes: not printed', async () => {
    const run = await against((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: PROBE }));
    });
    assert.equal(run.code, 1);
    assert.equal(run.results[0].got, '401 permanent_failure');
    assertClean(run, MARKS, 'answer');
  });

  test('a short secret the receiver echoes as its error code: not printed either', async () => {
    const short = 'abc123';
    const run = await against((req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: short }));
    }, [], { env: { [SECRET_ENV]: short } });
    assert.equal(run.code, 1);
    assert.equal(run.results[0].got, '400 permanent_failure');
    assert.ok(!run.stdout.includes(short) && !run.stderr.includes(short), `${run.stdout}\n${run.stderr}`);
    // Inside a longer code (under the 12 characters the output is scrubbed of): not printed.
    const inside = await against((req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `bad_${short}` }));
    }, [], { env: { [SECRET_ENV]: short } });
    assert.equal(inside.results[0].got, '400 permanent_failure');
    assert.ok(!inside.stdout.includes(short) && !inside.stderr.includes(short), `${inside.stdout}\n${inside.stderr}`);
  });

  test('an unreachable receiver, an invalid URL, a URL of another scheme: the error line holds no credential', async () => {
    const closed = await startServer(acknowledgeEverything);
    const url = withCreds(closed.url);
    await closed.close();
    const unreachable = await runCli(['conformance', '--url', url, '--secret-env', SECRET_ENV, ...HEADERS, '--timeout', '2']);
    assert.equal(unreachable.code, 2);
    assert.match(unreachable.stderr, /cannot reach the receiver at http:\/\/\*\*\*@127\.0\.0\.1:\d+\/webhook\?\*\*\*: ECONNREFUSED/);
    assertClean(unreachable, CREDS, 'unreachable');
    for (const bad of [`http://${USER}:${PASSWORD}@[::1/x`, `ftp://${USER}:${PASSWORD}@127.0.0.1/x?token=${TOKEN}`]) {
      const run = await runCli(['conformance', '--url', bad, '--secret-env', SECRET_ENV, ...HEADERS]);
      assert.equal(run.code, 2);
      assertClean(run, CREDS, bad);
    }
  });
});

describe('verify and sign never print the secret', () => {
  test('a verification that fails, one that passes, a signature', async () => {
    const runs = [
      await runCli(['verify', '--secret-env', SECRET_ENV, '--timestamp', '1700000000', '--signature', 'a'.repeat(64), '--now', '1700000000', '--body-file', bodyFile]),
      await runCli(['sign', '--secret-env', SECRET_ENV, '--timestamp', '1700000000', '--body-file', bodyFile, '--json']),
      await runCli(['verify', '--secret-env', 'PADDED', '--timestamp', '1700000000', '--signature', 'a'.repeat(64), '--now', '1700000000', '--body-file', bodyFile], { env: { PADDED: ` ${SECRET}\n` } }),
    ];
    for (const run of runs) assertClean(run, [SECRET, SECRET.slice(-12)], 'verify/sign');
  });
});
