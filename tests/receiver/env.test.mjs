// receiverOptionsFromEnv and lazyReceiver (cryptopay-verify/receiver), from the INSTALLED
// package: the options an environment object gives (a rotation included) and the one error
// naming every missing variable, never a value; the receiver created at the first request,
// once however many arrive together, forgotten on failure, answering 500 not_configured or
// 503 store_unavailable meanwhile (through handle, fetch and a real node:http server), with
// one log line per attempt saying which.

import assert from 'node:assert/strict';
import http from 'node:http';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  Database, SECRET, SIG_HEADER, TS_HEADER, eventBody, exportedFile, nowSecs, pg, pkg, rx, signedHeaders, tempDir,
} from './lib/helpers.mjs';

const ENV = { CRYPTOPAY_WEBHOOK_SECRET: SECRET, TIMESTAMP_HEADER: TS_HEADER, SIGNATURE_HEADER: SIG_HEADER };
let n = 0;
const body = () => {
  n += 1;
  return eventBody({ eventId: `evt_env_${n}`, paymentId: `pay_env_${n}`, statusVersion: 1 });
};
const delivery = (bytes = body(), opts) => ({ body: bytes, headers: signedHeaders(bytes, opts) });

/** The CryptoPayError receiverOptionsFromEnv throws for `env`. */
function refusal(env, options) {
  try {
    rx.receiverOptionsFromEnv(env, options);
  } catch (error) {
    assert.ok(error instanceof pkg.CryptoPayError, String(error));
    assert.equal(error.code, 'invalid_argument');
    return error.message;
  }
  return assert.fail('no error');
}

