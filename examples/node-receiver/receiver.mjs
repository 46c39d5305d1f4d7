// The receiver itself: an http.Server that verifies, records and acknowledges deliveries,
// and shows what it has recorded. server.mjs configures and starts it.

import http from 'node:http';
import { CryptoPayError, Verifier, readDeliveryHeaders } from 'cryptopay-verify';
import { EventLog } from './event-log.mjs';

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

// The raw body, at most `limit` bytes. Resolves { body }, { tooLarge } or { aborted }. A
// body over the limit is read to its end and discarded (up to 16 times the limit, beyond
// which the connection is cut), so that the sender gets the 413 rather than a reset.
function readRawBody(req, limit) {
  const drainLimit = 16 * limit;
  return new Promise((resolve) => {
    if (Number(req.headers['content-length']) > drainLimit) {
      resolve({ tooLarge: true });
      return;
    }
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > drainLimit) req.destroy();
    });
    req.on('end', () => resolve(size > limit ? { tooLarge: true } : { body: Buffer.concat(chunks, size) }));
    req.on('close', () => resolve({ aborted: true })); // no effect once 'end' has resolved
    req.on('error', () => {}); // 'close' follows
  });
}

/**
 * Starts a receiver. config: { secrets, maxSkewSecs, timestampHeader, signatureHeader,
 * dataDir, path, host, port }. Resolves { url, server, events, close() }.
 */
export async function startReceiver(config, log = console) {
  const verifier = new Verifier({ secrets: config.secrets, maxSkewSecs: config.maxSkewSecs, maxBodyBytes: MAX_BODY_BYTES });
  const events = await new EventLog(config.dataDir).open();
  const names = { timestampHeader: config.timestampHeader, signatureHeader: config.signatureHeader };

  async function webhook(req, res) {
    const { body, tooLarge, aborted } = await readRawBody(req, MAX_BODY_BYTES);
    if (aborted) return;
    if (tooLarge) {
      log.warn('rejected: body_too_large');
      send(res, 413, { error: 'body_too_large' }, { connection: 'close' });
      return;
    }
    let timestamp;
    let verified;
    try {
      // rawHeaders keeps duplicates apart, so a header sent twice is caught.
      const delivery = readDeliveryHeaders(req.rawHeaders, names);
      timestamp = delivery.timestamp;
      verified = verifier.verifyWebhook({
        body,
        timestamp,
        signature: delivery.signature,
        nowSecs: Math.floor(Date.now() / 1000), // the host's clock: keep it synchronised (NTP)
      });
    } catch (error) {
      if (!(error instanceof CryptoPayError)) throw error;
      if (error.code === 'event_type_unknown') {
        // Authentic, but not an event this receiver knows: acknowledged and ignored.
        log.warn('ignored: event_type_unknown');
        send(res, 200, { received: true, ignored: 'event_type_unknown' });
        return;
      }
      // The code only: the message may describe the configured secret.
      log.warn(`rejected: ${error.message}`);
      send(res, 400, { error: error.code });
      return;
    }
    const { event } = verified;
    let decision;
    try {
      decision = await events.record(verified, { timestamp, body });
    } catch (error) {
      log.error(`could not record ${event.eventId}: ${error.message}`);
      send(res, 500, { error: 'not_recorded' }); // the service retries
      return;
    }
    log.info(`${decision}: ${event.eventId} payment ${event.paymentId} status_version ${event.statusVersion}`);
    // Acknowledges delivery only. Business handling (never fulfilment on the event alone:
    // check GET /v1/payments/{id}) runs separately, from the log.
    send(res, 200, { received: true, event_id: event.eventId, decision });
  }

  function read(req, res, url) {
    if (url.pathname === '/events') {
      send(res, 200, { count: events.records.length, events: events.records });
      return;
    }
    if (url.pathname === '/payments') {
      send(res, 200, { payments: events.payments().map(paymentView) });
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
      const record = events.payment(id);
      if (record) send(res, 200, paymentView(record));
      else send(res, 404, { error: 'unknown_payment' });
      return;
    }
    send(res, 404, { error: 'not_found' });
  }

  async function route(req, res) {
    const url = new URL(req.url, 'http://receiver.invalid');
    if (url.pathname === config.path) {
      if (req.method === 'POST') await webhook(req, res);
      else send(res, 405, { error: 'method_not_allowed' }, { allow: 'POST' });
    } else if (req.method === 'GET') {
      read(req, res, url);
    } else {
      send(res, 405, { error: 'method_not_allowed' }, { allow: 'GET' });
    }
  }

  const server = http.createServer((req, res) => {
    route(req, res).catch((error) => {
      log.error(`unexpected: ${error?.stack ?? error}`);
      if (!res.headersSent) send(res, 500, { error: 'internal' });
      else res.destroy();
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const { port } = server.address();
  return {
    server,
    events,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    async close() {
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeIdleConnections?.();
      });
      await events.close();
      verifier.free();
    },
  };
}

function paymentView(record) {
  return {
    payment_id: record.payment_id,
    status_version: record.status_version,
    event_id: record.event_id,
    occurred_at: record.event.occurred_at,
    data: record.event.data,
    recorded_at: record.recorded_at,
  };
}

