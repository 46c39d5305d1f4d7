// Starts the Express recipe: `node server.mjs`. Environment: ../common/receiver.mjs (the
// Secret and header names, DATABASE_URL or DATA_DIR, PORT, HOST).

import { listening, startReceiver } from '../common/receiver.mjs';
import { createApp } from './app.mjs';

const { receiver, port, host } = await startReceiver(process.env, 'express');
const server = createApp(receiver).listen(port, host, (error) => {
  if (error) throw error;
  listening('express', server.address());
});
