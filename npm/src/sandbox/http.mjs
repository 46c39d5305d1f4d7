// The sandbox's HTTP face (node:http): the service's API under /v1 (Bearer key and scope on
// every call), the dashboard's and the customer's actions under /sandbox, and checkout.
// Every answer is JSON (checkout pages aside); every refusal is the service's ErrorResponse,
// {"error":{"code","message"}}, with its HTTP status. No request body is ever logged.

import http from 'node:http';
import { CryptoPayError } from 'cryptopay-verify';
import { checkoutPage, checkoutRefusal, hostedEntryPage } from './checkout.mjs';
import { bodyText, requireJsonContentType } from './requests.mjs';
import { SandboxError, refusal } from './rules.mjs';

const MAX_REQUEST_BYTES = 1024 * 1024;

/** The routes: [method, path pattern, scope of the API key (none: not an API call), handler]. */
function routes(service, delivery) {
  const json = (value, status = 200) => ({ status, json: value });
  return [
    ['POST', /^\/v1\/payments$/, 'payment:write', ({ req, body }) => {
      requireJsonContentType(req.headers['content-type']);
      const { payment } = service.createPayment({ idempotencyKey: req.headers['idempotency-key'], body });
      return json(payment);
    }],
    ['GET', /^\/v1\/payments\/([^/]+)$/, 'payment:read', ({ params }) => json(service.getPayment(params[0]))],
    ['POST', /^\/v1\/payments\/([^/]+)\/cancel$/, 'payment:write', ({ params }) => json(service.cancel(params[0]))],
    ['DELETE', /^\/v1\/payments\/([^/]+)\/consumer-access$/, 'payment:write', ({ params }) => json(service.disableConsumerAccess(params[0]))],
    ['GET', /^\/v1\/store$/, 'payment:read', () => json(service.storeView())],
    // JSON bodies, as every /v1 body is: a setup sent as text/plain (fetch's default for a
    // string) is refused here as it is for a payment, not taken.
    ['POST', /^\/v1\/webhook-endpoints$/, 'webhook:bootstrap', ({ req, body }) => {
      requireJsonContentType(req.headers['content-type']);
      return json(service.createWebhook({ idempotencyKey: req.headers['idempotency-key'], body }));
    }],
    ['POST', /^\/v1\/webhook-endpoints\/([^/]+)\/verify$/, 'webhook:bootstrap', ({ req, params, body }) => {
      requireJsonContentType(req.headers['content-type']);
      return json(service.verifyBinding(params[0], body));
    }],
    ['POST', /^\/sandbox\/keys$/, null, ({ body }) => json(service.issueKey(field(body, 'scopes', Array.isArray, 'an array of scopes')))],
    ['POST', /^\/sandbox\/keys\/revoke$/, null, ({ body }) =>
      json(service.revokeKey(field(body, 'api_key', (v) => typeof v === 'string', 'the key to revoke, a string')))],
    ['POST', /^\/sandbox\/payments\/([^/]+)\/pay$/, null, ({ params, body }) => {
      const [amount, hold] = fields(body, [['amount_raw', (v) => v !== undefined, 'an amount_raw string'],
        ['hold', (v) => v === undefined || typeof v === 'boolean', 'true or false (optional)']]);
      return json(service.pay(params[0], amount, hold === true));
    }],
    ['POST', /^\/sandbox\/payments\/([^/]+)\/settle$/, null, ({ params }) => json(service.settle(params[0]))],
    ['POST', /^\/sandbox\/payments\/([^/]+)\/review$/, null, ({ params }) => json(service.review(params[0]))],
    ['POST', /^\/sandbox\/payments\/([^/]+)\/expire$/, null, ({ params }) => json(service.expire(params[0]))],
    ['POST', /^\/sandbox\/webhook\/rotate$/, null, () => json(service.rotate())],
    ['POST', /^\/sandbox\/webhook\/activate$/, null, () => json(service.activate())],
    ['POST', /^\/sandbox\/events\/([^/]+)\/replay$/, null, ({ params }) => json(service.replay(params[0]), 202)],
    ['GET', /^\/sandbox\/events$/, null, ({ url }) => json({ events: service.listEvents(url.searchParams.get('payment_id') ?? undefined) })],
    ['GET', /^\/sandbox\/deliveries$/, null, ({ url }) => {
      const eventId = url.searchParams.get('event_id');
      const paymentId = url.searchParams.get('payment_id');
      const keep = (d) => (eventId === null || d.event_id === eventId) && (paymentId === null || d.payment_id === paymentId);
      return json({ deliveries: delivery.attempts().filter(keep), pending: delivery.pending().filter(keep) });
    }],
    ['GET', /^\/checkout\/([^/]+)$/, null, ({ req, params }) => {
      const html = /text\/html/.test(String(req.headers.accept ?? ''));
      try {
        service.openCheckout(params[0]);
      } catch (error) {
        if (html && error instanceof SandboxError) return { status: error.status, ...checkoutRefusal(error) };
        throw error;
      }
      const view = service.checkoutView(params[0]);
      return html ? { status: 200, ...checkoutPage(view, service.storeView().primary_source, service.checkoutOrigin(params[0])) } : json(view);
    }],
  ];
}

