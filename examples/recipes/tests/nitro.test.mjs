// The Nitro recipe (examples/recipes/nitro, h3 v1), through nitro-lib.mjs: `nitro build`
// (node-server, Nitro's default preset) with neither the secret nor a database, then the built
// server (`node .output/server/index.mjs`) run from a copy of .output alone, outside the
// repository (what a deployment ships: Nitro traces better-sqlite3, pg and cryptopay-verify
// into .output/server/node_modules), recording in PostgreSQL (DATABASE_URL, a throwaway server)
// and, without it, in a SQLite file; and the same files built with the bun preset, run on Bun.
// Beside the recipe's route, the test writes routes that read the body other ways, each a row
// of traps.mjs: two that break (readRawBody's default utf8, readBody) and two that work
// (readRawBody(event, false); toWebRequest after a readBody).

import { join } from 'node:path';
import { ROOT } from './helpers.mjs';
import { nitroSuites } from './nitro-lib.mjs';

// Routes for the test only (the recipe stays as users copy it), each on the recipe's receiver.
const handleRoute = (read) => `import { defineEventHandler, readBody, readRawBody } from 'h3';
import { receiver } from '../utils/receiver.js';
export default defineEventHandler(async (event) => {
  const { status, headers, body } = await receiver.handle({ body: ${read}, headers: event.headers });
  return new Response(body, { status, headers });
});
`;

nitroSuites({
  framework: 'Nitro 2',
  recipe: 'nitro',
  title: 'receiver.fetch(toWebRequest(event))',
  cli: join(ROOT, 'node_modules', 'nitropack', 'dist', 'cli', 'index.mjs'),
  routes: {
    // The trap: readRawBody's default encoding is 'utf8', so the handler gets text, not bytes.
    'text-webhook.post.js': handleRoute('await readRawBody(event)'),
    // readBody parses the JSON: an object, which can never verify.
    'parsed-webhook.post.js': handleRoute('await readBody(event)'),
    // The bytes (no encoding): this works too, on the receiver's handle().
    'bytes-webhook.post.js': handleRoute('await readRawBody(event, false)'),
    // A middleware-like read before the recipe's own way: h3 keeps the bytes readBody read,
    // and toWebRequest streams those, so the delivery still verifies.
    'read-first-webhook.post.js': `import { defineEventHandler, readBody, toWebRequest } from 'h3';
import { receiver } from '../utils/receiver.js';
export default defineEventHandler(async (event) => {
  await readBody(event);
  return receiver.fetch(toWebRequest(event));
});
`,
  },
  // Nitro 2 binds a free port itself for PORT=0, and prints it.
  env: { PORT: '0' },
});
