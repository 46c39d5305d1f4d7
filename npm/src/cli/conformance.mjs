// The receiver conformance kit: plays the payment service against a merchant's receiver.
//
// Each rule sends deliveries of its own (fresh payment.updated events: a unique event_id and
// payment_id, serialized compactly, signed with signWebhook over `timestamp.body`), one at a
// time, in the order of RULES, and is judged on its own answers (verdicts.mjs). Redirects
// are never followed: a 3xx is reported as it is.

import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { signWebhook } from '../entry/node.mjs';
import { post } from './http.mjs';
import { EXPECTS, LARGE_BODY_BYTES, PROBE_LABEL, judge } from './verdicts.mjs';

/** Rule names, in the order they are checked and reported. Stable. */
export const RULES = [
  'valid_delivery',
  'retry_same_event',
  'older_version',
  'non_ascii_body',
  'formatted_body',
  'unknown_fields',
  'large_body',
  'old_event',
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
  'pending_secret',
  'retired_secret',
];

// Rules checked only when their secret is given, and the config key that holds it.
const ROTATION = { pending_secret: 'pendingSecret', retired_secret: 'retiredSecret' };

/** The rules a run with this config checks (the rotation rules need their secret). */
export function rulesFor(config) {
  return RULES.filter((rule) => !Object.hasOwn(ROTATION, rule) || config[ROTATION[rule]] !== undefined);
}

// How far outside the skew the stale and future deliveries are: one hour, or more when the
// receiver's --max-skew is wider than that.
export const skewMargin = (maxSkewSecs) => Math.max(3600, maxSkewSecs + 120);

// A body with non-ASCII UTF-8 (2- and 3-byte sequences), as a real order reference may hold.
export const NON_ASCII_ORDER_REF = 'Müller – 5 €';

// old_event: how long before now its event occurred (a retry after a two-day outage).
const OLD_EVENT_SECS = 2 * 24 * 3600;
// The keys a receiver with an unset or empty secret variable verifies with: anyone can sign.
// [key, label, short label].
const CARELESS_KEYS = [['', 'an empty secret', 'empty secret'], ['undefined', 'the text "undefined" as secret', 'secret "undefined"']];
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const REPLACEMENT = Buffer.from('\uFFFD');

/** After this many deliveries, none answered within --timeout, the run sends no more. */
export const SILENT = 3;

/**
 * Whether the last SILENT deliveries sent (`sent`: { valid, timedOut } in the order sent) all
 * went unanswered within --timeout: 'valid' when a valid one is among them, 'forged' when they
 * were all forged, null when one was answered.
 */
function silentRun(sent) {
  const last = sent.slice(-SILENT);
  if (last.length < SILENT || !last.every((d) => d.timedOut)) return null;
  return last.some((d) => d.valid) ? 'valid' : 'forged';
}

/** Thrown by a delivery after which the run sends no more. */
const STOP = Symbol('the receiver stopped answering');

/** Errors of a connection the receiver's side closed unanswered, before or after connecting. */
const CLOSED_UNANSWERED = new Set(['ECONNRESET', 'EPIPE']);

/**
 * Runs the rules against `url`. Resolves { results } (see judge), or { unreachable: reason }
 * when the first delivery could not connect at all (refused, no such host, no connection
 * within the timeout, a TLS handshake that failed).
 *
 * config: { url: URL, secret, pendingSecret?, retiredSecret?, timestampHeader, signatureHeader,
 *           timeoutMs, maxSkewSecs, encoding, onProgress?(index, total, rule) }
 */
