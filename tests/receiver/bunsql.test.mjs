// postgresStore on Bun's built-in PostgreSQL client (Bun.SQL, Bun 1.4.5 from the repository's
// dev dependencies), through the adapter docs/receiver.md gives:
//   postgresStore({ query: async (text, values) => ({ rows: await sql.unsafe(text, values) }) })
// with Bun's default prepare: true (named statements per connection) and with prepare: false.
// Each test runs lib/bunsql-driver.mjs under Bun, next to the installed package, on a real
// throwaway PostgreSQL over its unix socket (host: the socket folder). The driver closes its
// Bun.SQL instances before it exits, and each test waits for it to exit, so no Bun connection
// is open when a server stops. The rows are read back here, through node-postgres.
// Also: PgBouncer in transaction mode, and a server restart (503, then 200 on the same Bun.SQL).
//
// Found here: Bun.SQL's PostgresError says code 'ERR_POSTGRES_SERVER_ERROR' and puts the
// SQLSTATE in errno (the constraint's name in constraint), so the unique-violation race of the
// record statement was answered 503 and serialization failures were not retried. Through a
// pooler that does not keep statement names, only prepare: false works (see below). What held
// from the start: host (or path) as the socket folder, and the URL's ?host=; several statements
// without values as one simple query; bodies stored byte for byte as bytea; numeric parameters
// as strings, exact; data stored as the object ($4::text::json).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CONSUMER_DIR, ROOT, SECRET, SIG_HEADER, TS_HEADER, checkOneByOne, oneByOne, postgresRows } from './lib/helpers.mjs';
import { openPool, pgBouncerForSuite, startPostgres } from './lib/postgres.mjs';

const SEED = Number(process.env.RECEIVER_SEED ?? 20261127);
const BUN = join(ROOT, 'node_modules', '.bin', 'bun');
const scratch = join(CONSUMER_DIR, 'receiver-bunsql');
mkdirSync(scratch, { recursive: true });
copyFileSync(new URL('./lib/bunsql-driver.mjs', import.meta.url), join(scratch, 'driver.mjs'));
copyFileSync(new URL('./lib/events.mjs', import.meta.url), join(scratch, 'events.mjs'));

/**
 * Runs one scenario of the driver under Bun. `steps` answer its ASK lines (each awaited, then
 * `ok` on its stdin). Resolves what the scenario returned; a failure in it fails the test.
 */
function runBun(scenario, settings, steps = {}, timeoutMs = 150_000) {
  const env = { ...process.env, NO_COLOR: '1', BUNSQL: JSON.stringify({ secret: SECRET, tsHeader: TS_HEADER, sigHeader: SIG_HEADER, seed: SEED, ...settings }) };
  const child = spawn(BUN, ['--no-install', 'driver.mjs', scenario], { cwd: scratch, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let pending = '';
  const asked = [];
  let stepFailed = null;
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    pending += chunk;
    let newline;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (!line.startsWith('ASK ')) continue;
      const step = line.slice(4);
      asked.push(step);
      Promise.resolve().then(() => steps[step]()).then(
        () => child.stdin.write('ok\n'),
        (error) => {
          stepFailed = error;
          child.stdin.write(`failed ${error.message.split('\n')[0]}\n`);
        },
      );
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (stepFailed) return reject(stepFailed);
      const line = stdout.split('\n').find((l) => l.startsWith('BUNSQL_RESULT '));
      if (!line) return reject(new Error(`bun ${scenario} printed no result (exit ${code} ${signal ?? ''}):\n${stdout}${stderr}`));
      const result = JSON.parse(line.slice('BUNSQL_RESULT '.length));
      if (result.error) return reject(new Error(`bun ${scenario}: ${result.error}\n${stderr}`));
      return resolve({ ...result.ok, asked });
    });
  });
}

