// The receiver itself: an http.Server whose webhook route is cryptopay-verify/receiver
// (verify first, then record in one transaction, answer 2xx only after the commit), and the
// shop's routes: read-only views of what was recorded and POST /payments. The webhook URL must
// be public, and it is authenticated by its signature; the shop's routes are not the service's,
// so they answer only `Authorization: Bearer <ADMIN_TOKEN>`, and are off (404) without
// ADMIN_TOKEN. server.mjs configures and starts it.

import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { fromAmountRaw } from 'cryptopay-verify';
import { createClient } from 'cryptopay-verify/client';
import { createReceiver } from 'cryptopay-verify/receiver';
import { openStore } from './store.mjs';

// server.mjs reads its configuration with it, once this module (and so the package) loaded.
export { receiverOptionsFromEnv } from 'cryptopay-verify/receiver';

const MAX_BODY_BYTES = 1024 * 1024; // a payment.updated event is a few hundred bytes

/**
 * The Idempotency-Key of an order's payment attempt: `create-<order_ref>-<attempt>`, the ref
 * percent-encoded (a key is visible ASCII), or its SHA-256 when that is long; none without an
 * order_ref.
 */
function keyOf(orderRef, attempt) {
  if (typeof orderRef !== 'string' || orderRef === '') return undefined;
  // A lone surrogate cannot be encoded (the creation then refuses the order_ref itself).
  const ref = orderRef.isWellFormed() ? encodeURIComponent(orderRef) : '';
  return `create-${ref.length > 0 && ref.length <= 200 ? ref : createHash('sha256').update(orderRef).digest('hex')}-${attempt}`;
}

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

// The amount of an order, for people: 128.00 USD with the decimals of the store's pricing
// source when the order was priced in it, else its amount_raw (an order priced before the
// source changed keeps its own unit).
function shown(sourceAmount, source) {
  const unit = sourceAmount.currency ?? sourceAmount.pricing_ref;
  if (source === undefined || source.ref !== unit) return `${sourceAmount.amount_raw} (smallest unit) ${unit}`;
  return `${fromAmountRaw(sourceAmount.amount_raw, source.decimals)} ${unit}`;
}

/**
 * What fulfilling means here: a line saying what a shop would do. Called at least once for
 * each (payment, status_version) a pass reads, with `fulfil` for one version of a payment: a
 * real shop passes idempotencyKey to its own systems so that a repeat after a crash ships
 * nothing twice.
 */
function printer(log, sourceOf) {
  return async ({ action, view, order, idempotencyKey, mismatch }) => {
    const what = order ? `order ${order.orderRef ?? '(no order_ref)'}` : 'a payment no order of ours holds';
    const about = `payment ${view.payment_id}, ${view.status} at version ${view.status_version}; key ${idempotencyKey}`;
    if (action === 'fulfil') log.info(`would ship ${what} (${shown(order.sourceAmount, await sourceOf())} paid; ${about})`);
    else if (action === 'review') log.info(`would hold ${what} for review (${mismatch ? mismatch.code : view.status}; ${about})`);
    else if (action === 'closed') log.info(`would release ${what}: not paid (${about})`);
    else log.info(`${what} waits (${about})`);
  };
}

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether the request carries `Authorization: Bearer <token>` with the token whose SHA-256 is
 * `digest`. Both sides are compared as SHA-256 digests, in constant time: the timing tells
 * neither the token's length nor where a guess differs. What was sent is never logged or echoed.
 */
function admitted(req, digest) {
  const match = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
  return match !== null && timingSafeEqual(sha256(match[1]), digest);
}

async function readJson(req, limit = 64 * 1024) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > limit) throw Object.assign(new Error('too large'), { status: 413 });
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw Object.assign(new Error('not JSON'), { status: 400 });
  }
}

