// Reading a request's raw body, for the receiver's two HTTP faces (http.mjs): bounded by the
// body limit, by the bytes every body being read may hold together (readBudget), and by a
// deadline. Nothing here imports a Node module: the same file runs in every runtime.

import { EVICT_AFTER_MS } from './limits.mjs';

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
 * when the budget refuses; `clear` and `release` give it all back. `evicted()` is called when
 * a newer read took its room (readBudget): it holds nothing from then on, and adds nothing.
 */
function bodyCollector(limit, declared, budget, evicted = () => {}) {
  let first = null;
  let out = null;
  let size = 0;
  let ended = false;
  const holder = budget.holder(() => {
    ended = true;
    first = null;
    out = null;
    evicted();
  });
  const take = (n) => !ended && budget.take(holder, n);
  const release = () => budget.give(holder);
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
        budget.give(holder, old.byteLength);
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
 * (the slow senders' among them: a body is held while it arrives). Each read is a `holder(evict)`;
 * `take(holder, n)` sets aside `n` more for it, or answers false when that would pass `max`,
 * unless it is the only read holding any, so that no body within maxBodyBytes is refused for
 * as long as it is alone. Before refusing, it ends the read that has held bytes longest, when
 * that began EVICT_AFTER_MS or more ago (its `evict()`, which gives its bytes back: it is
 * answered busy), as often as that makes room: a budget held by senders that stopped sending
 * is taken back by the deliveries that come, one by one. `give(holder, n)` returns `n` of a
 * read's bytes (all of them by default).
 */
export function readBudget(max, now = () => Date.now()) {
  let used = 0;
  // The reads holding bytes, in the order they first took some: the longest held first.
  const holding = new Set();
  const budget = {
    max,
    holder(evict) {
      return { held: 0, since: now(), evict };
    },
    take(holder, n) {
      while (holder.held !== used && used + n > max) {
        const before = now() - EVICT_AFTER_MS;
        let oldest = null;
        for (const other of holding) {
          if (other !== holder && other.since <= before) {
            oldest = other;
            break;
          }
        }
        if (oldest === null) return false;
        budget.give(oldest);
        oldest.evict();
      }
      used += n;
      holder.held += n;
      holding.add(holder);
      return true;
    },
    give(holder, n = holder.held) {
      used -= n;
      holder.held -= n;
      if (holder.held === 0) holding.delete(holder);
    },
    get used() {
      return used;
    },
  };
  return budget;
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
export function readNodeBody(req, limit, budget, timeoutMs) {
  if (req.readableEnded) {
    if (req.rawBody instanceof Uint8Array || typeof req.rawBody === 'string') return Promise.resolve({ body: req.rawBody });
    return Promise.resolve(req.body === undefined ? { consumed: true } : { body: req.body });
  }
  // The sender went away before this handler ran (a lazy receiver's cold start, a framework's
  // own await first): its 'close' has fired already, and no listener added now would settle.
  if (req.destroyed === true || req.readableAborted === true) return Promise.resolve({ aborted: true });
  const drainLimit = DRAIN_FACTOR * limit;
  const declared = declaredLength(req.headers?.['content-length']);
  if (declared > drainLimit) return Promise.resolve({ tooLarge: true, close: true, size: declared, declared: true });
  return new Promise((resolve) => {
    // What it holds is given back to the budget when the read settles, however it does; a
    // newer read that took its room ends it (busy).
    const collected = bodyCollector(limit, declared, budget, () => settle({ busy: true, buffered: budget.used, evicted: true }));
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

// A stream error that is a framework's body limit (an error with status 413, or words of one).
function overLimitOfItsOwn(failure) {
  try {
    return failure?.status === 413 || failure?.statusCode === 413
      || /\b(exceed(s|ed)?|too large)\b/i.test(String(failure?.message ?? ''));
  } catch {
    return false;
  }
}

// The raw body of a Fetch request, at most `limit` bytes. Resolves { body }, { tooLarge },
// { busy, buffered } (the budget of bytes being read was spent: the rest is cancelled),
// { timedOut, size } (not all of it within `timeoutMs`: the rest is cancelled), { aborted }
// (its stream failed: the sender went away), { refusedInFront, size } (the stream ended by a
// framework's own body limit) or { consumed } (a body some code
// already read or locked). A body over the limit is read to its end and
// discarded, as in node(), up to DRAIN_FACTOR times the limit, so that the sender gets the 413
// rather than a connection reset (which a sender retries); past that it is cancelled.
export async function readFetchBody(request, limit, budget, timeoutMs) {
  // Read, or locked by a reader some code took (request.body.getReader()): not the receiver's.
  if (request.bodyUsed || request.body?.locked === true) return { consumed: true };
  const drainLimit = DRAIN_FACTOR * limit;
  const declared = declaredLength(request.headers.get('content-length'));
  // A stream's cancel is not awaited: one that never settles must not hold the answer.
  if (declared > drainLimit) {
    request.body?.cancel().catch(() => {});
    return { tooLarge: true, size: declared, declared: true };
  }
  if (request.body === null) return { body: EMPTY };
  const reader = request.body.getReader();
  // What it holds is given back to the budget however the read ends; a newer read that took
  // its room cancels it (busy).
  let evicted = false;
  const collected = bodyCollector(limit, declared, budget, () => {
    evicted = true;
    reader.cancel().catch(() => {});
  });
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
      } catch (failure) {
        // The sender went away mid-body (or the stream failed), unless the deadline cancelled it,
        // or a framework in front ended the stream at a body limit of its own (SvelteKit's
        // BODY_SIZE_LIMIT: a 413 error) while the sender waits for an answer.
        if (timedOut) return { timedOut: true, size };
        if (evicted) return { busy: true, buffered: budget.used, evicted: true };
        return overLimitOfItsOwn(failure) ? { refusedInFront: failure, size } : { aborted: true };
      }
      if (timedOut) return { timedOut: true, size };
      if (evicted) return { busy: true, buffered: budget.used, evicted: true };
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