describe('receiverOptionsFromEnv', () => {
  test('the three required variables give createReceiver\'s options: the secret as it is, the default skew of 300', async () => {
    const options = rx.receiverOptionsFromEnv({ ...ENV, UNRELATED: 'x' });
    assert.deepEqual(options, { secrets: SECRET, maxSkewSecs: 300, timestampHeader: TS_HEADER, signatureHeader: SIG_HEADER });
    const receiver = rx.createReceiver({ ...options, store: rx.memoryStore() });
    const answer = await receiver.handle(delivery());
    assert.deepEqual([answer.status, JSON.parse(answer.body)], [200, { received: true, decision: 'apply' }]);
  });

  test('values are used exactly as given: no trimming', () => {
    const options = rx.receiverOptionsFromEnv({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET: ' whsec_spaced ' });
    assert.equal(options.secrets, ' whsec_spaced ');
  });

  test('MAX_SKEW_SECS: whole seconds as text, or a number (a Worker\'s JSON var); unset or empty is 300', () => {
    for (const [value, expected] of [['60', 60], ['0', 0], [120, 120], ['', 300], [undefined, 300]]) {
      assert.equal(rx.receiverOptionsFromEnv({ ...ENV, MAX_SKEW_SECS: value }).maxSkewSecs, expected, String(value));
    }
  });

  test('a MAX_SKEW_SECS that is not whole seconds is refused, naming the variable, not its value', () => {
    for (const value of ['5m', '-1', '1.5', ' 60', '1e3', '0x10', '99999999999999999999', 1.5, -2]) {
      const message = refusal({ ...ENV, MAX_SKEW_SECS: value });
      assert.match(message, /MAX_SKEW_SECS is whole seconds, 0 or more \(default 300\)/);
      if (typeof value === 'string' && value.trim() !== '') assert.ok(!message.includes(value.trim()), message);
    }
  });

  test('every missing variable is named in one error; an empty value counts as missing', () => {
    assert.equal(refusal({}), 'invalid_argument: set CRYPTOPAY_WEBHOOK_SECRET, TIMESTAMP_HEADER and SIGNATURE_HEADER in the environment (each is missing or empty)');
    assert.equal(refusal({ ...ENV, TIMESTAMP_HEADER: '' }), 'invalid_argument: set TIMESTAMP_HEADER in the environment (it is missing or empty)');
    assert.equal(refusal({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET: undefined, SIGNATURE_HEADER: null }),
      'invalid_argument: set CRYPTOPAY_WEBHOOK_SECRET and SIGNATURE_HEADER in the environment (each is missing or empty)');
  });

  test('never a value in the error: not the secret, not a header name, not a database URL', () => {
    const url = 'postgres://shop:hunter2@db.internal/shop';
    const message = refusal({ CRYPTOPAY_WEBHOOK_SECRET: SECRET, TIMESTAMP_HEADER: TS_HEADER, DATABASE_URL: url, MAX_SKEW_SECS: 'soon' }, { required: ['DATABASE_URL'] });
    assert.equal(message, 'invalid_argument: set SIGNATURE_HEADER in the environment (it is missing or empty); MAX_SKEW_SECS is whole seconds, 0 or more (default 300)');
    for (const value of [SECRET, TS_HEADER, url, 'hunter2', 'soon']) assert.ok(!message.includes(value), value);
  });

  test('required: more variables, named with the receiver\'s own; a binding (an object) counts as set; its value is not returned', () => {
    assert.equal(refusal({ ...ENV, SIGNATURE_HEADER: '' }, { required: ['DATABASE_URL'] }),
      'invalid_argument: set SIGNATURE_HEADER and DATABASE_URL in the environment (each is missing or empty; a Worker binding (D1, Hyperdrive) is declared in wrangler.jsonc under that name, not set as a variable)');
    assert.equal(refusal({ ...ENV, DATABASE_URL: '' }, { required: ['DATABASE_URL', 'TIMESTAMP_HEADER'] }),
      'invalid_argument: set DATABASE_URL in the environment (it is missing or empty; a Worker binding (D1, Hyperdrive) is declared in wrangler.jsonc under that name, not set as a variable)');
    const options = rx.receiverOptionsFromEnv({ ...ENV, DB: { prepare() {}, batch() {} } }, { required: ['DB'] });
    assert.deepEqual(Object.keys(options), ['secrets', 'maxSkewSecs', 'timestampHeader', 'signatureHeader']);
  });

  test('a Cloudflare Secrets Store binding (an object whose get() gives the text) where a secret or key belongs: each refusal says to pass await env.NAME.get()', async () => {
    const binding = { get: async () => SECRET };
    const hint = /it is an object with a get\(\) method, as a Cloudflare Secrets Store binding is; pass its text, \(await env\.NAME\.get\(\)\)/;
    const refused = (fn, words) => assert.throws(fn, (error) => {
      assert.equal(error.code, 'invalid_argument');
      assert.match(error.message, words);
      assert.match(error.message, hint);
      return true;
    });
    refused(() => rx.receiverOptionsFromEnv({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET: binding }), /CRYPTOPAY_WEBHOOK_SECRET is not text/);
    const options = { maxSkewSecs: 300, timestampHeader: TS_HEADER, signatureHeader: SIG_HEADER, store: rx.memoryStore() };
    refused(() => rx.createReceiver({ ...options, secrets: binding }), /secrets is not a secret/);
    refused(() => rx.createReceiver({ ...options, secrets: { 'shop-a': binding } }), /the secrets of integration "shop-a" are not a secret/);
    refused(() => new pkg.Verifier({ secrets: binding, maxSkewSecs: 300 }), /secrets must be a string or an array/);
    refused(() => new pkg.Verifier({ secrets: [{ secret: binding, kind: 'active' }], maxSkewSecs: 300 }), /a secret entry needs secret, a string/);
    const { createClient } = await import(pathToFileURL(exportedFile('./client')).href);
    refused(() => createClient({ baseUrl: 'https://api.example.com', apiKey: binding }), /apiKey is not a key/);
    // A Map is not one (it has get() too): refused as before, without the hint.
    assert.throws(() => new pkg.Verifier({ secrets: new Map(), maxSkewSecs: 300 }), (error) => !hint.test(error.message));
  });

  test('a rotation: the pending and the retiring Secret beside the active one, which verify as the core says', async () => {
    const until = nowSecs() + 3600;
    const env = {
      ...ENV,
      CRYPTOPAY_WEBHOOK_SECRET_PENDING: `${SECRET}_next`,
      CRYPTOPAY_WEBHOOK_SECRET_RETIRING: `${SECRET}_old`,
      CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: String(until),
    };
    const options = rx.receiverOptionsFromEnv(env);
    assert.deepEqual(options.secrets, [
      { secret: SECRET, kind: 'active' },
      { secret: `${SECRET}_next`, kind: 'pending' },
      { secret: `${SECRET}_old`, kind: 'retiring', acceptUntilSecs: until },
    ]);
    assert.deepEqual(rx.receiverOptionsFromEnv({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET_PENDING: 'whsec_next' }).secrets,
      [{ secret: SECRET, kind: 'active' }, { secret: 'whsec_next', kind: 'pending' }]);
    // Empty rotation variables are unset: the secret alone, as a string.
    assert.equal(rx.receiverOptionsFromEnv({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET_PENDING: '', CRYPTOPAY_WEBHOOK_SECRET_RETIRING: '' }).secrets, SECRET);

    let clock = nowSecs();
    const receiver = rx.createReceiver({ ...options, store: rx.memoryStore(), nowSecs: () => clock, log: false });
    for (const secret of [SECRET, `${SECRET}_next`, `${SECRET}_old`]) {
      const answer = await receiver.handle(delivery(body(), { secret, timestamp: clock }));
      assert.equal(answer.status, 200, `${secret}: ${answer.body}`);
    }
    clock = until + 1; // past the retiring Secret's last second
    const late = await receiver.handle(delivery(body(), { secret: `${SECRET}_old`, timestamp: clock }));
    assert.deepEqual([late.status, JSON.parse(late.body)], [400, { error: 'signature_mismatch' }]);
  });

  test('integrations given after receiverOptionsFromEnv without the rotation it read: said at start, naming the variable', () => {
    const env = { ...ENV, CRYPTOPAY_WEBHOOK_SECRET_PENDING: 'whsec_next_0123456789' };
    const other = 'whsec_shop_b_0123456789';
    const said = (secrets) => {
      const lines = [];
      rx.createReceiver({ ...rx.receiverOptionsFromEnv(env), secrets, store: rx.memoryStore(), log: { warn: (l) => lines.push(l), error: (l) => lines.push(l) } });
      for (const line of lines) assert.ok(!line.includes('whsec_next_0123456789'), line);
      return lines.filter((l) => l.includes('receiverOptionsFromEnv'));
    };
    // The two-store wiring of the merchant guide: the pending Secret read, then replaced.
    const [line, ...more] = said({ 'shop-a': SECRET, 'shop-b': other });
    assert.equal(more.length, 0);
    assert.match(line, /CRYPTOPAY_WEBHOOK_SECRET_PENDING is set and read by receiverOptionsFromEnv, but the secrets option given after it replaced what it read: this receiver does not hold that Secret, and a delivery signed with one is refused \(400, final\)\. Give the integration that rotates its secrets as a list/);
    // Held by one integration's list, or as read: nothing to say.
    assert.deepEqual(said({ 'shop-a': [{ secret: SECRET, kind: 'active' }, { secret: 'whsec_next_0123456789', kind: 'pending' }], 'shop-b': other }), []);
    assert.deepEqual(said(rx.receiverOptionsFromEnv(env).secrets), []);
    // No rotation in the environment: nothing to drop.
    const lines = [];
    rx.createReceiver({ ...rx.receiverOptionsFromEnv(ENV), secrets: { 'shop-a': SECRET, 'shop-b': other }, store: rx.memoryStore(), log: { warn: (l) => lines.push(l), error: (l) => lines.push(l) } });
    assert.deepEqual(lines.filter((l) => l.includes('receiverOptionsFromEnv')), []);
    // The options object lists the same keys as before.
    assert.deepEqual(Object.keys(rx.receiverOptionsFromEnv(env)), ['secrets', 'maxSkewSecs', 'timestampHeader', 'signatureHeader']);
  });

  test('a retiring Secret needs its _RETIRING_UNTIL, in Unix seconds: named among the missing, or as malformed', () => {
    const retiring = { ...ENV, CRYPTOPAY_WEBHOOK_SECRET_RETIRING: 'whsec_old' };
    assert.equal(refusal(retiring), 'invalid_argument: set CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL in the environment (it is missing or empty)');
    assert.equal(refusal({ ...retiring, TIMESTAMP_HEADER: '' }),
      'invalid_argument: set TIMESTAMP_HEADER and CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL in the environment (each is missing or empty)');
    assert.equal(refusal({ ...retiring, CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: '2026-01-01' }),
      'invalid_argument: CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL is a Unix time in seconds: the last second the retiring secret verifies');
    // Milliseconds (Date.now()) would keep the retiring Secret verifying for thousands of years.
    assert.equal(refusal({ ...retiring, CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: String(1767225600 * 1000) }),
      'invalid_argument: CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL has 13 digits or more: it is in milliseconds; give the last second the retiring secret verifies, in Unix seconds');
    assert.equal(rx.receiverOptionsFromEnv({ ...retiring, CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: '999999999999' }).secrets[1].acceptUntilSecs, 999999999999);
    // Left behind once the retiring Secret is removed, its time past: harmless.
    assert.equal(rx.receiverOptionsFromEnv({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: '1767225600' }).secrets, SECRET);
    // Still ahead (or not a time) with no retiring Secret (a form left it empty): the deliveries
    // in flight signed with the old Secret would be refused for good; refused, saying what to set.
    assert.match(refusal({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: 'soon' }),
      /^invalid_argument: CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL is set, to no Unix time, and CRYPTOPAY_WEBHOOK_SECRET_RETIRING is not: remove CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL/);
    for (const until of [String(nowSecs() + 3600), String(Date.now())]) {
      assert.match(refusal({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: until }),
        /^invalid_argument: CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL is set, and not past, but CRYPTOPAY_WEBHOOK_SECRET_RETIRING is not: during the overlap set CRYPTOPAY_WEBHOOK_SECRET_RETIRING to the old Secret/, until);
      assert.match(refusal({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET_RETIRING: '', CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: until }), /is set, and not past/);
    }
  });

  test("a Worker's global scope, where Date.now() reads 0, judges no end by that clock", (t) => {
    // workerd answers 0 until a request starts: a leftover end, long past, is not "ahead".
    t.mock.method(Date, 'now', () => 0);
    assert.equal(rx.receiverOptionsFromEnv({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: '1767225600' }).secrets, SECRET);
    assert.match(refusal({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: 'soon' }), /is set, to no Unix time/);
  });

  test('a variable one edit (or letter case) from one of its Secrets\' names is refused, naming the one meant', () => {
    const reads = 'it reads CRYPTOPAY_WEBHOOK_SECRET, CRYPTOPAY_WEBHOOK_SECRET_PENDING, CRYPTOPAY_WEBHOOK_SECRET_RETIRING ' +
      'and CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL; rename it, or remove it';
    // A misspelt retiring Secret would leave the old one unread for the whole rotation.
    const misspelt = { ...ENV, CRYPTOPAY_WEBHOOK_SECRET_RETIRNG: 'whsec_old_value', CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: '1767225600' };
    const message = refusal(misspelt);
    assert.equal(message, 'invalid_argument: CRYPTOPAY_WEBHOOK_SECRET_RETIRNG is not a variable receiverOptionsFromEnv reads: ' +
      `did you mean CRYPTOPAY_WEBHOOK_SECRET_RETIRING? (${reads})`);
    assert.ok(!message.includes('whsec_old_value'), message);
    assert.match(refusal({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET_PENDNG: 'whsec_x' }), /did you mean CRYPTOPAY_WEBHOOK_SECRET_PENDING\?/);
    // Letter case: process.env on Linux reads names exactly, so this pending Secret is unread.
    assert.match(refusal({ ...ENV, cryptopay_webhook_secret_pending: 'whsec_x' }), /cryptopay_webhook_secret_pending is not a variable .*did you mean CRYPTOPAY_WEBHOOK_SECRET_PENDING\?/);
    // A near miss that is no plain variable name (a pasted value in it) is not shown.
    const pasted = refusal({ ...ENV, 'CRYPTOPAY_WEBHOOK_SECRET ': 'whsec_pasted' });
    assert.ok(!pasted.includes('whsec_pasted'), pasted);
    assert.match(pasted, /a variable whose name is not a plain name, close to CRYPTOPAY_WEBHOOK_SECRET, is not a variable .*did you mean CRYPTOPAY_WEBHOOK_SECRET\?/);
    // Named with the missing ones, in the one error.
    assert.match(refusal({ CRYPTOPAY_WEBHOOK_SECRETS: 'whsec_x', TIMESTAMP_HEADER: 'X-T', SIGNATURE_HEADER: 'X-S' }),
      /^invalid_argument: CRYPTOPAY_WEBHOOK_SECRETS is not a variable .*did you mean CRYPTOPAY_WEBHOOK_SECRET\? .*; set CRYPTOPAY_WEBHOOK_SECRET in the environment/);
    // A slip in the prefix, or an underscore more, leaves the rotation's Secret unread just the same.
    assert.match(refusal({ ...ENV, CRYPTOPAY_WEBHOK_SECRET_PENDING: 'whsec_x' }), /^invalid_argument: CRYPTOPAY_WEBHOK_SECRET_PENDING is not a variable .*did you mean CRYPTOPAY_WEBHOOK_SECRET_PENDING\?/);
    assert.match(refusal({ ...ENV, CRYPTOPAY_WEBHOOK_SECRT_RETIRING: 'whsec_x' }), /did you mean CRYPTOPAY_WEBHOOK_SECRET_RETIRING\?/);
    assert.match(refusal({ ...ENV, CRYPTO_PAY_WEBHOOK_SECRET_PENDING: 'whsec_x' }), /did you mean CRYPTOPAY_WEBHOOK_SECRET_PENDING\?/);
    assert.match(refusal({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTL: '1767225600', CRYPTOPAY_WEBHOOK_SECRET_RETIRING: 'whsec_x' }),
      /CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTL is not a variable .*did you mean CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL\?/);
    // Other names, even under the prefix, are the deployment's own (one integration's secret
    // among several, a file's path); empty ones are unset.
    const own = {
      ...ENV, CRYPTOPAY_WEBHOOK_SECRET_SHOP_B: 'whsec_b', CRYPTOPAY_WEBHOOK_SECRET_FILE: '/run/secrets/x', CRYPTOPAY_WEBHOOK_SECRET_RETIRNG: '',
      CRYPTOPAY_WEBHOOK_SECRET_2: 'whsec_2', CRYPTOPAY_WEBHOOK_SECRET_B: 'whsec_b2', CRYPTOPAY_WEBHOOK_SECRET_PENDING_EU: 'whsec_eu', PATH: '/usr/bin',
    };
    assert.equal(rx.receiverOptionsFromEnv(own).secrets, SECRET);
  });

  test('a near miss of a setting left unset is refused, naming the one meant; beside the setting itself it is the deployment\'s', () => {
    // The skew would silently stay 300 s; a header name would be reported missing, not mistyped.
    for (const [name, meant] of [['MAX_SKEW_SEC', 'MAX_SKEW_SECS'], ['MAX_SKEW_SECONDS', 'MAX_SKEW_SECS'], ['max_skew_secs', 'MAX_SKEW_SECS'],
      ['TIMESTAMP_HEADERS', 'TIMESTAMP_HEADER'], ['SIGNATURE_HEADR', 'SIGNATURE_HEADER']]) {
      const env = { ...ENV, [name]: '600' };
      delete env[meant];
      assert.match(refusal(env), new RegExp(`${name} is set and ${meant} is not: did you mean ${meant}\\? \\(receiverOptionsFromEnv reads MAX_SKEW_SECS, TIMESTAMP_HEADER and SIGNATURE_HEADER; rename it\\)`));
    }
    // The setting set: a name near it is the deployment's own.
    assert.equal(rx.receiverOptionsFromEnv({ ...ENV, MAX_SKEW_SECS: '60', MAX_SKEW_SECONDS: '600', TIMESTAMP_HEADER_NAME: 'x' }).maxSkewSecs, 60);
  });

  test('a value that is not text where text is read is refused, by name', () => {
    assert.equal(refusal({ ...ENV, CRYPTOPAY_WEBHOOK_SECRET: 12345 }), 'invalid_argument: CRYPTOPAY_WEBHOOK_SECRET is not text');
    assert.equal(refusal({ ...ENV, TIMESTAMP_HEADER: ['X-T'] }), 'invalid_argument: TIMESTAMP_HEADER is not text');
  });

  test('it reads only the object it is given, never process.env', () => {
    const saved = { ...process.env };
    Object.assign(process.env, ENV);
    try {
      assert.match(refusal({}), /set CRYPTOPAY_WEBHOOK_SECRET, TIMESTAMP_HEADER and SIGNATURE_HEADER/);
    } finally {
      for (const name of Object.keys(ENV)) if (!(name in saved)) delete process.env[name];
    }
  });

  test('wrong arguments: not an object, an unknown option, required not a list of names', () => {
    for (const env of [undefined, null, 'CRYPTOPAY_WEBHOOK_SECRET=x', 42]) {
      assert.match(refusal(env), /receiverOptionsFromEnv takes the environment as an object: process\.env, a Worker's env, Deno\.env\.toObject\(\)/);
    }
    assert.match(refusal(ENV, { require: ['DATABASE_URL'] }), /unknown option \(options: required\)/);
    for (const required of ['DATABASE_URL', [''], [1], {}]) assert.match(refusal(ENV, { required }), /required is an array of variable names/);
  });
});

/** A log that keeps its lines. */
const capture = () => {
  const lines = [];
  return { lines, warn: (line) => lines.push(`warn ${line}`), error: (line) => lines.push(`error ${line}`) };
};

/** A create() for lazyReceiver that counts its calls and fails while `fail()` returns an error. */
function creator(fail = () => null, storeOf = () => rx.memoryStore()) {
  const made = { calls: 0 };
  made.create = async () => {
    made.calls += 1;
    await new Promise((resolve) => setTimeout(resolve, 10)); // others arrive meanwhile
    const failure = fail();
    if (failure) throw failure;
    return rx.createReceiver({ ...rx.receiverOptionsFromEnv(ENV), store: storeOf(), log: false });
  };
  return made;
}

const parsed = (answer) => [answer.status, JSON.parse(answer.body)];

function listen(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve({
      url: `http://127.0.0.1:${server.address().port}/`,
      close: () => new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
    }));
  });
}

