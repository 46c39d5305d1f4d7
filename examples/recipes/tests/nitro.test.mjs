// The Nitro recipe (examples/recipes/nitro): `nitro build` (node-server, Nitro's default preset)
// with neither the secret nor a database, then the built server (`node .output/server/index.mjs`)
// run from a copy of .output alone, outside the repository (what a deployment ships: Nitro traces
// better-sqlite3, pg and cryptopay-verify into .output/server/node_modules), recording in
// PostgreSQL (DATABASE_URL, a throwaway server) and, without it, in a SQLite file; and the same
// files built with the bun preset, run on Bun. Beside the recipe's route, the test writes routes
// that read the body other ways: two that break (readRawBody's default utf8, readBody) and two
// that work (readRawBody(event, false); toWebRequest after a readBody).

import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { postgresForSuite } from '../../../tests/receiver/lib/postgres.mjs';
import {
  ROOT, assertLogged, deliver, deliveryTests, eventBody, postgresStoreRows, recipeCopy,
} from './helpers.mjs';
import { buildNitro, bunWithoutDatabaseTest, sqliteTests, startNitro as startBuilt, verifiesAfterTest } from './nitro-lib.mjs';

const NITRO = join(ROOT, 'node_modules', 'nitropack', 'dist', 'cli', 'index.mjs');
const BUN = join(ROOT, 'node_modules', '.bin', 'bun');

// Routes for the test only (the recipe stays as users copy it), each on the recipe's receiver.
const ROUTES = {
  // The trap: readRawBody's default encoding is 'utf8', so the handler gets text, not bytes.
  'text-webhook.post.js': 'await readRawBody(event)',
  // readBody parses the JSON: an object, which can never verify.
  'parsed-webhook.post.js': 'await readBody(event)',
  // The bytes (no encoding): this works too, on the receiver's handle().
  'bytes-webhook.post.js': 'await readRawBody(event, false)',
};
const routeSource = (read) => [
  "import { defineEventHandler, readBody, readRawBody } from 'h3';",
  "import { webhookReceiver } from '../utils/receiver.js';",
  'export default defineEventHandler(async (event) => {',
  '  const { receiver } = await webhookReceiver();',
  `  const { status, headers, body } = await receiver.handle({ body: ${read}, headers: event.headers });`,
  '  return new Response(body, { status, headers });',
  '});',
  '',
].join('\n');
// A middleware-like read before the recipe's own way: h3 keeps the bytes readBody read, and
// toWebRequest streams those, so the delivery still verifies.
const READ_FIRST = [
  "import { defineEventHandler, readBody, toWebRequest } from 'h3';",
  "import { webhookReceiver } from '../utils/receiver.js';",
  'export default defineEventHandler(async (event) => {',
  '  await readBody(event);',
  '  const { receiver } = await webhookReceiver();',
  '  return receiver.fetch(toWebRequest(event));',
  '});',
  '',
].join('\n');

/**
 * `nitro build` (with `preset`, else Nitro's default: node-server) of a copy of the recipe with
 * the test's routes; resolves the copy of its .output a deployment ships (nitro-lib.mjs).
 */
async function build(as, preset) {
  const dir = recipeCopy('nitro', as);
  for (const [file, read] of Object.entries(ROUTES)) writeFileSync(join(dir, 'routes', file), routeSource(read));
  writeFileSync(join(dir, 'routes', 'read-first-webhook.post.js'), READ_FIRST);
  return (await buildNitro(NITRO, dir, preset)).out;
}

/** The built server on PORT=0: Nitro 2 binds a free port itself, and prints it. */
const startNitro = (out, env, options) => startBuilt(out, { PORT: '0', ...env }, options);

let built; // the node-server build (Nitro's default preset)
before(async () => {
  built = await build('nitro');
});