export async function runConformance(config) {
  const { url, secret, timestampHeader, signatureHeader, timeoutMs, encoding = 'hex' } = config;
  const onProgress = config.onProgress ?? (() => {});
  const client = url.protocol === 'https:' ? https : http;
  const rules = rulesFor(config);
  const run = randomBytes(6).toString('hex');
  // Small versions, as the service's are (it counts from 1): a receiver whose column holds
  // them is judged on every rule; only older_version sends digit strings past 2^53.
  const versionBase = 1;
  let seq = 0;

  const now = () => Math.floor(Date.now() / 1000);
  const sign = (body, timestamp, key = secret) => signWebhook({ secret: key, timestamp: String(timestamp), body, encoding });

  // HMAC with a key signWebhook refuses (an empty one), as a careless receiver computes it.
  const macWith = (key, body, timestamp) => createHmac('sha256', key)
    .update(`${timestamp}.`).update(body).digest(encoding === 'base64' ? 'base64' : 'hex');

  // A fresh event; `payment` and `version` let two events share a payment; `extra` adds
  // fields at the top level and in data; `type` and `occurredAt` replace theirs.
  function freshEvent({ payment, version, orderRef, type, occurredAt, extra } = {}) {
    seq += 1;
    const event = {
      schema_version: '1',
      event_id: `evt_conformance_${run}_${seq}`,
      event_type: type ?? 'payment.updated',
      occurred_at: occurredAt ?? new Date().toISOString(),
      data: {
        payment_id: payment ?? `pay_conformance_${run}_${seq}`,
        status_version: version ?? versionBase + seq,
        status: 'open',
        order_ref: orderRef ?? `conformance-${seq}`,
        source_amount: { kind: 'fiat', currency: 'EUR', amount_raw: '12800' },
        ...extra?.data,
      },
      ...extra?.top,
    };
    return Buffer.from(JSON.stringify(event));
  }

  function headers(timestamp, signature, names = [timestampHeader, signatureHeader]) {
    const out = { 'Content-Type': 'application/json', 'User-Agent': 'cryptopay-verify-conformance' };
    if (timestamp !== undefined) out[names[0]] = String(timestamp);
    if (signature !== undefined) out[names[1]] = signature;
    return out;
  }

  const observed = new Map(rules.map((rule) => [rule, []]));
  // Every delivery in the order sent (observed keeps them by rule: the probe below is
  // response_time's, after rules sent later): whether it was valid, whether it timed out.
  const sent = [];
  let current;
  // label: what was sent, in --json; short: the same in a few characters, for the table.
  async function send(label, body, hdrs, short = label) {
    const answer = await post(client, url, body, hdrs, timeoutMs);
    observed.get(current).push({ label, short, ...answer });
    sent.push({ valid: EXPECTS[current][0] !== 'refuse', timedOut: answer.timedOut === true });
    await heard();
    return answer;
  }
  // After each delivery. A receiver that answers none of SILENT deliveries in a row, a valid
  // one among them (from the start, or after answering some: a lock left held), would make
  // the run wait --timeout for each of the rest: the run stops there (STOP), mid-rule or not.
  // (Over https a receiver whose process stalled still has its connections accepted, by the
  // kernel, with no TLS handshake: a delivery that timed out counts, connected or not.) When
  // the ones unanswered were forged only, a valid one is sent, counted under response_time,
  // to tell a receiver that holds forged deliveries on purpose (it answers that one, and gets
  // every rule) from one that stopped answering at a hostile one.
  let probing = false;
  async function heard() {
    if (probing) return;
    if (silentRun(sent) === 'forged') {
      const rule = current;
      probing = true;
      current = 'response_time';
      try {
        await deliverSigned(PROBE_LABEL, freshEvent(), now(), secret, 'probe');
      } finally {
        current = rule;
        probing = false;
      }
    }
    if (silentRun(sent) === 'valid') throw STOP;
  }
  // A valid delivery of `body`, signed now (or at `ts`) with `key`.
  const deliverSigned = (label, body, ts = now(), key = secret, short = label) => send(label, body, headers(ts, sign(body, ts, key)), short);

  // valid_delivery's body, re-sent changed (and signed anew) by tampered_body.
  let validSent = null;
  const olderPayment = `pay_conformance_${run}_older`;
  const olderHigher = 1000;

  const PLANS = {
    async valid_delivery() {
      const body = freshEvent();
      const ts = now() - 1;
      validSent = { body };
      await send('valid', body, headers(ts, sign(body, ts)));
    },
    // The service's retry: the same event_id and bytes, a new timestamp and signature.
    async retry_same_event() {
      const body = freshEvent();
      const ts = now() - 1;
      await deliverSigned('first', body, ts);
      await deliverSigned('retry', body, ts + 1);
    },
    // A lower status_version of the same payment arriving after the higher one (new event_id);
    // another event at the version held (an accepted amount, say); and versions beyond 2^53 as
    // strings of digits (the spec does not show the type; the package's decision, which its
    // sandbox follows: a receiver that takes only numbers refuses them, and the service gives
    // up on a 4xx).
    async older_version() {
      await deliverSigned('higher', freshEvent({ payment: olderPayment, version: olderHigher }));
      await deliverSigned('older', freshEvent({ payment: olderPayment, version: olderHigher - 1 }));
      await deliverSigned('equal version', freshEvent({ payment: olderPayment, version: olderHigher }));
      const beyond = `pay_conformance_${run}_beyond`;
      await deliverSigned('digit string', freshEvent({ payment: beyond, version: '9007199254740993' }));
      await deliverSigned('digit string, older', freshEvent({ payment: beyond, version: '9007199254740992' }));
    },
    async non_ascii_body() {
      await deliverSigned('non-ASCII', freshEvent({ orderRef: NON_ASCII_ORDER_REF }));
    },
    // The same event as the service may format it: indented, ending in a newline.
    async formatted_body() {
      const body = Buffer.from(`${JSON.stringify(JSON.parse(freshEvent().toString('utf8')), null, 2)}\n`);
      await deliverSigned('indented, newline at the end', body, now(), secret);
    },
    // Fields the spec does not show, at the top level and in data; then an event of a type it
    // does not show (authentic: acknowledged and ignored, or set aside, never refused).
    async unknown_fields() {
      const extra = { top: { conformance_extra: { note: 'a field the spec does not show' } }, data: { conformance_extra_field: [1, 'x'] } };
      await deliverSigned('fields not in the spec', freshEvent({ extra }), now(), secret, 'fields');
      await deliverSigned('event_type payment.refunded, authentic', freshEvent({ type: 'payment.refunded' }), now(), secret, 'other type');
    },
    // An authentic event of LARGE_BODY_BYTES: a field the spec does not show, holding text.
    async large_body() {
      const small = freshEvent({ extra: { data: { conformance_large_field: '' } } }).length;
      const filler = 'a field the spec does not show, making the event large. '.repeat(LARGE_BODY_BYTES / 32);
      const field = filler.slice(0, LARGE_BODY_BYTES - small);
      await deliverSigned(`${LARGE_BODY_BYTES / 1024} KiB`, freshEvent({ extra: { data: { conformance_large_field: field } } }));
    },
    // An event that occurred two days ago, delivered now (a retry after an outage).
    async old_event() {
      const occurredAt = new Date(Date.now() - OLD_EVENT_SECS * 1000).toISOString();
      await deliverSigned('occurred_at two days ago', freshEvent({ occurredAt }));
    },
    async bad_signature() {
      for (const [label, short, shape] of badSignatureShapes(encoding)) {
        const body = freshEvent();
        const ts = now();
        await send(label, body, headers(ts, shape(sign(body, ts))), short);
      }
      // A forged event that a receiver must not answer before verifying: an older version of
      // a payment it holds (older_version's), an event of another type.
      const wrong = badSignatureShapes(encoding)[0][2];
      for (const [label, short, body] of [
        ['forged: an older version of a known payment', 'forged stale', freshEvent({ payment: olderPayment, version: olderHigher - 2 })],
        ['forged: event_type payment.refunded', 'forged type', freshEvent({ type: 'payment.refunded' })],
      ]) {
        const ts = now();
        await send(label, body, headers(ts, wrong(sign(body, ts))), short);
      }
      if (validSent !== null) {
        // valid_delivery's exact bytes again, forged: a receiver that answers a duplicate
        // (by event_id, or by a hash of the body) before verifying acknowledges anything.
        const ts = now();
        await send('valid_delivery\'s bytes again, a wrong signature', validSent.body, headers(ts, wrong(sign(validSent.body, ts))), 'known bytes');
      }
    },
    async other_secret() {
      const other = `whsec_conformance_other_${randomBytes(16).toString('hex')}`;
      await deliverSigned('other secret', freshEvent(), now(), other);
      for (const [key, label, short] of CARELESS_KEYS) {
        const body = freshEvent();
        const ts = now();
        await send(`signed with ${label}`, body, headers(ts, macWith(key, body, ts)), short);
      }
    },
    async stale_timestamp() {
      const stale = Math.max(0, now() - skewMargin(config.maxSkewSecs));
      await deliverSigned('stale', freshEvent(), stale);
      // The stale delivery with a fresh time beside it: in a t= item of the signature header,
      // and in a second timestamp header, sent first and sent last (a receiver that hashes one
      // of the two and checks the skew on the other accepts one order or the other); and the
      // other way round, a captured delivery replayed with a fresh timestamp header, its old t=
      // and signature kept (a receiver that hashes the t= and checks the skew on the header
      // accepts any replay).
      const body = freshEvent();
      const signature = sign(body, stale);
      await send('stale, with t=<now> in the signature header', body, headers(stale, `t=${now()},v1=${signature}`), 't=now');
      await send('replayed: a fresh timestamp header, the stale t= and signature', body, headers(now(), `t=${stale},v1=${signature}`), 't=stale');
      const twice = headers(undefined, signature);
      twice[timestampHeader] = [String(now()), String(stale)];
      await send('stale, after a second timestamp header holding now', body, twice, 'two headers');
      twice[timestampHeader] = [String(stale), String(now())];
      await send('stale, before a second timestamp header holding now', body, twice, 'two headers, stale first');
    },
    async future_timestamp() {
      await deliverSigned('future', freshEvent(), now() + skewMargin(config.maxSkewSecs));
    },
    // Signed, then changed: one value (same length); a byte order mark or a newline added; the
    // encoded U+FFFD of a string turned into one invalid byte (the same text once decoded);
    // valid_delivery's event changed and sent again, signed anew over its original bytes.
    async tampered_body() {
      const paid = (bytes) => Buffer.from(bytes.toString('utf8').replace('"status":"open"', '"status":"paid"'));
      const body = freshEvent();
      const ts = now();
      const signature = sign(body, ts);
      await send('tampered', paid(body), headers(ts, signature));
      await send('a byte order mark prepended', Buffer.concat([BOM, body]), headers(ts, signature), 'BOM');
      await send('a newline appended', Buffer.concat([body, Buffer.from('\n')]), headers(ts, signature), 'newline');
      const replaced = freshEvent({ orderRef: `order \uFFFD ${seq}` });
      const at = replaced.indexOf(REPLACEMENT);
      const invalid = Buffer.concat([replaced.subarray(0, at), Buffer.from([0xff]), replaced.subarray(at + REPLACEMENT.length)]);
      await send('U+FFFD sent as the invalid byte 0xFF', invalid, headers(ts, sign(replaced, ts)), 'byte 0xFF');
      if (validSent !== null) {
        // valid_delivery's event_id, changed, signed now over its original bytes: a receiver
        // that looks the id up before verifying answers 2xx (the original timestamp could be
        // past the receiver's skew by now, refused as stale: that would hide it).
        const known = now();
        await send('valid_delivery\'s event changed, its signature', paid(validSent.body), headers(known, sign(validSent.body, known)), 'known id');
      }
    },
    // The same JSON written differently, with the signature of the original bytes; then an
    // indented body signed over its re-serialized form, as JavaScript's JSON.stringify and
    // Python's json.dumps write it: a receiver that hashes the parsed JSON written again
    // accepts that one (the signature matches what it hashes), one that hashes the bytes
    // refuses it.
    async reserialized_body() {
      const body = freshEvent();
      const ts = now();
      const signature = sign(body, ts);
      const parsed = JSON.parse(body.toString('utf8'));
      const reordered = { data: parsed.data, ...parsed };
      await send('reserialized', Buffer.from(JSON.stringify(reordered, null, 2)), headers(ts, signature));
      for (const [label, short, write] of [
        ['indented, signed over JSON.stringify of it', 'signed as JSON.stringify', (value) => JSON.stringify(value)],
        ['indented, signed over json.dumps of it', 'signed as json.dumps', pythonDumps],
      ]) {
        const value = JSON.parse(freshEvent().toString('utf8'));
        const at = now();
        await send(label, Buffer.from(`${JSON.stringify(value, null, 2)}\n`), headers(at, sign(Buffer.from(write(value)), at)), short);
      }
    },
    async missing_headers() {
      const cases = [
        ['neither header', 'neither', false, false],
        ['timestamp only', 'ts only', true, false],
        ['signature only', 'sig only', false, true],
      ];
      for (const [label, short, withTs, withSig] of cases) {
        const body = freshEvent();
        const ts = now();
        const signature = sign(body, ts);
        await send(label, body, headers(withTs ? ts : undefined, withSig ? signature : undefined), short);
      }
      // valid_delivery's exact bytes again with no headers: a duplicate answered before verifying.
      if (validSent !== null) await send('valid_delivery\'s bytes again, neither header', validSent.body, headers(undefined, undefined), 'known, neither');
    },
    async header_case() {
      const body = freshEvent();
      const ts = now();
      const names = [swapCase(timestampHeader), swapCase(signatureHeader)];
      await send(`names sent as ${names.join(', ')}`, body, headers(ts, sign(body, ts), names), 'names');
    },
    async pending_secret() {
      await deliverSigned('pending secret', freshEvent(), now(), config.pendingSecret);
    },
    async retired_secret() {
      await deliverSigned('retired secret', freshEvent(), now(), config.retiredSecret);
    },
  };

  let stopped = 0;
  for (const [index, rule] of rules.entries()) {
    onProgress(index + 1, rules.length, rule);
    current = rule;
    // no_redirect and response_time send nothing of their own: they are judged on every answer.
    try {
      if (PLANS[rule]) await PLANS[rule]();
    } catch (thrown) {
      if (thrown !== STOP) throw thrown;
      stopped = SILENT;
      break;
    }
    if (rule === 'valid_delivery') {
      const [first] = observed.get(rule);
      // No connection at all (refused, no such host, a certificate refused, a TLS handshake cut
      // off: an ingress with no route for the host): the run cannot be made. Over http://, a
      // connection reset (a receiver, or a proxy in front of one, that accepts and closes) is
      // the receiver's answer whether or not the connect event came first: judged.
      const reset = url.protocol === 'http:' && CLOSED_UNANSWERED.has(first.error);
      if (first.error && !first.connected && !reset) {
        return { unreachable: first.timedOut ? `no connection within ${Number((timeoutMs / 1000).toFixed(3))} s` : first.error };
      }
    }
  }
  return {
    results: judge(observed, {
      timeoutMs, skewSecs: skewMargin(config.maxSkewSecs), headerNames: [timestampHeader, signatureHeader], stopped, plainHttp: url.protocol === 'http:', encoding,
    }),
  };
}

