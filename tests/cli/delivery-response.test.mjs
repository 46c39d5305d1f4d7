// What a receiver's answer means to the service (classifyDeliveryResponse, as the
// conformance kit uses it): one status of each class, and the kit's verdicts on them.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { conformance, pkg, startServer, verifyingReceiver } from './helpers.mjs';

describe('classifyDeliveryResponse', () => {
  test('2xx acknowledges, 408/425/429/5xx are retried, anything else (3xx included) is permanent', () => {
    assert.equal(pkg.classifyDeliveryResponse(200), 'acknowledged');
    assert.equal(pkg.classifyDeliveryResponse(204), 'acknowledged');
    assert.equal(pkg.classifyDeliveryResponse(429), 'retry');
    assert.equal(pkg.classifyDeliveryResponse(503), 'retry');
    assert.equal(pkg.classifyDeliveryResponse(302), 'permanent_failure');
    assert.equal(pkg.classifyDeliveryResponse(404), 'permanent_failure');
    assert.throws(() => pkg.classifyDeliveryResponse(99), { code: 'invalid_argument' });
  });
});

describe('the kit reads statuses through it', () => {
  test('any 2xx acknowledges a valid delivery; a 503 rejection still counts as not acknowledged', async () => {
    const inner = verifyingReceiver();
    const server = await startServer(async (req, res, body) => {
      // 204 for what verifies, 503 for what does not.
      const writeHead = res.writeHead.bind(res);
      res.writeHead = (status, headers) => writeHead(status === 200 ? 204 : 503, headers);
      await inner(req, res, body);
    });
    try {
      const run = await conformance(server.url);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.equal(run.results[0].got, '204 acknowledged');
      assert.match(run.results.find((r) => r.rule === 'bad_signature').got, /^wrong signature of the right shape: 503 retry \(signature_mismatch\); /);
      assert.equal(run.results.find((r) => r.rule === 'bad_signature').verdict, 'pass');
    } finally {
      await server.close();
    }
  });
});
