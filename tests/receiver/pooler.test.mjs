// postgresStore through PgBouncer in transaction pooling mode (Debian's 1.18, a real server in
// front of a real PostgreSQL), as many hosted PostgreSQL offers put one in front of the
// database. That PgBouncer passes statements through but not their names: node-postgres's
// named statements, prepared once per client connection, meet another connection's name
// (42P05) or miss their own (26000). Before the store fell back to unnamed statements, 173 of
// 200 deliveries were answered 503.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { poolerBurst, postgresRows, receiverOptions, rx } from './lib/helpers.mjs';
import { openPool, pgBouncerForSuite } from './lib/postgres.mjs';

const SEED = Number(process.env.RECEIVER_SEED ?? 20261126);

describe('PostgreSQL through PgBouncer in transaction mode (statement names not kept)', { timeout: 120_000 }, () => {
  const pgb = pgBouncerForSuite({ poolSize: 4 });

  test('240 deliveries, 8 at a time through a pool of 8 clients on 4 server connections: all 200, the outcome exact', async () => {
    const pool = openPool({ connectionString: pgb.bouncer.url, max: 8 });
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
      await poolerBurst(receiver, { seed: SEED, logged, read: () => postgresRows(pgb.direct) });
      // The store met a lost name (else this test would prove nothing) and then stopped naming.
      assert.ok(lost >= 1, 'no statement lost its name through the pooler');
      assert.ok(lost <= 8, `${lost} statements lost their names: the store kept naming them`);
    } finally {
      await pool.end();
    }
  });

  // PgBouncer refuses settings a client sends as it connects (08P01 "unsupported startup
  // parameter"): a statement_timeout in the URL or the pool's options, as a guide may say to
  // give one, fails every connection. ready() names the pooler and the role's setting instead.
  test('statement_timeout sent as a startup parameter: ready() refused, naming the pooler and ALTER ROLE; query_timeout passes', async () => {
    for (const config of [{ connectionString: `${pgb.bouncer.url}${pgb.bouncer.url.includes('?') ? '&' : '?'}statement_timeout=10000` },
      { connectionString: pgb.bouncer.url, statement_timeout: 10_000 }]) {
      const pool = openPool({ ...config, max: 1, connectionTimeoutMillis: 5_000 });
      try {
        const receiver = rx.createReceiver(receiverOptions(rx.postgresStore(pool), { log: { warn() {}, error() {} } }));
        await assert.rejects(receiver.ready(), (error) => {
          assert.match(error.message, /unsupported startup parameter: statement_timeout/);
          assert.match(error.message, /a connection pooler in front of the database .*\(ALTER ROLE <role> SET statement_timeout = '10s'/);
          return true;
        });
      } finally {
        await pool.end();
      }
    }
    const pool = openPool({ connectionString: pgb.bouncer.url, max: 1, connectionTimeoutMillis: 5_000, query_timeout: 10_000 });
    try {
      await rx.createReceiver(receiverOptions(rx.postgresStore(pool))).ready();
    } finally {
      await pool.end();
    }
  });
});
