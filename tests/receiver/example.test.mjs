// The example receiver (examples/node-receiver) as a user runs it: a SQLite file in DATA_DIR
// by default, PostgreSQL with DATABASE_URL. It verifies first, records, de-duplicates and
// orders in one transaction, survives a restart, keeps its configuration names, and never
// prints a secret or DATABASE_URL's password. Its views (GET /events, /payments, /payments/:id)
// answer only the bearer of ADMIN_TOKEN, and are off without it. (Moved here from
// tests/cli/receiver.test.mjs.)

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  Database, ROOT, SECRET, SIG_HEADER, TS_HEADER, eventBody, nowSecs, signedHeaders, sqliteRows, tempDir,
} from './lib/helpers.mjs';
import { closeAgents, copyExample, send, startExample } from './lib/example.mjs';
import { startPostgres } from './lib/postgres.mjs';
import { installUnbuiltBetterSqlite } from '../lib/unbuilt-sqlite.mjs';

after(closeAgents);

const post = (url, body, headers) => send(url, body, { headers });

// The shop's routes' token, given to every example started here (ADMIN_TOKEN).
const ADMIN_TOKEN = `admin_${randomBytes(16).toString('hex')}`;
/** GET a view of the example, as the shop: with `Authorization: Bearer <token>` (none: null). Resolves { status, headers, json }. */
const getJson = (url, token = ADMIN_TOKEN) => send(url, undefined, {
  method: 'GET', headers: token === null ? {} : { authorization: `Bearer ${token}` }, agent: false,
});