/**
 * Starts a receiver. config: { secrets, maxSkewSecs, timestampHeader, signatureHeader,
 * dataDir, databaseUrl?, path, host, port, serviceUrl?, apiKey?, adminToken?, fulfilIntervalMs,
 * recoverAfterSecs }. Resolves { url, server, storage, fulfilling, admin, close() }.
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

  // The shop's routes: only its digest is kept (null: the routes are off).
  const adminDigest = config.adminToken ? sha256(config.adminToken) : null;

  // The merchant loop, when the service is configured: the client, and (once the server
  // listens) fulfilment passes.
  const api = config.serviceUrl && config.apiKey ? createClient({ baseUrl: config.serviceUrl, apiKey: config.apiKey }) : null;
  // The store's pricing source, asked once it answers: the decimals of the orders priced in it.
  let source;
  const sourceOf = async () => {
    source ??= await api.getStore().then((s) => s.primary_source, () => undefined);
    return source;
  };

  // POST /payments {"order_ref", "amount", "currency"?, "attempt"?}: a payment created with the
  // client, its order recorded (refused, never re-priced, when the store's source is not that
  // currency). One Idempotency-Key per creation intent: the request's own header, else one made
  // from the order and its attempt (1 unless said), so that the same request sent again (after
  // a timeout, a 502) answers the same payment instead of creating a second one for the order;
  // a new payment for an order whose last one expired or was cancelled is the next attempt.
  async function create(req, res) {
    let input;
    try {
      input = await readJson(req);
    } catch (error) {
      send(res, error.status, { error: error.status === 413 ? 'body_too_large' : 'not_json' });
      return;
    }
    const attempt = input?.attempt ?? 1;
    if (!Number.isSafeInteger(attempt) || attempt < 1) {
      send(res, 400, { error: 'attempt_invalid', message: 'attempt is the order\'s payment attempt: 1, 2, ... (a new one only when the last payment expired or was cancelled)' });
      return;
    }
    const idempotencyKey = req.headers['idempotency-key'] ?? keyOf(input?.order_ref, attempt);
    if (idempotencyKey === undefined) {
      send(res, 400, { error: 'idempotency_key_missing', message: 'give the payment an order_ref, or send an Idempotency-Key header (one per payment you mean to create, kept for its retries)' });
      return;
    }
    try {
      const created = await api.createPayment({ order_ref: input?.order_ref, amount: input?.amount, currency: input?.currency }, { idempotencyKey, record: receiver });
      send(res, 201, { payment_id: created.payment_id, order_ref: created.order_ref, source_amount: created.source_amount, idempotency_key: idempotencyKey });
    } catch (error) {
      // A CryptoPayError (the amount, order_ref or key refused): its code. A CryptoPayApiError:
      // its code, whether sending the same request again may succeed, and the key it would go
      // under (the service may have created the payment: the same key answers that one).
      if (error.name === 'CryptoPayApiError') {
        send(res, 502, { error: error.code, retryable: error.retryable, idempotency_key: idempotencyKey, ...(error.paymentId && { payment_id: error.paymentId }) });
      } else {
        send(res, 400, { error: error.code ?? 'internal' });
      }
    }
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
    let url;
    try {
      url = new URL(req.url, 'http://receiver.invalid');
    } catch {
      send(res, 400, { error: 'bad_request_target' });
      return;
    }
    if (url.pathname === config.path) {
      await receiver.node(req, res); // answers every method itself (405 unless POST)
      return;
    }
    // Every other path is the shop's (the views hold customer data; POST /payments spends the
    // API key): off without ADMIN_TOKEN, else for its bearer only, checked before the body is read.
    if (adminDigest === null) {
      send(res, 404, { error: 'not_found' });
    } else if (!admitted(req, adminDigest)) {
      send(res, 401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer' });
    } else if (api !== null && req.method === 'POST' && url.pathname === '/payments') {
      await create(req, res);
    } else if (req.method === 'GET') {
      await read(req, res, url);
    } else {
      send(res, 405, { error: 'method_not_allowed' }, { allow: 'GET' });
    }
  }

  let closing = false;
  const server = http.createServer((req, res) => {
    // Once closing, a keep-alive connection is closed as soon as its answer is out, so that
    // close() waits for the requests under way only.
    res.on('finish', () => { if (closing) setImmediate(() => server.closeIdleConnections()); });
    route(req, res).catch((error) => {
      // The webhook route answers its own failures; these are the shop's routes' (the views
      // read the store).
      log.error(`${req.method} ${req.url?.split('?')[0]} failed: ${error?.message ?? error}`);
      if (!res.headersSent) send(res, 503, { error: 'store_unavailable' });
      else res.destroy();
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 65_000;
  try {
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, resolve);
    });
  } catch (error) {
    await storage.close().catch(() => {});
    throw error;
  }
  // Passes only once the server listens: a start that fails leaves no lease behind.
  const loop = api === null ? null : receiver.startFulfilment({
    intervalMs: config.fulfilIntervalMs,
    recoverAfterSecs: config.recoverAfterSecs,
    confirm: (paymentId) => api.getPayment(paymentId),
    handle: printer(log, sourceOf),
  });
  const { port } = server.address();
  return {
    server,
    storage,
    fulfilling: loop !== null,
    admin: adminDigest !== null,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    /**
     * Stops taking requests and passes at once: the pass under way finishes its payment and
     * gives back the rest of its batch while the requests under way are answered (cut after
     * 10 s: a delivery cut is not acknowledged, and the service retries it); then the store
     * closes.
     */
    async close() {
      closing = true;
      const cut = setTimeout(() => server.closeAllConnections(), 10_000);
      await Promise.all([
        new Promise((resolve) => {
          server.close(resolve);
          server.closeIdleConnections();
        }),
        loop?.stop(),
      ]);
      clearTimeout(cut);
      await storage.close();
    },
  };
}
