// The framework traps the recipe tests found, in one table: a framework, a way of receiving
// there that goes wrong (or that looks wrong and works), and what a delivery then gets. Each
// test file runs its framework's rows on what it started (trapSuite): the assertions of every
// kind of trap are written once, here.
//
// A row: { framework, trap, at, expect, on?, ...checks }.
//   at      where the trap is: { route } a path on the running server (target.origin()), or
//           { start } a server the target starts for the row (start: its settings: variables
//           for a process, a variant's name for an app built in the test)
//   on      the runtimes it is run on (default ['Node']; the Nitro builds run on Bun too)
//   expect  { answer: [status, json] }  one signed delivery is answered so (json left out: any
//                                        body); `times`: sent that many times
//           { verifies: true }          a delivery applies (200), the same altered is refused
//                                        (400 signature_mismatch)
//           { deliveries: { bodyAsText } } every recipe's deliveries and the conformance kit
//                                        (deliveryTests), the kit finding what text loses
//           { invalidByte: [status, json], thenSigned? } a body holding 0xFF where a U+FFFD
//                                        was signed, then (thenSigned) the signed bytes
//           { logs, never, hold, says }  started, the log shows `logs` and never `never`
//                                        (port `hold` held meanwhile); `says`: in words
//   checks  logged: the log shows it (a log kept in an array: the whole of it, one line);
//           mentions: texts the log line names; text: the answer's text shows it;
//           nothingOpened: the folder of start.DATA_DIR was not made; store: the deliveries'
//           store test too (target.readStore)
// Every answer that is not a 2xx leaves nothing recorded in the suite's store (target.recorded:
// it says nothing of a row whose server was given no store or another one), and no log shows
// the secret or the delivery's event id (a Worker's log: its workerd output, keptStdio).

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { RECIPES, SECRET, assertLogged, deliver, deliveryTests, eventBody, recipeCopy, recipeReceiver } from './helpers.mjs';

const BODY_NOT_RAW = [500, { error: 'body_not_raw' }];
const NOT_CONFIGURED = [500, { error: 'not_configured' }];
const STORE_UNAVAILABLE = [503, { error: 'store_unavailable' }];
const APPLIED = [200, { received: true, decision: 'apply' }];
const ALL = ['Node', 'Bun'];

const PREFIX = 'cryptopay-verify/receiver: ';
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** lazyReceiver's line for a receiver it could not make because `variables` are not set. */
const unset = (variables) => new RegExp(`${escape(PREFIX)}not_configured \\(answered 500, the service retries; the next delivery tries again\\): invalid_argument: set ${variables} in the environment`);
/** lazyNodeReceiver's line for a serverless recipe given neither DATABASE_URL nor DATA_DIR. */
const noStoreChosen = new RegExp(`${escape(PREFIX)}not_configured \\(answered 500, the service retries; the next delivery tries again\\): invalid_argument: set DATABASE_URL \\(PostgreSQL[^)]*\\) or DATA_DIR`);
const storeDown = (why) => new RegExp(`${escape(PREFIX)}store_unavailable \\(answered 503, the service retries; the next delivery tries again\\): could not ${why}`);

/** The message of the fenced block under examples/recipes/README.md's body_not_raw heading. */
function readmeMessage() {
  const readme = readFileSync(join(RECIPES, 'README.md'), 'utf8');
  const match = /^## [^\n]*`body_not_raw`[^\n]*\n[\s\S]*?^```text\n([^\n]*)\n```$/m.exec(readme);
  assert.ok(match, 'README.md has a "## ... `body_not_raw` ..." section with the message in a ```text block');
  return match[1];
}

