// What the axum receiver's tests share: the built receiver started as a process on 127.0.0.1,
// signed deliveries over HTTP, and a run of the conformance kit of the installed npm package
// (target/consumer/node_modules/.bin/cryptopay-verify).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// The installed package and its command line, as the CLI's tests load them (they refuse to
// start when the package is not installed: make consumer).
import { CLI, pkg, request } from '../../../tests/cli/helpers.mjs';
import { startProcess } from '../../../tests/lib/process.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN = process.env.AXUM_RECEIVER_BIN ?? join(ROOT, 'target', 'axum-receiver', 'release', 'cryptopay-verify-axum-receiver');
if (!existsSync(BIN)) throw new Error(`${BIN} is missing: the receiver (make axum-test builds it)`);
export { pkg };

export const SECRET = `whsec_axum_${randomBytes(12).toString('hex')}`;
export const PENDING = `whsec_axum_next_${randomBytes(12).toString('hex')}`;
export const TS_HEADER = 'X-Webhook-Timestamp';
export const SIG_HEADER = 'X-Webhook-Signature';

/**
 * Starts the receiver with `env` added to the configuration (DATABASE for SQLite, DATABASE_URL
 * for PostgreSQL, ADMIN_TOKEN; none is inherited from this process), in `cwd` if given. Resolves
 * { url, output(), stop(signal) } once it listens; rejects with its output if it exits first.
 */
export async function start(env, { timeoutMs = 15_000, cwd } = {}) {
  const receiver = await startProcess(BIN, [], {
    cwd,
    env: {
      CRYPTOPAY_WEBHOOK_SECRET: SECRET,
      CRYPTOPAY_WEBHOOK_SECRET_PENDING: PENDING,
      TIMESTAMP_HEADER: TS_HEADER,
      SIGNATURE_HEADER: SIG_HEADER,
      PORT: '0',
      ...env,
    },
    unset: ['DATABASE_URL', 'DATABASE', 'ADMIN_TOKEN'],
    ready: /listening on (http:\/\/\S+)/,
    timeoutMs,
  });
  return { url: receiver.match[1], output: receiver.output, child: receiver.child, exited: receiver.exited, stop: (signal = 'SIGINT') => receiver.stop(signal) };
}

/** Waits (at most 5 s) for the receiver's output to match `pattern`: a line may trail its answer. */
export async function logged(receiver, pattern) {
  const deadline = Date.now() + 5_000;
  while (!pattern.test(receiver.output()) && Date.now() < deadline) await new Promise((resolve) => { setTimeout(resolve, 20); });
  assert.match(receiver.output(), pattern);
}

// A plain request, as the CLI's tests make it. Resolves { status, headers, json, text }.
export { request };

export const now = () => Math.floor(Date.now() / 1000);

export function deliver(url, event, { secret = SECRET, body, at = now(), swapped = false } = {}) {
  const bytes = body ?? Buffer.from(JSON.stringify(event));
  const timestamp = String(at);
  const signature = `v1=${pkg.signWebhook({ secret, timestamp, body: bytes })}`;
  // swapped: each header holds the other's value (header names swapped in a configuration).
  const [ts, sig] = swapped ? [signature, timestamp] : [timestamp, signature];
  return request(url, { method: 'POST', body: bytes, headers: { 'content-type': 'application/json', [TS_HEADER]: ts, [SIG_HEADER]: sig } });
}

export const event = (eventId, paymentId, statusVersion, extra = {}) => ({
  schema_version: '1',
  event_id: eventId,
  event_type: 'payment.updated',
  occurred_at: new Date().toISOString(),
  data: { payment_id: paymentId, status_version: statusVersion, status: 'open', ...extra },
});

/** The conformance kit against the receiver at `url`: every rule, the two sides of a rotation included. */
export function runKit(url) {
  const args = ['conformance', '--url', url, '--secret-env', 'AXUM_SECRET',
    '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER, '--json',
    '--pending-secret-env', 'AXUM_PENDING', '--retired-secret-env', 'AXUM_RETIRED'];
  const env = { ...process.env, AXUM_SECRET: SECRET, AXUM_PENDING: PENDING, AXUM_RETIRED: `whsec_gone_${randomBytes(8).toString('hex')}` };
  const run = spawnSync(CLI, args, { env, encoding: 'utf8', timeout: 120_000 });
  let results;
  try {
    results = JSON.parse(run.stdout);
  } catch {
    assert.fail(`the kit printed no JSON (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  }
  assert.ok(Array.isArray(results), 'an array of verdicts');
  const rules = results.map((r) => r.rule);
  for (const rule of ['valid_delivery', 'older_version', 'non_ascii_body', 'bad_signature', 'pending_secret', 'retired_secret']) {
    assert.ok(rules.includes(rule), `the kit judged ${rule}`);
  }
  const broken = results.filter((r) => r.verdict !== 'pass');
  assert.deepStrictEqual(broken, [], 'every rule holds');
  assert.equal(run.status, 0, run.stderr);
}
