// The client's requests: one request to the service, retried with the same headers and the
// same body bytes; its answer read with a bound and a deadline; what went wrong as a
// CryptoPayApiError that never holds the API key or a secret given to the call.

import { brand } from '../api/brand.mjs';
import { MAX_READ, maskCredentials } from '../api/redact.mjs';

// Statuses the service may answer differently on a retry (the delivery rules' set).
const RETRYABLE = new Set([408, 425, 429]);
// What an answer without an ErrorResponse asks to check, by its status.
const STATUS_HINTS = {
  401: 'check the API key (apiKey: the key itself, no "Bearer " prefix, not revoked)',
  403: 'check the API key\'s scopes (payment:write to create and cancel, payment:read to read, webhook:bootstrap for webhook endpoints)',
  404: 'check baseUrl (the service\'s base address, without /v1) and the id',
  redirect: 'redirects are not followed: check baseUrl (the service\'s base address, https, without /v1)',
};
// What an error keeps of an answer that is not the service's ErrorResponse.
const MAX_TEXT = 2000;
// The most of an answer read: the API's answers are small; a larger one (a proxy's page, a
// misbehaving server) is cut there, not buffered whole.
export const MAX_ANSWER_BYTES = 1024 * 1024;
// The longest wait a Retry-After may add to a retry; one asking for longer ends the retries,
// the error keeping it (`retryAfterMs`) for the caller.
const MAX_RETRY_AFTER_MS = 30_000;
// The most `retryAfterMs` says: a date years ahead would overflow a timer (setTimeout takes
// at most 2^31 - 1 ms, and fires at once beyond).
const RETRY_AFTER_CAP_MS = 24 * 60 * 60 * 1000;
// The headers that may carry the service's id of a request, to quote to its support.
const REQUEST_ID_HEADERS = ['request-id', 'x-request-id'];
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A JSON object (not null, not an array): the client's one test of it. */
export const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const pause = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/**
 * What the service answered when it was not a success, or why no answer came: `status` (0
 * when none: a timeout or a network error, an answer whose body broke off too), `code` (ErrorResponse's `error.code`, else
 * `http_<status>`, `timeout`, `network_error`, `invalid_response`...), `retryable` (the same
 * request may succeed later: a timeout, a network error, 408, 425, 429, 5xx). A message never
 * holds the API key or a secret.
 */
export class CryptoPayApiError extends Error {
  constructor({ status, code, message, retryable, text, cause, ...more }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'CryptoPayApiError';
    this.status = status;
    this.code = code;
    this.retryable = retryable;
    if (text !== undefined) this.text = text;
    for (const [key, value] of Object.entries(more)) if (value !== undefined) this[key] = value;
  }
}
// instanceof holds across the package's copies (its ES module and CommonJS entries).
brand(CryptoPayApiError, 'CryptoPayApiError');

/** The forms a secret may take in an answer that echoes it: as given, JSON-escaped, URL-encoded. */
function echoesOf(secret) {
  const json = JSON.stringify(secret).slice(1, -1);
  return [...new Set([secret, json, json.replaceAll('/', '\\/'), encodeURIComponent(secret)])]
    .sort((a, b) => b.length - a.length);
}

// An echo cut short (`sk_live_0123456789ab...`), in other letter case, or in base64 (of the
// secret, or of its Authorization header's value): any PART characters in a row of one of
// those forms are masked. Letters compared as lower case (ASCII only: the text keeps its length).
const PART = 12;
const lowered = (text) => text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
const base64 = (text) => btoa(Array.from(encoder.encode(text), (byte) => String.fromCharCode(byte)).join(''));

/** The PART-character runs of a secret's forms, for `maskParts`. */
function partsOf(secret) {
  const parts = new Set();
  for (const form of [secret, base64(secret), base64(`Bearer ${secret}`)]) {
    const text = lowered(form);
    for (let at = 0; at + PART <= text.length; at += 1) parts.add(text.slice(at, at + PART));
  }
  return parts;
}