export const TRAPS = [
  // Express: express.json() ahead of the route leaves an object in req.body. The log line is
  // the one the README quotes, word for word.
  { framework: 'Express', trap: 'app.use(express.json()) before the receiver', at: { start: 'json-first' }, expect: { answer: BODY_NOT_RAW },
    logged: new RegExp(`^${escape(PREFIX + readmeMessage())}$`), mentions: ["app.use('/webhook', express.raw(", 'register the webhook route before it', 'bodyParser: false'] },
  { framework: 'Express', trap: 'the recipe\'s order: the webhook route, then express.json()', at: { start: 'recipe-order' }, expect: { answer: APPLIED } },
  // Stripe's guides keep the bytes so: they verify, and the parser's own limit (100kb) answers
  // a larger event 413 before the receiver runs, which the receiver says once.
  { framework: 'Express', trap: 'app.use(express.json({ verify })) keeping req.rawBody', at: { start: 'verify-callback' }, expect: { answer: APPLIED },
    logged: /^cryptopay-verify\/receiver: the body was read from req\.rawBody, kept by a body parser that ran first .*express\.json\(\) and NestJS take 100kb by default.* Said once$/ },

  { framework: 'hapi', trap: 'a route without payload parse: false (hapi parses the JSON)', at: { start: 'parsed' }, expect: { answer: BODY_NOT_RAW },
    logged: /^cryptopay-verify\/receiver: body_not_raw: the body is an object; .*hapi: a route with options: \{ payload: \{ parse: false \} \}, then request\.payload;.*$/ },

  { framework: 'Koa', trap: 'app.use(bodyParser()) ahead of the route', at: { start: 'parser-first' }, expect: { answer: BODY_NOT_RAW },
    logged: /^cryptopay-verify\/receiver: body_not_raw: the request stream was already read .*in Koa, mount the webhook route before app\.use\(bodyParser\(\)\)$/ },
  // bodyParser's ctx.request.rawBody is text decoded as UTF-8: the byte 0xFF arrives as the
  // U+FFFD that was signed, so bytes the service never signed verify.
  { framework: 'Koa', trap: 'ctx.request.rawBody handed to receiver.handle', at: { start: 'raw-body-text' }, expect: { invalidByte: APPLIED } },
  { framework: 'Koa', trap: 'the recipe\'s way, ctx.req to receiver.node', at: { start: 'recipe-order' },
    expect: { invalidByte: [400, { error: 'signature_mismatch' }], thenSigned: APPLIED } },

  { framework: 'Elysia', trap: 'a handler that names `body` (Elysia parses it first)', at: { start: 'body-named' }, expect: { answer: BODY_NOT_RAW },
    logged: /body_not_raw: the Request body was already read/ },
  { framework: 'Elysia', trap: 'the app run without ahead-of-time compilation (aot: false, as on Workers: every body parsed first)', at: { start: 'aot-off' },
    expect: { answer: BODY_NOT_RAW }, logged: /body_not_raw: the Request body was already read/ },

  // The service never follows a redirect: registered so, every delivery fails for good.
  { framework: 'Next.js', trap: 'the webhook URL registered with a trailing slash (/api/webhook/)', at: { route: 'api/webhook/' }, expect: { answer: [308] } },
  { framework: 'Next.js', trap: 'a Pages API route with Next\'s body parser on', at: { route: 'api/parsed-webhook' }, expect: { answer: BODY_NOT_RAW },
    logged: /body_not_raw: req\.body is an object: .*in a Next\.js Pages Router API route, export const config = \{ api: \{ bodyParser: false \} \}/ },

  // Nitro 2 (h3 v1)
  { framework: 'Nitro 2', trap: 'receiver.handle({ body: await readRawBody(event) }), the default utf8', at: { route: 'text-webhook' }, on: ALL,
    expect: { deliveries: { bodyAsText: true } } },
  { framework: 'Nitro 2', trap: 'receiver.handle({ body: await readRawBody(event, false) })', at: { route: 'bytes-webhook' }, on: ALL, expect: { deliveries: {} } },
  { framework: 'Nitro 2', trap: 'receiver.handle({ body: await readBody(event) })', at: { route: 'parsed-webhook' }, expect: { answer: BODY_NOT_RAW },
    logged: /body_not_raw: the body is an object; .*Nitro 2 and Nuxt \(h3 v1\): receiver\.fetch\(toWebRequest\(event\)\), or readRawBody\(event, false\);/ },
  // h3 v1 keeps the bytes readBody read, and toWebRequest streams those.
  { framework: 'Nitro 2', trap: 'readBody(event) first, then receiver.fetch(toWebRequest(event))', at: { route: 'read-first-webhook' }, on: ALL, expect: { verifies: true } },
  { framework: 'Nitro 2', trap: 'started without the secret', at: { start: { CRYPTOPAY_WEBHOOK_SECRET: '', DATA_DIR: 'data-unset' } }, expect: { answer: NOT_CONFIGURED },
    logged: unset('CRYPTOPAY_WEBHOOK_SECRET'), nothingOpened: true },
  { framework: 'Nitro 2', trap: 'deployed with neither DATABASE_URL nor DATA_DIR (never a SQLite file by default)', at: { start: { DATABASE_URL: '', DATA_DIR: '' } },
    expect: { answer: NOT_CONFIGURED }, logged: noStoreChosen },
  { framework: 'Nitro 2', trap: 'on Bun without DATABASE_URL (better-sqlite3 does not load in Bun)', at: { start: {} }, on: ['Bun'], expect: { answer: STORE_UNAVAILABLE },
    logged: /store_unavailable .*does not load in Bun \('better-sqlite3' is not yet supported in Bun.*\): use bun:sqlite \(the sqlite option, as elysia\/server\.mjs does\); or set DATABASE_URL/ },

  // Nitro 3 (h3 v2): text decoded as a Fetch Request's text() does, which drops a byte order mark too.
  { framework: 'Nitro 3', trap: 'receiver.handle({ body: await readRawBody(event) }), the default utf8', at: { route: 'text-webhook' },
    expect: { deliveries: { bodyAsText: 'request.text()' } } },
  { framework: 'Nitro 3', trap: 'receiver.handle({ body: await event.req.text() })', at: { route: 'req-text-webhook' }, on: ALL,
    expect: { deliveries: { bodyAsText: 'request.text()' } } },
  { framework: 'Nitro 3', trap: 'receiver.handle({ body: await readRawBody(event, false) })', at: { route: 'bytes-webhook' }, expect: { deliveries: {} } },
  { framework: 'Nitro 3', trap: 'receiver.handle({ body: await event.req.arrayBuffer() })', at: { route: 'arraybuffer-webhook' }, on: ALL, expect: { deliveries: {} } },
  { framework: 'Nitro 3', trap: 'receiver.handle({ body: await readBody(event) })', at: { route: 'parsed-webhook' }, expect: { answer: BODY_NOT_RAW },
    logged: /body_not_raw: the body is an object; .*Nitro 3 \(h3 v2\): receiver\.fetch\(event\.req\);/ },
  // h3 v2 reads event.req itself: its body is used up (h3 v1 kept the bytes).
  { framework: 'Nitro 3', trap: 'readBody(event) first, then receiver.fetch(event.req)', at: { route: 'read-first-webhook' }, on: ALL, expect: { answer: BODY_NOT_RAW },
    logged: /body_not_raw: the Request body was already read \(.*in Nitro 3 readBody\(event\), .*\.\.\.\): pass the untouched Request to receiver\.fetch/ },
  { framework: 'Nitro 3', trap: 'event.req.clone() read first, then receiver.fetch(event.req)', at: { route: 'clone-first-webhook' }, on: ALL, expect: { verifies: true } },
  // The Nitro 2 route, h3 from nitro/h3: it builds (nitro/h3 is external), then fails when loaded.
  { framework: 'Nitro 3', trap: 'the Nitro 2 route (toWebRequest, h3 from nitro/h3)', at: { route: 'nitro2-webhook' }, expect: { answer: [500] }, times: 2,
    logged: /does not provide an export named 'toWebRequest'/ },
  { framework: 'Nitro 3', trap: 'started without the secret', at: { start: { CRYPTOPAY_WEBHOOK_SECRET: '', DATA_DIR: 'data-unset' } }, expect: { answer: NOT_CONFIGURED },
    logged: unset('CRYPTOPAY_WEBHOOK_SECRET'), nothingOpened: true },
  // The node-server preset takes PORT=0 as unset: port 3000, held here so that the bind fails.
  { framework: 'Nitro 3', trap: 'PORT=0 (not a free port: the default, 3000)', at: { start: { PORT: '0', DATA_DIR: 'data-port' } },
    expect: { logs: /EADDRINUSE: address already in use 127\.0\.0\.1:3000\b/, never: /Listening on/, hold: 3000, says: 'the server tries port 3000' } },
  { framework: 'Nitro 3', trap: 'deployed with neither DATABASE_URL nor DATA_DIR (never a SQLite file by default)', at: { start: { DATABASE_URL: '', DATA_DIR: '' } },
    expect: { answer: NOT_CONFIGURED }, logged: noStoreChosen },
  { framework: 'Nitro 3', trap: 'on Bun without DATABASE_URL (better-sqlite3 does not load in Bun)', at: { start: {} }, on: ['Bun'], expect: { answer: STORE_UNAVAILABLE },
    logged: /store_unavailable .*does not load in Bun \('better-sqlite3' is not yet supported in Bun.*\): use bun:sqlite \(the sqlite option, as elysia\/server\.mjs does\); or set DATABASE_URL/ },

  // AWS Lambda behind each front door's event shape: text bodies are decoded by the front door.
  ...[['http-api', true], ['http-api-base64', false], ['rest-api', true], ['rest-api-binary', false], ['alb', true]].map(([shape, bodyAsText]) => (
    { framework: 'AWS Lambda', trap: `the event shape ${shape}`, at: { start: { SHAPE: shape } }, expect: { deliveries: { bodyAsText } }, store: true })),
  { framework: 'AWS Lambda', trap: 'deployed without DATABASE_URL', at: { start: { SHAPE: 'http-api', DATABASE_URL: '' } }, expect: { answer: NOT_CONFIGURED },
    logged: unset('DATABASE_URL') },

  { framework: 'Google Cloud Run functions', trap: 'deployed without DATABASE_URL', at: { start: { DATABASE_URL: '' } }, expect: { answer: NOT_CONFIGURED },
    logged: unset('DATABASE_URL') },

  { framework: 'Supabase', trap: 'deployed without a header name', at: { start: { TIMESTAMP_HEADER: '' } }, expect: { answer: NOT_CONFIGURED },
    logged: unset('TIMESTAMP_HEADER') },
  { framework: 'Supabase', trap: 'a database that cannot be reached', at: { start: { SUPABASE_DB_URL: 'postgres://postgres:unused@127.0.0.1:1/postgres' } },
    expect: { answer: STORE_UNAVAILABLE }, logged: storeDown('prepare the store') },

  { framework: 'Worker', trap: 'deployed without its D1 binding', at: { start: 'unbound' }, expect: { answer: NOT_CONFIGURED },
    logged: unset('DB') },
  // A pg.Pool kept across requests, as a Node receiver keeps one: every delivery after the
  // first would hang, so postgresStore refuses it. Miniflare shows the exception (workerd in
  // production answers a bare 500).
  { framework: 'Worker on PostgreSQL', trap: 'a pg.Pool kept across requests', at: { start: 'pg.Pool' }, expect: { answer: [500] },
    text: /postgresStore was given a pg\.Pool in a Cloudflare Worker.*client per statement/ },
];

