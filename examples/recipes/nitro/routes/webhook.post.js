// POST /webhook: payment.updated deliveries. In a Nuxt app, the same file is
// server/api/webhook.post.js (POST /api/webhook), with utils/receiver.js as server/utils/receiver.js.
//
// toWebRequest(event) is the request as a Fetch Request whose body streams the bytes received,
// and receiver.fetch verifies exactly those; h3 sends the Response it returns. Never hand the
// receiver readBody(event) (parsed JSON: every delivery is 500 body_not_raw) or
// readRawBody(event) (its default 'utf8' decodes the bytes to text, so a byte that is not
// UTF-8 arrives as U+FFFD, and a body signed with U+FFFD verifies though it was altered).
// 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}, never from this.

import { defineEventHandler, toWebRequest } from 'h3';
import { receiver } from '../utils/receiver.js';

export default defineEventHandler((event) => receiver.fetch(toWebRequest(event)));
