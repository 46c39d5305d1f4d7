// A Supabase Edge Function receiving payment.updated deliveries, on cryptopay-verify/receiver,
// recording in the project's PostgreSQL database. Deploy it with JWT verification off (the
// service sends no Supabase JWT: the signature is what authenticates a delivery):
//   supabase functions deploy cryptopay-webhook --no-verify-jwt
// or `verify_jwt = false` under [functions.cryptopay-webhook] in supabase/config.toml.
//
// Configuration (read at the first delivery, so that a missing value is a logged 500 the
// service retries, not a function that fails to start): CRYPTOPAY_WEBHOOK_SECRET
// (supabase secrets set --env-file FILE: never on the command line), TIMESTAMP_HEADER, SIGNATURE_HEADER,
// MAX_SKEW_SECS (see receiverOptionsFromEnv); DATABASE_URL, default SUPABASE_DB_URL, which
// Supabase sets.

import pg from 'pg';
import { createReceiver, lazyReceiver, postgresStore, receiverOptionsFromEnv } from 'cryptopay-verify/receiver';

// Made at the first delivery and kept while the isolate lives (later requests reuse it and
// its connection); forgotten on failure, so the next delivery tries again, on the same pool
// (a new pool at each try would leave a connection open each time).
let pool: pg.Pool | undefined;
const receiver = lazyReceiver(() => {
  const env = Deno.env.toObject();
  env.DATABASE_URL ||= env.SUPABASE_DB_URL ?? ''; // an empty value is unset
  return createReceiver({
    ...receiverOptionsFromEnv(env, { required: ['DATABASE_URL'] }),
    maxBodyBytes: 1024 * 1024, // an event is a few KB
    // One connection per isolate: a burst opens as many as it has isolates, no more. A
    // server that does not answer is a 503 within seconds, not a hang.
    store: postgresStore(pool ??= new pg.Pool({ connectionString: env.DATABASE_URL, max: 1, connectionTimeoutMillis: 5_000, query_timeout: 10_000 })),
  });
});

// The untouched Request: the receiver reads the raw body, verifies, records, then answers.
// A 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}.
Deno.serve((request) => receiver.fetch(request));
