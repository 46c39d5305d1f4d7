// Benchmark inputs: one valid payment.updated event padded to an exact size, signed for
// every scheme under test. bench/native.rs builds byte-identical bodies (same recipe); the
// harness compares their SHA-256 to prove it.

import { createHash, createHmac } from 'node:crypto';

export const SIZES = [256, 1024, 16 * 1024, 1024 * 1024];
export const SIZE_LABEL = { 256: '256 B', 1024: '1 KiB', 16384: '16 KiB', 1048576: '1 MiB' };

/** Our scheme and Stripe's: HMAC-SHA256 keyed with the secret's UTF-8 bytes. */
export const SECRET = 'whsec_bench_0123456789abcdefghijklmnopqrstuv';
/** svix / standardwebhooks: `whsec_` + base64 of the key bytes (their scheme). */
export const SVIX_SECRET = `whsec_${Buffer.from('bench-key-0123456789abcdefghijkl').toString('base64')}`;
export const MSG_ID = 'msg_01JBENCH000000000000000000';
export const MAX_SKEW_SECS = 300;

const HEAD =
  '{"schema_version":"1","event_id":"evt_01JBENCH0000000000000000","event_type":"payment.updated",' +
  '"occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_01JBENCH000000000000000",' +
  '"status_version":7,"status":"paid","history":[';
const TAIL_OPEN = '],"pad":"';
const TAIL_CLOSE = '"}}';
const item = (i) => `{"at":"2026-11-22T10:00:00Z","status":"pending","status_version":${i}}`;

/**
 * The event padded to exactly `size` bytes: `data.history` gets status items while they fit,
 * then `data.pad` gets 'x' up to the size. ASCII only, so bytes == characters.
 */
export function eventBody(size) {
  const fixed = HEAD.length + TAIL_OPEN.length + TAIL_CLOSE.length;
  if (size < fixed) throw new Error(`event body: ${size} B is smaller than the envelope (${fixed} B)`);
  const items = [];
  let used = fixed;
  for (let i = 1; ; i += 1) {
    const next = item(i).length + (items.length > 0 ? 1 : 0);
    if (used + next > size) break;
    items.push(item(i));
    used += next;
  }
  const text = HEAD + items.join(',') + TAIL_OPEN + 'x'.repeat(size - used) + TAIL_CLOSE;
  const body = Buffer.from(text, 'utf8');
  if (body.length !== size) throw new Error(`event body: built ${body.length} B, wanted ${size}`);
  JSON.parse(text); // valid JSON, or throw
  return body;
}

export const sha256Hex = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** The event's id and status_version, as every implementation that parses must return them. */
export const EVENT_ID = 'evt_01JBENCH0000000000000000';
export const STATUS_VERSION = 7;

/**
 * Changes one character of a hex or base64 signature value (same length, same alphabet): the
 * first (the timed invalid groups), or, for the checks, one in the middle and the last of a hex
 * value (a base64 value's last characters may hold only padding bits, which a decoder may not
 * read: its middle one instead).
 */
function flip(value, at = 'first') {
  const base64 = /[=+/_-]|[G-Zg-z]/.test(value);
  const i = at === 'first' ? 0 : at === 'last' && !base64 ? value.length - 1 : Math.floor(value.length / 2);
  const c = value[i];
  const swapped = c === 'a' ? 'b' : c === 'A' ? 'B' : /[0-9]/.test(c) ? String((Number(c) + 1) % 10) : 'a';
  return value.slice(0, i) + swapped + value.slice(i + 1);
}

/**
 * Every input for one size and validity, signed at the current second (the peers read the
 * clock themselves, so signatures are made fresh for each group of runs).
 */
export function makeInputs(size, valid, { svixSign, stdSign } = {}, at = 'first') {
  const body = eventBody(size);
  const nowSecs = Math.floor(Date.now() / 1000);
  const timestamp = String(nowSecs);
  let hex = createHmac('sha256', Buffer.from(SECRET, 'utf8')).update(`${timestamp}.`).update(body).digest('hex');
  if (!valid) hex = flip(hex, at);
  const inputs = {
    size,
    valid,
    body,
    text: body.toString('utf8'),
    timestamp,
    hex,
    ours: `v1=${hex}`, // our signature header value (the timestamp travels in its own header)
    stripe: `t=${timestamp},v1=${hex}`, // Stripe-Signature
  };
  if (svixSign) {
    // Their own scheme: base64 HMAC over `${msgId}.${timestamp}.${body}` with the decoded key.
    let value = svixSign(MSG_ID, new Date(nowSecs * 1000), body).split(',')[1];
    if (!valid) value = flip(value, at);
    inputs.svixHeaders = { 'svix-id': MSG_ID, 'svix-timestamp': timestamp, 'svix-signature': `v1,${value}` };
  }
  if (stdSign) {
    let value = stdSign(MSG_ID, new Date(nowSecs * 1000), body).split(',')[1];
    if (!valid) value = flip(value, at);
    inputs.stdHeaders = { 'webhook-id': MSG_ID, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${value}` };
  }
  return inputs;
}
