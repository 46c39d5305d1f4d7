// A Cloudflare Worker receiving payment.updated, on cryptopay-verify/receiver with D1: it reads
// the raw body itself, verifies, then records the event (de-duplicated by event_id, applied
// only when its status_version is greater) in one D1 batch, which D1 runs as one transaction,
// and answers 2xx only after it. Every isolate shares the same D1 database, so they agree.
//
// Bindings (wrangler.jsonc, and `wrangler secret put CRYPTOPAY_WEBHOOK_SECRET`):
//   DB                                    the D1 database (d1_databases)
//   CRYPTOPAY_WEBHOOK_SECRET              the signing Secret exactly as saved
//   TIMESTAMP_HEADER, SIGNATURE_HEADER    the delivery header names
//   MAX_SKEW_SECS                         default 300

import { createReceiver, d1Store, lazyReceiver, receiverOptionsFromEnv } from 'cryptopay-verify/receiver';

// env exists only inside a request: the receiver is made at the first one (its tables created
// in D1 when missing), kept while the isolate lives; it holds no state of its own. Without a
// binding, every delivery is 500 not_configured (the service retries), logged.
let receiver;

export default {
  fetch(request, env) {
    if (new URL(request.url).pathname !== '/webhook') return Response.json({ error: 'not_found' }, { status: 404 });
    receiver ??= lazyReceiver(() => createReceiver({
      ...receiverOptionsFromEnv(env, { required: ['DB'] }), maxBodyBytes: 1024 * 1024, store: d1Store(env.DB),
    }));
    return receiver.fetch(request);
  },
};