/** `text` with every run that holds one of `parts` replaced by `***`. */
function maskParts(text, parts) {
  if (parts.size === 0 || text.length < PART) return text;
  const lower = lowered(text);
  const covered = new Uint8Array(text.length);
  for (let at = 0; at + PART <= text.length; at += 1) if (parts.has(lower.slice(at, at + PART))) covered.fill(1, at, at + PART);
  let out = '';
  for (let at = 0; at < text.length; at += 1) {
    if (!covered[at]) out += text[at];
    else if (at === 0 || !covered[at - 1]) out += '***';
  }
  return out;
}

/** Milliseconds a Retry-After asks for (seconds or an HTTP date), or 0; at most a day. */
function retryAfterMs(value, now = Date.now()) {
  if (typeof value !== 'string' || value.trim() === '') return 0;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) && ms > 0 ? Math.min(Math.ceil(ms), RETRY_AFTER_CAP_MS) : 0;
}

/** The request id an answer's headers give, when it is a short printable token; else undefined. */
function requestIdOf(headers) {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers?.get?.(name);
    if (typeof value === 'string' && /^[\x21-\x7e]{1,128}$/.test(value)) return value;
  }
  return undefined;
}

/** An answer's text, at most `limit` bytes of it (`cut` when there was more); `onReader` gets the stream's reader. */
async function readAnswer(response, limit, onReader) {
  const reader = typeof response.body?.getReader === 'function' ? response.body.getReader() : null;
  if (reader !== null) onReader(reader);
  if (reader === null) {
    const text = await response.text();
    return encoder.encode(text).byteLength > limit ? { text: text.slice(0, limit), cut: true } : { text, cut: false };
  }
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      return { text: decoder.decode(concat(chunks)), cut: true };
    }
    chunks.push(value);
  }
  return { text: decoder.decode(concat(chunks)), cut: false };
}

