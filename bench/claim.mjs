// Part of bench/receiver.mjs: how long a pass's claim takes when the tables hold many closed
// payments (ended unpaid) still inside recheckClosedSecs, few of them due a check for late money:
// a week of abandoned checkouts. The stores are the installed package's own, on a PostgreSQL
// server of bench/receiver.mjs and on a SQLite file; the rows are written with SQL as the
// package's `complete` leaves them (seen_at at 0.6 of the order's age, so the next check, at 1.2
// of it, is ahead: nothing is due; none where that is 7 days or more after the order), then
// ANALYZE; each claim asks for the default batch, with the
// default recoverAfterSecs and recheckClosedSecs, and its leases (none) are not kept.

const CLAIMS = 15;

/**
 * Times `claims` claims on each engine after `closed` closed payments are written, spread over
 * the last 7 days. Resolves [{ engine, closed, median, min, max }] in ms.
 */
export async function measureClaims({ rx, pg, Database, pgUrl, file, closed }) {
  const claim = (store, i) => store.claim({ owner: `bench-${i}`, leaseSecs: 300, batch: 20, recoverAfterSecs: 900, recheckClosedSecs: 604_800 });
  const rows = [];

  const pool = new pg.Pool({ connectionString: pgUrl, max: 2 });
  try {
    const store = rx.postgresStore(pool, { prefix: 'claimbench_' });
    await store.ready();
    await pool.query(`INSERT INTO claimbench_orders (payment_id, order_ref, source_amount, created_at)
      SELECT 'pay_' || i, 'order-' || i, '{"kind":"fiat","currency":"USD","amount_raw":"100"}', now() - (i::float / $1 * interval '7 days')
      FROM generate_series(1, $1) AS i`, [closed]);
    await pool.query(`INSERT INTO claimbench_fulfilment (payment_id, handled_version, outcome, settled, seen_at, recheck_at)
      SELECT payment_id, 3, 'closed', true, created_at + (now() - created_at) * 0.6,
             CASE WHEN (now() - created_at) * 1.2 < interval '7 days' THEN created_at + (now() - created_at) * 1.2 END
      FROM claimbench_orders`);
    await pool.query('ANALYZE claimbench_orders; ANALYZE claimbench_fulfilment');
    rows.push({ engine: 'PostgreSQL', closed, ...await timed((i) => claim(store, i)) });
  } finally {
    await pool.end();
  }

  const store = rx.sqliteStore(new Database(file));
  await store.ready();
  const db = new Database(file);
  try {
    db.exec(`WITH RECURSIVE s (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${closed})
      INSERT INTO cryptopay_orders (payment_id, order_ref, source_amount, created_at)
      SELECT 'pay_' || i, 'order-' || i, '{"kind":"fiat","currency":"USD","amount_raw":"100"}',
             strftime('%Y-%m-%dT%H:%M:%fZ', julianday('now') - i * 7.0 / ${closed}) FROM s`);
    db.exec(`INSERT INTO cryptopay_fulfilment (payment_id, handled_version, outcome, settled, seen_at, recheck_at)
      SELECT payment_id, '3', 'closed', 1,
             strftime('%Y-%m-%dT%H:%M:%fZ', julianday(created_at) + (julianday('now') - julianday(created_at)) * 0.6),
             CASE WHEN (julianday('now') - julianday(created_at)) * 1.2 < 7
                  THEN strftime('%Y-%m-%dT%H:%M:%fZ', julianday(created_at) + (julianday('now') - julianday(created_at)) * 1.2) END
      FROM cryptopay_orders`);
    db.exec('ANALYZE');
    rows.push({ engine: 'SQLite file', closed, ...await timed((i) => claim(store, i)) });
  } finally {
    db.close();
  }
  return rows;
}

async function timed(run) {
  const times = [];
  for (let i = 0; i < CLAIMS; i += 1) {
    const started = performance.now();
    const ids = await run(i);
    times.push(performance.now() - started);
    if (ids.length !== 0) throw new Error(`bench/claim.mjs: the claim took ${ids.length} payments, none of which is due`);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(CLAIMS / 2)], min: times[0], max: times[CLAIMS - 1] };
}
