// Serverless functions that hand the body over as a string in an event object: AWS Lambda
// (API Gateway HTTP and REST APIs, Function URLs) and Netlify Functions. The events here are
// built by hand in the shapes those platforms document (their runtimes cannot run here); the
// package README's "Getting the raw body" row for them is what each test passes to the package:
//   event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body
// A body the platform passed as text is the request's UTF-8 decoded, and the package encodes a
// string as UTF-8 again: the same bytes. One passed as base64 must be decoded first: the base64
// text itself is not the body (signature_mismatch).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { entries, sign } from './package-under-test.mjs';

const SECRET = 'whsec_serverless';
const NOW = 1764115200;
const TS = String(NOW);
const NAMES = { timestampHeader: 'x-cryptopay-timestamp', signatureHeader: 'x-cryptopay-signature' };
// A payment.updated event with characters outside ASCII (a store's name, a customer note).
const BODY = JSON.stringify({
  schema_version: 1,
  event_id: 'evt_srv_1',
  event_type: 'payment.updated',
  occurred_at: '2026-11-26T00:00:00Z',
  data: { payment_id: 'pay_srv_1', status_version: 4, note: 'Café Zürich, 2 × ☕' },
});
const SIGNATURE = `v1=${sign(SECRET, TS, BODY)}`;

// The README's expressions.
const rawBody = (event) => (event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body);
const headersOf = (event) => event.multiValueHeaders ?? event.headers;

// API Gateway HTTP API (payload 2.0) and Function URLs: header names in lower case.
const httpApiEvent = (isBase64Encoded) => ({
  version: '2.0',
  headers: { 'content-type': 'application/json', 'x-cryptopay-timestamp': TS, 'x-cryptopay-signature': SIGNATURE },
  body: isBase64Encoded ? Buffer.from(BODY, 'utf8').toString('base64') : BODY,
  isBase64Encoded,
});
// API Gateway REST API (payload 1.0): header names as sent, and multiValueHeaders.
const restApiEvent = (isBase64Encoded) => ({
  headers: { 'Content-Type': 'application/json', 'X-CryptoPay-Timestamp': TS, 'X-CryptoPay-Signature': SIGNATURE },
  multiValueHeaders: { 'X-CryptoPay-Timestamp': [TS], 'X-CryptoPay-Signature': [SIGNATURE] },
  body: isBase64Encoded ? Buffer.from(BODY, 'utf8').toString('base64') : BODY,
  isBase64Encoded,
});

for (const [label, api] of entries) {
  describe(`${label}: serverless events (AWS Lambda, Netlify)`, () => {
    const verify = (event) => {
      const { timestamp, signature } = api.readDeliveryHeaders(headersOf(event), NAMES);
      return api.verifyWebhook({ body: rawBody(event), timestamp, signature, secrets: SECRET, maxSkewSecs: 300, nowSecs: NOW });
    };

    for (const [shape, make] of [['HTTP API / Function URL', httpApiEvent], ['REST API', restApiEvent]]) {
      for (const isBase64Encoded of [false, true]) {
        test(`${shape}, isBase64Encoded ${isBase64Encoded}: verifies, and the event is the body's`, () => {
          const verified = verify(make(isBase64Encoded));
          assert.equal(verified.matchedSecret, 'active');
          assert.equal(verified.event.eventId, 'evt_srv_1');
          assert.equal(verified.event.data.note, 'Café Zürich, 2 × ☕');
        });
      }
    }

    test('REST API multiValueHeaders: the same headers read from there verify too', () => {
      const event = restApiEvent(false);
      const { timestamp, signature } = api.readDeliveryHeaders(event.multiValueHeaders, NAMES);
      const verified = api.verifySignature({ body: rawBody(event), timestamp, signature, secrets: SECRET, maxSkewSecs: 300, nowSecs: NOW });
      assert.equal(verified.matchedSecret, 'active');
    });

    test('REST API: a timestamp header sent twice is header_duplicated (its `headers` keeps only the last value)', () => {
      const event = restApiEvent(false);
      event.multiValueHeaders['X-CryptoPay-Timestamp'] = [TS, String(NOW - 86400)];
      event.headers['X-CryptoPay-Timestamp'] = String(NOW - 86400);
      assert.throws(() => verify(event), (error) => error instanceof api.CryptoPayError && error.code === 'header_duplicated');
    });

    test('a base64 body passed without decoding it is signature_mismatch (the base64 text is not the body)', () => {
      const event = httpApiEvent(true);
      const { timestamp, signature } = api.readDeliveryHeaders(event.headers, NAMES);
      assert.throws(
        () => api.verifyWebhook({ body: event.body, timestamp, signature, secrets: SECRET, maxSkewSecs: 300, nowSecs: NOW }),
        (error) => error instanceof api.CryptoPayError && error.code === 'signature_mismatch',
      );
    });

    test('a body changed in transit is refused whichever way it arrived', () => {
      for (const isBase64Encoded of [false, true]) {
        const event = httpApiEvent(isBase64Encoded);
        const changed = BODY.replace('"status_version":4', '"status_version":5');
        event.body = isBase64Encoded ? Buffer.from(changed, 'utf8').toString('base64') : changed;
        assert.throws(() => verify(event), (error) => error instanceof api.CryptoPayError && error.code === 'signature_mismatch');
      }
    });
  });
}
