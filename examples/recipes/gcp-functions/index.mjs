// A Google Cloud Run function (formerly Cloud Functions) receiving payment.updated, on
// cryptopay-verify/receiver, recording in PostgreSQL (Cloud SQL: a function has no lasting
// disk, and many instances run at once). Entry point: webhook (`functions-framework
// --target=webhook` locally; `gcloud functions deploy ... --entry-point=webhook` to deploy).
//
// The Functions Framework parses every request body before the function runs, and keeps the
// bytes it read in req.rawBody: receiver.node verifies those bytes (never the parsed
// req.body). Firebase's onRequest (firebase-functions/v2/https) hands the same req.
//
// Configuration (read at the first delivery, so that a missing value is a logged 500 the
// service retries, not a function that fails to start): CRYPTOPAY_WEBHOOK_SECRET (Secret
// Manager), TIMESTAMP_HEADER, SIGNATURE_HEADER, MAX_SKEW_SECS (see receiverOptionsFromEnv) and
// DATABASE_URL (required; for Cloud SQL through its unix socket:
// postgresql://USER:PASSWORD@/DB?host=/cloudsql/PROJECT:REGION:INSTANCE).

import functions from '@google-cloud/functions-framework';
import pg from 'pg';
import { createReceiver, lazyReceiver, postgresStore, receiverOptionsFromEnv } from 'cryptopay-verify/receiver';

// Made at the first delivery and kept while the instance lives; forgotten on failure, so the
// next delivery tries again (with the same pool: a failed attempt leaves none of its own open).
// A server that does not answer is a 503 within the request.
let pool;
const receiver = lazyReceiver(() => createReceiver({
  ...receiverOptionsFromEnv(process.env, { required: ['DATABASE_URL'] }),
  maxBodyBytes: 1024 * 1024, // an event is a few KB
  store: postgresStore(pool ??= new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 5, connectionTimeoutMillis: 5_000, query_timeout: 10_000 })),
}));

// 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}, never from this.
functions.http('webhook', receiver.node);
