// The Supabase Edge Function recipe (examples/recipes/supabase): its index.ts run by Deno, the
// runtime Supabase's edge runtime is built on, as Supabase starts it (Deno.serve, at the
// address DENO_SERVE_ADDRESS names), recording in a throwaway PostgreSQL over TCP given as
// SUPABASE_DB_URL (the variable Supabase sets). Supabase's gateway cannot run here (it needs
// Docker): the JWT check the recipe turns off is not exercised.
//
// Its deno.json says `"nodeModulesDir": "manual"`, so that the function's npm: imports resolve
// from node_modules (the installed package, and the repository's pg), never from the npm
// registry, where cryptopay-verify is not published yet. One change to the copy, for the test
// only: no lock file is written.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { run, startServer, tail } from '../../../tests/runtimes/lib.mjs';
import { openPool, postgresForSuite } from '../../../tests/receiver/lib/postgres.mjs';
import {
  CONSUMER_DIR, RECIPE_ENV, ROOT, SCRATCH, breakPostgres, deliver, deliveryTests, eventBody, postgresStoreRows, recipeCopy, recordedEvents,
  waitForOutput,
} from './helpers.mjs';
import { trapSuite } from './traps.mjs';

const DENO = join(ROOT, 'node_modules', '.bin', 'deno');
const denoEnv = (env) => ({
  ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', DENO_DIR: join(SCRATCH, 'deno-cache'), ...env,
});

