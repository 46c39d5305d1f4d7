// POST /api/pages-router-webhook (Pages Router): the same receiver for an app on the Pages
// Router. Next.js parses a Pages API route's body before the handler runs, and a parsed body
// can never verify (every delivery would be 500 body_not_raw): turn its parser off for this
// route, and receiver.node reads the raw bytes from the request itself.

import { receiver } from '../../lib/receiver.js';

export const config = { api: { bodyParser: false } };

export default function handler(req, res) {
  return receiver.node(req, res); // 2xx acknowledges delivery only
}
