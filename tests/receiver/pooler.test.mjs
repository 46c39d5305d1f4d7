// postgresStore through PgBouncer in transaction pooling mode (Debian's 1.18, a real server in
// front of a real PostgreSQL), as many hosted PostgreSQL offers put one in front of the
// database. That PgBouncer passes statements through but not their names: node-postgres's
// named statements, prepared once per client connection, meet another connection's name
// (42P05) or miss their own (26000). Before the store fell back to unnamed statements, 173 of
// 200 deliveries were answered 503.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventBody, postgresRows, random, receiverOptions, rx, signedHeaders } from './lib/helpers.mjs';
import { openPool, startPgBouncer, startPostgres } from './lib/postgres.mjs';

const SEED = Number(process.env.RECEIVER_SEED ?? 20261126);

describe('PostgreSQL through PgBouncer in transaction mode (statement names not kept)', { timeout: 120_000 }, () => {
  let server;
  let bouncer;
  before(async () => {
    server = startPostgres();
    bouncer = await startPgBouncer(server, { poolSize: 4 });
  });
  after(async () => {
    await bouncer?.stop();
    server?.destroy();
  });

  test('240 deliveries, 8 at a time through a pool of 8 clients on 4 server connections: all 200, the outcome exact', async () => {
    const pool = openPool({ connectionString: bouncer.url, max: 8 });
    const direct = openPool({ connectionString: server.url, max: 1 });
    const logged = [];
    const log = { warn: (line) => logged.push(line), error: (line) => logged.push(line) };
    try {
      // The pool, counting the statements that failed for a lost name (connect() kept: the store
      // names its statements for a node-postgres client).
      let lost = 0;
      const counting = {
        connect: () => pool.connect(),
        query: (config, values) => pool.query(config, values).catch((error) => {
          if (error.code === '42P05' || error.code === '26000') lost += 1;
          throw error;
        }),
      };
      const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(counting), { log }));
      await receiver.ready();
      const rng = random(SEED);
      const deliveries = [];
      for (let i = 1; i <= 120; i += 1) {
        const body = eventBody({ eventId: `evt_pgb${i}`, paymentId: `pay_pgb${i % 12}`, statusVersion: i, status: `v${i}` });
        deliveries.push({ eventId: `evt_pgb${i}`, body }, { eventId: `evt_pgb${i}`, body }); // each twice
      }
      rng.shuffle(deliveries);
      const answers = [];
      for (let i = 0; i < deliveries.length; i += 8) {
        const group = deliveries.slice(i, i + 8);
        answers.push(...await Promise.all(group.map(({ body }) => receiver.handle({ body, headers: signedHeaders(body) }))));
      }
      assert.deepEqual(answers.filter((a) => a.status !== 200).map((a) => a.body), [], logged.join('\n'));
      assert.deepEqual(logged, []);
      // The store met a lost name (else this test would prove nothing) and then stopped naming.
      assert.ok(lost >= 1, 'no statement lost its name through the pooler');
      assert.ok(lost <= 8, `${lost} statements lost their names: the store kept naming them`);
      const rows = await postgresRows(direct);
      assert.equal(rows.events.length, 120);
      for (const event of rows.events) {
        const said = answers.filter((_, i) => deliveries[i].eventId === event.event_id).map((a) => JSON.parse(a.body).decision);
        assert.equal(said.filter((d) => d !== 'duplicate').length, 1, `${event.event_id} answered ${said}`);
      }
      for (let p = 0; p < 12; p += 1) {
        const highest = Math.max(...Array.from({ length: 120 }, (_, i) => i + 1).filter((v) => v % 12 === p));
        const payment = rows.payments.find((r) => r.payment_id === `pay_pgb${p}`);
        assert.deepEqual([payment.status_version, payment.event_id], [String(highest), `evt_pgb${highest}`]);
      }
    } finally {
      await pool.end();
      await direct.end();
    }
  });
});