const PREPARES = {
  'prepare: true (Bun\'s default: named statements per connection)': {},
  'prepare: false (unnamed statements)': { prepare: false },
};

describe('postgresStore on Bun.SQL', { timeout: 600_000 }, () => {
  let server;
  let direct; // node-postgres: reads what was stored, holds locks
  before(() => {
    server = startPostgres();
    direct = openPool({ connectionString: server.url, max: 2 });
  });
  after(async () => {
    await direct?.end();
    server?.destroy();
  });
  const settings = (extra) => ({ socketDir: server.socketDir, serverUrl: server.url, ...extra });

  test('the unix socket: host or path the socket folder, or the URL\'s ?host=; sql.unsafe resolves an array of row objects', async () => {
    const out = await runBun('socket', settings());
    const here = [server.socketDir, null];
    assert.deepEqual([out.host, out.path, out.url], [here, here, here]);
    assert.deepEqual(out.rows, { isArray: true, rows: [{ a: 'x', n: String(2n ** 64n) }, { a: 'y', n: '1' }] });
    assert.equal(out.multi, null, 'several statements, no values: one simple query');
  });

  test('ready(): the schema as one simple query (twice), then the encoding and columns; createTables: false only checks', async () => {
    const out = await runBun('ready', settings({ options: { max: 2 } }), {
      stored: () => direct.query("INSERT INTO later_quarantine (code, body) VALUES ('kept', '\\x00ff')"),
      jsonb: () => direct.query('ALTER TABLE later_payments ALTER COLUMN data TYPE jsonb'),
    });
    assert.deepEqual(out.asked, ['stored', 'jsonb']);
    assert.match(out.missing, /no such table: later_events/);
    assert.deepEqual([out.first, out.again, out.checked], [null, null, null]);
    // The second ready() kept the tables and what they held.
    const { rows } = await direct.query('SELECT code, body FROM later_quarantine');
    assert.deepEqual(rows.map((r) => [r.code, r.body.toString('hex')]), [['kept', '00ff']]);
    assert.match(out.jsonb, /later_payments\.data.*jsonb/);
  });

  for (const [name, options] of Object.entries(PREPARES)) {
    describe(name, () => {
      const prefix = options.prepare === false ? 'unnamed_' : 'named_';

      test('one delivery at a time: apply, duplicate, stale, apply, quarantine; the rows exact, bodies byte for byte, data the event\'s object', async () => {
        const out = await runBun('one', settings({ options, prefix: `one_${prefix}` }));
        assert.deepEqual(out.answers, oneByOne().deliveries.map(([, , expected]) => expected));
        await checkOneByOne(direct, `one_${prefix}`);
      });

      test('24 concurrent deliveries of one payment (8 events, 3 copies each), 20 times: all 200, one record per event, the highest version', async () => {
        const out = await runBun('concurrent', settings({ options, prefix: `conc_${prefix}` }));
        const rows = await postgresRows(direct, `conc_${prefix}`);
        assert.equal(out.rounds.length, 20);
        for (const [round, answers] of out.rounds.entries()) {
          assert.deepEqual(answers.filter(([, status]) => status !== 200), [], `round ${round}`);
          const mine = rows.events.filter((e) => e.payment_id === `pay_c${round}`);
          assert.equal(mine.length, 8);
          for (let v = 1; v <= 8; v += 1) {
            const eventId = `evt_c${round}_${v}`;
            const deciding = answers.filter(([id]) => id === eventId).map(([, , d]) => d).filter((d) => d !== 'duplicate');
            assert.equal(deciding.length, 1, `${eventId} answered ${deciding}`);
            assert.equal(mine.find((e) => e.event_id === eventId).decision, deciding[0], eventId);
          }
          const payment = rows.payments.find((p) => p.payment_id === `pay_c${round}`);
          assert.deepEqual([payment.status_version, payment.event_id, JSON.parse(payment.data).status], ['8', `evt_c${round}_8`, 'v8']);
        }
      });

      test('a duplicate that loses the race to the events row (unique violation 23505, Bun\'s error.errno) is answered duplicate, not 503', async () => {
        const raced = `race_${prefix}`;
        const holder = await direct.connect();
        let out;
        try {
          out = await runBun('race', settings({ options: { ...options, max: 4 }, prefix: raced }), {
            lock: async () => {
              await holder.query('BEGIN');
              await holder.query(`SELECT 1 FROM ${raced}payments WHERE payment_id = 'pay_b' FOR UPDATE`);
            },
            // Until B waits for the lock (its statement's snapshot taken, the event not seen).
            // (pg_stat_activity keeps a query's first 1024 bytes: matched by the record statement's
            // events table, near its start.)
            waiting: async () => {
              for (let waited = 0; ; waited += 1) {
                const { rows } = await direct.query(`SELECT count(*)::int AS n FROM pg_stat_activity
                  WHERE wait_event_type = 'Lock' AND query LIKE '%FROM ${raced}events AS seen%'`);
                if (rows[0].n === 1) return;
                assert.ok(waited < 500, 'B never waited for the lock');
                await new Promise((resolve) => { setTimeout(resolve, 10); });
              }
            },
            commit: () => holder.query('COMMIT'),
          });
        } finally {
          holder.release();
        }
        assert.deepEqual(out.asked, ['lock', 'waiting', 'commit']);
        assert.equal(out.seed, 'apply');
        assert.deepEqual(out.a, [200, '{"received":true,"decision":"apply"}']);
        assert.deepEqual(out.b, [200, '{"received":true,"decision":"duplicate"}'], out.logged.join('\n'));
        assert.equal(out.violations, 1, 'the record statement met the unique violation');
        assert.deepEqual(out.logged, []);
        const rows = await postgresRows(direct, raced);
        assert.deepEqual(rows.events.map((e) => [e.event_id, e.payment_id, e.decision]), [['evt_race', 'pay_a', 'apply'], ['evt_seed', 'pay_b', 'apply']]);
        assert.deepEqual(rows.payments.map((p) => [p.payment_id, p.status_version, p.event_id]), [['pay_a', '2', 'evt_race'], ['pay_b', '1', 'evt_seed']]);
      });

      test('default_transaction_isolation serializable: serialization failures (40001, Bun\'s error.errno) retried by the store, all 200', async () => {
        const out = await runBun('serializable', settings({ options, prefix: `iso_${prefix}` }));
        assert.equal(out.isolation, 'serializable');
        for (const [round, answers] of out.rounds.entries()) {
          assert.deepEqual(answers.filter(([status]) => status !== 200), [], `round ${round}: ${out.logged.join('\n')}`);
          assert.equal(answers.filter(([, d]) => d !== 'duplicate').length, 8);
        }
        const rows = await postgresRows(direct, `iso_${prefix}`);
        assert.equal(rows.events.length, 80);
        assert.deepEqual(rows.payments.map((p) => p.status_version), Array(10).fill('8'));
        assert.ok(out.failures > 0, 'the deliveries met serialization failures (and the store retried them)');
      });
    });
  }
});

