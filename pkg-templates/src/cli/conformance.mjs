// The receiver conformance kit: plays the payment service against a merchant's receiver.
//
// Every delivery is a fresh payment.updated event (unique event_id, payment_id and
// status_version), serialized compactly, signed with signWebhook over `timestamp.body` and
// POSTed with node's http/https request. Redirects are never followed: a 3xx is reported
// as it is. What a status means comes from classifyDeliveryResponse, as in the service's
// delivery rules. Deliveries are sent one at a time, in the order of RULES.

import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { classifyDeliveryResponse, signWebhook } from '../entry/node.mjs';

/** Rule names, in the order they are checked and reported. Stable. */
export const RULES = [
  'valid_delivery',
  'retry_same_event',
  'bad_signature',
  'other_secret',
  'stale_timestamp',
  'future_timestamp',
  'tampered_body',
  'reserialized_body',
  'missing_headers',
  'header_case',
  'no_redirect',
  'response_time',
];

// What a receiver that breaks the rule should change, printed under the table.
const HINTS = {
  valid_delivery: 'a correctly signed, fresh delivery must be answered 2xx once it is recorded',
  retry_same_event: 'a retry (same event_id, new timestamp and signature) is de-duplicated and answered 2xx, never 409 or 5xx',
  bad_signature: 'verify the signature over the raw body before anything else; answer 4xx when it fails',
  other_secret: 'verify with the configured signing Secret only; never pick a secret from the unverified body',
  stale_timestamp: 'pass the current time as nowSecs and a max skew; an old timestamp may be a replay',
  future_timestamp: 'the skew check applies in both directions',
  tampered_body: 'verify the exact bytes received; a changed body must not verify',
  reserialized_body: 'verify the raw request bytes, never parsed and re-serialized JSON',
  missing_headers: 'a delivery without the timestamp or signature header is rejected',
  header_case: 'header names are case-insensitive: read them through the framework, not as exact strings',
  no_redirect: 'answer the webhook URL itself; the service does not follow redirects and a 3xx is not an acknowledgment',
  response_time: 'acknowledge quickly: record the event, answer 2xx, do the business handling afterwards',
};

/**
 * Runs every rule against `url`. Returns { results: [{ rule, expected, got, pass }] }, or
 * { unreachable: reason } when the first delivery could not connect at all (refused, no
 * such host, no connection within the timeout, a TLS handshake that failed).
 */
