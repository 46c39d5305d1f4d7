// The Nitro 3 recipe (examples/recipes/nitro3, h3 v2): `nitro build` (node-server, Nitro's
// default preset) with neither the secret nor a database, then the built server
// (`node .output/server/index.mjs`) run from a copy of .output alone, outside the repository,
// recording in PostgreSQL (DATABASE_URL, a throwaway server) and, without it, in a SQLite file;
// and the same files built with the bun preset, run on Bun. Beside the recipe's route, the test
// writes routes that read the body other ways, on h3 v2 as Nitro 3 ships it (nitro/h3): three
// that break (readRawBody's default utf8 and event.req.text(): text, decoded as a Fetch Request
// does, which also drops a leading byte order mark; readBody: parsed JSON), two that break where
// h3 v1 did not (a readBody before receiver.fetch(event.req); the Nitro 2 recipe's toWebRequest),
// and three that work (readRawBody(event, false), event.req.arrayBuffer(), a clone read before
// receiver.fetch(event.req)).

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { startServer } from '../../../tests/runtimes/lib.mjs';
import { postgresForSuite } from '../../../tests/receiver/lib/postgres.mjs';
import {
  RECIPE_ENV, ROOT, assertLogged, deliver, deliveryTests, eventBody, postgresStoreRows, recipeCopy,
} from './helpers.mjs';
import { buildNitro, bunWithoutDatabaseTest, nitroEnv, sqliteTests, startNitro, verifiesAfterTest } from './nitro-lib.mjs';

// Nitro 3's CLI by its path: nitropack (Nitro 2) and nitro both install a bin named nitro.
const NITRO = join(ROOT, 'node_modules', 'nitro', 'dist', 'cli', 'index.mjs');
const NITRO_PACKAGE = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'nitro', 'package.json'), 'utf8'));
const BUN = join(ROOT, 'node_modules', '.bin', 'bun');

// Routes for the test only (the recipe stays as users copy it), each on the recipe's receiver,
// with h3 from nitro/h3 as the recipe's: what runs is Nitro's own h3 v2.
const HANDLE = {
  // readRawBody is kept in h3 v2 (deprecated); its encoding still defaults to 'utf8': text, now
  // event.req.text()'s, which drops a leading byte order mark too (h3 v1's kept it).
  'text-webhook.post.js': 'await readRawBody(event)',
  // What h3 v2's deprecation note for readRawBody offers first: text too.
  'req-text-webhook.post.js': 'await event.req.text()',
  // readBody parses the JSON: an object, which can never verify.
  'parsed-webhook.post.js': 'await readBody(event)',
  // The bytes: a Uint8Array in h3 v2 (a Buffer in h3 v1).
  'bytes-webhook.post.js': 'await readRawBody(event, false)',
  'arraybuffer-webhook.post.js': 'await event.req.arrayBuffer()',
};
const handleRoute = (read) => [
  "import { defineHandler, readBody, readRawBody } from 'nitro/h3';",
  "import { webhookReceiver } from '../utils/receiver.js';",
  'export default defineHandler(async (event) => {',
  '  const { receiver } = await webhookReceiver();',
  `  const { status, headers, body } = await receiver.handle({ body: ${read}, headers: event.req.headers });`,
  '  return new Response(body, { status, headers });',
  '});',
  '',
].join('\n');
// The recipe's way after something read the body first (a middleware, a log line).
const fetchAfter = (first) => [
  "import { defineHandler, readBody } from 'nitro/h3';",
  "import { webhookReceiver } from '../utils/receiver.js';",
  'export default defineHandler(async (event) => {',
  `  ${first};`,
  '  const { receiver } = await webhookReceiver();',
  '  return receiver.fetch(event.req);',
  '});',
  '',
].join('\n');
const FETCH_AFTER = {
  // h3 v2 reads event.req itself: the Request's body is used up (h3 v1 kept the bytes).
  'read-first-webhook.post.js': 'await readBody(event)',
  // A clone has a body of its own; event.req's is still unread.
  'clone-first-webhook.post.js': 'await event.req.clone().json()',
};
// The Nitro 2 recipe's route as it stands, h3 taken from Nitro 3: it builds (nitro/h3 is left
// external, so the bundler never checks the names), then fails when the route is first loaded.
const NITRO2_ROUTE = readFileSync(join(ROOT, 'examples', 'recipes', 'nitro', 'routes', 'webhook.post.js'), 'utf8')
  .replace("from 'h3'", "from 'nitro/h3'");