const [status, json] = [0, 1];
const shown = ({ answer, verifies, deliveries, invalidByte, thenSigned, says }) => {
  if (answer) return `${answer[status]}${answer[json] ? ` ${Object.values(answer[json]).at(-1)}` : ''}`;
  if (verifies) return 'verifies, and an altered body is refused';
  if (deliveries) return deliveries.bodyAsText ? 'text: the kit\'s tampered_body acknowledged where text loses bytes' : 'every delivery answered as the recipe\'s';
  if (invalidByte) return `0xFF for the signed U+FFFD: ${invalidByte[status]}${thenSigned ? `, the signed bytes ${thenSigned[status]}` : ''}`;
  return says;
};

/** A row's name: the trap, the runtime when not Node, and what is expected. */
const nameOf = (row, runtime) => `${row.trap}${runtime === 'Node' ? '' : `, on ${runtime}`}: ${shown(row.expect)}`;

/** What a server logged: its lines kept in an array (a Worker's: keptStdio), or its process's output. */
const logOf = ({ lines, output }) => (lines ? lines.join('\n') : output ? output.stdout + output.stderr : '');

async function checkLog(row, server, eventId) {
  // Kept lines (a Worker's come through workerd's output) or a process's output: either may
  // trail the answer.
  if (row.logged) await assertLogged(() => logOf(server), row.logged);
  const log = logOf(server);
  for (const hint of row.mentions ?? []) assert.ok(log.includes(hint), hint);
  assert.ok(!log.includes(SECRET), 'the log shows the secret');
  assert.ok(!log.includes(eventId), 'the log shows the event id');
}

