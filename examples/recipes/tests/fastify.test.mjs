// The Fastify recipe (examples/recipes/fastify), run as `node server.mjs`.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  SIG_HEADER, TS_HEADER, deliver, eventBody, nowSecs, recipeCopy, sign, SECRET, sqliteRecipeSuite, startNodeRecipe,
} from './helpers.mjs';

sqliteRecipeSuite('Fastify recipe (raw-body content-type parser, receiver.handle; SQLite file)', 'fastify');

describe('Fastify recipe: a delivery of any content type, or none, reaches the receiver as bytes', () => {
  let server;
  before(async () => {
    server = await startNodeRecipe(recipeCopy('fastify', 'fastify-types'));
  });
  after(() => server?.stop());

  for (const type of ['application/octet-stream', 'text/plain', 'application/vnd.payments+json', null]) {
    test(`content-type ${type ?? '(none)'}: verified and applied, never Fastify's 415`, async () => {
      const body = Buffer.from(eventBody({ eventId: `evt_type_${type ?? 'none'}`, paymentId: `pay_type_${type ?? 'none'}`, statusVersion: '1' }));
      const ts = String(nowSecs());
      const headers = { [TS_HEADER]: ts, [SIG_HEADER]: sign(SECRET, ts, body), 'content-type': type };
      const answer = await deliver(server.url, body, { headers });
      assert.deepEqual([answer.status, answer.json], [200, { received: true, decision: 'apply' }], answer.text);
    });
  }
});