describe('Nitro recipe (receiver.fetch(toWebRequest(event)); PostgreSQL)', { timeout: 120_000 }, () => {
  let server;
  const db = postgresForSuite({ max: 2 });
  before(async () => {
    server = await startNitro(built, { DATABASE_URL: db.server.url });
    db.stopFirst(() => server.stop());
  });

  test('the build traced the package, pg and better-sqlite3 (its native addon) into .output', () => {
    for (const file of ['cryptopay-verify/package.json', 'cryptopay-verify/dist/receiver/index.mjs', 'cryptopay-verify/dist/entry/node.mjs',
      'pg/package.json', 'better-sqlite3/build/Release/better_sqlite3.node']) {
      assert.ok(existsSync(join(built, 'server', 'node_modules', file)), file);
    }
  });
  deliveryTests(() => server.url, () => postgresStoreRows(db.pool));

  describe('routes/text-webhook.post.js: receiver.handle({ body: await readRawBody(event) }), the default utf8', () => {
    // Valid UTF-8 (what the service sends) survives the decoding; the 0xFF variant of the kit's
    // tampered_body arrives as U+FFFD, the character that was signed, and is acknowledged.
    deliveryTests(() => `${server.origin}/text-webhook`, null, { bodyAsText: true });
  });
  describe('routes/bytes-webhook.post.js: receiver.handle({ body: await readRawBody(event, false) })', () => {
    deliveryTests(() => `${server.origin}/bytes-webhook`, null);
  });
  test('readBody(event) first: 500 body_not_raw (the service retries), the log says so, nothing recorded', async () => {
    const body = eventBody({ eventId: 'evt_nitro_parsed', paymentId: 'pay_nitro_parsed', statusVersion: 1 });
    const response = await deliver(`${server.origin}/parsed-webhook`, body);
    assert.deepEqual([response.status, response.json], [500, { error: 'body_not_raw' }], response.text);
    await assertLogged(server.output, /body_not_raw: the body is an object; .*Nitro 2 and Nuxt \(h3 v1\): receiver\.fetch\(toWebRequest\(event\)\), or readRawBody\(event, false\);/);
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM cryptopay_events WHERE event_id = 'evt_nitro_parsed'");
    assert.equal(rows[0].n, 0);
  });
  verifiesAfterTest('readBody(event) first, then toWebRequest(event): h3 streams the bytes it kept, and the delivery verifies', () => server.origin, 'read-first-webhook');
});

sqliteTests('Nitro recipe (receiver.fetch(toWebRequest(event))', () => built, startNitro, 'nitro');

// The same files built with Nitro's bun preset and run on Bun: there the route gets no Node
// request, only the one Nitro makes from Bun's (its body the bytes Bun read), as on Nitro's
// other non-Node presets. better-sqlite3 does not load in Bun, so PostgreSQL.
describe('the same recipe built with --preset bun, run on Bun (PostgreSQL)', { timeout: 120_000 }, () => {
  let out;
  let server;
  const db = postgresForSuite({ max: 2 });
  before(async () => {
    out = await build('nitro-bun', 'bun');
    server = await startNitro(out, { DATABASE_URL: db.server.url }, { runtime: BUN });
    db.stopFirst(() => server.stop());
  });
  deliveryTests(() => server.url, () => postgresStoreRows(db.pool));
  describe('routes/text-webhook.post.js: readRawBody(event), the default utf8, on Bun', () => {
    deliveryTests(() => `${server.origin}/text-webhook`, null, { bodyAsText: true });
  });
  describe('routes/bytes-webhook.post.js: readRawBody(event, false), on Bun', () => {
    deliveryTests(() => `${server.origin}/bytes-webhook`, null);
  });
  verifiesAfterTest('readBody(event) first, then toWebRequest(event): h3 streams the bytes it kept, and the delivery verifies', () => server.origin, 'read-first-webhook');
  bunWithoutDatabaseTest(() => out, (dir, env) => startNitro(dir, env, { runtime: BUN }), 'nitro');
});