const tagged = () => {
  const tag = randomBytes(4).toString('hex');
  return { eventId: `evt_trap_${tag}`, paymentId: `pay_trap_${tag}` };
};
const same = (response, [code, value]) => {
  if (value === undefined) assert.equal(response.status, code, response.text);
  else assert.deepEqual([response.status, response.json], [code, value], response.text);
};

async function answered(row, server, target) {
  const { eventId, paymentId } = tagged();
  const body = eventBody({ eventId, paymentId, statusVersion: 1 });
  for (let i = 0; i < (row.times ?? 1); i += 1) {
    const response = await deliver(server.url, body);
    same(response, row.expect.answer);
    if (row.text) assert.match(response.text, row.text);
  }
  await checkLog(row, server, eventId);
  if (row.expect.answer[status] >= 300 && target.recorded) assert.equal(await target.recorded(eventId), 0, 'recorded');
  if (row.nothingOpened) assert.ok(!existsSync(join(server.dir, row.at.start.DATA_DIR)), 'a store was opened');
}

async function verifies(row, server) {
  const { eventId, paymentId } = tagged();
  const body = eventBody({ eventId, paymentId, statusVersion: 1 });
  same(await deliver(server.url, body), APPLIED);
  const tampered = Buffer.from(body.toString('utf8').replace('"status": "open"', '"status": "paid"'));
  same(await deliver(server.url, tampered, { signBody: body }), [400, { error: 'signature_mismatch' }]);
}

