// A Cloudflare Worker receiving payment.updated: verify over the raw body, de-duplicate by
// event_id, apply status_version only when newer, and record what it received.
//
// Bindings (wrangler.jsonc "vars", and `wrangler secret put CRYPTOPAY_WEBHOOK_SECRET`):
//   CRYPTOPAY_WEBHOOK_SECRET              the signing Secret exactly as saved
//   TIMESTAMP_HEADER, SIGNATURE_HEADER    the delivery header names
//   MAX_SKEW_SECS                         default 300

import { CryptoPayError, Verifier, decideEvent, init, readDeliveryHeaders } from 'cryptopay-verify';

// In the memory of this isolate, for the recipe. Cloudflare runs many isolates and recycles
// them: in production record in D1 (one transaction per delivery) or enqueue to a Queue and
// de-duplicate in its consumer.
const seenEventIds = new Set();
const appliedVersions = new Map(); // payment_id -> status_version (exact decimal text)
const recorded = []; // { event_id, payment_id, status_version, decision }

let verifier; // keyed once per isolate, at the first delivery (bindings arrive with it)

function json(value, status = 200) {
  return Response.json(value, { status, headers: { 'cache-control': 'no-store' } });
}

async function webhook(request, env) {
  if (!env.CRYPTOPAY_WEBHOOK_SECRET || !env.TIMESTAMP_HEADER || !env.SIGNATURE_HEADER) {
    console.error('set the secret CRYPTOPAY_WEBHOOK_SECRET and the vars TIMESTAMP_HEADER, SIGNATURE_HEADER');
    return json({ error: 'not_configured' }, 500); // the service retries later
  }
  await init(); // a no-op here once loaded; keeps the package's Workers entry in the bundle
  verifier ??= new Verifier({
    secrets: env.CRYPTOPAY_WEBHOOK_SECRET,
    maxSkewSecs: Number(env.MAX_SKEW_SECS ?? 300),
    maxBodyBytes: 1024 * 1024,
  });
  const body = await request.arrayBuffer(); // the raw bytes: never request.json()
  let verified;
  try {
    const { timestamp, signature } = readDeliveryHeaders(request.headers, {
      timestampHeader: env.TIMESTAMP_HEADER,
      signatureHeader: env.SIGNATURE_HEADER,
    });
    verified = verifier.verifyWebhook({ body, timestamp, signature, nowSecs: Math.floor(Date.now() / 1000) });
  } catch (error) {
    if (!(error instanceof CryptoPayError)) throw error;
    if (error.code === 'event_type_unknown') return json({ received: true, ignored: error.code });
    console.warn(`webhook rejected: ${error.message}`);
    return json({ error: error.code }, 400); // the code only, never the message
  }
  const { event } = verified;
  const decision = decideEvent(event, {
    eventSeen: seenEventIds.has(event.eventId),
    statusVersion: appliedVersions.get(event.paymentId),
  });
  if (decision !== 'duplicate') {
    seenEventIds.add(event.eventId);
    recorded.push({ event_id: event.eventId, payment_id: event.paymentId, status_version: event.statusVersion, decision });
  }
  if (decision === 'apply') appliedVersions.set(event.paymentId, event.statusVersion);
  // 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}.
  return json({ received: true, event_id: event.eventId, decision });
}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === '/webhook') {
      return request.method === 'POST' ? webhook(request, env) : json({ error: 'method_not_allowed' }, 405);
    }
    // What this isolate recorded: for local checks only, do not deploy it unprotected.
    if (pathname === '/events' && request.method === 'GET' && env.EXPOSE_EVENTS === 'true') {
      return json({ events: recorded });
    }
    return json({ error: 'not_found' }, 404);
  },
};