/**
 * `nitro build` (with `preset`, else Nitro's default: node-server) of a copy of the recipe with
 * the test's routes; resolves the copy of its .output a deployment ships (nitro-lib.mjs).
 */
async function build(as, preset) {
  const dir = recipeCopy('nitro3', as);
  assert.ok(NITRO2_ROUTE.includes("import { defineEventHandler, toWebRequest } from 'nitro/h3';"), 'the Nitro 2 route changed: update the test');
  for (const [file, read] of Object.entries(HANDLE)) writeFileSync(join(dir, 'routes', file), handleRoute(read));
  for (const [file, first] of Object.entries(FETCH_AFTER)) writeFileSync(join(dir, 'routes', file), fetchAfter(first));
  writeFileSync(join(dir, 'routes', 'nitro2-webhook.post.js'), NITRO2_ROUTE);
  const { out, meta } = await buildNitro(NITRO, dir, preset);
  assert.equal(meta.versions?.nitro, NITRO_PACKAGE.version);
  assert.match(NITRO_PACKAGE.version, /^3\./);
  return out;
}

const eventCount = async (pool, eventId) =>
  (await pool.query('SELECT count(*)::int AS n FROM cryptopay_events WHERE event_id = $1', [eventId])).rows[0].n;

/** A route whose reading of the body h3 v2 spoils: every delivery 500 body_not_raw (the service retries), logged, nothing recorded. */
function bodyNotRawTest(name, { route, logged }, getServer, getPool) {
  test(name, async () => {
    const tag = randomBytes(4).toString('hex');
    const body = eventBody({ eventId: `evt_nitro3_${tag}`, paymentId: `pay_nitro3_${tag}`, statusVersion: 1 });
    const response = await deliver(`${getServer().origin}/${route}`, body);
    assert.deepEqual([response.status, response.json], [500, { error: 'body_not_raw' }], response.text);
    await assertLogged(getServer().output, logged);
    assert.equal(await eventCount(getPool(), `evt_nitro3_${tag}`), 0);
  });
}
// What the receiver logs for each: a parsed body handed to handle() (its fixes name Nitro 3's way); a
// Request already read handed to fetch().
const PARSED = { route: 'parsed-webhook', logged: /body_not_raw: the body is an object; .*Nitro 3 \(h3 v2\): receiver\.fetch\(event\.req\);/ };
const READ_FIRST = { route: 'read-first-webhook', logged: /body_not_raw: the Request body was already read \(.*in Nitro 3 readBody\(event\), \.\.\.\): pass the untouched Request to receiver\.fetch/ };

let built; // the node-server build (Nitro's default preset)
before(async () => {
  built = await build('nitro3');
});

describe('Nitro 3 recipe (receiver.fetch(event.req); PostgreSQL)', { timeout: 120_000 }, () => {
  let server;
  const db = postgresForSuite({ max: 2 });
  before(async () => {
    server = await startNitro(built, { DATABASE_URL: db.server.url });
    db.stopFirst(() => server.stop());
  });

  test('the build traced the package, pg, better-sqlite3 (its native addon) and Nitro\'s h3 v2 into .output', () => {
    const modules = join(built, 'server', 'node_modules');
    for (const file of ['cryptopay-verify/package.json', 'cryptopay-verify/dist/receiver/index.mjs', 'cryptopay-verify/dist/entry/node.mjs',
      'pg/package.json', 'better-sqlite3/build/Release/better_sqlite3.node', 'nitro/lib/deps/h3.mjs']) {
      assert.ok(existsSync(join(modules, file)), file);
    }
    // The h3 Nitro 3 depends on (exactly), whatever h3 the project resolves.
    const h3 = JSON.parse(readFileSync(join(modules, 'h3', 'package.json'), 'utf8')).version;
    assert.equal(h3, NITRO_PACKAGE.dependencies.h3);
    assert.match(h3, /^2\./);
  });
  deliveryTests(() => server.url, () => postgresStoreRows(db.pool));

  describe('routes/text-webhook.post.js: receiver.handle({ body: await readRawBody(event) }), the default utf8', () => {
    // Valid UTF-8 (what the service sends) survives the decoding; the 0xFF variant of the kit's
    // tampered_body arrives as U+FFFD, the character that was signed, and is acknowledged.
    deliveryTests(() => `${server.origin}/text-webhook`, null, { bodyAsText: 'request.text()' });
  });
  describe('routes/req-text-webhook.post.js: receiver.handle({ body: await event.req.text() })', () => {
    deliveryTests(() => `${server.origin}/req-text-webhook`, null, { bodyAsText: 'request.text()' });
  });
  describe('routes/bytes-webhook.post.js: receiver.handle({ body: await readRawBody(event, false) })', () => {
    deliveryTests(() => `${server.origin}/bytes-webhook`, null);
  });
  describe('routes/arraybuffer-webhook.post.js: receiver.handle({ body: await event.req.arrayBuffer() })', () => {
    deliveryTests(() => `${server.origin}/arraybuffer-webhook`, null);
  });
  bodyNotRawTest('receiver.handle({ body: await readBody(event) }): 500 body_not_raw, the log says so, nothing recorded',
    PARSED, () => server, () => db.pool);
  bodyNotRawTest('readBody(event) first, then receiver.fetch(event.req): 500 body_not_raw (the body was used up), logged, nothing recorded',
    READ_FIRST, () => server, () => db.pool);
  verifiesAfterTest('event.req.clone() read first, then receiver.fetch(event.req): the delivery verifies, a tampered one does not', () => server.origin, 'clone-first-webhook');
  test('the Nitro 2 route (toWebRequest, h3 from nitro/h3) built, but every delivery is 500, logged, nothing recorded', async () => {
    const body = eventBody({ eventId: 'evt_nitro3_nitro2', paymentId: 'pay_nitro3_nitro2', statusVersion: 1 });
    for (let i = 0; i < 2; i += 1) {
      const response = await deliver(`${server.origin}/nitro2-webhook`, body);
      assert.equal(response.status, 500, response.text);
    }
    await assertLogged(server.output, /does not provide an export named 'toWebRequest'/);
    assert.equal(await eventCount(db.pool, 'evt_nitro3_nitro2'), 0);
  });
});

