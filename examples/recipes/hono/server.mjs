// Starts the Hono recipe on Node: `node server.mjs`. Environment: ../common/receiver.mjs (the
// Secret and header names, DATABASE_URL or DATA_DIR, PORT, HOST).

import { serve } from '@hono/node-server';
import { listening, startReceiver } from '../common/receiver.mjs';
import { createApp } from './app.mjs';

const { receiver, port, host } = await startReceiver(process.env, 'hono');
serve({ fetch: createApp(receiver).fetch, port, hostname: host }, (info) => listening('hono', info));