// Debian's PgBouncer 1.18 in transaction mode does not keep statement names (see
// pooler.test.mjs). With prepare: false, Bun.SQL sends each statement unnamed: it passes
// through. With Bun's default prepare: true, Bun.SQL names its statements P0, P1, ... per
// connection and does not retry when the pooler gives it a server connection where the name is
// another client's (42P05) or missing (26000): the store cannot turn that off, only the
// Bun.SQL option can. (A name that another client prepared for a statement with as many
// parameters would run that statement instead; here every named statement is the store's.)
describe('Bun.SQL through PgBouncer in transaction mode (statement names not kept)', { timeout: 300_000 }, () => {
  const pgb = pgBouncerForSuite({ poolSize: 4 });
  // Every event answered apply or stale is stored once, with that decision; no other is.
  const answeredAsStored = (answers, rows) => {
    const decided = answers.filter(([, status, d]) => status === 200 && d !== 'duplicate').map(([id, , d]) => [id, d]).sort(([a], [b]) => (a < b ? -1 : 1));
    assert.deepEqual(rows.events.map((e) => [e.event_id, e.decision]), decided);
  };

  test('prepare: false (unnamed statements): 240 deliveries, 8 at a time, 8 connections on 4 server connections: all 200, the outcome exact', async () => {
    const prefix = 'pgb_unnamed_';
    const lostBefore = pgb.lostNames();
    const out = await runBun('pooler', { url: pgb.bouncer.url, options: { prepare: false, max: 8 }, prefix });
    assert.equal(out.ready, null);
    assert.deepEqual(out.answers.filter(([, status]) => status !== 200), [], out.logged.join('\n'));
    assert.deepEqual(out.logged, []);
    const rows = await postgresRows(pgb.direct, prefix);
    assert.equal(rows.events.length, 120);
    answeredAsStored(out.answers, rows);
    for (let p = 0; p < 12; p += 1) {
      const highest = 120 - ((120 - p) % 12);
      const payment = rows.payments.find((r) => r.payment_id === `pay_pgb${p}`);
      assert.deepEqual([payment.status_version, payment.event_id, JSON.parse(payment.data).status], [String(highest), `evt_pgb${highest}`, `v${highest}`]);
    }
    assert.equal(pgb.lostNames() - lostBefore, 0);
  });

  test('prepare: true (Bun\'s default) does NOT work through it: deliveries answered 503, "prepared statement "Pn" already exists / does not exist"', async () => {
    const prefix = 'pgb_named_';
    const out = await runBun('pooler', { url: pgb.bouncer.url, options: { max: 8 }, prefix });
    const refused = out.answers.filter(([, status]) => status !== 200);
    assert.ok(refused.length > 0, 'every delivery was answered 200: Bun.SQL keeps its statements through the pooler now; docs/receiver.md says it does not');
    assert.ok(refused.every(([, status, body]) => status === 503 && body === '{"error":"store_unavailable"}'));
    assert.equal(out.logged.length, refused.length);
    for (const line of out.logged) assert.match(line, /store_unavailable: could not record an event \((42P05|26000): prepared statement "P\d+" (already exists|does not exist)\)/);
    // What was answered 200 is what was stored (a 503 recorded nothing).
    answeredAsStored(out.answers, await postgresRows(pgb.direct, prefix));
  });
});

