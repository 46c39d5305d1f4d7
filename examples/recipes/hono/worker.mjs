// The Hono recipe on a Cloudflare Worker: the same app (app.mjs) recording in D1. On a Worker,
// env exists only inside a request, so the app is built on the first one (its ready() creates
// the D1 tables when missing). wrangler.jsonc as in ../worker (a d1_databases binding DB, the
// header names as vars, the Secret with `wrangler secret put CRYPTOPAY_WEBHOOK_SECRET`), with
// "main": "worker.mjs".

import { d1Store } from 'cryptopay-verify/receiver';
import { createApp } from './app.mjs';

let app;
export default {
  async fetch(request, env) {
    app ??= createApp({
      secrets: env.CRYPTOPAY_WEBHOOK_SECRET, maxSkewSecs: Number(env.MAX_SKEW_SECS ?? 300),
      timestampHeader: env.TIMESTAMP_HEADER, signatureHeader: env.SIGNATURE_HEADER, store: d1Store(env.DB),
    }).catch((error) => {
      app = undefined; // the next request tries again (this one is a 500: the service retries)
      throw error;
    });
    return (await app).fetch(request, env);
  },
};
