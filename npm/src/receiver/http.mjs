// The two HTTP faces of a receiver: `fetch(request)` (Workers, Deno, Bun, Next.js route
// handlers, Hono) and `node(req, res)` (node:http, Express). Both read
// the raw body with a bound, then hand { body, headers } to handle() and write its answer.
// Nothing here imports a Node module: the same file runs in every runtime.

import { BODY_ALREADY_READ } from '../api/hints.mjs';
import { answers } from './answers.mjs';
import { UNREAD_BODY_BYTES } from './limits.mjs';
import { describeError } from './stores/common.mjs';

const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);

// A body over the limit is read to its end and discarded up to this many times the limit, so
// the sender gets the 413 rather than a reset; past that the connection is closed.
const DRAIN_FACTOR = 16;
// The least room a body copied from several chunks is given (an event is a few KB). Past it the
// room is twice the bytes that came so far, or the declared length when that is within it: never
// much more than was sent, so that the budget a sender holds costs it about as many bytes.
const MIN_ROOM = 1024;

/**
 * A body's bytes as they arrive, at most `limit` of them (the caller stops adding past it and
 * clears): copied into one buffer that grows by doubling (to the declared length when that is
 * within twice what came). Chunks are not kept as objects of their own: a body sent as a million chunks of one
 * byte costs what its bytes do (kept apart, 4 MiB of such chunks held about 1.7 GB, and two
 * unsigned requests could exhaust a process). A body of one chunk is that chunk, not a copy.
 *
 * What it holds (the first chunk, or the buffer, whose room is counted, not only its bytes) is
 * set aside in the receiver's `budget` (readBudget): `add` answers false, keeping nothing more,
 * when the budget refuses; `clear` and `release` give it all back.
 */
function bodyCollector(limit, declared, budget) {
  let first = null;
  let out = null;
  let size = 0;
  let held = 0;
  const take = (n) => {
    if (!budget.take(held, n)) return false;
    held += n;
    return true;
  };
  const release = () => {
    budget.give(held);
    held = 0;
  };
  return {
    add(bytes) {
      if (size === 0 && out === null) {
        if (bytes.byteLength === 0) return true;
        if (!take(bytes.byteLength)) return false;
        first = bytes;
        size = bytes.byteLength;
        return true;
      }
      const need = size + bytes.byteLength;
      if (out === null || need > out.byteLength) {
        // The declared length sizes the buffer only once the bytes come close to it: a sender
        // that declares 4 MiB and sends two bytes must not have 4 MiB (nor 64 KiB) set aside.
        const doubled = Math.max(need * 2, MIN_ROOM);
        const capacity = Math.min(limit, declared >= need && declared < doubled ? declared : doubled);
        // Both are held while the bytes are copied; then only the new one.
        if (!take(capacity)) return false;
        const old = out ?? first;
        const grown = new Uint8Array(capacity);
        grown.set(old.subarray(0, size));
        out = grown;
        first = null;
        budget.give(old.byteLength);
        held -= old.byteLength;
      }
      out.set(bytes, size);
      size = need;
      return true;
    },
    clear() {
      first = null;
      out = null;
      size = 0;
      release();
    },
    release,
    body() {
      if (size === 0) return EMPTY;
      if (first !== null) return first;
      return size === out.byteLength ? out : out.slice(0, size);
    },
  };
}

/**
 * The bytes of bodies a receiver holds while it reads them, across its deliveries in flight
 * (the slow senders' among them: a body is held while it arrives): `take(held, n)` sets aside
 * `n` more for a delivery that holds `held`, or answers false when that would pass `max`,
 * unless that delivery is the only one holding any, so that no body within maxBodyBytes is
 * refused for as long as it is alone. `give(n)` returns them.
 */
export function readBudget(max) {
  let used = 0;
  return {
    max,
    take(held, n) {
      if (held !== used && used + n > max) return false;
      used += n;
      return true;
    },
    give(n) {
      used -= n;
    },
    get used() {
      return used;
    },
  };
}

const declaredLength = (value) => {
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : -1;
};

