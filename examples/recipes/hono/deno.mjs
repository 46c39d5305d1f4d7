// Starts the Hono recipe on Deno: `deno run --allow-env --allow-net --allow-read --allow-write
// deno.mjs` beside the folder's node_modules (`npm install` first). The same app as server.mjs,
// served by Deno.serve, with the SQLite file through node:sqlite (better-sqlite3 is a native
// addon; node:sqlite is built into Deno). Environment: ../common/receiver.mjs (the Secret and
// header names, DATABASE_URL or DATA_DIR, PORT, HOST), read from Deno.env.

import { DatabaseSync } from 'node:sqlite';
import { listening, startReceiver } from '../common/receiver.mjs';
import { createApp } from './app.mjs';

const { receiver, port, host } = await startReceiver(Deno.env.toObject(), 'hono', { sqlite: (file) => new DatabaseSync(file) });
Deno.serve({
  port,
  hostname: host,
  onListen: ({ hostname, port: bound }) => listening('hono', { address: hostname, port: bound }),
}, createApp(receiver).fetch);
