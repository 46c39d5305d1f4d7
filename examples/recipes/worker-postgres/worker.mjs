// A Cloudflare Worker receiving payment.updated, on cryptopay-verify/receiver with PostgreSQL
// through Hyperdrive: it reads the raw body itself, verifies, then records the event
// (de-duplicated by event_id, applied only when its status_version is greater) in one
// statement, so one transaction, and answers 2xx only after it committed.
//
// A Worker may not use a connection once the request that opened it has ended: a pg.Pool kept
// across requests answers the first delivery, then leaves every later one waiting on a socket
// it may not touch, until workerd cancels it as hung (a 500 the service retries, for ever).
// So the store is given a client per statement (each delivery is one statement), which
// Hyperdrive serves from the connections it keeps pooled near the database.
//
// Bindings (wrangler.jsonc, and `wrangler secret put CRYPTOPAY_WEBHOOK_SECRET`):
//   HYPERDRIVE                            the Hyperdrive configuration (hyperdrive)
//   CRYPTOPAY_WEBHOOK_SECRET              the signing Secret exactly as saved
//   TIMESTAMP_HEADER, SIGNATURE_HEADER    the delivery header names
//   MAX_SKEW_SECS                         default 300

import pg from 'pg';
import { createReceiver, postgresStore } from 'cryptopay-verify/receiver';

/** What postgresStore takes (query(text, values) -> { rows }), one connection per statement. */
function clientPerStatement(connectionString) {
  return {
    async query(text, values) {
      const client = new pg.Client({ connectionString });
      client.on('error', () => {}); // a dropped connection fails the query below, which says why
      await client.connect();
      try {
        return await client.query(text, values);
      } finally {
        await client.end();
      }
    },
  };
}

// The receiver holds no connection and no state of its own (the keyed verifier only).
let receiver;

export default {
  async fetch(request, env) {
    if (new URL(request.url).pathname !== '/webhook') return Response.json({ error: 'not_found' }, { status: 404 });
    if (!env.HYPERDRIVE || !env.CRYPTOPAY_WEBHOOK_SECRET || !env.TIMESTAMP_HEADER || !env.SIGNATURE_HEADER) {
      console.error('bind the Hyperdrive configuration HYPERDRIVE, the secret CRYPTOPAY_WEBHOOK_SECRET and the vars TIMESTAMP_HEADER, SIGNATURE_HEADER');
      return Response.json({ error: 'not_configured' }, { status: 500 }); // the service retries later
    }
    receiver ??= createReceiver({
      secrets: env.CRYPTOPAY_WEBHOOK_SECRET,
      maxSkewSecs: Number(env.MAX_SKEW_SECS ?? 300),
      timestampHeader: env.TIMESTAMP_HEADER,
      signatureHeader: env.SIGNATURE_HEADER,
      maxBodyBytes: 1024 * 1024,
      // The tables are created at the first delivery when missing (idempotent).
      store: postgresStore(clientPerStatement(env.HYPERDRIVE.connectionString)),
    });
    return receiver.fetch(request);
  },
};
