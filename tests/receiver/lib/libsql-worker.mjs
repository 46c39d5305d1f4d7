// A worker thread of libsql.test.mjs: one receiver instance with a @libsql/client of its own
// on the database file (workerData: { url, clientOptions }). Each message is a list of
// bodies, which it delivers 8 at a time (signed with its own secret); it answers with the
// [status, answer text] of each, in order. Threads run in parallel, so two of them contend
// for the file's lock as two processes would.

import { parentPort, workerData } from 'node:worker_threads';
import { createLibsqlClient, receiverOptions, rx, signedHeaders } from './helpers.mjs';

const client = createLibsqlClient({ url: workerData.url, ...workerData.clientOptions });
const receiver = rx.createReceiver(receiverOptions(rx.libsqlStore(client), { log: false }));

parentPort.on('message', async (bodies) => {
  const answers = [];
  for (let i = 0; i < bodies.length; i += 8) {
    const group = bodies.slice(i, i + 8);
    answers.push(...await Promise.all(group.map(async (body) => {
      const { status, body: text } = await receiver.handle({ body, headers: signedHeaders(body) });
      return [status, text];
    })));
  }
  parentPort.postMessage(answers);
});