sqliteTests('Nitro 3 recipe (receiver.fetch(event.req)', () => built, startNitro, 'nitro3');

test('PORT=0 is not a free port on the node-server preset: the server tries 3000, the default', async () => {
  // Port 3000 held here (or already by another process): the server's bind fails either way,
  // and its log names the port it tried, never an OS-chosen one.
  const holder = createServer();
  const held = await new Promise((resolve) => {
    holder.once('error', () => resolve(false));
    holder.listen(3000, '127.0.0.1', () => resolve(true));
  });
  const server = startServer(process.execPath, [join('server', 'index.mjs')], {
    cwd: built,
    env: { ...nitroEnv(), ...RECIPE_ENV, PORT: '0', HOST: '127.0.0.1', DATA_DIR: 'data-port' },
  });
  try {
    await assertLogged(server.output, /EADDRINUSE: address already in use 127\.0\.0\.1:3000\b/, 15_000);
    assert.doesNotMatch(server.output.stdout + server.output.stderr, /Listening on/, `port 3000 held here: ${held}`);
  } finally {
    await server.stop();
    if (held) await new Promise((resolve) => holder.close(resolve));
  }
});

// The same files built with Nitro's bun preset and run on Bun (h3 v2's Bun entry: event.req is
// the Request Bun made). better-sqlite3 does not load in Bun, so PostgreSQL.
describe('the same recipe built with --preset bun, run on Bun (PostgreSQL)', { timeout: 120_000 }, () => {
  let out;
  let server;
  const db = postgresForSuite({ max: 2 });
  before(async () => {
    out = await build('nitro3-bun', 'bun');
    server = await startNitro(out, { DATABASE_URL: db.server.url }, { runtime: BUN });
    db.stopFirst(() => server.stop());
  });
  deliveryTests(() => server.url, () => postgresStoreRows(db.pool));
  describe('routes/req-text-webhook.post.js: event.req.text(), on Bun', () => {
    deliveryTests(() => `${server.origin}/req-text-webhook`, null, { bodyAsText: 'request.text()' });
  });
  describe('routes/arraybuffer-webhook.post.js: event.req.arrayBuffer(), on Bun', () => {
    deliveryTests(() => `${server.origin}/arraybuffer-webhook`, null);
  });
  bodyNotRawTest('readBody(event) first, then receiver.fetch(event.req), on Bun: 500 body_not_raw, logged, nothing recorded',
    READ_FIRST, () => server, () => db.pool);
  verifiesAfterTest('event.req.clone() read first, then receiver.fetch(event.req): the delivery verifies, a tampered one does not', () => server.origin, 'clone-first-webhook');
  bunWithoutDatabaseTest(() => out, (dir, env) => startNitro(dir, env, { runtime: BUN }), 'nitro3');
});
