// The stores at their edges, on real engines (a throwaway PostgreSQL, D1 in workerd through
// Miniflare): a client that answers the record statement in an unexpected shape is a 503,
// never a guessed 200.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bundleWorker, serveWithD1, workerFolder } from './lib/d1.mjs';
import { eventBody, pg, receiverOptions, rx, signedHeaders, tempDir } from './lib/helpers.mjs';
import { startPostgres } from './lib/postgres.mjs';

const decided = (decision) => `{"received":true,"decision":"${decision}"}`;
const handle = async (receiver, body) => {
  const { status, body: text } = await receiver.handle({ body, headers: signedHeaders(body) });
  return [status, text];
};

describe('PostgreSQL (a throwaway server)', () => {
  let server;
  let pool;
  before(() => {
    server = startPostgres();
    pool = new pg.Pool({ connectionString: server.url, max: 4 });
  });
  after(async () => {
    await pool?.end();
    server?.destroy();
  });

  test('a client that answers the record statement in another shape: 503, never a guessed 200', async () => {
    // A fake client: the real pool for everything but the record statement (5 values).
    const fakeClientAnswering = (shape) => ({
      query: (text, values) => (values?.length === 5 ? Promise.resolve(shape) : pool.query(text, values)),
    });
    const body = eventBody({ eventId: 'evt_shape', paymentId: 'pay_shape', statusVersion: 1 });
    for (const shape of [undefined, {}, { rows: null }, { rows: {} }, { rows: [{}] }, { rows: [{ decision: 'applied' }] },
      { rows: [{ decision: 'duplicate' }] }, { rows: [{ decision: 'apply' }, { decision: 'apply' }] }]) {
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(fakeClientAnswering(shape), { prefix: 'shape_' }), { log: false }));
      assert.deepEqual(await handle(receiver, body), [503, '{"error":"store_unavailable"}'], JSON.stringify(shape));
    }
    // The shapes the statement does return: no row (a duplicate), one row with its decision.
    for (const [shape, decision] of [[{ rows: [] }, 'duplicate'], [{ rows: [{ decision: 'stale' }] }, 'stale']]) {
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(fakeClientAnswering(shape), { prefix: 'shape_' }), { log: false }));
      assert.deepEqual(await handle(receiver, body), [200, decided(decision)]);
    }
  });
});

describe('D1 (a Worker on D1, in workerd through Miniflare)', () => {
  let worker;
  before(async () => {
    const dir = workerFolder('stores-d1', `import { createReceiver, d1Store } from 'cryptopay-verify/receiver';
const receivers = new Map();
export default {
  async fetch(request, env) {
    const prefix = new URL(request.url).searchParams.get('prefix');
    if (!receivers.has(prefix)) {
      receivers.set(prefix, createReceiver({ secrets: env.SECRET, maxSkewSecs: 300, timestampHeader: env.TS_HEADER,
        signatureHeader: env.SIG_HEADER, store: d1Store(env.DB, { prefix }), log: false }));
    }
    return receivers.get(prefix).fetch(request);
  },
};
`);
    const out = await bundleWorker(dir);
    const options = receiverOptions(null);
    worker = await serveWithD1(out, {
      persistDir: tempDir(),
      bindings: { SECRET: options.secrets, TS_HEADER: options.timestampHeader, SIG_HEADER: options.signatureHeader },
    });
  });
  after(() => worker?.dispose());

  test('a binding that answers the record batch in another shape: 503, never a guessed 200', async () => {
    // A Uint8Array, not a Buffer: Miniflare's binding, used from Node, takes no Buffer.
    const body = new Uint8Array(eventBody({ eventId: 'evt_shape', paymentId: 'pay_shape', statusVersion: 1 }));
    // A fake binding: the real one for everything but the record batch (two statements).
    const fakeBindingAnswering = (shape) => ({
      prepare: (text) => worker.db.prepare(text),
      batch: (statements) => (statements.length === 2 ? Promise.resolve(shape) : worker.db.batch(statements)),
    });
    for (const shape of [[], [{}, {}], [{}, null], [{}, { results: null }], [{}, { results: [{}] }], [{}, { results: [{ decision: 'applied' }] }]]) {
      const receiver = rx.createReceiver(receiverOptions(rx.d1Store(fakeBindingAnswering(shape), { prefix: 'shape_' }), { log: false }));
      assert.deepEqual(await handle(receiver, body), [503, '{"error":"store_unavailable"}'], JSON.stringify(shape));
    }
    const receiver = rx.createReceiver(receiverOptions(rx.d1Store(fakeBindingAnswering([{}, { results: [] }]), { prefix: 'shape_' }), { log: false }));
    assert.deepEqual(await handle(receiver, body), [200, decided('duplicate')]);
  });
});
