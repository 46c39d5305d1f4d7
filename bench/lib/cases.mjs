// The implementations under test, each as a function over prepared inputs that returns
// truthy when the delivery is accepted and throws or returns false when it is rejected.
// Every implementation reads the clock per call, as a receiver does (the peers do it
// internally; ours takes nowSecs from the caller).

import { createHmac, timingSafeEqual, webcrypto } from 'node:crypto';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import Stripe from 'stripe';
import { Webhook as SvixWebhook, WebhookVerificationError as SvixRefusal } from 'svix';
import { Webhook as StdWebhook, WebhookVerificationError as StdRefusal } from 'standardwebhooks';
import { EVENT_ID, MAX_SKEW_SECS, SECRET, STATUS_VERSION, SVIX_SECRET } from './inputs.mjs';

const nowSecs = () => Math.floor(Date.now() / 1000);
const SECRET_BYTES = Buffer.from(SECRET, 'utf8');
const encoder = new TextEncoder();

/** Label, scheme note and role of every case id, in table order. */
export const CASES = [
  { id: 'V.verifySignature', label: 'ours: `Verifier.verifySignature`', ours: true },
  { id: 'V.verifyWebhook', label: 'ours: `Verifier.verifyWebhook`', ours: true, parses: true },
  { id: 'verifySignature', label: 'ours: `verifySignature` (one-shot)', ours: true },
  { id: 'verifyWebhook', label: 'ours: `verifyWebhook` (one-shot)', ours: true, parses: true },
  { id: 'node', label: 'node:crypto `createHmac` + `timingSafeEqual` (bytes)' },
  { id: 'node.hex', label: 'node:crypto `createHmac` + `timingSafeEqual` (hex)' },
  { id: 'node+parse', label: 'node:crypto verify + `JSON.parse`', parses: true },
  { id: 'webcrypto', label: 'WebCrypto `subtle.verify`, cached key, awaited' },
  { id: 'stripe.constructEvent', label: 'stripe `webhooks.constructEvent`', parses: true },
  { id: 'stripe.verifyHeader', label: 'stripe `webhooks.signature.verifyHeader`' },
  { id: 'svix', label: 'svix `Webhook.verify` (own scheme)', parses: true, scheme: 'svix' },
  { id: 'standardwebhooks', label: 'standardwebhooks `Webhook.verify` (own scheme)', parses: true, scheme: 'svix' },
  { id: 'noble', label: '@noble/hashes `hmac` (keyed once, cloned)' },
];

/** Shared, keyed-once state (secret keys, verifier objects), built once per process. */
export async function setup(api) {
  const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: MAX_SKEW_SECS });
  const stripe = new Stripe('sk_test_bench_not_a_key');
  const svix = new SvixWebhook(SVIX_SECRET);
  const std = new StdWebhook(SVIX_SECRET);
  const cryptoKey = await webcrypto.subtle.importKey('raw', SECRET_BYTES, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  const nobleKeyed = hmac.create(sha256, SECRET_BYTES);
  return {
    api,
    verifier,
    stripe,
    svix,
    std,
    cryptoKey,
    nobleKeyed,
    svixSign: (id, date, body) => svix.sign(id, date, body),
    stdSign: (id, date, body) => std.sign(id, date, body),
  };
}

// A hand-written receiver with node:crypto: timestamp grammar and skew, `v1=` + 64 hex, HMAC
// over `timestamp.body`, constant-time comparison. Returns false on a mismatch.
function nodeCheckHeaders(timestamp, header) {
  if (timestamp.length === 0 || timestamp.length > 12) throw new Error('timestamp malformed');
  const ts = Number(timestamp);
  if (!Number.isSafeInteger(ts)) throw new Error('timestamp malformed');
  if (Math.abs(nowSecs() - ts) > MAX_SKEW_SECS) throw new Error('timestamp outside the tolerance');
  if (!header.startsWith('v1=') || header.length !== 67) throw new Error('signature malformed');
  return ts;
}

export function nodeVerifyBytes(body, timestamp, header) {
  nodeCheckHeaders(timestamp, header);
  const expected = Buffer.from(header.slice(3), 'hex');
  if (expected.length !== 32) throw new Error('signature malformed');
  const mac = createHmac('sha256', SECRET_BYTES).update(`${timestamp}.`).update(body).digest();
  return timingSafeEqual(mac, expected);
}

function nodeVerifyHex(body, timestamp, header) {
  nodeCheckHeaders(timestamp, header);
  const mac = createHmac('sha256', SECRET_BYTES).update(`${timestamp}.`).update(body).digest('hex');
  return timingSafeEqual(Buffer.from(mac), Buffer.from(header.slice(3).toLowerCase()));
}

function ctEqual(a, b) {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i += 1) d |= a[i] ^ b[i];
  return d === 0;
}

