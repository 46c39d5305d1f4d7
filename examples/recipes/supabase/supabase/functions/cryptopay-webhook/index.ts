// A Supabase Edge Function receiving payment.updated deliveries, on cryptopay-verify/receiver,
// recording in the project's PostgreSQL database. Deploy it with JWT verification off (the
// service sends no Supabase JWT: the signature is what authenticates a delivery):
//   supabase functions deploy cryptopay-webhook --no-verify-jwt
// or `verify_jwt = false` under [functions.cryptopay-webhook] in supabase/config.toml.
//
// Configuration (read at the first delivery, so that a missing value is a logged 500 the
// service retries, not a function that fails to start):
//   CRYPTOPAY_WEBHOOK_SECRET  the signing Secret exactly as saved (required:
//                             supabase secrets set CRYPTOPAY_WEBHOOK_SECRET=...)
//   TIMESTAMP_HEADER          the header carrying the delivery timestamp (required)
//   SIGNATURE_HEADER          the header carrying the signature (required)
//   DATABASE_URL              PostgreSQL; default: SUPABASE_DB_URL, which Supabase sets
//   MAX_SKEW_SECS             default 300

import pg from 'pg';
import { createReceiver, postgresStore, type Receiver } from 'cryptopay-verify/receiver';

class NotConfigured extends Error {}

// Made at the first delivery and kept while the isolate lives (later requests reuse it and
// its connection); forgotten on failure, so the next delivery tries again.
let receiving: Promise<Receiver> | null = null;
function getReceiver(): Promise<Receiver> {
  receiving ??= (async () => {
    const env = Deno.env.toObject();
    const databaseUrl = env.DATABASE_URL || env.SUPABASE_DB_URL; // an empty value is unset
    if (!env.CRYPTOPAY_WEBHOOK_SECRET || !env.TIMESTAMP_HEADER || !env.SIGNATURE_HEADER || !databaseUrl) {
      throw new NotConfigured('set CRYPTOPAY_WEBHOOK_SECRET, TIMESTAMP_HEADER, SIGNATURE_HEADER (and DATABASE_URL where Supabase sets no SUPABASE_DB_URL)');
    }
    const receiver = createReceiver({
      secrets: env.CRYPTOPAY_WEBHOOK_SECRET,
      maxSkewSecs: Number(env.MAX_SKEW_SECS ?? 300),
      timestampHeader: env.TIMESTAMP_HEADER,
      signatureHeader: env.SIGNATURE_HEADER,
      maxBodyBytes: 1024 * 1024,
      // One connection per isolate: a burst opens as many as it has isolates, no more. A
      // server that does not answer is a 503 within seconds, not a hang.
      store: postgresStore(new pg.Pool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 5_000 })),
    });
    await receiver.ready(); // creates the tables when missing
    return receiver;
  })().catch((error) => {
    receiving = null;
    throw error;
  });
  return receiving;
}

Deno.serve(async (request) => {
  let receiver: Receiver;
  try {
    receiver = await getReceiver();
  } catch (error) {
    // Not configured (500), or the database cannot be reached (503): the service retries both.
    console.error(`webhook receiver unavailable: ${error instanceof Error ? error.message : String(error)}`);
    return Response.json({ error: error instanceof NotConfigured ? 'not_configured' : 'store_unavailable' },
      { status: error instanceof NotConfigured ? 500 : 503 });
  }
  // The untouched Request: the receiver reads the raw body, verifies, records, then answers.
  // A 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}.
  return receiver.fetch(request);
});
