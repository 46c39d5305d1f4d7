// POST /api/webhook: payment.updated deliveries, verified over the raw body.
//
// Configuration (environment, read at the first request, never at build time):
//   CRYPTOPAY_WEBHOOK_SECRET  the signing Secret exactly as saved (required)
//   TIMESTAMP_HEADER          the header carrying the delivery timestamp (required)
//   SIGNATURE_HEADER          the header carrying the signature (required)
//   MAX_SKEW_SECS             default 300

import { CryptoPayError, Verifier, decideEvent, init, readDeliveryHeaders } from 'cryptopay-verify';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

let config;
function configure() {
  if (!config) {
    const { CRYPTOPAY_WEBHOOK_SECRET, TIMESTAMP_HEADER, SIGNATURE_HEADER, MAX_SKEW_SECS } = process.env;
    if (!CRYPTOPAY_WEBHOOK_SECRET || !TIMESTAMP_HEADER || !SIGNATURE_HEADER) {
      throw new Error('set CRYPTOPAY_WEBHOOK_SECRET, TIMESTAMP_HEADER and SIGNATURE_HEADER');
    }
    config = {
      verifier: new Verifier({
        secrets: CRYPTOPAY_WEBHOOK_SECRET,
        maxSkewSecs: Number(MAX_SKEW_SECS ?? 300),
        maxBodyBytes: 1024 * 1024,
      }),
      names: { timestampHeader: TIMESTAMP_HEADER, signatureHeader: SIGNATURE_HEADER },
    };
  }
  return config;
}

// In memory for the recipe (one `next start` process). In production: your database, in one
// transaction, so a retry racing the first delivery cannot both apply.
const seenEventIds = new Set();
const appliedVersions = new Map(); // payment_id -> status_version (exact decimal text)

function record(event) {
  const decision = decideEvent(event, {
    eventSeen: seenEventIds.has(event.eventId),
    statusVersion: appliedVersions.get(event.paymentId),
  });
  if (decision !== 'duplicate') seenEventIds.add(event.eventId);
  if (decision === 'apply') appliedVersions.set(event.paymentId, event.statusVersion);
  return decision;
}

export async function POST(request) {
  await init(); // a no-op once loaded
  const { verifier, names } = configure();
  const body = await request.arrayBuffer(); // the raw bytes: never request.json()
  let verified;
  try {
    const { timestamp, signature } = readDeliveryHeaders(request.headers, names);
    verified = verifier.verifyWebhook({ body, timestamp, signature, nowSecs: Math.floor(Date.now() / 1000) });
  } catch (error) {
    if (!(error instanceof CryptoPayError)) throw error;
    if (error.code === 'event_type_unknown') {
      return Response.json({ received: true, ignored: error.code }); // authentic: acknowledge, ignore
    }
    console.warn(`webhook rejected: ${error.message}`);
    return Response.json({ error: error.code }, { status: 400 });
  }
  const { event } = verified;
  const decision = record(event);
  // 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}, never from this.
  return Response.json({ received: true, event_id: event.eventId, decision });
}