describe('lazyReceiver', () => {
  const servers = [];
  after(async () => {
    for (const server of servers) await server.close();
  });

  test('a receiver whose WebAssembly cannot be had (the browser build bundled for a server): not_configured, not store_unavailable', async () => {
    // STAND-IN for the browser build's ready() in Node (a server bundle that took the wrong
    // export condition): a real receiver whose ready() rejects as that build's init() does.
    const lines = [];
    const receiver = rx.lazyReceiver(() => {
      const real = rx.createReceiver({ ...rx.receiverOptionsFromEnv(ENV), store: rx.memoryStore(), log: false });
      return { ...real, ready: async () => { throw new pkg.CryptoPayError('invalid_argument', 'invalid_argument: init() could not fetch a file: URL (TypeError): give init() the bytes'); } };
    }, { log: { warn: (l) => lines.push(l), error: (l) => lines.push(l) } });
    assert.deepEqual(parsed(await receiver.handle(delivery())), [500, { error: 'not_configured' }]);
    assert.match(lines.join('\n'), /not_configured \(answered 500, the service retries; the next delivery tries again\): invalid_argument: init\(\) could not fetch/);
    assert.doesNotMatch(lines.join('\n'), /store_unavailable|prepare the store/);
  });

  test('created at the first call, not before; once however many calls arrive together; kept after', async () => {
    const made = creator();
    const receiver = rx.lazyReceiver(made.create);
    assert.equal(made.calls, 0);
    const answers = await Promise.all(Array.from({ length: 8 }, () => receiver.handle(delivery())));
    assert.equal(made.calls, 1);
    assert.deepEqual(answers.map((a) => parsed(a)[1].decision), Array(8).fill('apply'));
    await receiver.handle(delivery());
    await receiver.ready();
    assert.equal(made.calls, 1);
  });

  test('a variable missing: 500 not_configured, one log line naming it (never a value); the next call tries again', async () => {
    const env = { ...ENV, TIMESTAMP_HEADER: '' };
    let calls = 0;
    const log = capture();
    const receiver = rx.lazyReceiver(() => {
      calls += 1;
      return rx.createReceiver({ ...rx.receiverOptionsFromEnv(env), store: rx.memoryStore(), log: false });
    }, { log });
    const answers = await Promise.all([receiver.handle(delivery()), receiver.handle(delivery())]);
    for (const answer of answers) {
      assert.deepEqual(parsed(answer), [500, { error: 'not_configured' }]);
      assert.equal(answer.headers['content-type'], 'application/json');
    }
    assert.equal(calls, 1);
    assert.deepEqual(log.lines, ['error cryptopay-verify/receiver: not_configured (answered 500, the service retries; the next delivery tries again): '
      + 'invalid_argument: set TIMESTAMP_HEADER in the environment (it is missing or empty)']);
    assert.ok(!log.lines[0].includes(SECRET));

    env.TIMESTAMP_HEADER = TS_HEADER; // fixed: the next call creates the receiver
    assert.deepEqual(parsed(await receiver.handle(delivery())), [200, { received: true, decision: 'apply' }]);
    assert.equal(calls, 2);
    assert.equal(log.lines.length, 1);
  });

  test('createReceiver or a store refusing its arguments is not_configured too (500)', async () => {
    const log = capture();
    const noStore = rx.lazyReceiver(() => rx.createReceiver({ ...rx.receiverOptionsFromEnv(ENV), store: rx.d1Store(undefined) }), { log });
    assert.deepEqual(parsed(await noStore.handle(delivery())), [500, { error: 'not_configured' }]);
    assert.match(log.lines[0], /^error cryptopay-verify\/receiver: not_configured \(answered 500.*\): invalid_argument: /);
    const notReceiver = rx.lazyReceiver(() => ({ fetch() {} }), { log });
    assert.deepEqual(parsed(await notReceiver.handle(delivery())), [500, { error: 'not_configured' }]);
    assert.match(log.lines[1], /not_configured .*: invalid_argument: the function given to lazyReceiver did not return a receiver/);
  });

  test('create failing otherwise (a driver that does not load): 503 store_unavailable, the log says why, credentials masked; retried', async () => {
    let failure = new Error('connect ECONNREFUSED for postgres://shop:hunter2@db.internal/shop');
    const made = creator(() => failure);
    const log = capture();
    const receiver = rx.lazyReceiver(made.create, { log });
    const answers = await Promise.all([1, 2, 3].map(() => receiver.handle(delivery())));
    for (const answer of answers) assert.deepEqual(parsed(answer), [503, { error: 'store_unavailable' }]);
    assert.equal(made.calls, 1);
    assert.equal(log.lines.length, 1, log.lines.join('\n'));
    assert.match(log.lines[0], /^error cryptopay-verify\/receiver: store_unavailable \(answered 503, the service retries; the next delivery tries again\): could not create the receiver \(Error: connect ECONNREFUSED for postgres:\/\/\*\*\*@db\.internal\/shop\)$/);
    assert.ok(!log.lines[0].includes('hunter2'));

    failure = null;
    assert.deepEqual(parsed(await receiver.handle(delivery())), [200, { received: true, decision: 'apply' }]);
    assert.equal(made.calls, 2);
  });

  test('while it cannot be had: a GET is 405 without an attempt; a flood of POSTs says five lines a minute, not one each', async () => {
    const made = creator(() => new Error('connect ECONNREFUSED (test)'));
    const log = capture();
    const receiver = rx.lazyReceiver(made.create, { log });
    const server = await listen((req, res) => receiver.node(req, res));
    servers.push(server);
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      const answer = await fetch(server.url, { method });
      assert.deepEqual([answer.status, answer.headers.get('allow')], [405, 'POST'], method);
    }
    const fetched = await receiver.fetch(new Request('http://shop.test/webhook', { method: 'PUT', body: '{}' }));
    assert.deepEqual([fetched.status, await fetched.json()], [405, { error: 'method_not_allowed' }]);
    assert.equal(made.calls, 0, 'no attempt for a method the receiver refuses');
    for (let i = 0; i < 12; i += 1) assert.equal((await receiver.handle(delivery())).status, 503);
    assert.equal(made.calls, 12, 'each delivery tries again');
    assert.equal(log.lines.length, 5, log.lines.join('\n'));
    assert.ok(log.lines.every((line) => /store_unavailable .*could not create the receiver/.test(line)));
  });

  test('a store that cannot be reached (ready() rejects, a real PostgreSQL port with nothing behind it): 503, then retried', async () => {
    const log = capture();
    const pool = new pg.Pool({ connectionString: 'postgres://postgres:unused@127.0.0.1:1/postgres', connectionTimeoutMillis: 2_000 });
    let calls = 0;
    const receiver = rx.lazyReceiver(() => {
      calls += 1;
      return rx.createReceiver({ ...rx.receiverOptionsFromEnv(ENV), store: rx.postgresStore(pool), log: false });
    }, { log });
    assert.deepEqual(parsed(await receiver.handle(delivery())), [503, { error: 'store_unavailable' }]);
    assert.match(log.lines[0], /^error cryptopay-verify\/receiver: store_unavailable .*: could not prepare the store \(.*ECONNREFUSED.*\)$/);
    assert.ok(!log.lines[0].includes('unused'), log.lines[0]);
    assert.deepEqual(parsed(await receiver.handle(delivery())), [503, { error: 'store_unavailable' }]);
    assert.equal(calls, 2);
    await pool.end();
  });

  test('ready() creates it, and rejects with what failed (not an answer)', async () => {
    let failure = new Error('no database yet');
    const made = creator(() => failure);
    const receiver = rx.lazyReceiver(made.create, { log: false });
    // What failed, as a copy with what may be a credential masked (a driver's error may hold
    // its database URL): the same message, name and code.
    failure.code = 'ECONNREFUSED';
    await assert.rejects(receiver.ready(), (error) => error instanceof Error && error.message === 'no database yet'
      && error.code === 'ECONNREFUSED' && error.name === 'Error');
    failure = Object.assign(new Error('connect to postgres://app:PWCANARY@db.internal:5432/shop failed'), { code: 'ECONNREFUSED' });
    await assert.rejects(receiver.ready(), (error) => /postgres:\/\/\*\*\*@db\.internal:5432/.test(error.message) && !error.message.includes('PWCANARY'));
    failure = null;
    await receiver.ready();
    const notConfigured = rx.lazyReceiver(() => rx.createReceiver({ ...rx.receiverOptionsFromEnv({}), store: rx.memoryStore() }), { log: false });
    await assert.rejects(notConfigured.ready(), (error) => error instanceof pkg.CryptoPayError && error.code === 'invalid_argument');
  });

  test('fetch(request): a Response with the same answers', async () => {
    let env = {};
    const receiver = rx.lazyReceiver(() => rx.createReceiver({ ...rx.receiverOptionsFromEnv(env), store: rx.memoryStore(), log: false }), { log: false });
    const request = (bytes = body()) => new Request('http://shop.test/webhook', { method: 'POST', body: bytes, headers: signedHeaders(bytes) });
    const refused = await receiver.fetch(request());
    assert.deepEqual([refused.status, await refused.json(), refused.headers.get('cache-control')], [500, { error: 'not_configured' }, 'no-store']);
    env = ENV;
    const accepted = await receiver.fetch(request());
    assert.deepEqual([accepted.status, await accepted.json()], [200, { received: true, decision: 'apply' }]);
  });

  test('node(req, res) behind node:http: the same answers, the connection kept usable', async () => {
    let failure = new Error('not yet');
    const made = creator(() => failure, () => rx.sqliteStore(new Database(join(tempDir(), 'lazy.sqlite'))));
    const receiver = rx.lazyReceiver(made.create, { log: false });
    const server = await listen(receiver.node);
    servers.push(server);
    const send = async (bytes = body()) => {
      const response = await fetch(server.url, { method: 'POST', body: bytes, headers: signedHeaders(bytes) });
      return [response.status, await response.json(), response.headers.get('content-length')];
    };
    assert.deepEqual(await send(), [503, { error: 'store_unavailable' }, '29']);
    failure = null;
    assert.deepEqual((await send()).slice(0, 2), [200, { received: true, decision: 'apply' }]);
  });

  test('wrong arguments: create not a function, an unknown option, a log without error()', () => {
    const refused = (fn) => assert.throws(fn, (error) => error instanceof pkg.CryptoPayError && error.code === 'invalid_argument');
    refused(() => rx.lazyReceiver(rx.createReceiver({ ...rx.receiverOptionsFromEnv(ENV), store: rx.memoryStore() })));
    refused(() => rx.lazyReceiver(() => null, { logger: console }));
    refused(() => rx.lazyReceiver(() => null, { log: { warn() {} } }));
    refused(() => rx.lazyReceiver(() => null, null));
    rx.lazyReceiver(() => null, { log: null });
  });
});
