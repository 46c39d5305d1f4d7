// POST /webhook: payment.updated deliveries, on Nitro 3 (h3 v2).
//
// In h3 v2, event.req is the request as a Fetch Request, its body the bytes received, and
// receiver.fetch verifies exactly those; h3 sends the Response it returns. h3 v2 has no
// toWebRequest (the Nitro 2 recipe's way). Never read the body before the receiver:
// readBody(event) (or a middleware's) consumes event.req, and every delivery is then
// 500 body_not_raw; readRawBody(event) and event.req.text() decode the bytes to text, so a
// byte that is not UTF-8 arrives as U+FFFD, and a body signed with U+FFFD verifies though it
// was altered. 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}.
//
// h3 comes from nitro/h3: the h3 Nitro itself runs on, whatever h3 the project resolves.

import { defineHandler } from 'nitro/h3';
import { receiver } from '../utils/receiver.js';

export default defineHandler((event) => receiver.fetch(event.req));
