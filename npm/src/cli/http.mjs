// One delivery on the wire, as the service sends it: a POST with node's http/https request,
// one connection per delivery, never following a redirect.

import { errorCodes } from '../entry/node.mjs';
import { holdsNeverPrinted, looksLikeSecret } from './redact.mjs';

/** How long the start of a body is read for once the status line came (for its error code). */
const BODY_GRACE_MS = 500;

/**
 * POSTs `body` to `url`. Resolves { status, location?, code?, millis, connected } when the
 * receiver answered, or { error, timedOut, connected, millis } when it did not: no connection
 * (`connected` false), a connection closed without an answer, or no answer within `timeoutMs`.
 * The status line is the answer, as the sandbox's sender takes it (`millis` is when it came):
 * a body cut off, or still coming, does not undo it.
 */
export function post(client, url, body, headers, timeoutMs) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const millis = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
    let connected = false;
    let settled = false;
    let answered = null; // once the status line came: ends the reading with it
    const finish = (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ connected, millis: millis(), ...value });
    };
    const req = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Length': String(body.length) },
      agent: false, // one connection per delivery, closed after it
    });
    let timer = setTimeout(() => {
      finish({ error: 'timeout', timedOut: true });
      req.destroy();
    }, timeoutMs);
    req.on('socket', (socket) => {
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
        connected = true;
      });
    });
    // The error's code only (ECONNREFUSED, ECONNRESET, CERT_HAS_EXPIRED...): a message may
    // name the address. OpenSSL's "wrong version number" (the handshake met something that is
    // not TLS, a plain-HTTP server) is told apart from EPROTO's other causes.
    const failed = (error) => (answered !== null ? answered() : finish({
      error: error.code === 'EPROTO' && /wrong version number/i.test(String(error.message)) ? 'EPROTO (wrong version number)'
        : error.code ?? 'connection failed',
      timedOut: false,
    }));
    req.on('error', failed);
    // The answer is its status and the start of its body (an error code is in its first
    // 4 KiB): read to its end or to 4 KiB, whichever comes first; a longer body is not waited
    // for (the receiver answered, however much it goes on sending).
    req.on('response', (res) => {
      const chunks = [];
      let size = 0;
      const at = millis();
      answered = () => {
        finish({
          status: res.statusCode,
          location: typeof res.headers.location === 'string',
          code: errorCode(Buffer.concat(chunks).subarray(0, 4096), res.headers['content-type']),
          millis: at,
        });
        req.destroy();
      };
      // The body's start is waited for a moment, not for the rest of --timeout.
      clearTimeout(timer);
      timer = setTimeout(answered, Math.max(0, Math.min(BODY_GRACE_MS, timeoutMs - at)));
      res.on('data', (chunk) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= 4096) answered();
      });
      res.on('error', failed);
      res.on('aborted', () => answered());
      res.on('end', () => answered());
    });
    // 101 Switching Protocols is an answer too (node hands it here, not to 'response').
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      finish({ status: res.statusCode, location: typeof res.headers.location === 'string', code: undefined });
    });
    req.end(body);
  });
}

// One of this package's error codes as a word of a text answer: a receiver that answers its
// errors as text ("Webhook Error: body_not_raw: ...", Stripe's guides' way) names its cause too.
// Only a code of the list is taken from a text, never another word of it.
let knownCode;
const codeInText = (text) => {
  knownCode ??= new RegExp(`(?<![A-Za-z0-9_])(${errorCodes().join('|')})(?![A-Za-z0-9_])`);
  return knownCode.exec(text)?.[1];
};

// The error code a receiver put in its JSON answer ({ "error": "signature_mismatch" }), or one
// of the package's codes written in a text answer, if any.
function errorCode(bytes, contentType) {
  if (!/json/i.test(String(contentType ?? ''))) return codeInText(bytes.toString('utf8'));
  try {
    const parsed = JSON.parse(bytes.toString('utf8'));
    const code = parsed?.error?.code ?? parsed?.error ?? parsed?.code;
    // A code, not a value: a receiver that puts a secret in its answer does not get it printed.
    return typeof code === 'string' && /^[A-Za-z][A-Za-z0-9_.-]{0,47}$/.test(code) && !looksLikeSecret(code) && !holdsNeverPrinted(code)
      ? code : undefined;
  } catch {
    return undefined;
  }
}
