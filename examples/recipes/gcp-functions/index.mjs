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
// service retries, not a function that fails to start):
//   CRYPTOPAY_WEBHOOK_SECRET  the signing Secret exactly as saved (required; Secret Manager)
//   TIMESTAMP_HEADER          the header carrying the delivery timestamp (required)
//   SIGNATURE_HEADER          the header carrying the signature (required)
//   DATABASE_URL              PostgreSQL (required; for Cloud SQL through its unix socket:
//                             postgresql://USER:PASSWORD@/DB?host=/cloudsql/PROJECT:REGION:INSTANCE)
//   MAX_SKEW_SECS             default 300

import functions from '@google-cloud/functions-framework';
import pg from 'pg';
import { createReceiver, postgresStore } from 'cryptopay-verify/receiver';

// Made at the first delivery and kept while the instance lives; forgotten on failure, so the
// next delivery tries again.
let receiving = null;
function getReceiver() {
  receiving ??= (async () => {
    const env = process.env;
    if (!env.CRYPTOPAY_WEBHOOK_SECRET || !env.TIMESTAMP_HEADER || !env.SIGNATURE_HEADER || !env.DATABASE_URL) {
      throw Object.assign(new Error('set CRYPTOPAY_WEBHOOK_SECRET, TIMESTAMP_HEADER, SIGNATURE_HEADER and DATABASE_URL'), { notConfigured: true });
    }
    const receiver = createReceiver({
      secrets: env.CRYPTOPAY_WEBHOOK_SECRET,
      maxSkewSecs: Number(env.MAX_SKEW_SECS ?? 300),
      timestampHeader: env.TIMESTAMP_HEADER,
      signatureHeader: env.SIGNATURE_HEADER,
      // A server that does not answer is a 503 within the request, not a hang.
      store: postgresStore(new pg.Pool({ connectionString: env.DATABASE_URL, max: 5, connectionTimeoutMillis: 5_000 })),
    });
    await receiver.ready(); // creates the tables when missing
    return receiver;
  })().catch((error) => {
    receiving = null;
    throw error;
  });
  return receiving;
}

functions.http('webhook', async (req, res) => {
  let receiver;
  try {
    receiver = await getReceiver();
  } catch (error) {
    // Not configured (500), or the database cannot be reached (503): the service retries both.
    console.error(`webhook receiver unavailable: ${error.message}`);
    res.status(error.notConfigured ? 500 : 503).json({ error: error.notConfigured ? 'not_configured' : 'store_unavailable' });
    return;
  }
  // 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}, never from this.
  await receiver.node(req, res);
});