export async function runConformance(config) {
  const { url, secret, timestampHeader, signatureHeader, timeoutMs, maxSkewSecs, encoding = 'hex' } = config;
  const onProgress = config.onProgress ?? (() => {});
  const client = url.protocol === 'https:' ? https : http;
  const run = randomBytes(6).toString('hex');
  const versionBase = Date.now() * 1000;
  let seq = 0;
  const exchanges = []; // every exchange, for response_time

  const now = () => Math.floor(Date.now() / 1000);
  const sign = (body, timestamp, key = secret) => signWebhook({ secret: key, timestamp: String(timestamp), body, encoding });

  function freshEvent() {
    seq += 1;
    const event = {
      schema_version: '1',
      event_id: `evt_conformance_${run}_${seq}`,
      event_type: 'payment.updated',
      occurred_at: new Date().toISOString(),
      data: {
        payment_id: `pay_conformance_${run}_${seq}`,
        status_version: versionBase + seq,
        status: 'open',
        order_ref: `conformance-${seq}`,
        source_amount: { kind: 'fiat', currency: 'EUR', amount_raw: '12800' },
      },
    };
    return Buffer.from(JSON.stringify(event));
  }

  function headers(timestamp, signature, names = [timestampHeader, signatureHeader]) {
    const out = { 'Content-Type': 'application/json', 'User-Agent': 'cryptopay-verify-conformance' };
    if (timestamp !== undefined) out[names[0]] = String(timestamp);
    if (signature !== undefined) out[names[1]] = signature;
    return out;
  }

  async function send(rule, body, hdrs) {
    const result = await post(client, url, body, hdrs, timeoutMs);
    exchanges.push({ rule, ...result });
    return result;
  }

  const results = [];
  const total = RULES.length;
  const step = (rule) => onProgress(results.length + 1, total, rule);
  const record = (rule, expected, got, pass) => results.push({ rule, expected, got, pass });
  const acknowledged = (r) => r.status !== undefined && classifyDeliveryResponse(r.status) === 'acknowledged';
  const rejected = (r) => r.status !== undefined && !acknowledged(r);
  const expectAck = (rule, r) => record(rule, '2xx', describe(r, timeoutMs), acknowledged(r));
  const expectReject = (rule, r) => record(rule, 'non-2xx', describe(r, timeoutMs), rejected(r));

  // valid_delivery: a fresh event, signed now.
  step('valid_delivery');
  const validBody = freshEvent();
  const validTs = now() - 1;
  const valid = await send('valid_delivery', validBody, headers(validTs, sign(validBody, validTs)));
  if (valid.error && !valid.connected) {
    return { unreachable: valid.timedOut ? `no connection within ${seconds(timeoutMs)}` : valid.error };
  }
  expectAck('valid_delivery', valid);

  // retry_same_event: the same event_id and bytes, a new timestamp and signature.
  step('retry_same_event');
  const retryTs = validTs + 1;
  expectAck('retry_same_event', await send('retry_same_event', validBody, headers(retryTs, sign(validBody, retryTs))));

  // bad_signature: well-formed, but not the HMAC of this delivery.
  step('bad_signature');
  {
    const body = freshEvent();
    const ts = now();
    const good = sign(body, ts);
    // The first digit changed: still 64 hex digits or the base64 of 32 bytes.
    const first = encoding === 'hex' ? (good[0] === '0' ? '1' : '0') : good[0] === 'A' ? 'B' : 'A';
    const bad = `${first}${good.slice(1)}`;
    expectReject('bad_signature', await send('bad_signature', body, headers(ts, bad)));
  }

  // other_secret: a valid HMAC under a secret the receiver does not hold.
  step('other_secret');
  {
    const body = freshEvent();
    const ts = now();
    const other = `whsec_conformance_other_${randomBytes(16).toString('hex')}`;
    expectReject('other_secret', await send('other_secret', body, headers(ts, sign(body, ts, other))));
  }

  // stale_timestamp / future_timestamp: authentic, but past the skew by two minutes.
  const margin = maxSkewSecs + 120;
  for (const [rule, offset] of [['stale_timestamp', -margin], ['future_timestamp', margin]]) {
    step(rule);
    const body = freshEvent();
    const ts = Math.max(0, now() + offset);
    expectReject(rule, await send(rule, body, headers(ts, sign(body, ts))));
  }

  // tampered_body: signed, then one value changed (same length).
  step('tampered_body');
  {
    const body = freshEvent();
    const ts = now();
    const signature = sign(body, ts);
    const tampered = Buffer.from(body.toString('utf8').replace('"status":"open"', '"status":"paid"'));
    expectReject('tampered_body', await send('tampered_body', tampered, headers(ts, signature)));
  }

  // reserialized_body: the same JSON written differently, with the original signature.
  step('reserialized_body');
  {
    const body = freshEvent();
    const ts = now();
    const signature = sign(body, ts);
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')), null, 2));
    expectReject('reserialized_body', await send('reserialized_body', reserialized, headers(ts, signature)));
  }

  // missing_headers: neither header, then each one alone.
  step('missing_headers');
  {
    const answers = [];
    for (const [withTs, withSig] of [[false, false], [true, false], [false, true]]) {
      const body = freshEvent();
      const ts = now();
      const signature = sign(body, ts);
      answers.push(await send('missing_headers', body, headers(withTs ? ts : undefined, withSig ? signature : undefined)));
    }
    const got = `${answers.map((a) => describe(a, timeoutMs, true)).join(', ')} (neither, timestamp only, signature only)`;
    record('missing_headers', 'non-2xx (each)', got, answers.every(rejected));
  }

  // header_case: the same valid delivery with the header names in another letter case.
  step('header_case');
  {
    const body = freshEvent();
    const ts = now();
    const names = [swapCase(timestampHeader), swapCase(signatureHeader)];
    const r = await send('header_case', body, headers(ts, sign(body, ts), names));
    const pass = acknowledged(r);
    record('header_case', '2xx', pass ? describe(r, timeoutMs) : `${describe(r, timeoutMs)}, names sent as ${names.join(', ')}`, pass);
  }

  // no_redirect: a valid delivery must be answered 2xx, never 3xx (which is not followed).
  step('no_redirect');
  {
    const body = freshEvent();
    const ts = now();
    const r = await send('no_redirect', body, headers(ts, sign(body, ts)));
    record('no_redirect', '2xx, never 3xx', describe(r, timeoutMs), acknowledged(r));
  }

  // response_time: every exchange above answered within the timeout.
  step('response_time');
  {
    const late = exchanges.filter((e) => e.timedOut);
    const slowest = Math.max(...exchanges.map((e) => e.millis));
    const got = late.length > 0
      ? `no answer within ${seconds(timeoutMs)} to ${late.length} of ${exchanges.length} (${[...new Set(late.map((e) => e.rule))].join(', ')})`
      : `slowest ${slowest} ms over ${exchanges.length} deliveries`;
    record('response_time', `each within ${seconds(timeoutMs)}`, got, late.length === 0);
  }
  return { results };
}

