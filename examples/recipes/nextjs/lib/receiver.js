// The receiver both routes share (app/api/webhook/route.js, App Router; pages/api/
// pages-router-webhook.js, Pages Router): made at the first request from the environment, so
// `next build` needs neither the secret nor the database; PostgreSQL when DATABASE_URL is set
// (serverless functions have no lasting disk), else, when DATA_DIR is set, the SQLite file
// DATA_DIR/receiver.sqlite for one `next start` process; with neither, every request is answered
// 500 not_configured (logged). Until it can be made, each request is answered 500 not_configured or 503 store_unavailable
// (the service retries), and the next one tries again. See ../../common/receiver.mjs.

import { lazyNodeReceiver } from '../../common/receiver.mjs';

export const receiver = lazyNodeReceiver();