// The raw body of a Node request. Resolves { body }, { tooLarge, close }, { busy, buffered },
// { timedOut, size } (not all of it within `timeoutMs`), { aborted } or { consumed }. When a
// framework already read the stream and kept its bytes in req.rawBody (Google Cloud Functions
// and Firebase, NestJS with rawBody: true, an Express parser's verify callback), those bytes
// are the body; a string there (a verify callback's buf.toString(), as
// tutorials write it) is taken as its UTF-8 bytes, as a string body is. Otherwise its
// req.body is used as it is (express.raw(),
// express.json(), ...): bytes or a string verify, a parsed object is body_not_raw; read with
// no req.body left (Fastify reads request.raw before any handler) is `consumed`.
function readNodeBody(req, limit, budget, timeoutMs) {
  if (req.readableEnded) {
    if (req.rawBody instanceof Uint8Array || typeof req.rawBody === 'string') return Promise.resolve({ body: req.rawBody });
    return Promise.resolve(req.body === undefined ? { consumed: true } : { body: req.body });
  }
  // The sender went away before this handler ran (a lazy receiver's cold start, a framework's
  // own await first): its 'close' has fired already, and no listener added now would settle.
  if (req.destroyed === true || req.readableAborted === true) return Promise.resolve({ aborted: true });
  const drainLimit = DRAIN_FACTOR * limit;
  const declared = declaredLength(req.headers?.['content-length']);
  if (declared > drainLimit) return Promise.resolve({ tooLarge: true, close: true, size: declared });
  return new Promise((resolve) => {
    // What it holds is given back to the budget when the read settles, however it does.
    const collected = bodyCollector(limit, declared, budget);
    let size = 0;
    let settled = false;
    const settle = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      collected.release();
      req.off('data', onData);
      resolve(result);
    };
    const timer = setTimeout(() => settle({ timedOut: true, size }), timeoutMs);
    // Declared over the limit: read only to drain it (as fetch does), never buffered.
    const over = declared > limit;
    const onData = (chunk) => {
      const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
      size += bytes.byteLength;
      if (!over && size <= limit) {
        if (!collected.add(bytes)) settle({ busy: true, buffered: budget.used });
      } else if (size > drainLimit) {
        settle({ tooLarge: true, close: true, size });
      } else {
        collected.clear();
      }
    };
    req.on('data', onData);
    req.once('end', () => settle(over || size > limit ? { tooLarge: true, close: false, size } : { body: collected.body() }));
    req.once('error', () => settle({ aborted: true }));
    req.once('close', () => settle({ aborted: true })); // no effect once 'end' settled
  });
}

function send(res, { status, body, headers }, close = false) {
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  const bytes = encoder.encode(body);
  res.writeHead(status, { ...headers, 'content-length': String(bytes.byteLength), ...(close ? { connection: 'close' } : {}) });
  res.end(bytes);
}

// An answer sent before the body was read to its end: the rest is not waited for, the answer
// says `Connection: close`, and the connection closes once the answer is out.
function sendAndClose(req, res, answer) {
  send(res, answer, true);
  res.once?.('finish', () => req.destroy?.());
}

/**
 * A body `node` answers without reading, let go so that the connection can be reused: read
 * and dropped, but past UNREAD_BODY_BYTES the request (its connection) is destroyed.
 */
export function letGo(req) {
  if (typeof req?.resume !== 'function') return;
  let seen = 0;
  req.on?.('data', (chunk) => {
    seen += chunk.length;
    if (seen > UNREAD_BODY_BYTES) req.destroy?.();
  });
  req.resume();
}

/**
 * An answer written where nothing is left to fall back on: a response that cannot be written
 * (its writeHead throws) is destroyed, so that node() never rejects.
 */
export function sendOrDestroy(res, answer) {
  try {
    send(res, answer);
  } catch {
    res.destroy?.();
  }
}

// A body some code read before the receiver: a configuration error (500, the service retries
// while it is fixed), logged with the fix for each face (hints.mjs).
const CONSUMED = BODY_ALREADY_READ;

// What a JSON body parser leaves in req.body: an object or an array (bytes and strings verify).
const isParsed = (body) => body !== null && typeof body === 'object' && !ArrayBuffer.isView(body) && !(body instanceof ArrayBuffer);

// An argument with no method: a framework's context object or a wrapper (Hono's c rather than
// c.req.raw) was passed. The caller's fault, answered 500 and retried once fixed, never the 405
// the service gives up on.
const NO_METHOD = {
  node: 'node(req, res) was given a req with no method: pass Node\'s IncomingMessage (Express: req; Fastify: request.raw and reply.raw)',
  fetch: 'fetch(request) was given an object with no method: pass the Fetch Request (Hono: c.req.raw; Elysia: request)',
};