function seconds(ms) {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

function swapCase(name) {
  return name.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
}

// What a receiver answered, in a few words: "400 permanent_failure (signature_mismatch)".
function describe(r, timeoutMs, short = false) {
  if (r.timedOut) return short ? 'timeout' : `no answer within ${seconds(timeoutMs)}`;
  if (r.error) return `no answer: ${r.error}`;
  const kind = classifyDeliveryResponse(r.status);
  let text = short ? String(r.status) : `${r.status} ${kind}`;
  if (r.status >= 300 && r.status < 400) {
    text += r.location ? ' redirect, not followed' : ' redirect';
  } else if (r.code && !short) {
    text += ` (${r.code})`;
  }
  return text;
}

// One POST, never following redirects. Resolves { status, location?, code?, millis } or
// { error, code?, timedOut, connected, millis }.
function post(client, url, body, headers, timeoutMs) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const millis = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
    let connected = false;
    let settled = false;
    const finish = (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...value, connected, millis: millis() });
    };
    const req = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Length': String(body.length) },
      agent: false, // one connection per delivery, closed after it
    });
    const timer = setTimeout(() => {
      finish({ error: 'timeout', timedOut: true });
      req.destroy();
    }, timeoutMs);
    req.on('socket', (socket) => {
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
        connected = true;
      });
    });
    req.on('error', (error) => finish({ error: error.code ?? error.message, code: error.code, timedOut: false }));
    req.on('response', (res) => {
      const chunks = [];
      let size = 0;
      res.on('data', (chunk) => {
        if (size < 4096) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('error', (error) => finish({ error: error.code ?? error.message, code: error.code, timedOut: false }));
      res.on('end', () => {
        finish({
          status: res.statusCode,
          location: typeof res.headers.location === 'string' ? res.headers.location : undefined,
          code: errorCode(Buffer.concat(chunks).subarray(0, 4096), res.headers['content-type']),
        });
      });
    });
    req.end(body);
  });
}

// The error code a receiver put in its JSON answer ({ "error": "signature_mismatch" }), if any.
function errorCode(bytes, contentType) {
  if (!/json/i.test(String(contentType ?? ''))) return undefined;
  try {
    const parsed = JSON.parse(bytes.toString('utf8'));
    const code = parsed?.error?.code ?? parsed?.error ?? parsed?.code;
    return typeof code === 'string' && /^[A-Za-z0-9_.-]{1,48}$/.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

/** The table printed at the end: rule, expected, got, verdict, then what to fix. */
export function formatReport(results, { url, millis }) {
  const rows = [['rule', 'expected', 'got', 'verdict'], ...results.map((r) => [r.rule, r.expected, r.got, r.pass ? 'pass' : 'FAIL'])];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row) => row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]) : cell)).join('  ').trimEnd();
  const rule = widths.reduce((a, b) => a + b + 2, 0) + 7;
  let out = `\nreceiver conformance: ${url}\n\n${line(rows[0])}\n${'-'.repeat(rule)}\n`;
  for (const row of rows.slice(1)) out += `${line(row)}\n`;
  const broken = results.filter((r) => !r.pass);
  out += '\n';
  if (broken.length === 0) {
    out += `all ${results.length} rules hold (${millis} ms)\n`;
  } else {
    out += `${broken.length} of ${results.length} rules broken (${millis} ms):\n`;
    for (const r of broken) out += `  ${r.rule}: ${HINTS[r.rule]}\n`;
  }
  return out;
}
