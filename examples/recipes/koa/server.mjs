// Starts the Koa recipe: `node server.mjs`. Environment: ../common/receiver.mjs (the Secret
// and header names, DATABASE_URL or DATA_DIR, PORT, HOST).

import { listening, startReceiver } from '../common/receiver.mjs';
import { createApp } from './app.mjs';

const { receiver, port, host } = await startReceiver(process.env, 'koa');
const server = createApp(receiver).listen(port, host, () => listening('koa', server.address()));