// The same checks on either store.
function receiverRules(start) {
  test('records, de-duplicates and orders events; rejects what does not verify', async () => {
    const rx = await start();
    try {
      const v2 = eventBody({ eventId: 'evt_a', paymentId: 'pay_1', statusVersion: 2, status: 'confirming' });
      const first = await send(rx.webhookUrl, v2);
      assert.deepEqual([first.status, first.json], [200, { received: true, decision: 'apply' }]);
      // The service's retry: same bytes, new timestamp and signature.
      const retry = await send(rx.webhookUrl, v2, { headers: signedHeaders(v2, { timestamp: nowSecs() + 1 }) });
      assert.deepEqual(retry.json, { received: true, decision: 'duplicate' });
      // An older status_version arriving late is recorded, acknowledged, not applied.
      const stale = await send(rx.webhookUrl, eventBody({ eventId: 'evt_b', paymentId: 'pay_1', statusVersion: 1, status: 'open' }));
      assert.deepEqual(stale.json, { received: true, decision: 'stale' });
      // Versions compare exactly, beyond 2^53.
      assert.equal((await send(rx.webhookUrl, eventBody({ eventId: 'evt_c', paymentId: 'pay_2', statusVersion: '9007199254740993' }))).json.decision, 'apply');
      assert.equal((await send(rx.webhookUrl, eventBody({ eventId: 'evt_d', paymentId: 'pay_2', statusVersion: '9007199254740992' }))).json.decision, 'stale');

      const payment = await getJson(`${rx.url}/payments/pay_1`);
      assert.deepEqual([payment.status, payment.json.status_version, payment.json.event_id, payment.json.data.status], [200, '2', 'evt_a', 'confirming']);
      assert.equal((await getJson(`${rx.url}/payments/pay_2`)).json.status_version, '9007199254740993');
      assert.equal((await getJson(`${rx.url}/payments/pay_unknown`)).status, 404);
      const events = await getJson(`${rx.url}/events`);
      assert.equal(events.json.count, 4);
      assert.deepEqual(events.json.events.map((e) => [e.event_id, e.decision]).sort(),
        [['evt_a', 'apply'], ['evt_b', 'stale'], ['evt_c', 'apply'], ['evt_d', 'stale']]);
      assert.equal(events.json.events.find((e) => e.event_id === 'evt_a').body, v2.toString('utf8'));

      // Rejected: 400 with the code only, nothing recorded.
      const body = eventBody({ eventId: 'evt_x', paymentId: 'pay_x', statusVersion: 1 });
      assert.deepEqual((await send(rx.webhookUrl, body, { headers: signedHeaders(body, { secret: 'whsec_not_ours' }) })).json, { error: 'signature_mismatch' });
      assert.deepEqual((await send(rx.webhookUrl, body, { headers: signedHeaders(body, { timestamp: nowSecs() - 1000 }) })).json, { error: 'timestamp_too_old' });
      assert.deepEqual((await post(rx.webhookUrl, body, {})).json, { error: 'timestamp_missing' });
      const { [TS_HEADER]: ts, [SIG_HEADER]: signature } = signedHeaders(body);
      const twice = await post(rx.webhookUrl, body, { [TS_HEADER]: ts, [SIG_HEADER]: [signature, signature] });
      assert.deepEqual([twice.status, twice.json], [400, { error: 'header_duplicated' }]);
      const huge = Buffer.alloc(2 * 1024 * 1024, 0x20);
      assert.equal((await post(rx.webhookUrl, huge, signedHeaders(huge))).status, 413);
      assert.equal((await getJson(rx.webhookUrl)).status, 405);

      // Authentic but of an unknown type: quarantined, acknowledged, never applied.
      const unknown = await send(rx.webhookUrl, eventBody({ eventId: 'evt_u', paymentId: 'pay_u', statusVersion: 1, eventType: 'payment.created' }));
      assert.deepEqual([unknown.status, unknown.json], [200, { received: true, quarantined: 'event_type_unknown' }]);
      assert.equal((await getJson(`${rx.url}/events`)).json.count, 4);
      assert.equal((await getJson(`${rx.url}/payments/pay_u`)).status, 404);
    } finally {
      await rx.stop();
    }
  });

  test('the same new event delivered concurrently is recorded and applied once', async () => {
    const rx = await start();
    try {
      const body = eventBody({ eventId: 'evt_burst', paymentId: 'pay_burst', statusVersion: 7 });
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => send(rx.webhookUrl, body, { headers: signedHeaders(body, { timestamp: nowSecs() - i }) })));
      assert.ok(answers.every((a) => a.status === 200));
      assert.deepEqual(answers.map((a) => a.json.decision).sort(), ['apply', ...Array(7).fill('duplicate')]);
      assert.equal((await getJson(`${rx.url}/events`)).json.events.filter((e) => e.event_id === 'evt_burst').length, 1);
    } finally {
      await rx.stop();
    }
  });

  test('a restart keeps every recorded event and re-applies none', async () => {
    const e1 = eventBody({ eventId: 'evt_r1', paymentId: 'pay_r', statusVersion: 5, status: 'confirming' });
    const e2 = eventBody({ eventId: 'evt_r2', paymentId: 'pay_r', statusVersion: 3, status: 'open' });
    let rx = await start();
    try {
      assert.equal((await send(rx.webhookUrl, e1)).json.decision, 'apply');
      assert.equal((await send(rx.webhookUrl, e2)).json.decision, 'stale');
    } finally {
      assert.equal(await rx.stop(), 0);
    }
    rx = await start();
    try {
      assert.match(rx.output, /node-receiver: recording to (SQLite file|PostgreSQL) .* \(\d+ events, \d+ payments\)/);
      assert.equal((await getJson(`${rx.url}/payments/pay_r`)).json.status_version, '5');
      // Retries after the restart are duplicates: nothing new is written or applied.
      const before = (await getJson(`${rx.url}/events`)).json.count;
      assert.equal((await send(rx.webhookUrl, e1)).json.decision, 'duplicate');
      assert.equal((await send(rx.webhookUrl, e2)).json.decision, 'duplicate');
      assert.equal((await getJson(`${rx.url}/events`)).json.count, before);
      assert.equal((await getJson(`${rx.url}/payments/pay_r`)).json.data.status, 'confirming');
      const e3 = eventBody({ eventId: 'evt_r3', paymentId: 'pay_r', statusVersion: 6, status: 'expired' });
      assert.equal((await send(rx.webhookUrl, e3)).json.decision, 'apply');
      assert.equal((await getJson(`${rx.url}/payments/pay_r`)).json.status_version, '6');
    } finally {
      await rx.stop();
    }
  });

  test('during a rotation it accepts the pending secret; a retired one is refused after its bound', async () => {
    const rx = await start({
      CRYPTOPAY_WEBHOOK_SECRET_PENDING: 'whsec_rotated_in',
      CRYPTOPAY_WEBHOOK_SECRET_RETIRING: 'whsec_rotated_out',
      CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL: String(nowSecs() - 10),
    });
    try {
      const body = eventBody({ eventId: 'evt_rot', paymentId: 'pay_rot', statusVersion: 1 });
      assert.equal((await send(rx.webhookUrl, body, { headers: signedHeaders(body, { secret: 'whsec_rotated_in' }) })).json.decision, 'apply');
      assert.equal((await send(rx.webhookUrl, body, { headers: signedHeaders(body, { secret: 'whsec_rotated_out' }) })).status, 400);
      assert.equal((await send(rx.webhookUrl, body, { headers: signedHeaders(body, { secret: 'whsec_neither' }) })).status, 400);
    } finally {
      await rx.stop();
    }
  });
}