// Node's request given to a face that answers by returning (app.post('/webhook', receiver.fetch)
// or receiver.handle in Express, which ignores what a handler returns): the request would hang
// until the sender gave up, and what the face would say (a request with no Fetch headers, a body
// not read) would send the merchant after the wrong fix.
const NODE_REQUEST = {
  fetch: 'fetch(request) was given Node\'s IncomingMessage: in node:http or Express use receiver.node(req, res) '
    + '(app.post(\'/webhook\', receiver.node)); fetch takes a Fetch Request',
  handle: 'handle(delivery) was given Node\'s IncomingMessage: in node:http or Express use receiver.node(req, res) '
    + '(app.post(\'/webhook\', receiver.node)); handle takes { body, headers } and returns the answer for your code to send',
};

/** Whether `value` is Node's IncomingMessage (raw headers, a stream, no Fetch `Headers`). */
export const isNodeRequest = (value) => value !== null && typeof value === 'object' && Array.isArray(value.rawHeaders)
  && typeof value.on === 'function' && typeof value.headers?.get !== 'function';

/**
 * For `fetch` and `handle`: when given Node's request, the 500 that says so (logged), written to
 * the response beside it when there is one (Express passes `res` second); else null. `handle`
 * only with that response: your code may call handle(req) itself, after express.raw(), and
 * send the answer (req has the body and the headers `handle` reads).
 */
export function misplacedNodeRequest(face, request, res, { error, answered }) {
  if (!isNodeRequest(request) || (face === 'handle' && typeof res?.writeHead !== 'function')) return null;
  error(NODE_REQUEST[face], 'node_request');
  answered(500, 'misconfigured', { code: 'invalid_argument' });
  const answer = answers.misconfigured('invalid_argument');
  if (typeof res?.writeHead === 'function') sendAndClose(request, res, answer);
  return answer;
}

/** What a request's method alone decides, for both faces: an answer, or null to read the body. */
function byMethod(method, noMethod, error, answered) {
  if (typeof method !== 'string') {
    error(noMethod, 'no_method');
    answered(500, 'misconfigured', { code: 'invalid_argument' });
    return answers.misconfigured('invalid_argument');
  }
  if (method !== 'POST') {
    answered(405, 'method');
    return answers.methodNotAllowed();
  }
  return null;
}

export function nodeHandler({ handle, arrival, limit, budget, bodyTimeoutMs, error, answered }) {
  /** node:http, Express. */
  return async function node(req, res) {
    try {
      const refused = byMethod(req?.method, NO_METHOD.node, error, answered);
      if (refused) {
        if (refused.status === 405) letGo(req); // the body unread, so keep-alive can go on
        send(res, refused);
        return;
      }
      const arrived = arrival(); // before the body: the skew is judged from its arrival
      const read = await readNodeBody(req, await limit(), budget, bodyTimeoutMs);
      if (read.aborted) return; // the sender went away: nothing to answer
      if (read.timedOut) {
        answered(408, 'body_timeout', { bodyBytes: read.size });
        sendAndClose(req, res, answers.bodyTimeout());
        return;
      }
      if (read.busy) {
        answered(503, 'busy', { bufferedBytes: read.buffered });
        sendAndClose(req, res, answers.busy());
        return;
      }
      if (read.consumed || isParsed(read.body)) {
        error(read.consumed ? CONSUMED.node : CONSUMED.parsed, 'body_not_raw');
        answered(500, 'misconfigured', { code: 'body_not_raw' });
        send(res, answers.misconfigured('body_not_raw'));
        return;
      }
      if (read.tooLarge) {
        answered(413, 'too_large', { code: 'body_too_large', bodyBytes: read.size });
        // Past the drain limit the rest is not read; within it, the body was read to its end.
        if (read.close) sendAndClose(req, res, answers.tooLarge());
        else send(res, answers.tooLarge());
        return;
      }
      // rawHeaders keeps a header sent twice apart (header_duplicated). A request built by
      // hand (serverless-http and its kind) leaves it [] and sets req.headers.
      const raw = Array.isArray(req.rawHeaders) && req.rawHeaders.length > 0 ? req.rawHeaders : undefined;
      send(res, await handle({ body: read.body, headers: raw ?? req.headers }, arrived));
    } catch (failure) {
      error(`internal: ${describeError(failure)}`, 'internal');
      answered(500, 'internal');
      if (res.headersSent) res.destroy?.();
      else sendOrDestroy(res, answers.internal());
    }
  };
}

