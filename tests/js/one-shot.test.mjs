// The one-shot functions keep the keyed sets of their last few distinct calls (api/verify.mjs).
// Whatever was kept, evicted and keyed again, each call must answer for its own secrets only:
// more distinct sets than are kept, in turns, each accepting its own signature and refusing the
// others', through both HMAC paths (a small body in WebAssembly, a large one by the host).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { entries, sign, thrown } from './package-under-test.mjs';

const NOW = 1764115200;
const TS = String(NOW);
const SETS = Array.from({ length: 7 }, (_, i) => `whsec_one_shot_${i}`);
// A set as the one-shot functions take it: one string, or a rotation list.
const asInput = (secret, i) => (i % 2 === 0 ? secret : [{ secret, kind: 'active' }, { secret: `${secret}_pending`, kind: 'pending' }]);

for (const [name, api] of entries) {
  describe(`${name}: one-shot calls with many secret sets`, () => {
    test('a set whose kinds spell another set\'s key is checked as itself: invalid_argument, never the other\'s keyed states', () => {
      const body = 'x';
      // The string 'abc|-1|1:z' and the list of 'z' with the kind '=abc' (joined with `|`
      // and `,`, their keys were one).
      for (const [kept, spelled] of [['abc|-1|1:z', [{ secret: 'z', kind: '=abc' }]]]) {
        const first = Array.isArray(kept) ? kept[0].secret : kept;
        const signature = api.signWebhook({ secret: first, timestamp: TS, body });
        const input = { body, timestamp: TS, signature, nowSecs: NOW, maxSkewSecs: 300 };
        api.verifySignature({ ...input, secrets: kept }); // keyed and kept
        assert.equal(thrown(() => api.verifySignature({ ...input, secrets: spelled }))?.code, 'invalid_argument');
      }
    });

    for (const size of [64, 8192]) {
      test(`each set verifies its own signature only, over ${size} B, in three rounds`, () => {
        const body = JSON.stringify({ schema_version: 1, event_id: 'evt_os', event_type: 'payment.updated',
          occurred_at: 1, data: { payment_id: 'pay_os', status_version: 1, pad: 'p'.repeat(size) } });
        for (let round = 0; round < 3; round += 1) {
          SETS.forEach((secret, i) => {
            const secrets = asInput(secret, i);
            const own = api.verifyWebhook({ body, timestamp: TS, signature: sign(secret, TS, body), secrets, nowSecs: NOW, maxSkewSecs: 300 });
            assert.equal(own.matchedSecret, 'active');
            assert.equal(own.event.eventId, 'evt_os');
            const other = SETS[(i + 1) % SETS.length];
            const error = thrown(() => api.verifySignature({ body, timestamp: TS, signature: sign(other, TS, body), secrets, nowSecs: NOW, maxSkewSecs: 300 }));
            assert.equal(error?.code, 'signature_mismatch', `set ${i} accepted set ${(i + 1) % SETS.length}'s signature`);
            if (i % 2 === 1) {
              const pending = api.verifySignature({ body, timestamp: TS, signature: sign(`${secret}_pending`, TS, body), secrets, nowSecs: NOW, maxSkewSecs: 300 });
              assert.equal(pending.matchedSecret, 'pending');
            }
          });
        }
      });
    }

    test('the same secret with other options is another set (the skew and the body limit hold)', () => {
      const body = '{}';
      const signature = sign(SETS[0], TS, body);
      api.verifySignature({ body, timestamp: TS, signature, secrets: SETS[0], nowSecs: NOW + 300, maxSkewSecs: 300 });
      assert.equal(thrown(() => api.verifySignature({ body, timestamp: TS, signature, secrets: SETS[0], nowSecs: NOW + 300, maxSkewSecs: 299 }))?.code, 'timestamp_too_old');
      assert.equal(thrown(() => api.verifySignature({ body, timestamp: TS, signature, secrets: SETS[0], nowSecs: NOW, maxSkewSecs: 300, maxBodyBytes: 1 }))?.code, 'body_too_large');
    });

    test('secrets that are no set, right after a call with a list, are refused: never that list\'s set', () => {
      for (const size of [64, 8192]) {
        const body = JSON.stringify({ schema_version: 1, event_id: 'evt_os', event_type: 'payment.updated',
          occurred_at: 1, data: { payment_id: 'pay_os', status_version: 1, pad: 'p'.repeat(size) } });
        const signature = sign(SETS[1], TS, body);
        for (const missing of [null, undefined, 0, false, [], {}]) {
          // A tenant's list, then a lookup that found no tenant: same delivery, same options.
          api.verifyWebhook({ body, timestamp: TS, signature, secrets: asInput(SETS[1], 1), nowSecs: NOW, maxSkewSecs: 300 });
          for (const verify of [api.verifySignature, api.verifyWebhook]) {
            const error = thrown(() => verify({ body, timestamp: TS, signature, secrets: missing, nowSecs: NOW, maxSkewSecs: 300 }));
            assert.ok(error !== undefined, `secrets ${JSON.stringify(missing)} verified with the previous call's list (${size} B)`);
            assert.ok(['invalid_argument', 'no_secrets'].includes(error.code), `${JSON.stringify(missing)}: ${error.code}`);
          }
        }
      }
    });

    test('an empty secret is still reported after the delivery, kept or not', () => {
      for (let i = 0; i < 2; i += 1) {
        assert.equal(thrown(() => api.verifySignature({ body: '{}', timestamp: TS, signature: 'v1=' + 'a'.repeat(64), secrets: '', nowSecs: NOW, maxSkewSecs: 300 }))?.code, 'secret_empty');
        assert.equal(thrown(() => api.verifySignature({ body: '{}', timestamp: '', signature: 'v1=' + 'a'.repeat(64), secrets: '', nowSecs: NOW, maxSkewSecs: 300 }))?.code, 'timestamp_missing');
      }
    });
  });
}
