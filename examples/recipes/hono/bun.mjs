// Starts the Hono recipe on Bun: `bun bun.mjs`. The same app as server.mjs, served by
// Bun.serve, with the SQLite file through Bun's own bun:sqlite (better-sqlite3 does not load in
// Bun). Environment: ../common/receiver.mjs (the Secret and header names, DATABASE_URL or
// DATA_DIR, PORT, HOST).

import { Database } from 'bun:sqlite';
import { listening, startReceiver } from '../common/receiver.mjs';
import { createApp } from './app.mjs';

const { receiver, port, host } = await startReceiver(process.env, 'hono', { sqlite: (file) => new Database(file) });
const server = Bun.serve({ fetch: createApp(receiver).fetch, port, hostname: host });
listening('hono', { address: server.hostname, port: server.port });
