// The receiver itself: an http.Server whose webhook route is cryptopay-verify/receiver
// (verify first, then record in one transaction, answer 2xx only after the commit), and
// read-only views of what was recorded. server.mjs configures and starts it.

import http from 'node:http';
import { createReceiver } from 'cryptopay-verify/receiver';
import { openStore } from './store.mjs';

const MAX_BODY_BYTES = 1024 * 1024; // a payment.updated event is a few hundred bytes

function send(res, status, value, extraHeaders = {}) {
  const body = JSON.stringify(value, null, 2);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...extraHeaders,
  });
  res.end(body);
}

/**
 * Starts a receiver. config: { secrets, maxSkewSecs, timestampHeader, signatureHeader,
 * dataDir, databaseUrl?, path, host, port }. Resolves { url, server, storage, close() }.
 */
export async function startReceiver(config, log = console) {
  const storage = await openStore(config);
  const receiver = createReceiver({
    secrets: config.secrets,
    maxSkewSecs: config.maxSkewSecs,
    timestampHeader: config.timestampHeader,
    signatureHeader: config.signatureHeader,
    maxBodyBytes: MAX_BODY_BYTES,
    store: storage.store,
    log,
  });
  try {
    await receiver.ready(); // creates the tables when missing; fails the start if the store is unreachable
  } catch (error) {
    await storage.close().catch(() => {});
    throw error;
  }

  async function read(req, res, url) {
    if (url.pathname === '/events') {
      const { events: count } = await storage.counts();
      send(res, 200, { count, events: await storage.events() });
      return;
    }
    if (url.pathname === '/payments') {
      send(res, 200, { payments: await storage.payments() });
      return;
    }
    const match = /^\/payments\/([^/]+)$/.exec(url.pathname);
    if (match) {
      let id;
      try {
        id = decodeURIComponent(match[1]);
      } catch {
        send(res, 400, { error: 'bad_payment_id' });
        return;
      }
      const payment = await storage.payment(id);
      if (payment) send(res, 200, payment);
      else send(res, 404, { error: 'unknown_payment' });
      return;
    }
    send(res, 404, { error: 'not_found' });
  }

  async function route(req, res) {
    const url = new URL(req.url, 'http://receiver.invalid');
    if (url.pathname === config.path) {
      await receiver.node(req, res); // answers every method itself (405 unless POST)
    } else if (req.method === 'GET') {
      await read(req, res, url);
    } else {
      send(res, 405, { error: 'method_not_allowed' }, { allow: 'GET' });
    }
  }

  const server = http.createServer((req, res) => {
    route(req, res).catch((error) => {
      log.error(`node-receiver: ${error?.message ?? error}`);
      if (!res.headersSent) send(res, 503, { error: 'store_unavailable' });
      else res.destroy();
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 65_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const { port } = server.address();
  return {
    server,
    storage,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    async close() {
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeIdleConnections?.();
      });
      await storage.close();
    },
  };
}