// Signed over text holding U+FFFD; sent with the byte 0xFF in its place. The service never
// signed these bytes: a receiver of bytes refuses them, a receiver of decoded text cannot tell.
async function invalidByte(row, server) {
  const { eventId, paymentId } = tagged();
  const signed = eventBody({ eventId, paymentId, statusVersion: 1, status: '\uFFFD' });
  const at = signed.indexOf(Buffer.from('\uFFFD'));
  const sent = Buffer.concat([signed.subarray(0, at), Buffer.from([0xff]), signed.subarray(at + 3)]);
  assert.equal(sent.toString('utf8'), signed.toString('utf8'));
  same(await deliver(server.url, sent, { signBody: signed }), row.expect.invalidByte);
  if (row.expect.thenSigned) same(await deliver(server.url, signed), row.expect.thenSigned);
}

async function logs(row, target) {
  const { hold } = row.expect;
  const holder = createServer();
  const held = await new Promise((resolve) => {
    holder.once('error', () => resolve(false)); // held by another process already: the bind fails either way
    holder.listen(hold, '127.0.0.1', () => resolve(true));
  });
  const server = target.spawn(row.at.start);
  try {
    await assertLogged(server.output, row.expect.logs, 15_000);
    assert.doesNotMatch(logOf(server), row.expect.never, `port ${hold} held here: ${held}`);
  } finally {
    await server.stop();
    if (held) await new Promise((resolve) => holder.close(resolve));
  }
}

/**
 * The rows of `framework` (on `runtime`) as tests of the enclosing describe(). `target`:
 * origin() (rows at a route), start(at.start) resolving { url, output or lines, dir?, stop() }
 * (rows at a start), spawn(env) (log rows), recorded(eventId) (how many events by that id the
 * store holds), readStore() (rows with `store`).
 */
export function trapSuite(framework, target, { runtime = 'Node' } = {}) {
  const rows = TRAPS.filter((row) => row.framework === framework && (row.on ?? ['Node']).includes(runtime));
  assert.ok(rows.length > 0, `no trap of ${framework} on ${runtime}`);
  for (const row of rows) {
    const name = nameOf(row, runtime);
    const route = () => ({ url: `${target.origin()}/${row.at.route}`, output: target.output?.() });
    if (row.expect.deliveries) {
      describe(name, () => {
        let server;
        if (row.at.start !== undefined) {
          before(async () => {
            server = await target.start(row.at.start);
          });
          after(() => server?.stop());
        }
        deliveryTests(() => (server ?? route()).url, row.store ? target.readStore : null, row.expect.deliveries);
      });
      continue;
    }
    test(name, async () => {
      if (row.expect.logs) return logs(row, target);
      const server = row.at.start === undefined ? route() : await target.start(row.at.start);
      try {
        if (row.expect.answer) await answered(row, server, target);
        else if (row.expect.verifies) await verifies(row, server);
        else await invalidByte(row, server);
      } finally {
        await server.stop?.();
      }
      return undefined;
    });
  }
}

/**
 * The traps of a framework whose app the test builds in this process (Express, hapi, Koa), in
 * a describe() of their own: for each row's `at.start`, a receiver of the installed package on
 * a SQLite file of a copy of examples/recipes/<name>, its log kept in an array, and
 * `serve(setup, receiver, recipe)` (recipe: the copy's app.mjs) resolving { url, close() }.
 */
export function appTraps(framework, name, serve) {
  describe(`${framework}: the traps`, () => {
    const dir = recipeCopy(name, `${name}-traps`);
    const servers = [];
    after(() => Promise.all(servers.map((server) => server.close())));
    trapSuite(framework, {
      async start(setup) {
        const lines = [];
        const { receiver, recipe } = await recipeReceiver(dir, setup, lines);
        await receiver.ready();
        const server = await serve(setup, receiver, recipe);
        servers.push(server);
        return { url: server.url, lines };
      },
    });
  });
}
