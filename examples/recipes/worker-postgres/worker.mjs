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
import { createReceiver, lazyReceiver, postgresStore, receiverOptionsFromEnv } from 'cryptopay-verify/receiver';

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

// Made at the first request (env exists only inside one), kept while the isolate lives: it
// holds no connection and no state of its own. Without a binding, every delivery is 500
// not_configured (the service retries), logged; the tables are created when missing. The
// client is made once, so that the store's pause after a migration that waited too long for a
// lock holds across the receiver's attempts (a new object would try at every delivery).
let receiver;
let client;

export default {
  fetch(request, env) {
    if (new URL(request.url).pathname !== '/webhook') return Response.json({ error: 'not_found' }, { status: 404 });
    receiver ??= lazyReceiver(() => createReceiver({
      ...receiverOptionsFromEnv(env, { required: ['HYPERDRIVE'] }), maxBodyBytes: 1024 * 1024,
      store: postgresStore(client ??= clientPerStatement(env.HYPERDRIVE.connectionString)),
    }));
    return receiver.fetch(request);
  },
};
