// The Nitro 3 recipe (examples/recipes/nitro3, h3 v2), through nitro-lib.mjs as the Nitro 2
// recipe: `nitro build` (node-server and bun) with neither the secret nor a database, the
// built server run from a copy of .output alone, on PostgreSQL and on a SQLite file, on Node
// and on Bun. Beside the recipe's route, the test writes routes that read the body other ways,
// on h3 v2 as Nitro 3 ships it (nitro/h3), each a row of traps.mjs: three that break
// (readRawBody's default utf8 and event.req.text(): text, decoded as a Fetch Request does,
// which also drops a leading byte order mark; readBody: parsed JSON), two that break where h3
// v1 did not (a readBody before receiver.fetch(event.req); the Nitro 2 recipe's toWebRequest),
// and three that work (readRawBody(event, false), event.req.arrayBuffer(), a clone read before
// receiver.fetch(event.req)).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.mjs';
import { nitroSuites } from './nitro-lib.mjs';

const NITRO_PACKAGE = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'nitro', 'package.json'), 'utf8'));

// Routes for the test only (the recipe stays as users copy it), each on the recipe's receiver,
// with h3 from nitro/h3 as the recipe's: what runs is Nitro's own h3 v2.
const handleRoute = (read) => `import { defineHandler, readBody, readRawBody } from 'nitro/h3';
import { receiver } from '../utils/receiver.js';
export default defineHandler(async (event) => {
  const { status, headers, body } = await receiver.handle({ body: ${read}, headers: event.req.headers });
  return new Response(body, { status, headers });
});
`;
// The recipe's way after something read the body first (a middleware, a log line).
const fetchAfter = (first) => `import { defineHandler, readBody } from 'nitro/h3';
import { receiver } from '../utils/receiver.js';
export default defineHandler(async (event) => {
  ${first};
  return receiver.fetch(event.req);
});
`;
// The Nitro 2 recipe's route as it stands, h3 taken from Nitro 3: it builds (nitro/h3 is left
// external, so the bundler never checks the names), then fails when the route is first loaded.
const NITRO2_ROUTE = readFileSync(join(ROOT, 'examples', 'recipes', 'nitro', 'routes', 'webhook.post.js'), 'utf8')
  .replace("from 'h3'", "from 'nitro/h3'");
assert.ok(NITRO2_ROUTE.includes("import { defineEventHandler, toWebRequest } from 'nitro/h3';"), 'the Nitro 2 route changed: update the test');

nitroSuites({
  framework: 'Nitro 3',
  recipe: 'nitro3',
  title: 'receiver.fetch(event.req)',
  // Nitro 3's CLI by its path: nitropack (Nitro 2) and nitro both install a bin named nitro.
  cli: join(ROOT, 'node_modules', 'nitro', 'dist', 'cli', 'index.mjs'),
  routes: {
    // readRawBody is kept in h3 v2 (deprecated); its encoding still defaults to 'utf8': text, now
    // event.req.text()'s, which drops a leading byte order mark too (h3 v1's kept it).
    'text-webhook.post.js': handleRoute('await readRawBody(event)'),
    // What h3 v2's deprecation note for readRawBody offers first: text too.
    'req-text-webhook.post.js': handleRoute('await event.req.text()'),
    // readBody parses the JSON: an object, which can never verify.
    'parsed-webhook.post.js': handleRoute('await readBody(event)'),
    // The bytes: a Uint8Array in h3 v2 (a Buffer in h3 v1).
    'bytes-webhook.post.js': handleRoute('await readRawBody(event, false)'),
    'arraybuffer-webhook.post.js': handleRoute('await event.req.arrayBuffer()'),
    // h3 v2 reads event.req itself: the Request's body is used up (h3 v1 kept the bytes).
    'read-first-webhook.post.js': fetchAfter('await readBody(event)'),
    // A clone has a body of its own; event.req's is still unread.
    'clone-first-webhook.post.js': fetchAfter('await event.req.clone().json()'),
    'nitro2-webhook.post.js': NITRO2_ROUTE,
  },
  traced: ['nitro/lib/deps/h3.mjs'],
  // The h3 Nitro 3 depends on (exactly), whatever h3 the project resolves.
  checkTraced(modules) {
    const h3 = JSON.parse(readFileSync(join(modules, 'h3', 'package.json'), 'utf8')).version;
    assert.equal(h3, NITRO_PACKAGE.dependencies.h3);
    assert.match(h3, /^2\./);
  },
  checkBuild(meta) {
    assert.equal(meta.versions?.nitro, NITRO_PACKAGE.version);
    assert.match(NITRO_PACKAGE.version, /^3\./);
  },
});