/** The case functions for one set of inputs (see inputs.mjs). */
export function caseFns(s, inp) {
  const { api, verifier } = s;
  const { body, timestamp, ours, stripe: stripeHeader } = inp;
  const delivery = () => ({ body, timestamp, signature: ours, nowSecs: nowSecs() });
  return {
    'V.verifySignature': () => verifier.verifySignature(delivery()),
    'V.verifyWebhook': () => verifier.verifyWebhook(delivery()),
    // One object literal per call, as for the Verifier: an object spread here would cost the
    // harness about 1.8 us per call (measured), which is the caller's, not the function's.
    verifySignature: () => api.verifySignature({ body, timestamp, signature: ours, nowSecs: nowSecs(), secrets: SECRET, maxSkewSecs: MAX_SKEW_SECS }),
    verifyWebhook: () => api.verifyWebhook({ body, timestamp, signature: ours, nowSecs: nowSecs(), secrets: SECRET, maxSkewSecs: MAX_SKEW_SECS }),
    node: () => nodeVerifyBytes(body, timestamp, ours),
    'node.hex': () => nodeVerifyHex(body, timestamp, ours),
    'node+parse': () => nodeVerifyBytes(body, timestamp, ours) && JSON.parse(body.toString('utf8')),
    webcrypto: async () => {
      nodeCheckHeaders(timestamp, ours);
      const expected = Buffer.from(ours.slice(3), 'hex');
      const prefix = encoder.encode(`${timestamp}.`);
      const data = new Uint8Array(prefix.length + body.length);
      data.set(prefix, 0);
      data.set(body, prefix.length);
      return webcrypto.subtle.verify('HMAC', s.cryptoKey, expected, data);
    },
    'stripe.constructEvent': () => s.stripe.webhooks.constructEvent(body, stripeHeader, SECRET),
    'stripe.verifyHeader': () => s.stripe.webhooks.signature.verifyHeader(body, stripeHeader, SECRET),
    svix: () => s.svix.verify(body, inp.svixHeaders),
    standardwebhooks: () => s.std.verify(body, inp.stdHeaders),
    noble: () => {
      nodeCheckHeaders(timestamp, ours);
      const expected = Buffer.from(ours.slice(3), 'hex');
      const mac = s.nobleKeyed.clone().update(encoder.encode(`${timestamp}.`)).update(body).digest();
      return ctEqual(mac, expected);
    },
  };
}

const shown = (error) => (error === undefined ? 'nothing thrown' : `${error?.constructor?.name ?? typeof error} ${error?.code ?? error?.type ?? ''}`.trim());
// The event an implementation that parses returned, as its fields: ours camelCase, the others
// the JSON object.
const eventOf = (id, result) => (id === 'V.verifyWebhook' || id === 'verifyWebhook'
  ? { id: result?.event?.eventId, version: result?.event?.statusVersion === undefined ? undefined : Number(result.event.statusVersion) }
  : { id: result?.event_id, version: result?.data?.status_version });

/**
 * What case `id` must give, checked on the last call of every batch (lib/runner.mjs): with a
 * valid signature, the event it parsed (its id and status_version) or true; with a changed
 * one, its own refusal: ours `signature_mismatch`, stripe's and svix's and
 * standardwebhooks' verification errors, the hand-written ones `false` and nothing thrown. A
 * refusal for another reason (a malformed input, a TypeError) is not counted as one.
 */
export function outcomeCheck(id, valid) {
  const ours = ['V.verifySignature', 'V.verifyWebhook', 'verifySignature', 'verifyWebhook'].includes(id);
  if (!valid) {
    const refusedAs = ours ? (e) => e?.code === 'signature_mismatch'
      : id.startsWith('stripe.') ? (e) => e?.type === 'StripeSignatureVerificationError'
        : id === 'svix' ? (e) => e instanceof SvixRefusal
          : id === 'standardwebhooks' ? (e) => e instanceof StdRefusal
            : null;
    if (refusedAs !== null) return ({ error }) => (refusedAs(error) ? null : `refused with ${shown(error)}, not its signature refusal`);
    return ({ error, result }) => (error === undefined && result === false ? null : `refused with ${shown(error)} (result ${result}), not false`);
  }
  const parses = CASES.find((c) => c.id === id)?.parses === true;
  return ({ error, result }) => {
    if (error !== undefined) return `threw ${shown(error)}`;
    if (parses) {
      const event = eventOf(id, result);
      return event.id === EVENT_ID && event.version === STATUS_VERSION ? null : `returned the event ${event.id} at ${event.version}`;
    }
    if (id === 'V.verifySignature' || id === 'verifySignature') return result?.matchedSecret === 'active' ? null : 'matched no active secret';
    return result === true ? null : `returned ${result}, not true`;
  };
}
