// Shared by the recipe tests: a copy of a recipe that imports the INSTALLED package, signed
// deliveries, and the cases every recipe must answer the same way.
//
// Each recipe is copied to target/recipes-test/<name>/ with node_modules/cryptopay-verify
// pointing at the package installed in CONSUMER_DIR (default target/consumer, filled by
// `make consumer`); the frameworks resolve from the repository's node_modules above it.
// The copy sits inside the repository on purpose: Next.js (Turbopack) only compiles files
// inside its workspace root, found from the nearest lockfile (the repository's).

import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import http from 'node:http';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort, run, startServer, tail } from '../../../tests/runtimes/lib.mjs';
import { readAnswer } from '../../../tests/lib/answer.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const RECIPES = join(ROOT, 'examples', 'recipes');
export const CONSUMER_DIR = resolve(ROOT, process.env.CONSUMER_DIR ?? join('target', 'consumer'));
export const SCRATCH = join(ROOT, 'target', 'recipes-test');
const INSTALLED = join(CONSUMER_DIR, 'node_modules', 'cryptopay-verify');

if (!existsSync(join(INSTALLED, 'package.json'))) {
  throw new Error(`cryptopay-verify is not installed in ${CONSUMER_DIR}: run make consumer first`);
}

export const SECRET = `whsec_recipe_${randomBytes(12).toString('hex')}`;
export const TS_HEADER = 'X-Webhook-Timestamp';
export const SIG_HEADER = 'X-Webhook-Signature';
/** What a recipe reads from its environment (Next.js, Express, Fastify, Hono). */
export const RECIPE_ENV = {
  CRYPTOPAY_WEBHOOK_SECRET: SECRET,
  TIMESTAMP_HEADER: TS_HEADER,
  SIGNATURE_HEADER: SIG_HEADER,
  MAX_SKEW_SECS: '300',
};

