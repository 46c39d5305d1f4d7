// An AWS Lambda function receiving payment.updated deliveries, on cryptopay-verify/receiver,
// recording in PostgreSQL (a Lambda has no lasting disk, and many run at once). Handler:
// handler.handler. It works behind an API Gateway HTTP API (payload 2.0) or REST API (1.0),
// a Function URL, or an Application Load Balancer: each hands the body over as text, or as
// base64 when `isBase64Encoded` is true (then the base64 text is not the body until decoded).
//
// Configuration (read at the first delivery, so that a missing value is a logged 500 the
// service retries, not a function that fails to start):
//   CRYPTOPAY_WEBHOOK_SECRET  the signing Secret exactly as saved (required; from a secret store)
//   TIMESTAMP_HEADER          the header carrying the delivery timestamp (required)
//   SIGNATURE_HEADER          the header carrying the signature (required)
//   DATABASE_URL              PostgreSQL (required)
//   MAX_SKEW_SECS             default 300

import pg from 'pg';
import { createReceiver, postgresStore } from 'cryptopay-verify/receiver';

// Made at the first delivery and kept while the execution environment lives (later
// invocations reuse it and its connection); forgotten on failure, so the next one tries again.
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
      // One invocation at a time per environment: one connection each, so a burst of
      // concurrent Lambdas opens as many connections as it has environments, no more.
      // A server that does not answer is a 503 within the function's timeout, not a hang.
      store: postgresStore(new pg.Pool({ connectionString: env.DATABASE_URL, max: 1, connectionTimeoutMillis: 5_000 })),
    });
    await receiver.ready(); // creates the tables when missing
    return receiver;
  })().catch((error) => {
    receiving = null;
    throw error;
  });
  return receiving;
}

const json = (statusCode, value) => ({ statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });

export async function handler(event) {
  let receiver;
  try {
    receiver = await getReceiver();
  } catch (error) {
    // Not configured (500), or the database cannot be reached (503): the service retries both.
    console.error(`webhook receiver unavailable: ${error.message}`);
    return error.notConfigured ? json(500, { error: 'not_configured' }) : json(503, { error: 'store_unavailable' });
  }
  const { status, headers, body } = await receiver.handle({
    // The exact bytes the service signed: base64 decoded, or the text as given (never parsed).
    body: event.body == null ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body,
    // REST APIs and ALBs give every value of a repeated header in multiValueHeaders.
    headers: event.multiValueHeaders ?? event.headers ?? {},
  });
  // 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}, never from this.
  return { statusCode: status, headers, body };
}
