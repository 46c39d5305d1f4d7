// The Hono recipe on a Cloudflare Worker: the same app (app.mjs) recording in D1. On a Worker,
// env exists only inside a request, so the app is built on the first one, around a receiver
// made then too (lazyReceiver: its ready() creates the D1 tables when missing; a failure is
// answered 500 or 503 and retried at the next request). wrangler.jsonc as in ../worker (a
// d1_databases binding DB, the header names as vars, the Secret with `wrangler secret put
// CRYPTOPAY_WEBHOOK_SECRET`), with "main": "worker.mjs".

import { createReceiver, d1Store, lazyReceiver, receiverOptionsFromEnv } from 'cryptopay-verify/receiver';
import { createApp } from './app.mjs';

let app;
export default {
  fetch(request, env) {
    app ??= createApp(lazyReceiver(() => createReceiver({ ...receiverOptionsFromEnv(env, { required: ['DB'] }), maxBodyBytes: 1024 * 1024, store: d1Store(env.DB) })));
    return app.fetch(request, env);
  },
};
