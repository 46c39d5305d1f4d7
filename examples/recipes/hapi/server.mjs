// Starts the hapi recipe: `node server.mjs`. Environment: ../common/receiver.mjs (the Secret
// and header names, DATABASE_URL or DATA_DIR, PORT, HOST).

import { listening, startReceiver } from '../common/receiver.mjs';
import { createServer } from './app.mjs';

const { receiver, port, host } = await startReceiver(process.env, 'hapi');
const server = createServer(receiver, { port, host });
await server.start();
listening('hapi', server.listener.address());