function concat(chunks) {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * The requests of one client: `request(method, path, { body, idempotencyKey, secrets, extra, seen })`
 * resolves a success's text; `masked(text, secrets)` hides the key and those secrets in text.
 */
export function transport({ base, apiKey, fetchFn, timeoutMs, retries }) {
  const keyEchoes = echoesOf(apiKey);
  const keyParts = partsOf(apiKey);
  const masked = (text, secrets = []) => {
    let out = String(text);
    const given = secrets.filter((secret) => typeof secret === 'string' && secret !== '');
    for (const echo of [...keyEchoes, ...given.flatMap(echoesOf)]) out = out.split(echo).join('***');
    out = maskParts(out, keyParts);
    for (const secret of given) out = maskParts(out, partsOf(secret));
    return out;
  };
  // At most `limit` characters of `text`, masked as masking it whole would (a 1 MiB page took
  // 0.4 s whole): a prefix is masked, `margin` characters past what is kept, so that every echo
  // starting in the kept part is whole in it; what comes of the prefix's last `margin`
  // characters (where an echo may be cut) is not kept. Masking never lengthens text (each
  // echo masked is 3 characters or more), so that is at most the last `margin` + 2 characters
  // of what it gives ('***' of a run across): a longer prefix when too few are left before them.
  const maskedPrefix = (text, limit, secrets = []) => {
    const whole = String(text);
    const given = secrets.filter((secret) => typeof secret === 'string' && secret !== '');
    const lengths = [apiKey.length, ...given.map((secret) => secret.length)];
    // An echo is at most 9 characters per character of its secret (a UTF-8 %XX%XX%XX).
    const margin = 9 * Math.max(...lengths) + PART + 2;
    // A secret under 3 characters is masked by something longer ('***'): all of it then.
    if (Math.min(...lengths) < 3) return masked(whole, given).slice(0, limit);
    for (let take = limit + margin; ; take *= 2) {
      if (take >= whole.length) return masked(whole, given).slice(0, limit);
      const out = masked(whole.slice(0, take), given);
      if (out.length - margin >= limit) return out.slice(0, limit);
    }
  };

  // What an error keeps of an answer's text: as maskCredentials would give it from the whole
  // text masked, cut to MAX_TEXT. maskCredentials reads the first MAX_READ characters once
  // white space is collapsed (and whether there are more): a masked prefix long enough for that.
  const keptText = (text, secrets) => {
    for (let take = MAX_READ + 2; ; take *= 2) {
      const part = maskedPrefix(text, take, secrets);
      if (part.length < take || part.replace(/\s+/g, ' ').length > MAX_READ + 1) return maskCredentials(part).slice(0, MAX_TEXT);
    }
  };

  function apiError(status, text, secrets, extra) {
    let code = `http_${status}`;
    let said = null;
    try {
      const parsed = JSON.parse(text);
      // A code that holds the key or a secret of the call (an echo) is not taken as a code.
      if (isPlainObject(parsed?.error) && typeof parsed.error.code === 'string' && /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(parsed.error.code)
        && masked(parsed.error.code, secrets) === parsed.error.code) {
        code = parsed.error.code;
        if (typeof parsed.error.message === 'string') said = maskCredentials(masked(parsed.error.message, secrets)).slice(0, 500);
      }
    } catch {
      // not an ErrorResponse: the raw text is kept
    }
    const retryable = RETRYABLE.has(status) || status >= 500;
    // The key and the call's secrets, then what may be a credential (a URL's user information,
    // a `"secret": "..."` of a webhook setup answered with an error status) masked.
    const keep = keptText(text, secrets);
    // With no ErrorResponse to quote, what the status itself says to check.
    const hint = said === null ? STATUS_HINTS[status] ?? (status >= 300 && status < 400 ? STATUS_HINTS.redirect : undefined) : undefined;
    return new CryptoPayApiError({
      status,
      code,
      retryable,
      text: keep,
      message: `${code}: the service answered ${status}${said ? `: ${said}` : ''}${hint ? `: ${hint}` : ''}`,
      ...extra,
    });
  }

  // One attempt: the answer's status and text, within timeoutMs from the request to the last
  // byte, whether or not `fetch` honours its signal (a wrapper may drop it).
  async function attempt(method, path, headers, bytes) {
    const controller = new AbortController();
    const timedOut = () => Object.assign(new Error('timeout'), { timedOut: true });
    let timer;
    let reading = null;
    const deadline = new Promise((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reading?.cancel().catch(() => {}); // a fetch that ignores its signal: stop reading too
        reject(timedOut());
      }, timeoutMs);
    });
    const answer = (async () => {
      const response = await fetchFn(`${base}${path}`, { method, headers, body: bytes, signal: controller.signal, redirect: 'manual' });
      const status = response.status;
      // Past the deadline (a fetch that ignores its signal answered late): nobody waits for
      // the answer, and its body is not read.
      if (controller.signal.aborted) {
        Promise.resolve().then(() => response.body?.cancel?.()).catch(() => {});
        throw timedOut();
      }
      const read = await readAnswer(response, MAX_ANSWER_BYTES, (reader) => { reading = reader; }).catch((failure) => {
        throw Object.assign(failure instanceof Error ? failure : new Error(String(failure)), { status });
      });
      return { status, ...read, retryAfter: response.headers?.get?.('retry-after'), requestId: requestIdOf(response.headers) };
    })();
    answer.catch(() => {}); // settled after the deadline: nobody waits for it
    try {
      return await Promise.race([answer, deadline]);
    } catch (failure) {
      if (controller.signal.aborted) failure.timedOut = true;
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  // One request, retried after a timeout, a network error, 408, 425, 429 or a 5xx, with the
  // same headers and the same body bytes. Resolves the answer's text.
  // `seen`, when given, is told whether an attempt before the answer failed (`seen.retried`):
  // the service may have acted on it.
  async function request(method, path, { body, idempotencyKey, secrets = [], extra, seen } = {}) {
    const headers = { authorization: `Bearer ${apiKey}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    const bytes = body === undefined ? null : encoder.encode(body);
    let failure = null;
    // An attempt that got no answer may still have reached the service.
    let unanswered = false;
    let attempts = 0;
    for (let n = 0; n <= retries; n += 1) {
      attempts += 1;
      if (n > 0 && seen !== undefined) seen.retried = true;
      if (n > 0) await pause(Math.min(250 * 2 ** (n - 1), 5000) * (0.5 + Math.random() / 2) + (failure?.retryAfterMs ?? 0));
      try {
        const { status, text, cut, retryAfter, requestId } = await attempt(method, path, headers, bytes);
        if (status >= 200 && status < 300) {
          if (!cut) return text;
          // A request under a key (a creation) may have been carried out: sent again under
          // it, it reads what was done; never under a new key.
          failure = new CryptoPayApiError({
            status, code: 'invalid_response', retryable: idempotencyKey !== undefined || method === 'GET',
            message: `invalid_response: the service's answer is over ${MAX_ANSWER_BYTES} bytes`
              + (idempotencyKey === undefined ? '' : ': send the same request again with the same idempotencyKey, never a new one'),
            ...extra,
          });
        } else {
          // An error's text is cut anyway: what was read of a large one is enough.
          failure = apiError(status, text, secrets, { requestId, ...extra });
          const wait = failure.retryable ? retryAfterMs(retryAfter) : 0;
          if (wait > 0) failure.retryAfterMs = wait;
          if (wait > MAX_RETRY_AFTER_MS) {
            // Sooner than the service asked would only be refused again: the caller waits.
            failure.message += ` (the service asks to wait ${Math.ceil(wait / 1000)} s before trying again: retryAfterMs)`;
            break;
          }
        }
      } catch (thrown) {
        if (thrown instanceof CryptoPayApiError) throw thrown;
        // Deno run without --allow-net for the service's host refuses the request before it
        // leaves (NotCapable; PermissionDenied before Deno 2): no retry gets past it.
        const forbidden = thrown?.name === 'NotCapable' || thrown?.name === 'PermissionDenied';
        unanswered ||= !forbidden;
        const why = maskCredentials(masked(thrown?.cause?.code ?? thrown?.cause?.errors?.[0]?.code ?? thrown?.cause?.message ?? thrown?.message ?? thrown, secrets)).slice(0, 200);
        // Where it was sent (a wrong baseUrl or port is the usual cause), and, when nothing
        // accepted the connection, what to check.
        const where = maskCredentials(`${method} ${base}${path}`).slice(0, 300);
        const refused = forbidden
          ? ': the runtime does not let this process reach the service (Deno: add its host and port to --allow-net); not retried'
          : /ECONNREFUSED|connection refused/i.test(why)
            ? ': nothing accepts connections there: check baseUrl, and that the service (or the local sandbox, npx cryptopay-verify sandbox) is running' : '';
        failure = new CryptoPayApiError({
          // No whole answer: an answer whose body broke off is a network error (its status may
          // be a 404 that a whole answer would not have been, behind a proxy).
          status: 0,
          code: thrown?.timedOut ? 'timeout' : 'network_error',
          retryable: !forbidden,
          message: thrown?.timedOut
            ? `timeout: no whole answer from the service within ${timeoutMs} ms`
            : `network_error: the request to the service failed (${where}: ${why})${refused}`,
          ...extra,
        });
      }
      if (!failure.retryable) break;
    }
    if (failure.retryable && attempts > 1) failure.message += ` (after ${attempts} attempts)`;
    if (failure.retryable && unanswered && idempotencyKey !== undefined) {
      // An attempt got no answer: the service may have acted on it.
      failure.message += '; an attempt got no answer and may have succeeded: send the same request again with the same idempotencyKey, never a new one';
    } else if (!failure.retryable && unanswered && idempotencyKey !== undefined) {
      // An earlier attempt got no answer: the service may have acted on it. A conflict (the
      // first attempt still in progress under the key) may end: sent again under the same key,
      // the same request reads what it did. Another refusal (a revoked key, a body refused)
      // stays final, and says the same.
      if (failure.status === 409) failure.retryable = true;
      failure.message += '; an earlier attempt got no answer and may have succeeded: '
        + `${failure.retryable ? 'send the same request again' : 'once this is fixed, send the same request'} with the same idempotencyKey, never a new one`;
    }
    throw failure;
  }

  return { request, masked };
}