describe('Bun.SQL and a PostgreSQL restart', { timeout: 120_000 }, () => {
  let server;
  before(() => {
    server = startPostgres();
  });
  after(() => server?.destroy());

  test('503 while the server is down, then 200 on the same Bun.SQL instance once it is back; nothing lost', async () => {
    const out = await runBun('restart', { socketDir: server.socketDir, prefix: 'cryptopay_' }, {
      stop: () => server.stopAsync('fast'),
      start: () => server.startAsync(),
    });
    assert.equal(out.first, 'apply');
    assert.deepEqual(out.down, [503, '{"error":"store_unavailable"}']);
    assert.equal(out.loggedDown.length, 1);
    assert.match(out.loggedDown[0], /store_unavailable/);
    assert.deepEqual(out.after, ['apply', 'duplicate']);
    assert.equal(out.logged, 1);
    const direct = openPool({ connectionString: server.url, max: 1 });
    try {
      const rows = await postgresRows(direct);
      assert.deepEqual(rows.events.map((e) => [e.event_id, e.decision]), [['evt_r1', 'apply'], ['evt_r2', 'apply']]);
      assert.deepEqual(rows.payments.map((p) => [p.status_version, p.event_id]), [['2', 'evt_r2']]);
    } finally {
      await direct.end();
    }
  });
});