// The raw body of a Fetch request, at most `limit` bytes. Resolves { body }, { tooLarge },
// { busy, buffered } (the budget of bytes being read was spent: the rest is cancelled),
// { timedOut, size } (not all of it within `timeoutMs`: the rest is cancelled), { aborted }
// (its stream failed: the sender went away) or { consumed } (a body some code
// already read or locked). A body over the limit is read to its end and
// discarded, as in node(), up to DRAIN_FACTOR times the limit, so that the sender gets the 413
// rather than a connection reset (which a sender retries); past that it is cancelled.
async function readFetchBody(request, limit, budget, timeoutMs) {
  // Read, or locked by a reader some code took (request.body.getReader()): not the receiver's.
  if (request.bodyUsed || request.body?.locked === true) return { consumed: true };
  const drainLimit = DRAIN_FACTOR * limit;
  const declared = declaredLength(request.headers.get('content-length'));
  // A stream's cancel is not awaited: one that never settles must not hold the answer.
  if (declared > drainLimit) {
    request.body?.cancel().catch(() => {});
    return { tooLarge: true, size: declared };
  }
  if (request.body === null) return { body: EMPTY };
  const reader = request.body.getReader();
  // What it holds is given back to the budget however the read ends.
  const collected = bodyCollector(limit, declared, budget);
  // One deadline for the whole body (a sender that sends a byte now and then would outlast a
  // deadline per read): at it the stream is cancelled, which ends the read waiting. Not a
  // race of each read against one promise that lasts the whole body: every race left a
  // reaction on it holding its chunk, so a body sent in one-byte chunks kept hundreds of
  // bytes per byte until the read ended, outside maxBufferedBytes.
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, timeoutMs);
  try {
    let size = 0;
    // Declared over the limit: read only to drain it.
    let over = declared > limit;
    for (;;) {
      let next;
      try {
        next = await reader.read();
      } catch {
        // The sender went away mid-body (or the stream failed), unless the deadline cancelled it.
        return timedOut ? { timedOut: true, size } : { aborted: true };
      }
      if (timedOut) return { timedOut: true, size };
      if (next.done) break;
      const value = chunkBytes(next.value);
      size += value.byteLength;
      if (size > drainLimit) {
        reader.cancel().catch(() => {});
        return { tooLarge: true, size };
      }
      if (!over && size > limit) {
        over = true;
        collected.clear();
      }
      if (!over && !collected.add(value)) {
        reader.cancel().catch(() => {});
        return { busy: true, buffered: budget.used };
      }
    }
    return over ? { tooLarge: true, size } : { body: collected.body() };
  } finally {
    clearTimeout(timer);
    collected.release();
  }
}

/**
 * A chunk of a Fetch body as bytes. A `Request`'s own stream yields Uint8Arrays; one an adapter
 * built may yield strings (taken as UTF-8), ArrayBuffers or other views. Anything else is the
 * adapter's fault: a TypeError, answered 500 (internal).
 */
function chunkBytes(value) {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return encoder.encode(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  const kind = value === null ? 'null' : typeof value;
  throw new TypeError(`a chunk of the request body is ${kind}, not bytes: the Request's body stream must yield Uint8Arrays`);
}

/** An answer as a Fetch `Response`. */
export const toResponse = ({ status, body, headers }) => new Response(body, { status, headers });

export function fetchHandler({ handle, arrival, limit, budget, bodyTimeoutMs, error, answered }) {
  /** Workers, Deno, Bun, Next.js route handlers, Hono (c.req.raw). */
  return async function fetch(request, res) {
    try {
      const misplaced = misplacedNodeRequest('fetch', request, res, { error, answered });
      if (misplaced) return toResponse(misplaced);
      const refused = byMethod(request?.method, NO_METHOD.fetch, error, answered);
      if (refused) return toResponse(refused);
      const arrived = arrival(); // before the body, as in node()
      const read = await readFetchBody(request, await limit(), budget, bodyTimeoutMs);
      // Nobody to answer, as in node(): not the receiver's fault, so not logged or counted.
      if (read.aborted) return toResponse(answers.internal());
      if (read.timedOut) {
        answered(408, 'body_timeout', { bodyBytes: read.size });
        return toResponse(answers.bodyTimeout());
      }
      if (read.busy) {
        answered(503, 'busy', { bufferedBytes: read.buffered });
        return toResponse(answers.busy());
      }
      if (read.tooLarge) {
        answered(413, 'too_large', { code: 'body_too_large', bodyBytes: read.size });
        return toResponse(answers.tooLarge());
      }
      if (read.consumed) {
        error(CONSUMED.fetch, 'body_not_raw');
        answered(500, 'misconfigured', { code: 'body_not_raw' });
        return toResponse(answers.misconfigured('body_not_raw'));
      }
      return toResponse(await handle({ body: read.body, headers: request.headers }, arrived));
    } catch (failure) {
      error(`internal: ${describeError(failure)}`, 'internal');
      answered(500, 'internal');
      return toResponse(answers.internal());
    }
  };
}