/**
 * Members of a JSON object body, each [name, ok, what] checked by `ok`, the body read once; the
 * first that fails (or a body that is no JSON object: named by the first) is request_invalid.
 */
function fields(body, members) {
  const text = bodyText(body);
  const wrong = ([name, , what]) => refusal('request_invalid', `the body must be a JSON object with ${name}, ${what}`);
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    throw wrong(members[0]);
  }
  return members.map((member) => {
    const [name, ok] = member;
    if (value === null || typeof value !== 'object' || !ok(value[name])) throw wrong(member);
    return value[name];
  });
}

/** A member of a JSON object body, checked by `ok`, or request_invalid. */
const field = (body, name, ok, what) => fields(body, [[name, ok, what]])[0];

// A body over the limit is refused at once (answered 413 while the rest arrives), and what
// follows is read and dropped up to MAX_DRAINED_BYTES, so that a client still writing its body
// reads the answer rather than a connection reset; past that, the connection is closed.
const MAX_DRAINED_BYTES = 8 * 1024 * 1024;
function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
      else if (size - chunk.length <= MAX_REQUEST_BYTES) reject(refusal('request_too_large'));
      else if (size > MAX_REQUEST_BYTES + MAX_DRAINED_BYTES) req.socket?.destroy();
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res, status, answer) {
  const html = answer.html !== undefined;
  const body = html ? answer.html : `${JSON.stringify(answer.json, null, 2)}\n`;
  res.writeHead(status, {
    'content-type': html ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    ...(answer.allow ? { allow: answer.allow } : {}),
    ...answer.headers,
  });
  res.end(body);
}

/** The answer to a thrown error: the service's refusal, the core's code as a 400, or a 500. */
function failure(error, log) {
  if (error instanceof SandboxError) return { status: error.status, json: error.toJSON() };
  if (error instanceof CryptoPayError) return { status: 400, json: { error: { code: error.code, message: error.message } } };
  log(`internal error: ${error?.stack ?? error}`, { type: 'internal_error' });
  const internal = refusal('internal_error');
  return { status: internal.status, json: internal.toJSON() };
}

// Whether a browser's Origin is the sandbox's own page: its base URL, the public URL it was
// told a browser opens, or a loopback alias of the base URL on the same port (the checkout
// page opened as localhost posts its Pay button from there). Never whatever the Host header
// says: a DNS-rebinding page would pass.
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
function ownOrigin(origin, base, published) {
  let url;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const own = new URL(base);
  if (url.origin === own.origin || url.origin === published) return true;
  // The loopback names the Host check takes (isLoopbackName): a page it serves may post.
  return url.protocol === own.protocol && url.port === own.port && isLoopbackName(url.hostname) && isLoopbackName(own.hostname);
}

// Names no DNS answer can rebind: loopback ones, a *.localhost name (browsers resolve those
// themselves), 0.0.0.0 as typed on Linux and macOS; one trailing dot allowed (`localhost.`).
const isLoopbackName = (name) => {
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  return LOOPBACK.has(bare) || bare === '0.0.0.0' || bare.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(bare)
    || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(bare);
};

