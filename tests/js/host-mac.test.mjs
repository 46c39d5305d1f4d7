// The HMAC the node entry borrows from its runtime. In Bun it is Bun.CryptoHasher keyed with the
// secret; a Bun before 1.1.30 takes that key argument and ignores it (a plain SHA-256), so the
// entry must check the tag it answers, not only its length: else a delivery signed with no
// secret at all (SHA-256 of timestamp.body) verifies. Bun is stood in for here (a STAND-IN
// CryptoHasher that keys, and one that ignores the key) in a fresh Node process that imports
// the installed entry, as a Bun process does at start.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { esmEntryPath } from './package-under-test.mjs';

function verifyUnder(keyed) {
  const script = `
    import { createHash, createHmac } from 'node:crypto';
    // STAND-IN for Bun.CryptoHasher; the number of digests tells whether the entry used it.
    let digests = 0;
    const keysGiven = [];
    class CryptoHasher {
      // The key copied, as Bun's keyed state holds its own (the entry wipes the bytes it gave).
      constructor(algorithm, key) {
        if (key !== undefined) keysGiven.push(key);
        this.key = key === undefined ? undefined : Buffer.from(key);
        this.parts = [];
      }
      update(data) { this.parts.push(Buffer.from(data)); return this; }
      copy() { return Object.assign(Object.create(CryptoHasher.prototype), { key: this.key, parts: [...this.parts] }); }
      digest() {
        digests += 1;
        const state = ${keyed} && this.key !== undefined ? createHmac('sha256', this.key) : createHash('sha256');
        for (const part of this.parts) state.update(part);
        return new Uint8Array(state.digest());
      }
    }
    globalThis.Bun = { CryptoHasher };
    const { verifyWebhook, signWebhook } = await import(${JSON.stringify(pathToFileURL(esmEntryPath).href)});
    const secret = 'whsec_host_mac_test';
    const timestamp = String(Math.floor(Date.now() / 1000));
    const body = new TextEncoder().encode(JSON.stringify({ schema_version: '1', event_id: 'evt_hm', event_type: 'payment.updated',
      occurred_at: '2026-11-01T00:00:00Z', data: { payment_id: 'pay_hm', status_version: 1 } }));
    const answer = (signature) => {
      try {
        verifyWebhook({ body, timestamp, signature, secrets: secret, maxSkewSecs: 300, nowSecs: Number(timestamp) });
        return 'accepted';
      } catch (error) {
        return error.code;
      }
    };
    const unkeyed = 'v1=' + createHash('sha256').update(timestamp + '.').update(body).digest('hex');
    const atStart = digests;
    const result = { genuine: answer('v1=' + signWebhook({ secret, timestamp, body })), forged: answer(unkeyed) };
    const wiped = keysGiven.length > 0 && keysGiven.every((key) => key.every((byte) => byte === 0));
    console.log(JSON.stringify({ ...result, atStart, used: digests > atStart, wiped }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

test('a Bun whose CryptoHasher ignores the key: not used (WebAssembly hashes), a delivery signed without the secret refused', () => {
  assert.deepEqual(verifyUnder(false), { genuine: 'accepted', forged: 'signature_mismatch', atStart: 1, used: false, wiped: true });
});

test('a Bun whose CryptoHasher keys an HMAC: used for every tag, the genuine delivery verifies, the unkeyed one is refused; the key bytes given to it are wiped', () => {
  assert.deepEqual(verifyUnder(true), { genuine: 'accepted', forged: 'signature_mismatch', atStart: 1, used: true, wiped: true });
});
