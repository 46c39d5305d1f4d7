// What the loop's tests against the sandbox share: the installed package's sandbox and client
// (cryptopay-verify/sandbox, cryptopay-verify/client, loaded through its exports map as a
// user's project resolves them) and waiting for the sandbox's deliveries (the sandbox tests'
// helpers); a receiver served on loopback whose door a test can close, hold or reopen; a proxy
// that loses an answer; and the canaries that every error, log line and onOutcome record of a
// run is searched for the API keys and the webhook secrets.

import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import { exportedFile } from '../../receiver/lib/helpers.mjs';

// The sandbox's own tests' helpers: the same installed cryptopay-verify/sandbox (one module).
export { settled, sleep, startSandbox, waitFor } from '../../sandbox/lib.mjs';
export const { createClient, CryptoPayApiError } = await import(pathToFileURL(exportedFile('./client')).href);

/**
 * What a payment goes through at the sandbox, step by step: [['pay', amountRaw], ['review'],
 * ['expire'], ['cancel'] (the merchant, through the client `api`)].
 */
export async function applySteps(sandbox, api, paymentId, steps) {
  for (const [action, amountRaw] of steps) {
    if (action === 'pay') await sandbox.pay(paymentId, amountRaw);
    else if (action === 'cancel') assert.equal((await api.cancelPayment(paymentId)).status, 'cancelled');
    else await sandbox[action](paymentId);
  }
}

/**
 * A receiver served on 127.0.0.1 (POST anywhere: receiver.node), attached after it listens
 * (its secret comes from the sandbox, which needs the URL first). Its door: `open()` (the
 * default), `refuse()` (503 without reading, as a receiver that is down but reachable),
 * `hold()` (each delivery waits, unanswered, until open()), `stop()` (not listening:
 * connections refused) and `start()` (listening again on the same port).
 */
export async function serveReceiver() {
  let receiver = null;
  let mode = 'open';
  let waiting = [];
  const sockets = new Set();
  const server = http.createServer(async (req, res) => {
    if (mode === 'refuse') {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"error":"down"}');
      return;
    }
    if (mode === 'hold') await new Promise((resolve) => waiting.push(resolve));
    await receiver.node(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const listen = (port) => new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(server.address().port);
    });
  });
  const port = await listen(0);
  const stop = () => new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    for (const socket of sockets) socket.destroy();
  });
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    attach(next) {
      receiver = next;
    },
    open() {
      mode = 'open';
      const held = waiting;
      waiting = [];
      for (const release of held) release();
    },
    refuse() {
      mode = 'refuse';
    },
    hold() {
      mode = 'hold';
    },
    /** How many deliveries are held at the door. */
    held: () => waiting.length,
    stop,
    start: () => listen(port),
    close: async () => {
      mode = 'open';
      for (const release of waiting.splice(0)) release();
      await stop();
    },
  };
}

/**
 * The canaries of a run: `receiverLog` (createReceiver's log), `onOutcome`, `sandboxLog` (the
 * sandbox's log), `keep(error)` for every error a test sees, `text(extra)` for anything else
 * printed; check(...secrets) asserts that none of them holds any of those values, and says how
 * much was searched.
 */
export function canaries() {
  const lines = [];
  const records = [];
  const errors = [];
  return {
    lines,
    records,
    errors,
    receiverLog: { warn: (line) => lines.push(`warn ${line}`), error: (line) => lines.push(`error ${line}`) },
    onOutcome: (record) => records.push(record),
    sandboxLog: (line, entry) => lines.push(`sandbox ${line} ${JSON.stringify(entry)}`),
    keep(error) {
      errors.push(error);
      return error;
    },
    text(more) {
      lines.push(String(more));
    },
    check(...secrets) {
      const all = [
        ...lines,
        ...records.map((r) => JSON.stringify(r)),
        ...errors.map((e) => [e?.message, e?.stack, e?.text, e?.cause?.message, JSON.stringify(e)].join('\n')),
      ].join('\n');
      assert.ok(lines.length + records.length > 0, 'the canaries saw nothing: the run logged and recorded nothing');
      for (const secret of secrets) {
        assert.equal(typeof secret, 'string');
        assert.ok(secret.length >= 16, 'a canary long enough not to occur by chance');
        assert.ok(!all.includes(secret), `a secret (${secret.slice(0, 8)}...) appears in an error, a log line or a record`);
      }
      return { lines: lines.length, records: records.length, errors: errors.length };
    },
  };
}

/**
 * A loopback TCP proxy in front of `target` (host:port of a URL) that forwards every byte,
 * except that the first connection carrying a request line that `drop` matches is cut as soon
 * as the answer starts coming back: the request reached the server (and was acted on), its
 * answer never reaches the client. Records what each connection sent and received:
 * connections [{ sent: Buffer, received: Buffer, dropped, marks }], `marks` saying where in
 * `sent` each chunk began and its number among every connection's chunks ({ offset, seq }).
 */
export async function droppingProxy(target, drop) {
  const { hostname, port } = new URL(target);
  const connections = [];
  const sockets = new Set();
  let dropped = false;
  let seq = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    const seen = { sent: Buffer.alloc(0), received: Buffer.alloc(0), dropped: false, marks: [] };
    connections.push(seen);
    let cutting = false;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.on('data', (chunk) => {
      seen.marks.push({ offset: seen.sent.length, seq: (seq += 1) });
      seen.sent = Buffer.concat([seen.sent, chunk]);
      if (!dropped && drop.test(seen.sent.toString('latin1'))) {
        dropped = true;
        cutting = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      seen.received = Buffer.concat([seen.received, chunk]);
      if (cutting) {
        seen.dropped = true;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    connections,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
