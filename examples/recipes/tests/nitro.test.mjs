// The Nitro recipe (examples/recipes/nitro): `nitro build` (node-server, Nitro's default preset)
// with neither the secret nor a database, then the built server (`node .output/server/index.mjs`)
// run from a copy of .output alone, outside the repository (what a deployment ships: Nitro traces
// better-sqlite3, pg and cryptopay-verify into .output/server/node_modules), recording in
// PostgreSQL (DATABASE_URL, a throwaway server) and, without it, in a SQLite file; and the same
// files built with the bun preset, run on Bun. Beside the recipe's route, the test writes routes
// that read the body other ways: two that break (readRawBody's default utf8, readBody) and two
// that work (readRawBody(event, false); toWebRequest after a readBody).

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { run, startServer, tail } from '../../../tests/runtimes/lib.mjs';
import { postgresForSuite } from '../../../tests/receiver/lib/postgres.mjs';
import {
  RECIPE_ENV, ROOT, assertLogged, deliver, deliveryTests, eventBody, postgresStoreRows, recipeCopy, restartTest, sqliteStoreRows,
  waitForOutput,
} from './helpers.mjs';

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

const deployed = []; // the copies of .output, outside the repository

// The environment without Nitro's own settings (NITRO_PRESET, NITRO_PORT, NITRO_HOST, ...), which
// would take precedence over what the test sets.
const baseEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('NITRO_')));

/**
 * `nitro build` (with `preset`, else Nitro's default: node-server) of a copy of the recipe with
 * the test's routes, with neither the secret nor the database in its environment; returns a copy
 * of its .output alone, outside the repository (what a deployment ships), where no node_modules
 * above can stand in for what Nitro left out.
 */
async function build(as, preset) {
  const dir = recipeCopy('nitro', as);
  for (const [file, read] of Object.entries(ROUTES)) writeFileSync(join(dir, 'routes', file), routeSource(read));
  writeFileSync(join(dir, 'routes', 'read-first-webhook.post.js'), READ_FIRST);
  const buildEnv = { ...baseEnv(), NO_COLOR: '1', ...RECIPE_ENV };
  delete buildEnv.CRYPTOPAY_WEBHOOK_SECRET;
  delete buildEnv.DATABASE_URL;
  const result = await run(process.execPath, [NITRO, 'build', ...(preset ? ['--preset', preset] : [])], { cwd: dir, env: buildEnv, timeoutMs: 120_000 });
  assert.equal(result.code, 0, `nitro build ${result.timedOut ? 'timed out' : `exited ${result.code}`}:\n${tail(result.stdout + result.stderr, 30)}`);
  // Nitro's log quotes the preset in backticks where it detects CI (CI=true), not elsewhere.
  assert.match(result.stdout + result.stderr, new RegExp(`preset: \`?${preset ?? 'node-server'}\`?[,)]`));
  const out = mkdtempSync(join(tmpdir(), `cpv-${as}-`));
  deployed.push(out);
  for (let above = dirname(out); ; above = dirname(above)) {
    assert.ok(!existsSync(join(above, 'node_modules')), `${above}/node_modules would stand in for what the build left out`);
    if (dirname(above) === above) break;
  }
  cpSync(join(dir, '.output'), out, { recursive: true });
  return out;
}

/**
 * Runs a built server (`runtime server/index.mjs` in `out`) on a free port (PORT=0); resolves
 * once it prints where it listens.
 */
async function startNitro(out, env, { runtime = process.execPath, timeoutMs = 15_000 } = {}) {
  const server = startServer(runtime, [join('server', 'index.mjs')], {
    cwd: out,
    env: { ...baseEnv(), ...RECIPE_ENV, PORT: '0', HOST: '127.0.0.1', DATA_DIR: 'data', DATABASE_URL: '', ...env },
  });
  // Nitro's node-server and bun presets print the address they bound, the port included.
  const [, origin] = await waitForOutput(server, /Listening on (http:\/\/127\.0\.0\.1:\d+)/, { timeoutMs, what: 'the built Nitro server' });
  return { origin, url: `${origin}/webhook`, dir: out, output: server.output, stop: () => server.stop() };
}

/** The recipe's way after a readBody(event) that ran first: the delivery still verifies, a tampered one does not. */
function readFirstTest(origin) {
  test('readBody(event) first, then toWebRequest(event): h3 streams the bytes it kept, and the delivery verifies', async () => {
    const tag = randomBytes(4).toString('hex');
    const body = eventBody({ eventId: `evt_nitro_read_first_${tag}`, paymentId: `pay_nitro_read_first_${tag}`, statusVersion: 1 });
    const response = await deliver(`${origin()}/read-first-webhook`, body);
    assert.deepEqual([response.status, response.json], [200, { received: true, decision: 'apply' }], response.text);
    const tampered = Buffer.from(body.toString('utf8').replace('"status": "open"', '"status": "paid"'));
    const refused = await deliver(`${origin()}/read-first-webhook`, tampered, { signBody: body });
    assert.deepEqual([refused.status, refused.json], [400, { error: 'signature_mismatch' }], refused.text);
  });
}

let built; // the node-server build (Nitro's default preset)
before(async () => {
  built = await build('nitro');
});
after(() => {
  for (const dir of deployed) rmSync(dir, { recursive: true, force: true });
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
    await assertLogged(server.output, /body_not_raw: the body is an object; .*Nitro 2 and Nuxt \(h3 1\): receiver\.fetch\(toWebRequest\(event\)\), or readRawBody\(event, false\);/);
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM cryptopay_events WHERE event_id = 'evt_nitro_parsed'");
    assert.equal(rows[0].n, 0);
  });
  readFirstTest(() => server.origin);
});

describe('Nitro recipe (receiver.fetch(toWebRequest(event)); SQLite file, no DATABASE_URL)', { timeout: 120_000 }, () => {
  let server;
  before(async () => {
    server = await startNitro(built, {});
  });
  after(() => server?.stop());
  deliveryTests(() => server.url, () => sqliteStoreRows(built));
  restartTest(() => startNitro(built, {}), () => server, (next) => { server = next; });
});

test('started without the secret: 500 not_configured (the service retries), and the log names the variable', async () => {
  const server = await startNitro(built, { CRYPTOPAY_WEBHOOK_SECRET: '', DATA_DIR: 'data-unset' });
  try {
    const response = await deliver(server.url, eventBody({ eventId: 'evt_nitro_unset', paymentId: 'pay_nitro_unset', statusVersion: 1 }));
    assert.deepEqual([response.status, response.json], [500, { error: 'not_configured' }], response.text);
    await assertLogged(server.output, /webhook receiver unavailable: set CRYPTOPAY_WEBHOOK_SECRET in the server's environment/);
    assert.ok(!existsSync(join(built, 'data-unset')), 'no store was opened');
  } finally {
    await server.stop();
  }
});

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
  readFirstTest(() => server.origin);
  test('without DATABASE_URL: 503 store_unavailable (the service retries), the log says better-sqlite3 does not load in Bun', async () => {
    const sqlite = await startNitro(out, {}, { runtime: BUN });
    try {
      const response = await deliver(sqlite.url, eventBody({ eventId: 'evt_nitro_bun_sqlite', paymentId: 'pay_nitro_bun_sqlite', statusVersion: 1 }));
      assert.deepEqual([response.status, response.json], [503, { error: 'store_unavailable' }], response.text);
      await assertLogged(sqlite.output, /webhook receiver unavailable: 'better-sqlite3' is not yet supported in Bun/);
    } finally {
      await sqlite.stop();
    }
  });
});