/** Starts the function; resolves { url, output, stop() } once Deno.serve listens. */
async function startFunction(fn, env) {
  const server = startServer(DENO, ['run', '--allow-net', '--allow-env', 'index.ts'], {
    cwd: fn,
    // Delete what the machine's environment may hold, then set what this run needs.
    env: denoEnv({ DATABASE_URL: '', SUPABASE_DB_URL: '', ...RECIPE_ENV, DENO_SERVE_ADDRESS: 'tcp:127.0.0.1:0', ...env }),
  });
  const [, origin] = await waitForOutput(server, /Listening on (http:\/\/127\.0\.0\.1:\d+)\//, { timeoutMs: 30_000, what: 'the function' });
  return { url: `${origin}/`, output: server.output, stop: () => server.stop() };
}

describe('Supabase Edge Function recipe (Deno.serve, receiver.fetch; PostgreSQL from SUPABASE_DB_URL)', { timeout: 120_000 }, () => {
  let fn;
  const db = postgresForSuite({ max: 1, tcp: true });
  let server;
  before(async () => {
    const dir = recipeCopy('supabase');
    fn = join(dir, 'supabase', 'functions', 'cryptopay-webhook');
    const config = JSON.parse(readFileSync(join(fn, 'deno.json'), 'utf8'));
    writeFileSync(join(fn, 'deno.json'), `${JSON.stringify({ ...config, nodeModulesDir: 'manual', lock: false }, null, 2)}\n`);
    server = await startFunction(fn, { SUPABASE_DB_URL: db.server.tcpUrl });
    db.stopFirst(() => server.stop());
  });

  test('the function type-checks against the package\'s typings (deno check)', async () => {
    const result = await run(DENO, ['check', 'index.ts'], { cwd: fn, env: denoEnv(), timeoutMs: 60_000 });
    assert.equal(result.code, 0, tail(result.stdout + result.stderr, 30));
  });

  deliveryTests(() => server.url, () => postgresStoreRows(db.pool), { breakStore: breakPostgres(() => db.pool) });

  // Deno.serve has no request timeout of its own: the receiver's bodyTimeoutMs is what ends a
  // sender that stops mid-body (a script beside the function, on the memory store).
  test('a body that stops coming is answered 408 body_timeout at bodyTimeoutMs', async () => {
    writeFileSync(join(fn, 'slow-body.ts'), [
      "import { createReceiver, memoryStore } from 'cryptopay-verify/receiver';",
      'const receiver = createReceiver({',
      "  secrets: Deno.env.get('CRYPTOPAY_WEBHOOK_SECRET') ?? '', maxSkewSecs: 300, store: memoryStore(), bodyTimeoutMs: 1000,",
      "  timestampHeader: Deno.env.get('TIMESTAMP_HEADER') ?? '', signatureHeader: Deno.env.get('SIGNATURE_HEADER') ?? '',",
      '});',
      "Deno.serve({ hostname: '127.0.0.1', port: 0 }, (request) => receiver.fetch(request));",
      '',
    ].join('\n'));
    const slow = startServer(DENO, ['run', '--allow-net', '--allow-env', 'slow-body.ts'], { cwd: fn, env: denoEnv(RECIPE_ENV) });
    const socket = new net.Socket();
    try {
      const [, port] = await waitForOutput(slow, /Listening on http:\/\/127\.0\.0\.1:(\d+)\//, { timeoutMs: 30_000, what: 'slow-body.ts' });
      const answer = { text: '', closed: false };
      socket.on('data', (chunk) => { answer.text += chunk; });
      socket.on('close', () => { answer.closed = true; });
      socket.on('error', () => {});
      socket.connect(Number(port), '127.0.0.1');
      socket.write(`POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n${' '.repeat(10)}`);
      for (let i = 0; i < 100 && !/body_timeout/.test(answer.text); i += 1) await new Promise((resolve) => { setTimeout(resolve, 100); });
      assert.match(answer.text, /^HTTP\/1\.1 408 /, answer.text);
      assert.match(answer.text, /\{"error":"body_timeout"\}$/);
      assert.match(slow.output.stdout + slow.output.stderr, /408 body_timeout, unread: its body did not arrive within bodyTimeoutMs \(1000 ms; 10 bytes came\)/);
    } finally {
      socket.destroy();
      await slow.stop();
    }
  });

  trapSuite('Supabase', {
    start: (env) => startFunction(fn, { SUPABASE_DB_URL: db.server.tcpUrl, ...env }),
    recorded: (eventId) => recordedEvents(db.pool, eventId),
  });
});

// Supabase's Data API serves the tables of `public` to its roles anon and authenticated, with
// what the project grants them on new tables (here: everything, as projects long did by
// default). The README's migration, the package's schema then the recipe's cryptopay-rls.sql,
// leaves them no row to read or change, and the function, the tables' owner, records as before.
describe('Supabase: the tables made as the README says (the schema, then cryptopay-rls.sql), closed to the Data API\'s roles', { timeout: 120_000 }, () => {
  const db = postgresForSuite({ max: 1, tcp: true });
  let fn;
  let pool;
  let server;
  before(async () => {
    fn = join(recipeCopy('supabase', 'supabase-rls'), 'supabase', 'functions', 'cryptopay-webhook');
    const config = JSON.parse(readFileSync(join(fn, 'deno.json'), 'utf8'));
    writeFileSync(join(fn, 'deno.json'), `${JSON.stringify({ ...config, nodeModulesDir: 'manual', lock: false }, null, 2)}\n`);
    await db.pool.query('CREATE DATABASE supabase_rls');
    await db.pool.query(`DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon') THEN CREATE ROLE anon NOLOGIN; END IF;
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN CREATE ROLE authenticated NOLOGIN; END IF;
    END $$`);
    const url = db.server.tcpUrl.replace(/\/postgres$/, '/supabase_rls');
    pool = openPool({ connectionString: url, max: 1 });
    await pool.query('GRANT USAGE ON SCHEMA public TO anon, authenticated');
    await pool.query('ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO anon, authenticated');
    await pool.query('ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO anon, authenticated');
    db.stopFirst(async () => {
      await server?.stop();
      await pool.end();
    });
  });

  // As the Data API runs a request: one transaction, as the role.
  const asAnon = async (sql) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL ROLE anon');
      const result = await client.query(sql);
      await client.query('ROLLBACK');
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      return error;
    } finally {
      client.release();
    }
  };

  test('the schema alone leaves the tables open; with cryptopay-rls.sql, anon reads and changes no row while the function records', async () => {
    const schemaFile = createRequire(join(CONSUMER_DIR, 'package.json')).resolve('cryptopay-verify/schema/postgres-schema.sql');
    await pool.query(readFileSync(schemaFile, 'utf8'));
    // What the README's step guards against: readable with the schema alone.
    assert.equal((await asAnon('SELECT version FROM cryptopay_schema')).rowCount, 1);
    await pool.query(readFileSync(join(fn, '..', '..', 'cryptopay-rls.sql'), 'utf8'));
    server = await startFunction(fn, { SUPABASE_DB_URL: db.server.tcpUrl.replace(/\/postgres$/, '/supabase_rls') });
    const answer = await deliver(server.url, eventBody({ eventId: 'evt_rls', paymentId: 'pay_rls', statusVersion: 3 }));
    assert.deepEqual([answer.status, answer.json], [200, { received: true, decision: 'apply' }], server.output.stdout + server.output.stderr);
    assert.equal((await pool.query('SELECT count(*)::int AS n FROM cryptopay_events')).rows[0].n, 1);
    const tables = (await pool.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'cryptopay\\_%' ORDER BY 1")).rows.map((r) => r.tablename);
    assert.deepEqual(tables, ['cryptopay_events', 'cryptopay_fulfilment', 'cryptopay_orders', 'cryptopay_payments', 'cryptopay_quarantine', 'cryptopay_schema']);
    for (const table of tables) {
      const read = await asAnon(`SELECT * FROM ${table}`);
      assert.match(String(read.message), /permission denied for table/, table);
    }
    // Privileges taken away, and RLS on: were a grant given back, still no row.
    await pool.query('GRANT ALL ON cryptopay_events, cryptopay_payments TO anon');
    assert.equal((await asAnon('SELECT * FROM cryptopay_events')).rowCount, 0);
    assert.equal((await asAnon('DELETE FROM cryptopay_events')).rowCount, 0);
    assert.equal((await asAnon('UPDATE cryptopay_payments SET status_version = 1')).rowCount, 0);
    assert.equal((await pool.query("SELECT status_version::text AS v FROM cryptopay_payments WHERE payment_id = 'pay_rls'")).rows[0].v, '3');
    // The same delivery again is still a duplicate.
    const again = await deliver(server.url, eventBody({ eventId: 'evt_rls', paymentId: 'pay_rls', statusVersion: 3 }));
    assert.deepEqual([again.status, again.json], [200, { received: true, decision: 'duplicate' }]);
  });
});
