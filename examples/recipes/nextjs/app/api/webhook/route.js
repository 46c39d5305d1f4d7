// POST /api/webhook (App Router): payment.updated deliveries. receiver.fetch reads the raw
// body itself: never call request.json() or request.text() first. Configuration: see
// lib/receiver.js.

import { receiver } from '../../../lib/receiver.js';

// No `runtime` or `dynamic` export: a route handler runs on Node and a POST is never cached,
// and an app with `cacheComponents: true` (as create-next-app writes it) refuses both.

// 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}, never from this.
export const POST = (request) => receiver.fetch(request);
