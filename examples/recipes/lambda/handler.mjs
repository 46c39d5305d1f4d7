// An AWS Lambda function receiving payment.updated deliveries, on cryptopay-verify/receiver,
// recording in PostgreSQL (a Lambda has no lasting disk, and many run at once). Handler:
// handler.handler. It works behind an API Gateway HTTP API (payload 2.0) or REST API (1.0),
// a Function URL, or an Application Load Balancer: each hands the body over as text, or as
// base64 when `isBase64Encoded` is true (then the base64 text is not the body until decoded).
//
// Configuration (read at the first delivery, so that a missing value is a logged 500 the
// service retries, not a function that fails to start): CRYPTOPAY_WEBHOOK_SECRET (from a
// secret store), TIMESTAMP_HEADER, SIGNATURE_HEADER, MAX_SKEW_SECS (see receiverOptionsFromEnv)
// and DATABASE_URL (required).

import pg from 'pg';
import { createReceiver, lazyReceiver, postgresStore, receiverOptionsFromEnv } from 'cryptopay-verify/receiver';

// Made at the first delivery and kept while the execution environment lives (later
// invocations reuse it and its connection); forgotten on failure, so the next one tries again
// (with the same pool: a failed attempt leaves none of its own open).
let pool;
const receiver = lazyReceiver(() => {
  const options = receiverOptionsFromEnv(process.env, { required: ['DATABASE_URL'] });
  // One invocation at a time per environment: one connection each, so a burst of concurrent
  // Lambdas opens as many connections as it has environments, no more. A server that does
  // not answer is a 503 within 5 s (connect) or 10 s (a query), not a hang: give the function
  // a timeout above those (Lambda's default, 3 s, ends it first, and the front door answers).
  pool ??= new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1, connectionTimeoutMillis: 5_000, query_timeout: 10_000 });
  // A load balancer hands Lambda at most 1 MB of body; an event is a few KB.
  return createReceiver({ ...options, maxBodyBytes: 1024 * 1024, store: postgresStore(pool) });
});

export async function handler(event) {
  const { status, headers, body } = await receiver.handle({
    // The exact bytes the service signed: base64 decoded, or the text as given (never parsed).
    body: event.body == null ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body,
    // REST APIs and ALBs give every value of a repeated header in multiValueHeaders (an ALB
    // only when its target group has multi-value headers on: turn them on).
    headers: event.multiValueHeaders ?? event.headers ?? {},
  });
  // 2xx acknowledges delivery only: fulfil from GET /v1/payments/{payment_id}, never from this.
  // Answered in the form the request came in: an ALB with multi-value headers on reads only
  // multiValueHeaders.
  if (event.multiValueHeaders) {
    return { statusCode: status, multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])), body, isBase64Encoded: false };
  }
  return { statusCode: status, headers, body, isBase64Encoded: false };
}
