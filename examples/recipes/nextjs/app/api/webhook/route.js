// POST /api/webhook (App Router): payment.updated deliveries. receiver.fetch reads the raw
// body itself: never call request.json() or request.text() first. Configuration: see
// lib/receiver.js.

import { webhookReceiver } from '../../../lib/receiver.js';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function POST(request) {
  const { receiver, unavailable } = await webhookReceiver();
  if (unavailable) return Response.json(unavailable.body, { status: unavailable.status });
  // 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}, never from this.
  return receiver.fetch(request);
}
