// A hapi 21 receiver for payment.updated, on cryptopay-verify/receiver: the route takes the
// payload as raw bytes (parse: false), the receiver verifies them, then records the event in
// the store (de-duplicated by event_id, applied only when its status_version is greater) in
// one transaction, and answers 2xx only after the commit. server.mjs opens the store and
// starts it.

import Hapi from '@hapi/hapi';
import { createReceiver } from 'cryptopay-verify/receiver';

const MAX_BODY_BYTES = 1024 * 1024;

/** The receiver. config: { secrets, maxSkewSecs, timestampHeader, signatureHeader, store }. */
export function webhookReceiver(config, log = console) {
  return createReceiver({
    secrets: config.secrets,
    maxSkewSecs: config.maxSkewSecs,
    timestampHeader: config.timestampHeader,
    signatureHeader: config.signatureHeader,
    maxBodyBytes: MAX_BODY_BYTES,
    store: config.store,
    log,
  });
}

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

export async function createServer(config, log = console) {
  const receiver = webhookReceiver(config, log);
  await receiver.ready(); // creates the tables when missing; fails the start if the store is unusable
  const server = Hapi.server({ port: config.port, host: config.host });
  server.route(webhookRoute(receiver, config.path));
  return server;
}