// Whether a request's Host names the sandbox, asked of one listening on loopback only: a
// loopback name or --public-url's host. A DNS-rebinding page reaches a loopback sandbox under
// the attacker's name, and a browser sends no Origin with its GETs: without this it could read
// the events and the webhook log. A sandbox told to listen elsewhere (0.0.0.0 in a container,
// a LAN address) takes any Host: its exposure is the developer's choice (createServer's
// loopbackOnly).
function ownHost(host, published) {
  if (host === undefined) return true;
  let name;
  try {
    name = new URL(`http://${host}`).hostname;
  } catch {
    return false;
  }
  return isLoopbackName(name) || (published !== undefined && published !== null && name === new URL(published).hostname);
}

// The path of a request, read once: a request target no URL parser takes (`//[`) is
// not_found, never a throw outside the handler.
function pathOf(req) {
  try {
    return new URL(req.url ?? '/', 'http://sandbox.invalid');
  } catch {
    return null;
  }
}

/** The node:http server of a sandbox (not yet listening). */
export function createServer({ service, delivery, baseUrl, publicUrl, log, loopbackOnly = true }) {
  const table = routes(service, delivery);
  async function handle(req, res, url) {
    if (url === null) throw refusal('not_found');
    if (loopbackOnly && !ownHost(req.headers.host, publicUrl())) throw refusal('forbidden_host');
    // The keyless /sandbox actions (rotate, activate, keys) are for the developer's own tools:
    // a page in a browser (which sends its Origin) may not drive them.
    const origin = req.headers.origin;
    if (origin !== undefined && !ownOrigin(origin, baseUrl(), publicUrl()) && !url.pathname.startsWith('/checkout/')) {
      throw refusal('forbidden_origin');
    }
    // Every /v1 call needs a key: 401 before its path, method or body is looked at.
    if (url.pathname === '/v1' || url.pathname.startsWith('/v1/')) service.authorize(req.headers.authorization);
    const body = await readBody(req);
    if (req.method === 'GET' && url.pathname === '/') {
      send(res, 200, hostedEntryPage(publicUrl()));
      return 200;
    }
    const matching = table.filter(([, pattern]) => pattern.test(url.pathname));
    if (matching.length === 0) throw refusal('not_found');
    const route = matching.find(([method]) => method === req.method);
    if (route === undefined) {
      const error = refusal('method_not_allowed');
      send(res, error.status, { json: error.toJSON(), allow: matching.map(([method]) => method).join(', ') });
      return error.status;
    }
    const [, pattern, scope, handler] = route;
    let params;
    try {
      params = pattern.exec(url.pathname).slice(1).map(decodeURIComponent);
    } catch {
      // An id that is not percent-encoding names nothing: the route's own "not found".
      const notFound = url.pathname.startsWith('/sandbox/events') ? 'event_not_found'
        : url.pathname.startsWith('/v1/webhook-endpoints') ? 'webhook_not_found' : 'payment_not_found';
      throw refusal(notFound);
    }
    if (scope !== null) service.authorize(req.headers.authorization, scope);
    const answer = handler({ req, url, params, body });
    send(res, answer.status, answer);
    return answer.status;
  }
  // Slow or endless requests end within these (a request's whole time, its headers'), checked
  // every 5 s rather than Node's 30.
  return http.createServer({ requestTimeout: 30_000, headersTimeout: 10_000, connectionsCheckingInterval: 5_000 }, (req, res) => {
    const url = pathOf(req);
    const path = url?.pathname ?? '(not a path)';
    handle(req, res, url).then(
      (status) => log(`${req.method} ${path} ${status}`, { type: 'request', method: req.method, path, status }),
      (error) => {
        // The sender went away mid-body: nobody to answer (a failure of the sandbox's own is
        // still logged).
        if (req.socket?.destroyed === true && !(error instanceof SandboxError)) {
          if (!/aborted|ECONNRESET/.test(String(error?.code ?? error?.message))) log(`internal error: ${error?.stack ?? error}`, { type: 'internal_error' });
          return;
        }
        const answer = failure(error, log);
        if (!res.headersSent) send(res, answer.status, answer);
        else res.destroy();
        const code = answer.json.error.code;
        log(`${req.method} ${path} ${answer.status} ${code}`, { type: 'request', method: req.method, path, status: answer.status, code });
      },
    );
  });
}
