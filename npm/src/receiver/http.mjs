// The two HTTP faces of a receiver: `fetch(request)` (Workers, Deno, Bun, Next.js route
// handlers, Hono) and `node(req, res)` (node:http, Express). Both read
// the raw body with a bound (body.mjs), then hand { body, headers } to handle() and write its answer.
// Nothing here imports a Node module: the same file runs in every runtime.

import { BODY_ALREADY_READ, parserKeptRawBody } from '../api/hints.mjs';
import { answers } from './answers.mjs';
import { readFetchBody, readNodeBody } from './body.mjs';
import { UNREAD_BODY_BYTES } from './limits.mjs';
import { describeError } from './stores/common.mjs';

const encoder = new TextEncoder();

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

export function nodeHandler({ handle, arrival, limit, budget, bodyTimeoutMs, error, warn, answered }) {
  let parserSeen = false;
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
        answered(503, 'busy', { bufferedBytes: read.buffered }, read);
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
        answered(413, 'too_large', { code: 'body_too_large', bodyBytes: read.size }, read);
        // Past the drain limit the rest is not read; within it, the body was read to its end.
        if (read.close) sendAndClose(req, res, answers.tooLarge());
        else send(res, answers.tooLarge());
        return;
      }
      if (!parserSeen && read.body === req.rawBody && isParsed(req.body)) {
        parserSeen = true;
        warn(parserKeptRawBody(await limit()));
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
      const bodyLimit = await limit();
      const read = await readFetchBody(request, bodyLimit, budget, bodyTimeoutMs);
      // Nobody to answer, as in node(): not the receiver's fault, so not logged or counted.
      if (read.aborted) return toResponse(answers.internal());
      if (read.refusedInFront) {
        // A 500, retried: the same delivery verifies once the framework's limit is raised (a 413
        // is final for the service, and the event would be lost).
        error(`rejected: body_not_raw: the request's body stream was ended by what runs in front of the receiver, at a limit of its `
          + `own (${describeError(read.refusedInFront)}), after ${read.size} bytes: raise that limit above the receiver's maxBodyBytes `
          + `(${bodyLimit} bytes): SvelteKit's adapter-node reads BODY_SIZE_LIMIT (512K by default; BODY_SIZE_LIMIT=Infinity leaves `
          + 'it to the receiver); answered 500 so the service retries', 'body_refused');
        answered(500, 'misconfigured', { code: 'body_not_raw', bodyBytes: read.size });
        return toResponse(answers.misconfigured('body_not_raw'));
      }
      if (read.timedOut) {
        answered(408, 'body_timeout', { bodyBytes: read.size });
        return toResponse(answers.bodyTimeout());
      }
      if (read.busy) {
        answered(503, 'busy', { bufferedBytes: read.buffered }, read);
        return toResponse(answers.busy());
      }
      if (read.tooLarge) {
        answered(413, 'too_large', { code: 'body_too_large', bodyBytes: read.size }, read);
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
