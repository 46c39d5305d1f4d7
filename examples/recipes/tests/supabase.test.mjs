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
import net from 'node:net';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { run, startServer, tail } from '../../../tests/runtimes/lib.mjs';
import { postgresForSuite } from '../../../tests/receiver/lib/postgres.mjs';
import {
  RECIPE_ENV, ROOT, SCRATCH, breakPostgres, deliveryTests, postgresStoreRows, recipeCopy, recordedEvents, waitForOutput,
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
