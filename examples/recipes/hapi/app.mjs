// A hapi 21 receiver for payment.updated, on cryptopay-verify/receiver: the route takes the
// payload as raw bytes (parse: false), the receiver verifies them, then records the event in
// the store (de-duplicated by event_id, applied only when its status_version is greater) in
// one transaction, and answers 2xx only after the commit. server.mjs makes the receiver and
// starts the server.

import Hapi from '@hapi/hapi';
import { MAX_BODY_BYTES } from '../common/receiver.mjs';

/**
 * The webhook route. `parse: false` keeps the payload as the Buffer that arrived (hapi's
 * default parses JSON into an object, which can never verify); the receiver's answer is sent
 * as it is. Headers from rawHeaders, so a header sent twice is seen twice.
 */
export function webhookRoute(receiver, path = '/webhook') {
  return {
    method: 'POST',
    path,
    options: { payload: { parse: false, output: 'data', maxBytes: MAX_BODY_BYTES } },
    async handler(request, h) {
      const { status, headers, body } = await receiver.handle({ body: request.payload, headers: request.raw.req.rawHeaders });
      const response = h.response(body).code(status);
      for (const [name, value] of Object.entries(headers)) response.header(name, value);
      return response;
    },
  };
}

export function createServer(receiver, { port, host, path }) {
  const server = Hapi.server({ port, host });
  server.route(webhookRoute(receiver, path));
  return server;
}