describe('the example receiver on its default SQLite file', () => {
  const dataDir = tempDir();
  receiverRules((env = {}) => startExample({ env: { DATA_DIR: dataDir, ADMIN_TOKEN, ...env } }));

  test('the file is in DATA_DIR, in WAL mode, and holds the tables', () => {
    const file = join(dataDir, 'receiver.sqlite');
    assert.ok(existsSync(file));
    const db = new Database(file, { readonly: true });
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.ok(sqliteRows(db).events.length >= 8);
    assert.ok(sqliteRows(db).quarantine.some((q) => q.code === 'event_type_unknown'));
    db.close();
  });

  test('the views answer only the bearer of ADMIN_TOKEN: 401 without it or with another, never echoed', async () => {
    const rx = await startExample({ env: { DATA_DIR: tempDir(), ADMIN_TOKEN } });
    try {
      assert.match(rx.output, /the shop's routes \(GET \/events, GET \/payments, GET \/payments\/:id\) answer Authorization: Bearer with ADMIN_TOKEN only/);
      const body = eventBody({ eventId: 'evt_admin', paymentId: 'pay_admin', statusVersion: 1 });
      assert.equal((await send(rx.webhookUrl, body)).json.decision, 'apply', 'the webhook needs no token: its signature authenticates it');
      const wrong = `admin_${randomBytes(16).toString('hex')}`;
      for (const path of ['/events', '/payments', '/payments/pay_admin', '/elsewhere']) {
        for (const headers of [{}, { authorization: `Bearer ${wrong}` }, { authorization: `Bearer ${ADMIN_TOKEN}x` }, { authorization: `Basic ${ADMIN_TOKEN}` },
          { authorization: ADMIN_TOKEN }, { authorization: 'Bearer ' }]) {
          const refused = await send(`${rx.url}${path}`, undefined, { method: 'GET', headers, agent: false });
          assert.deepEqual([refused.status, refused.headers['www-authenticate'], refused.json], [401, 'Bearer', { error: 'unauthorized' }], `${path} ${JSON.stringify(headers)}`);
          assert.ok(!refused.text.includes(wrong) && !refused.text.includes(ADMIN_TOKEN));
        }
      }
      const refusedPost = await send(`${rx.url}/payments`, Buffer.from('{"order_ref":"x","amount":"1.00"}'), { headers: {}, agent: false });
      assert.equal(refusedPost.status, 401);
      // The scheme is case-insensitive, as HTTP says.
      assert.equal((await getJson(`${rx.url}/payments/pay_admin`)).json.status_version, '1');
      assert.equal((await send(`${rx.url}/events`, undefined, { method: 'GET', headers: { authorization: `bearer ${ADMIN_TOKEN}` }, agent: false })).status, 200);
      assert.ok(!rx.output.includes(ADMIN_TOKEN) && !rx.output.includes(wrong), 'no token is printed');
    } finally {
      await rx.stop();
    }
  });

  test('without ADMIN_TOKEN the views are off (404), the webhook is not, and the start says how to turn them on', async () => {
    const rx = await startExample({ env: { DATA_DIR: tempDir() } });
    try {
      assert.equal(rx.output.match(/the shop's routes .* are off: set ADMIN_TOKEN/g)?.length, 1, rx.output);
      const body = eventBody({ eventId: 'evt_off', paymentId: 'pay_off', statusVersion: 1 });
      assert.equal((await send(rx.webhookUrl, body)).json.decision, 'apply');
      for (const path of ['/events', '/payments', '/payments/pay_off']) {
        for (const token of [null, ADMIN_TOKEN]) {
          const off = await getJson(`${rx.url}${path}`, token);
          assert.deepEqual([off.status, off.json], [404, { error: 'not_found' }], path);
        }
      }
    } finally {
      await rx.stop();
    }
    // A token too short to be a secret, or one a header cannot carry: exit 2, naming the variable only.
    for (const token of ['short_admin', `admin token ${randomBytes(8).toString('hex')}`]) {
      const error = await startExample({ env: { DATA_DIR: tempDir(), ADMIN_TOKEN: token } }).catch((e) => e);
      assert.equal(error.exitCode, 2);
      assert.match(error.message, /ADMIN_TOKEN must be at least 16 visible ASCII characters/);
      assert.ok(!error.message.includes(token));
    }
  });

  test('copied where no node_modules holds its packages: exit 2, saying how to install each', () => {
    // A folder of its own outside the repository (nothing up the tree to import from).
    const alone = mkdtempSync(join(tmpdir(), 'cpv-node-receiver-'));
    try {
      for (const file of ['server.mjs', 'receiver.mjs', 'store.mjs', 'package.json']) copyFileSync(join(ROOT, 'examples', 'node-receiver', file), join(alone, file));
      const run = spawnSync(process.execPath, ['server.mjs'], { cwd: alone, encoding: 'utf8', env: { PATH: process.env.PATH } });
      assert.equal(run.status, 2, run.stderr);
      assert.match(run.stderr, /the package cryptopay-verify is not installed where this folder can import it:\n {2}install it from the package built in a clone of its repository: npm install <clone>\/pkg/);
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  });

  test('refuses to start without the header names (exit 2)', async () => {
    await assert.rejects(startExample({ env: { DATA_DIR: tempDir(), SIGNATURE_HEADER: '' } }), (error) => error.exitCode === 2
      && /set SIGNATURE_HEADER in the environment/.test(error.message));
    // A flag stands for the variable.
    const flagged = await startExample({ env: { DATA_DIR: tempDir(), SIGNATURE_HEADER: '' }, args: ['--signature-header', 'X-Webhook-Signature'] });
    await flagged.stop();
  });

  test('an empty variable is unset; a path, port or argument that cannot work: exit 2, never the value', async () => {
    // Empty: the defaults (the webhook at /webhook, on 127.0.0.1), as receiverOptionsFromEnv reads them.
    const rx = await startExample({ env: { DATA_DIR: tempDir(), WEBHOOK_PATH: '', HOST: '' } });
    try {
      assert.match(rx.output, /listening on http:\/\/127\.0\.0\.1:\d+\/webhook\n/);
    } finally {
      await rx.stop();
    }
    for (const [env, args, says] of [
      [{ WEBHOOK_PATH: 'webhook' }, [], /the webhook path \(--path or WEBHOOK_PATH\) starts with \//],
      [{ PORT: '0x50' }, [], /the port \(--port or PORT\) is a whole number from 0 to 65535/],
      [{}, [SECRET], /this command takes options only \(an argument without -- is not shown\)/],
      [{}, [`--${SECRET}`], /an option this command does not take \(not shown\)/],
      [{ SIGNATURE_HEADER: TS_HEADER.toLowerCase() }, [], /timestampHeader and signatureHeader name the same header/],
    ]) {
      const error = await startExample({ env: { DATA_DIR: tempDir(), ...env }, args }).catch((e) => e);
      assert.equal(error.exitCode, 2, error.message);
      assert.match(error.message, says);
      assert.ok(!error.message.includes(SECRET) && !error.message.includes('0x50'));
    }
  });

  test('a retiring secret without its bound, a skew that is no number: exit 2 naming each variable, never a value', async () => {
    const error = await startExample({
      env: { DATA_DIR: tempDir(), CRYPTOPAY_WEBHOOK_SECRET_RETIRING: 'whsec_retiring_canary', MAX_SKEW_SECS: 'five' },
    }).catch((e) => e);
    assert.equal(error.exitCode, 2);
    assert.match(error.message, /set CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL in the environment .*MAX_SKEW_SECS is whole seconds/);
    assert.ok(!error.message.includes('whsec_retiring_canary') && !error.message.includes('five'));
  });

  // npm 12 and later skip better-sqlite3's install script (which builds its native addon) unless
  // package.json's allowScripts approves it: a copy of the package without its build, beside the
  // example, where it resolves it first.
  test('a better-sqlite3 installed without its build: exit 1, saying what to run, not the paths tried', async () => {
    const dir = copyExample();
    installUnbuiltBetterSqlite(join(dir, 'node_modules'));
    const error = await startExample({ dir, env: { DATA_DIR: tempDir() } }).catch((e) => e);
    assert.equal(error.exitCode, 1, error.message);
    assert.match(error.message, /could not open the store: better-sqlite3's native addon is not built \(.*allowScripts.*\): run npm install-scripts approve better-sqlite3, then npm rebuild better-sqlite3; or set DATABASE_URL for PostgreSQL/);
    assert.doesNotMatch(error.message, /Tried:/);
  });
});

describe('the example receiver on PostgreSQL (DATABASE_URL)', () => {
  let server;
  before(() => { server = startPostgres(); });
  after(() => server?.destroy());
  receiverRules((env = {}) => startExample({ env: { DATABASE_URL: server.url, DATA_DIR: undefined, ADMIN_TOKEN, ...env } }));

  test('a DATABASE_URL with a password is never printed, even when the server cannot be reached', async () => {
    const secretPassword = 'pw-that-must-not-leak-0451';
    const url = `postgresql://merchant:${secretPassword}@127.0.0.1:9/shop`;
    const failed = await startExample({ env: { DATABASE_URL: url } }).catch((error) => error);
    assert.equal(failed.exitCode, 1);
    assert.match(failed.message, /could not open the store: ECONNREFUSED/);
    assert.ok(!failed.message.includes(secretPassword));
    assert.ok(!failed.message.includes(SECRET));
  });

  test('what it prints when it starts names the database, never the URL\'s credentials', async () => {
    const rx = await startExample({ env: { DATABASE_URL: server.url } });
    try {
      // The socket folder is in os.tmpdir() (TMPDIR), not always /tmp.
      assert.ok(rx.output.includes(`node-receiver: recording to PostgreSQL ${server.socketDir}/postgres (`), rx.output);
      assert.match(rx.output, /node-receiver: recording to PostgreSQL \S*\/cpv-pg-[^/]+\/sock\/postgres \(\d+ events, \d+ payments\)/);
      assert.ok(!rx.output.includes(SECRET));
    } finally {
      await rx.stop();
    }
  });
});