/**
 * The bad_signature deliveries: [label, short label, (valid signature) -> signature sent]. In hex: a
 * wrong value of the right shape, the valid one with its last character changed, an empty
 * value, separators only, the valid one cut to 1 and to 63 characters, the valid one with a
 * character appended. In base64 the cuts and the extra character apply to the unpadded value
 * (a cut padding would still verify), and the character changed is the one before the last
 * (the last one's low bits are padding, which a lenient decoder ignores).
 */
export function badSignatureShapes(encoding) {
  const hex = encoding === 'hex';
  const strip = (s) => (hex ? s : s.replace(/=+$/, ''));
  const [zero, one] = hex ? ['0', '1'] : ['A', 'B'];
  const flip = (c) => (c === zero ? one : zero);
  const nearEnd = (s) => {
    const i = strip(s).length - (hex ? 1 : 2);
    return `${s.slice(0, i)}${flip(s[i])}${s.slice(i + 1)}`;
  };
  return [
    ['wrong signature of the right shape', 'wrong', (s) => `${flip(s[0])}${s.slice(1)}`],
    [`its ${hex ? 'last' : 'next-to-last'} character changed`, 'end char', nearEnd],
    ['empty value', 'empty', () => ''],
    ['separators only (", ,")', 'separators', () => ', ,'],
    ['cut to 1 character', '1 char', (s) => s.slice(0, 1)],
    [`cut to ${hex ? 63 : 42} characters`, `${hex ? 63 : 42} chars`, (s) => strip(s).slice(0, -1)],
    ['one character appended', '+1 char', (s) => `${strip(s)}${zero}`],
  ];
}

function swapCase(name) {
  return name.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
}

// A JSON value as Python's json.dumps writes it by default: ", " and ": " between items,
// every character from U+007F escaped as \uXXXX (as its ensure_ascii does), the keys in their
// order.
function pythonDumps(value) {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${pythonDumps(key)}: ${pythonDumps(item)}`).join(', ')}}`;
  }
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
