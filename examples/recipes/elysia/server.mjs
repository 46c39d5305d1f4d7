// An Elysia receiver for payment.updated on Bun, on cryptopay-verify/receiver with Bun's own
// SQLite (bun:sqlite): receiver.fetch reads the raw body of the Fetch request itself,
// verifies, then records the event (de-duplicated by event_id, applied only when its status_version
// is greater) in one transaction, and answers 2xx only after the commit. `bun server.mjs`;
// environment: ../common/receiver.mjs (the Secret and header names, DATABASE_URL or DATA_DIR,
// PORT, HOST).

import { Database } from 'bun:sqlite';
import { Elysia } from 'elysia';
import { listening, startReceiver } from '../common/receiver.mjs';

const { receiver, port, host } = await startReceiver(process.env, 'elysia', { sqlite: (file) => new Database(file) });
const app = new Elysia()
  // Take only `request`, the untouched Request: a handler that names `body` makes Elysia parse
  // the body first, and every delivery is then 500 body_not_raw.
  .post('/webhook', ({ request }) => receiver.fetch(request))
  .listen({ port, hostname: host });
listening('elysia', { address: app.server.hostname, port: app.server.port });