const inside = (parent, child) => {
  const rel = relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

/**
 * A fresh copy of examples/recipes/<name> in target/recipes-test/<as>/<name>, beside a copy of
 * examples/recipes/common (which the recipes import as ../common), both of whose
 * `import 'cryptopay-verify'` resolve to the installed package, in
 * target/recipes-test/<as>/node_modules. Returns the recipe's folder.
 */
export function recipeCopy(name, as = name) {
  const top = join(SCRATCH, as);
  rmSync(top, { recursive: true, force: true });
  for (const folder of [name, 'common']) {
    cpSync(join(RECIPES, folder), join(top, folder), {
      recursive: true,
      filter: (src) => !/[/\\](node_modules|\.next|out|\.wrangler)$/.test(src),
    });
  }
  mkdirSync(join(top, 'node_modules'), { recursive: true });
  const installed = realpathSync(INSTALLED);
  // A link when the installed package is inside the repository (so inside Turbopack's
  // root), else a copy of the installed files.
  if (inside(ROOT, installed)) symlinkSync(installed, join(top, 'node_modules', 'cryptopay-verify'), 'dir');
  else cpSync(installed, join(top, 'node_modules', 'cryptopay-verify'), { recursive: true, dereference: true });
  return join(top, name);
}

/**
 * The packages `text` imports (statically, dynamically, or re-exports) by a bare specifier, as
 * package names (`@scope/name` or `name`); not `node:`, `bun:` or `cloudflare:` built-ins.
 */
export function importedPackages(text) {
  // A dynamic import may carry a bundler's comment before its specifier (webpackIgnore).
  return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*(?:\/\*[^*]*\*\/\s*)?'([^'.][^']*)'/g)]
    .map((match) => match[1])
    .filter((spec) => !/^(node|bun|cloudflare):/.test(spec))
    .map((spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/'));
}

/** The options the recipes' receiver takes, as common/receiver.mjs makes them, with the test's settings. */
export const recipeOptions = (store, log) => ({
  secrets: SECRET, maxSkewSecs: 300, timestampHeader: TS_HEADER, signatureHeader: SIG_HEADER, maxBodyBytes: 1024 * 1024, store, log,
});

/**
 * A receiver as the recipe copy in `dir` makes one, through the package the copy imports (the
 * installed one), recording in the SQLite file `<name>.sqlite` in the copy; its log lines are
 * pushed to `logged`. Resolves { receiver, recipe } (recipe: the copy's app.mjs's exports).
 */
export async function recipeReceiver(dir, name, logged = []) {
  const [recipe, { createReceiver, sqliteStore }] = await Promise.all([
    import(pathToFileURL(join(dir, 'app.mjs')).href),
    import(pathToFileURL(join(dir, '..', 'node_modules', 'cryptopay-verify', 'dist', 'receiver', 'index.mjs')).href),
  ]);
  const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
  const log = { warn: (line) => logged.push(line), error: (line) => logged.push(line) };
  const receiver = createReceiver(recipeOptions(sqliteStore(new Database(join(dir, `${name}.sqlite`))), log));
  return { receiver, recipe };
}

/**
 * Listens with an app whose `listen(port, host, callback)` returns a node:http server (Express,
 * Koa) on a free port of 127.0.0.1. Resolves { url (its /webhook), close() }.
 */
export async function listenLocal(app) {
  const server = await new Promise((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (error) => (error ? reject(error) : resolve(s)));
  });
  return {
    url: `http://127.0.0.1:${server.address().port}/webhook`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Starts `node server.mjs` (or `script`, or with another `runtime`, Bun or Deno, given `args`
 * before the script) of a recipe copy on a free port (PORT=0); resolves once it prints
 * `listening on <url>`. Returns { url, output, stop() }.
 */
export async function startNodeRecipe(dir, { env = {}, timeoutMs = 15_000, script = 'server.mjs', runtime = process.execPath, args = [] } = {}) {
  const server = startServer(runtime, [...args, script], {
    cwd: dir,
    // DATA_DIR as the recipe's default (its ./data, which sqliteStoreRows reads), and no
    // DATABASE_URL, never one inherited from the environment the tests run in.
    env: { ...process.env, ...RECIPE_ENV, PORT: '0', HOST: '127.0.0.1', DATA_DIR: 'data', DATABASE_URL: '', ...env },
  });
  const [, origin] = await waitForOutput(server, /listening on (http:\/\/127\.0\.0\.1:\d+)\/webhook/, { timeoutMs, what: `${dir}/${script}` });
  return { url: `${origin}/webhook`, dir, output: server.output, stop: () => server.stop() };
}

/**
 * Waits until a started server's output (stdout and stderr) matches `pattern`, and returns the
 * match; stops the server and throws with the output's tail when it exits first or `timeoutMs`
 * passes.
 */
export async function waitForOutput(server, pattern, { timeoutMs = 15_000, what = 'the server' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let exited = null;
  server.exited.then((how) => { exited = how; });
  for (;;) {
    const match = pattern.exec(server.output.stdout + server.output.stderr);
    if (match) return match;
    if (exited || Date.now() > deadline) {
      await server.stop();
      throw new Error(`${what} did not start (${exited ? `exited ${JSON.stringify(exited)}` : 'timeout'}):\n` +
        `${tail(server.output.stdout + server.output.stderr, 30)}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const nowSecs = () => Math.floor(Date.now() / 1000);

/**
 * Asserts that a started process's output (stdout and stderr; or what the function `output`
 * returns) shows `pattern`, waiting up to `timeoutMs` for it: a server logs before it answers,
 * but its output pipe may reach the test after the answer's socket does (seen under load).
 */
export async function assertLogged(output, pattern, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  const log = typeof output === 'function' ? output : () => output.stdout + output.stderr;
  while (!pattern.test(log()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  assert.match(log(), pattern);
}

/** HMAC-SHA256 over `timestamp.body`, lowercase hex, with node:crypto (not the package). */
export function sign(secret, timestamp, body) {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.from(`${timestamp}.`, 'utf8'))
    .update(body)
    .digest('hex');
}

/**
 * A payment.updated body as the service might format it: spaced, with a \u escape and a
 * status_version beyond 2^53 given as a JSON number. So JSON.parse + JSON.stringify never
 * gives back the same bytes.
 */
export function eventBody({ eventId, paymentId, statusVersion, eventType = 'payment.updated', status = 'open' }) {
  return Buffer.from(`{
  "schema_version": "1",
  "event_id": "${eventId}",
  "event_type": "${eventType}",
  "occurred_at": "2026-11-22T10:00:00Z",
  "data": { "payment_id": "${paymentId}", "status_version": ${statusVersion}, "status": "${status}", "note": "caf\\u00e9 \u20ac" }
}`, 'utf8');
}

/** POSTs raw bytes with exactly these header names (node:http keeps their case). */
export function post(url, body, headers) {
  return new Promise((resolvePromise, reject) => {
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      // A header given as null is left out (a delivery with no content-type).
      headers: Object.fromEntries(Object.entries({ 'content-type': 'application/json', 'content-length': body.length, ...headers })
        .filter(([, value]) => value !== null)),
      timeout: 30_000,
    }, (res) => readAnswer(res).then(resolvePromise, reject));
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within 30 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** A delivery signed now (or at `timestamp`) with `secret`; the standard header names. */
export function deliver(url, body, { timestamp = nowSecs(), secret = SECRET, signBody = body, headers } = {}) {
  const ts = String(timestamp);
  return post(url, body, headers ?? { [TS_HEADER]: ts, [SIG_HEADER]: sign(secret, ts, signBody) });
}

// The receiver's answers (cryptopay-verify/receiver): the decision once committed.
const ok = (decision) => [200, { received: true, decision }];
const rejected = (code) => [400, { error: code }];

/**
 * The deliveries every recipe answers the same way, in order (they share the receiver's
 * state), as tests of the enclosing describe(). `webhookUrl()` gives the recipe's URL once
 * it has started. `bodyAsText`: the recipe gets the body as text its platform decoded (AWS
 * Lambda behind a front door that does not pass it as base64), so a body whose invalid byte
 * decodes to the signed U+FFFD verifies: the kit's tampered_body then fails on that variant,
 * and on no other. `bodyAsText: 'request.text()'`: decoded as a Fetch Request's text() does
 * (h3 v2), which also drops a leading byte order mark, so a body sent with one prepended
 * verifies too: tampered_body fails on those two variants.
 */
export function deliveryTests(webhookUrl, readStore, { bodyAsText = false, breakStore = null } = {}) {
  const tag = randomBytes(4).toString('hex');
  const payment = `pay_${tag}`;
  const id = (n) => `evt_${tag}_${n}`;
  const base = 2n ** 53n; // versions beyond what a JS number holds exactly
  const v = (n) => String(base + BigInt(n));
  const first = eventBody({ eventId: id(1), paymentId: payment, statusVersion: v(2) });
  const same = async (response, [status, json]) => {
    assert.deepEqual({ status: response.status, json: response.json }, { status, json }, response.text);
  };

  test('a valid delivery is verified and applied (2xx), the answer JSON as its Content-Type says', async () => {
    const url = webhookUrl();
    const response = await deliver(url, first);
    await same(response, ok('apply', id(1)));
    assert.match(response.headers['content-type'] ?? '', /^application\/json\b/, JSON.stringify(response.headers));
  });
  test('a tampered body with the original signature is rejected (400 signature_mismatch)', async () => {
    const url = webhookUrl();
    const tampered = Buffer.from(first.toString('utf8').replace('"status": "open"', '"status": "paid"'));
    assert.notDeepEqual(tampered, first);
    await same(await deliver(url, tampered, { signBody: first }), rejected('signature_mismatch'));
  });
  test('re-serialized JSON with the original signature is rejected (400 signature_mismatch)', async () => {
    const url = webhookUrl();
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(first.toString('utf8'))));
    assert.notDeepEqual(reserialized, first);
    await same(await deliver(url, reserialized, { signBody: first }), rejected('signature_mismatch'));
  });
  test('the same event retried with a new timestamp and signature is a duplicate (2xx)', async () => {
    const url = webhookUrl();
    await same(await deliver(url, first, { timestamp: nowSecs() + 1 }), ok('duplicate', id(1)));
  });
  test('an older status_version (another event) is stale (2xx), not applied', async () => {
    const url = webhookUrl();
    const older = eventBody({ eventId: id(2), paymentId: payment, statusVersion: v(1), status: 'expired' });
    await same(await deliver(url, older), ok('stale', id(2)));
  });
  test('a newer status_version is applied; an equal one afterwards is stale (exact beyond 2^53)', async () => {
    const url = webhookUrl();
    const newer = eventBody({ eventId: id(3), paymentId: payment, statusVersion: v(3), status: 'confirming' });
    await same(await deliver(url, newer), ok('apply', id(3)));
    const equal = eventBody({ eventId: id(4), paymentId: payment, statusVersion: v(3) });
    await same(await deliver(url, equal), ok('stale', id(4)));
  });
  test('header names in another case are read', async () => {
    const url = webhookUrl();
    const body = eventBody({ eventId: id(5), paymentId: `${payment}_b`, statusVersion: 1 });
    const ts = String(nowSecs());
    const response = await post(url, body, {
      [TS_HEADER.toUpperCase()]: ts,
      [SIG_HEADER.toLowerCase()]: sign(SECRET, ts, body),
    });
    await same(response, ok('apply', id(5)));
  });
  test('a delivery signed with another secret is rejected (400 signature_mismatch)', async () => {
    const url = webhookUrl();
    const body = eventBody({ eventId: id(6), paymentId: payment, statusVersion: v(9) });
    await same(await deliver(url, body, { secret: `${SECRET}_other` }), rejected('signature_mismatch'));
  });
  test('an authentic delivery outside the skew is rejected (400 timestamp_too_old)', async () => {
    const url = webhookUrl();
    const body = eventBody({ eventId: id(7), paymentId: payment, statusVersion: v(9) });
    await same(await deliver(url, body, { timestamp: nowSecs() - 3600 }), rejected('timestamp_too_old'));
  });
  test('a delivery without the signature header is rejected (400 signature_missing)', async () => {
    const url = webhookUrl();
    const body = eventBody({ eventId: id(8), paymentId: payment, statusVersion: v(9) });
    await same(await post(url, body, { [TS_HEADER]: String(nowSecs()) }), rejected('signature_missing'));
  });
  test('an authentic event of an unknown type is quarantined and acknowledged (2xx), never applied', async () => {
    const url = webhookUrl();
    const body = eventBody({ eventId: id(9), paymentId: payment, statusVersion: v(9), eventType: 'payment.refunded' });
    await same(await deliver(url, body), [200, { received: true, quarantined: 'event_type_unknown' }]);
  });
  test('after all that, the stored version is still the newest: an older one is stale', async () => {
    const url = webhookUrl();
    const body = eventBody({ eventId: id(10), paymentId: payment, statusVersion: v(2) });
    await same(await deliver(url, body), ok('stale', id(10)));
  });
  // The bytes, whatever the Content-Type says: a framework parser that runs for some types
  // (and leaves no raw body, or answers 415) loses those deliveries.
  const TYPES = ['application/octet-stream', 'text/plain', 'application/vnd.payments+json', null];
  test(`a delivery of any content type, or none, reaches the receiver as its bytes (2xx, applied): ${TYPES.join(', ')}`, async () => {
    const url = webhookUrl();
    for (const [i, type] of TYPES.entries()) {
      const n = 11 + i;
      const body = eventBody({ eventId: id(n), paymentId: `${payment}_t${n}`, statusVersion: 1 });
      const ts = String(nowSecs());
      const response = await post(url, body, { [TS_HEADER]: ts, [SIG_HEADER]: sign(SECRET, ts, body), 'content-type': type });
      await same(response, ok('apply', id(n)));
    }
  });
  test('a signed body over the recipes\' maxBodyBytes (1 MiB) is refused (413) and not recorded', async () => {
    const url = webhookUrl();
    const event = eventBody({ eventId: id(20), paymentId: `${payment}_large`, statusVersion: 1 });
    // The event, then white space up to one byte over the limit: valid JSON, signed.
    const body = Buffer.concat([event, Buffer.alloc(1024 * 1024 + 1 - event.length, 0x20)]);
    const response = await deliver(url, body);
    assert.equal(response.status, 413, response.text);
  });
  test('an empty POST (no body, no Content-Type; a scanner, a health check) is a final 400, never a 500 the log calls a misconfiguration', async () => {
    const url = webhookUrl();
    for (const length of [null, 0]) {
      const response = await post(url, Buffer.alloc(0), { 'content-type': null, 'content-length': length });
      assert.equal(response.status, 400, `Content-Length ${length}: ${response.text}`);
      assert.notEqual(response.json?.error, 'body_not_raw');
    }
  });
  test('the timestamp header sent twice is a final 400, not recorded (header_duplicated where both reach the receiver, timestamp_malformed where Fetch joins them)', async () => {
    const url = webhookUrl();
    const body = eventBody({ eventId: id(31), paymentId: `${payment}_twice`, statusVersion: '1' });
    const ts = String(nowSecs());
    const answer = await post(url, body, { [TS_HEADER]: [ts, ts], [SIG_HEADER]: sign(SECRET, ts, body) });
    assert.equal(answer.status, 400, answer.text);
    assert.ok(['header_duplicated', 'timestamp_malformed'].includes(answer.json?.error), answer.text);
  });
  if (breakStore) {
    test('a delivery while the store fails is answered 503 (retried by the service), not recorded; the retry once it is back is applied', async () => {
      const url = webhookUrl();
      const body = eventBody({ eventId: id(30), paymentId: `${payment}_down`, statusVersion: '1' });
      const restore = await breakStore();
      let down;
      try {
        down = await deliver(url, body);
      } finally {
        await restore();
      }
      await same(down, [503, { error: 'store_unavailable' }]);
      await same(await deliver(url, body), ok('apply'));
    });
  }
  test('the package\'s conformance kit finds every receiver rule kept', async () => {
    const cli = join(CONSUMER_DIR, 'node_modules', '.bin', 'cryptopay-verify');
    const result = await run(cli, ['conformance', '--url', webhookUrl(), '--secret-env', 'CPV_RECIPE_SECRET',
      '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER, '--json'], {
      env: { ...process.env, CPV_RECIPE_SECRET: SECRET },
      timeoutMs: 60_000,
    });
    let rules;
    try {
      rules = JSON.parse(result.stdout);
    } catch {
      assert.fail(`conformance printed no JSON (exit ${result.code}):\n${result.stdout}${result.stderr}`);
    }
    const failed = rules.filter((r) => r.verdict !== 'pass');
    if (bodyAsText) {
      // Every variant refused but those a text decoding turns back into the signed bytes.
      assert.deepEqual(failed.map((r) => r.rule), ['tampered_body'], 'rules that did not pass');
      const acknowledged = failed[0].got.split('; ').filter((variant) => /: 2\d\d /.test(variant));
      assert.deepEqual(acknowledged, [
        ...(bodyAsText === 'request.text()' ? ['a byte order mark prepended: 200 acknowledged'] : []),
        'U+FFFD sent as the invalid byte 0xFF: 200 acknowledged',
      ], failed[0].got);
      assert.equal(result.code, 1, result.stderr);
    } else {
      assert.deepEqual(failed, [], 'rules that did not pass');
      assert.equal(result.code, 0, result.stderr);
    }
    assert.equal(rules.length, 18); // every rule but the two of a rotation
  });
  if (readStore) {
    test('its store holds each accepted event once, with its decision; the payment at its highest version', async () => {
      const { events, payments, quarantine } = await readStore();
      const ids = events.map((e) => e.event_id);
      assert.equal(new Set(ids).size, ids.length, 'an event_id recorded twice');
      // The shared cases record these events (the kit adds its own).
      const ours = events.filter((e) => e.event_id.startsWith(`evt_${tag}_`))
        .map((e) => [Number(e.event_id.slice(`evt_${tag}_`.length)), e.decision, String(e.status_version)])
        .sort((a, b) => a[0] - b[0]);
      assert.deepEqual(ours, [[1, 'apply', v(2)], [2, 'stale', v(1)], [3, 'apply', v(3)], [4, 'stale', v(3)],
        [5, 'apply', '1'], [10, 'stale', v(2)], ...TYPES.map((_, i) => [11 + i, 'apply', '1']), ...(breakStore ? [[30, 'apply', '1']] : [])]);
      const row = payments.find((p) => p.payment_id === payment);
      assert.deepEqual([String(row.status_version), row.event_id], [v(3), id(3)]); // exact: 2^53 + 3
      assert.ok(quarantine.some((q) => q.code === 'event_type_unknown'));
    });
  }
}

/**
 * A Worker recipe copy (`dir`, with its wrangler config) bundled by `wrangler deploy --dry-run`
 * as for a deployment and served by Miniflare (wrangler's local runtime: workerd, with D1 on a
 * SQLite file) on 127.0.0.1, the recipe's settings as text bindings. Port 0: workerd binds a
 * free port itself (one found free beforehand could be taken before it binds). Resolves
 * serveWithD1's { url, db, dispose() }.
 */
export async function startWorkerRecipe(dir) {
  // Loaded here, not at the top: only the Worker tests need Miniflare and the receiver's helpers.
  const { bundleWorker, serveWithD1 } = await import('../../../tests/receiver/lib/d1.mjs');
  const out = await bundleWorker(dir);
  return serveWithD1(out, { persistDir: join(dir, '.wrangler-state'), bindings: RECIPE_ENV, port: 0 });
}

/**
 * Miniflare's `handleRuntimeStdio` keeping what a Worker printed (workerd's stdout and stderr)
 * as `lines`, for the traps' log checks.
 */
export function keptStdio() {
  const lines = [];
  const keep = (stream) => stream.on('data', (chunk) => lines.push(...String(chunk).split('\n').filter((line) => line !== '')));
  return { lines, handleRuntimeStdio: (stdout, stderr) => { keep(stdout); keep(stderr); } };
}

/**
 * deliveryTests' `breakStore` for a recipe's store, reached by `exec(sql)`: the events table
 * renamed away (every delivery's record then fails, as with a database gone), resolving the
 * undo. The receiver has made its tables ready already, and does not again after a failure.
 */
const renamingEvents = (exec) => async () => {
  await exec('ALTER TABLE cryptopay_events RENAME TO cryptopay_events_away');
  return () => exec('ALTER TABLE cryptopay_events_away RENAME TO cryptopay_events');
};
/**
 * `breakStore` for a recipe's SQLite file (DATA_DIR/receiver.sqlite in the folder `dirOf()`
 * names once the suite has started), as a separate connection.
 */
export const breakSqlite = (dirOf) => renamingEvents((sql) => {
  const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
  const db = new Database(join(dirOf(), 'data', 'receiver.sqlite'));
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
});
/** `breakStore` for a recipe's PostgreSQL database, through the test's own pool (`poolOf()`). */
export const breakPostgres = (poolOf) => renamingEvents((sql) => poolOf().query(sql));
/** `breakStore` for a Worker recipe's D1 database (`dbOf()`). */
export const breakD1 = (dbOf) => renamingEvents((sql) => dbOf().prepare(sql).run());

/** What a Worker recipe's D1 database holds, as sqliteStoreRows reads a SQLite file. */
export async function d1StoreRows(db) {
  const all = async (sql) => (await db.prepare(sql).all()).results;
  return {
    events: await all('SELECT event_id, decision, status_version FROM cryptopay_events'),
    payments: await all('SELECT payment_id, status_version, event_id FROM cryptopay_payments'),
    quarantine: await all('SELECT code FROM cryptopay_quarantine'),
  };
}

/** What a recipe's PostgreSQL database holds, read through the test's own `pool`. */
export async function postgresStoreRows(pool) {
  const rows = async (sql) => (await pool.query(sql)).rows;
  return {
    events: await rows('SELECT event_id, decision, status_version::text AS status_version FROM cryptopay_events'),
    payments: await rows('SELECT payment_id, status_version::text AS status_version, event_id FROM cryptopay_payments'),
    quarantine: await rows('SELECT code FROM cryptopay_quarantine'),
  };
}

/** How many events by `eventId` a recipe's PostgreSQL database holds, read through the test's `pool`. */
export const recordedEvents = async (pool, eventId) =>
  (await pool.query('SELECT count(*)::int AS n FROM cryptopay_events WHERE event_id = $1', [eventId])).rows[0].n;

/** The rows of a recipe's SQLite file (DATA_DIR/receiver.sqlite), read as a separate connection. */
export function sqliteStoreRows(dir) {
  const require = createRequire(join(ROOT, 'package.json'));
  const Database = require('better-sqlite3');
  const db = new Database(join(dir, 'data', 'receiver.sqlite'), { readonly: true });
  try {
    return {
      events: db.prepare('SELECT event_id, decision, status_version FROM cryptopay_events').all(),
      payments: db.prepare('SELECT payment_id, status_version, event_id FROM cryptopay_payments').all(),
      quarantine: db.prepare('SELECT code FROM cryptopay_quarantine').all(),
    };
  } finally {
    db.close();
  }
}

/**
 * After the deliveries: the recipe restarted on the same data answers the first event again
 * as a duplicate (the state is in the store, not in the process).
 */
export function restartTest(start, getServer, setServer) {
  test('restarted on the same store, a retry of the first event is a duplicate', async () => {
    await getServer().stop();
    const server = await start();
    setServer(server);
    const events = sqliteStoreRows(server.dir).events;
    const first = events.find((e) => /^evt_[0-9a-f]{8}_1$/.test(e.event_id));
    const [, tag] = /^evt_([0-9a-f]{8})_1$/.exec(first.event_id);
    const body = eventBody({ eventId: first.event_id, paymentId: `pay_${tag}`, statusVersion: String(2n ** 53n + 2n) });
    const response = await deliver(server.url, body);
    assert.deepEqual([response.status, response.json], [200, { received: true, decision: 'duplicate' }]);
  });
}

/**
 * The suite of a server recipe on its SQLite file, named `title`: a fresh copy of
 * examples/recipes/<name> (in target/recipes-test/<as>), `build(dir)` run on it when given, then `start(dir)` (by default
 * `node server.mjs` in the copy); the shared deliveries, and a restart on the same file.
 */
export function sqliteRecipeSuite(title, name, { build, start = (dir) => startNodeRecipe(dir), as = name } = {}) {
  describe(title, () => {
    let server;
    let dir;
    before(async () => {
      dir = recipeCopy(name, as);
      await build?.(dir);
      server = await start(dir);
    });
    after(() => server?.stop());
    deliveryTests(() => server.url, () => sqliteStoreRows(dir), { breakStore: breakSqlite(() => dir) });
    restartTest(() => start(dir), () => server, (next) => { server = next; });
  });
}

/**
 * Starts a recipe copy's `script` with a DATABASE_URL whose PostgreSQL nothing serves (its
 * password `password`) and waits for it to end (30 s at most). Resolves { exited ({ code,
 * signal } or 'timeout'), said (its stdout and stderr) }.
 */
export async function startWithoutDatabase(dir, script, password) {
  const port = await freePort(); // nothing listens there
  const server = startServer(process.execPath, [script], {
    cwd: dir,
    env: { ...process.env, ...RECIPE_ENV, PORT: '0', DATABASE_URL: `postgresql://shop:${password}@127.0.0.1:${port}/shop` },
  });
  const exited = await Promise.race([server.exited, new Promise((r) => setTimeout(() => r('timeout'), 30_000))]);
  await server.stop();
  return { exited, said: server.output.stdout + server.output.stderr };
}
