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

import { createReceiver, d1Store } from 'cryptopay-verify/receiver';

// The receiver holds no state of its own (the keyed verifier only): everything is in D1.
let receiver;

export default {
  async fetch(request, env) {
    if (new URL(request.url).pathname !== '/webhook') return Response.json({ error: 'not_found' }, { status: 404 });
    if (!env.DB || !env.CRYPTOPAY_WEBHOOK_SECRET || !env.TIMESTAMP_HEADER || !env.SIGNATURE_HEADER) {
      console.error('bind the D1 database DB, the secret CRYPTOPAY_WEBHOOK_SECRET and the vars TIMESTAMP_HEADER, SIGNATURE_HEADER');
      return Response.json({ error: 'not_configured' }, { status: 500 }); // the service retries later
    }
    receiver ??= createReceiver({
      secrets: env.CRYPTOPAY_WEBHOOK_SECRET,
      maxSkewSecs: Number(env.MAX_SKEW_SECS ?? 300),
      timestampHeader: env.TIMESTAMP_HEADER,
      signatureHeader: env.SIGNATURE_HEADER,
      maxBodyBytes: 1024 * 1024,
      store: d1Store(env.DB), // the tables are created at the first delivery (idempotent)
    });
    return receiver.fetch(request);
  },
};
