// Shared by the tests in tests/cli/: the installed package (CONSUMER_DIR, default
// target/consumer, as `make consumer` leaves it), its `cryptopay-verify` bin, the example
// receiver run from a copy beside the installed package, and careless receivers.

import { spawn } from 'node:child_process';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startExample as startExampleProcess } from '../receiver/lib/example.mjs';
import { tempDir as makeTempDir } from '../lib/temp.mjs';
import { readAnswer } from '../lib/answer.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CONSUMER_DIR = resolve(process.env.CONSUMER_DIR ?? join(ROOT, 'target', 'consumer'));
export const CLI = join(CONSUMER_DIR, 'node_modules', '.bin', 'cryptopay-verify');

if (!existsSync(CLI)) {
  throw new Error(`${CLI} is missing: build and install the package first (make pkg consumer, or make cli-test)`);
}

/** The installed package, loaded by name from the consumer folder. */
export const pkg = createRequire(join(CONSUMER_DIR, 'package.json'))('cryptopay-verify');

export const SECRET = `whsec_cli_test_${randomBytes(12).toString('hex')}`;
export const SECRET_ENV = 'CPV_TEST_SECRET';
// A rotation: the new secret, not yet active, and an old one whose overlap has ended.
export const PENDING_SECRET = `whsec_cli_pending_${randomBytes(12).toString('hex')}`;
export const PENDING_ENV = 'CPV_TEST_PENDING_SECRET';
export const RETIRED_SECRET = `whsec_cli_retired_${randomBytes(12).toString('hex')}`;
export const RETIRED_ENV = 'CPV_TEST_RETIRED_SECRET';
/** The conformance options that check the rotation rules. */
export const ROTATION_ARGS = ['--pending-secret-env', PENDING_ENV, '--retired-secret-env', RETIRED_ENV];
export const TS_HEADER = 'X-Webhook-Timestamp';
export const SIG_HEADER = 'X-Webhook-Signature';

export const nowSecs = () => Math.floor(Date.now() / 1000);

/** Runs the installed bin. Resolves { code, stdout, stderr }. */
export function runCli(args, { env = {}, input, timeoutMs = 60_000 } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(CLI, args, {
      env: { ...process.env, [SECRET_ENV]: SECRET, [PENDING_ENV]: PENDING_SECRET, [RETIRED_ENV]: RETIRED_SECRET, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

/**
 * `conformance --json` against url. Resolves { code, stdout, stderr, results, failed,
 * notJudged } (results null when stdout is not JSON).
 */
export async function conformance(url, extra = [], options = {}) {
  const run = await runCli(['conformance', '--url', url, '--secret-env', SECRET_ENV,
    '--timestamp-header', TS_HEADER, '--signature-header', SIG_HEADER, '--json', ...extra], options);
  let results = null;
  try {
    results = JSON.parse(run.stdout);
  } catch {
    // left null: the caller's assertion shows stdout and stderr
  }
  const having = (verdict) => (results ? results.filter((r) => r.verdict === verdict).map((r) => r.rule) : null);
  return { ...run, results, failed: having('fail'), notJudged: having('not_judged') };
}

/** `conformance --json` against an in-process receiver (startServer(handler)), stopped after. */
export async function against(handler, extra = [], options = {}) {
  const server = await startServer(handler);
  try {
    return await conformance(server.url, extra, options);
  } finally {
    await server.close();
  }
}

/** The `got` of a rule in a conformance run's results. */
export const gotOf = (run, rule) => run.results.find((r) => r.rule === rule).got;

/** A run's stdout and stderr, for assertion messages. */
export const shown = (run) => `${run.stdout}\n${run.stderr}`;

/** A service-like payment.updated body. */
export function eventBody({ eventId, paymentId, statusVersion, status = 'open', eventType = 'payment.updated' }) {
  return Buffer.from(JSON.stringify({
    schema_version: '1',
    event_id: eventId,
    event_type: eventType,
    occurred_at: new Date().toISOString(),
    data: { payment_id: paymentId, status_version: statusVersion, status },
  }));
}

/** POSTs a delivery; headers default to a valid signature now. Resolves { status, json }. */
export function deliver(url, body, { timestamp = nowSecs(), secret = SECRET, headers } = {}) {
  const signature = pkg.signWebhook({ secret, timestamp: String(timestamp), body });
  const sent = headers ?? { [TS_HEADER]: String(timestamp), [SIG_HEADER]: signature };
  return request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...sent } });
}

/** A plain request. Resolves { status, headers, json }. */
export function request(url, { method = 'GET', body, headers = {} } = {}) {
  return new Promise((resolvePromise, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => readAnswer(res).then(resolvePromise, reject));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Starts the example receiver as a process (tests/receiver/lib/example.mjs), with this suite's
 * secret and header names and its data in `dataDir`. Resolves { url, webhookUrl, stop(), output }.
 */
export function startExample({ dataDir, env = {}, args = [] }) {
  return startExampleProcess({
    env: { CRYPTOPAY_WEBHOOK_SECRET: SECRET, TIMESTAMP_HEADER: TS_HEADER, SIGNATURE_HEADER: SIG_HEADER, DATA_DIR: dataDir, ...env },
    args,
  });
}

export const tempDir = (prefix = 'cpv-cli-') => makeTempDir(prefix);

/** An in-process HTTP server. handler(req, res, rawBody). Resolves { url, close() }. */
export async function startServer(handler) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      Promise.resolve(handler(req, res, Buffer.concat(chunks))).catch((error) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(error));
      });
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/webhook`,
    close: () => new Promise((r) => {
      server.close(r);
      server.closeAllConnections();
    }),
  };
}

function reply(res, status, value, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

/**
 * A receiver that verifies (through the package) but is careless otherwise:
 *   onRetry: the status answered when an event_id comes again (no de-duplication)
 *   redirect: answers a valid delivery with 302 to another address
 *   delayMs: answers everything this late
 *   exactHeaderCase: looks the header names up in rawHeaders as exact strings
 */
export function verifyingReceiver({ onRetry, redirect = false, delayMs = 0, exactHeaderCase = false } = {}) {
  const verifier = new pkg.Verifier({ secrets: SECRET, maxSkewSecs: 300 });
  const seen = new Set();
  return async (req, res, body) => {
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    if (res.destroyed) return;
    let headers = { timestamp: undefined, signature: undefined };
    if (exactHeaderCase) {
      const raw = req.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) {
        if (raw[i] === TS_HEADER) headers.timestamp = raw[i + 1];
        if (raw[i] === SIG_HEADER) headers.signature = raw[i + 1];
      }
    }
    let event;
    try {
      if (!exactHeaderCase) headers = pkg.readDeliveryHeaders(req.headers, { timestampHeader: TS_HEADER, signatureHeader: SIG_HEADER });
      ({ event } = verifier.verifyWebhook({ body, ...headers, nowSecs: nowSecs() }));
    } catch (error) {
      // An authentic delivery whose event is not one it reads (another event_type): set
      // aside and acknowledged, as the package's README has it.
      if (error.authentic) reply(res, 200, { quarantined: error.code });
      else reply(res, 400, { error: error.code ?? 'error' });
      return;
    }
    if (redirect) {
      reply(res, 302, { moved: true }, { location: 'http://127.0.0.1:1/elsewhere' });
      return;
    }
    if (seen.has(event.eventId) && onRetry !== undefined) {
      reply(res, onRetry, { error: 'already_processed' });
      return;
    }
    seen.add(event.eventId);
    reply(res, 200, { ok: true });
  };
}

/** The careless receiver of all: acknowledges everything, checks nothing. */
export const acknowledgeEverything = (req, res) => reply(res, 200, { ok: true });

function text(res, status, body) {
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(body);
}

/**
 * A correct receiver on node:http and node:crypto alone (no package), as a careful merchant
 * writes one: the HMAC over the raw bytes compared in constant time with each candidate of
 * the header, the active and pending secrets and the retired one until its overlap ended, a
 * two-sided skew, de-duplication by event_id, only newer status_versions applied (stale ones
 * acknowledged). It answers 401 for a bad signature, as many receivers do.
 *
 * `defect` makes it one of the careless receivers real merchants write, one defect each:
 *   prefixCompare     compares the signature's bytes with as many bytes of the HMAC
 *                     (Buffer.from(hex) drops what it cannot decode: the CVE-2024-21491 kind)
 *   anyMismatch       refuses only when some candidate of the header mismatches, so a header
 *                     with no candidate at all (empty, separators only) passes
 *   latin1Body        reads the body as a latin1 string, then hashes it as UTF-8
 *   conflictOnOlder   answers 409 to an authentic event with an older status_version
 *   acceptRetired     keeps accepting the old secret after its overlap ended
 *   refusePending     knows only the active secret
 *   refuseAll         an authentication layer in front answers 401 to every POST
 *   failAll           down behind its proxy: 503 to every POST
 *   malformedAll      reads the signature in another encoding: 400 signature_malformed to all
 *   plain400          answers a bad signature 400 with no code, and an authentic event for a
 *                     payment it does not know 400 unknown_payment
 *   wrongSecret       its secret read from a file with the trailing newline kept
 *   unsetSecret       its secret from a variable that is not set: the text "undefined"
 *   notFoundUnknown   answers 404 to an authentic event for a payment it does not know
 *   int32Version      stores status_version in a 32-bit column: a version past 2^31 - 1 is 500
 *   slowDedupeFirst   checks the skew, then de-duplicates by event_id before verifying, and
 *                     answers after 60 ms (a run that takes longer than its skew)
 *   dedupeBytesFirst  de-duplicates by a hash of the body bytes before verifying
 *   parserLimit       a body parser in front answers a body over 100 KB 413 (express.json()'s
 *                     default limit, kept when its verify callback saves req.rawBody)
 *   future400         answers a timestamp ahead of its clock 400 (refused for good), not 500
 *   pyReserialize     hashes the parsed JSON written again as Python's json.dumps writes it
 *                     (json.dumps(json.loads(body)), Flask's request.get_json())
 */
export function plainReceiver({ defect, retiredUntil = nowSecs() - 3600, maxSkewSecs = 300 } = {}) {
  // unsetSecret: the secret read from a variable that is not set, as String(process.env.X) reads it.
  const active = defect === 'wrongSecret' ? `${SECRET}\n` : defect === 'unsetSecret' ? String(undefined) : SECRET;
  const seen = new Set();
  const bodies = new Set(); // sha256 of each body acknowledged (dedupeBytesFirst)
  const versions = new Map(); // payment_id -> BigInt status_version last applied
  const keys = () => [
    active,
    ...(defect === 'emptyKey' ? [''] : []),
    ...(defect === 'refusePending' ? [] : [PENDING_SECRET]),
    ...(defect === 'acceptRetired' || nowSecs() <= retiredUntil ? [RETIRED_SECRET] : []),
  ];
  const candidatesOf = (header) => header.split(/[\s,]+/).filter(Boolean).map((c) => c.replace(/^(v1|sha256)=/, ''));
  const equalHex = (hex, mac) => /^[0-9a-fA-F]{64}$/.test(hex) && timingSafeEqual(Buffer.from(hex, 'hex'), mac);

  function signatureHolds(signature, macOf) {
    if (defect === 'prefixCompare') {
      const given = Buffer.from(signature.replace(/^v1=/, ''), 'hex');
      return keys().some((key) => timingSafeEqual(given, macOf(key).subarray(0, given.length)));
    }
    const candidates = candidatesOf(signature);
    if (defect === 'halfCompare') {
      const half = (hex) => hex.slice(0, 32).toLowerCase();
      return keys().some((key) => candidates.some((c) => /^[0-9a-fA-F]{64}$/.test(c) && half(c) === half(macOf(key).toString('hex'))));
    }
    if (defect === 'anyMismatch') {
      for (const c of candidates) if (!keys().some((key) => equalHex(c, macOf(key)))) return false;
      return true;
    }
    return keys().some((key) => candidates.some((c) => equalHex(c, macOf(key))));
  }

  return async (req, res, raw) => {
    if (defect === 'refuseAll') return text(res, 401, 'unauthorized');
    if (defect === 'parserLimit' && raw.length > 100 * 1024) return text(res, 413, 'request entity too large');
    if (defect === 'failAll') return text(res, 503, 'Service Unavailable');
    if (defect === 'malformedAll') return reply(res, 400, { error: 'signature_malformed' });
    if (defect === 'slowDedupeFirst') {
      await new Promise((resolve) => { setTimeout(resolve, 60); });
      const timestamp = Number(req.headers[TS_HEADER.toLowerCase()]);
      if (!(Math.abs(nowSecs() - timestamp) <= maxSkewSecs)) return text(res, 400, 'timestamp outside the tolerance');
    }
    if (defect === 'dedupeFirst' || defect === 'slowDedupeFirst') {
      try {
        if (seen.has(JSON.parse(raw.toString('utf8')).event_id)) return reply(res, 200, { duplicate: true });
      } catch {
        // verified below
      }
    }
    const digest = createHash('sha256').update(raw).digest('hex');
    if (defect === 'dedupeBytesFirst' && bodies.has(digest)) return reply(res, 200, { duplicate: true });
    if (defect === 'staleShortcut') {
      try {
        const { data } = JSON.parse(raw.toString('utf8'));
        const stored = versions.get(data.payment_id);
        if (stored !== undefined && BigInt(data.status_version) <= stored) return reply(res, 200, { stale: true });
      } catch {
        // verified below
      }
    }
    let timestamp = req.headers[TS_HEADER.toLowerCase()];
    const signature = req.headers[SIG_HEADER.toLowerCase()];
    // A timestamp header sent twice, read value by value (headersDistinct): hmacFirstSkewLast
    // hashes the first and checks the skew on the last, hmacLastSkewFirst the other way round.
    const stamps = req.headersDistinct[TS_HEADER.toLowerCase()] ?? [];
    let skewed = timestamp;
    if (defect === 'hmacFirstSkewLast') [timestamp, skewed] = [stamps[0], stamps.at(-1)];
    if (defect === 'hmacLastSkewFirst') [timestamp, skewed] = [stamps.at(-1), stamps[0]];
    const absent = defect === 'anyMismatch' ? timestamp === undefined || signature === undefined : !timestamp || !signature;
    if (absent) return text(res, 400, 'missing webhook headers');
    if (!/^[0-9]{1,12}$/.test(timestamp)) return text(res, 400, 'bad timestamp');
    let payload;
    try {
      payload = {
        latin1Body: () => raw.toString('latin1'),
        reserialize: () => JSON.stringify(JSON.parse(raw.toString('utf8'))),
        pyReserialize: () => pythonDumps(JSON.parse(raw.toString('utf8'))),
        trimBody: () => raw.toString('utf8').trim(),
        textBody: () => new TextDecoder().decode(raw),
        // As a front door that passes the body on as text hands it over (AWS API Gateway):
        // decoded as UTF-8, the byte order mark kept.
        utf8Text: () => raw.toString('utf8'),
      }[defect]?.() ?? raw;
    } catch {
      return text(res, 400, 'not json');
    }
    // A t= item of the signature header, which two careless receivers read: hmacOnT hashes it
    // (Stripe's way) and checks the skew on the timestamp header, so any captured delivery
    // replays; skewOnT checks the skew on it and hashes the header's.
    const tItem = /(?:^|[\s,])t=([0-9]+)/.exec(signature)?.[1];
    const signedAt = defect === 'hmacOnT' ? tItem ?? timestamp : timestamp;
    const macOf = (key) => createHmac('sha256', key).update(`${signedAt}.`).update(payload).digest();
    // ackForged: a mismatch goes on as if it matched (the skew is still checked).
    if (!signatureHolds(signature, macOf) && defect !== 'ackForged') return text(res, defect === 'plain400' ? 400 : 401, 'invalid signature');
    const checked = defect === 'skewOnT' ? tItem ?? skewed : skewed;
    // millisClock: the time taken as Date.now(), in milliseconds.
    const clock = defect === 'millisClock' ? Date.now() : nowSecs();
    // Ahead of the clock: 500, retried (this clock may be the one behind), but for future400.
    if (Number(checked) - clock > maxSkewSecs && defect !== 'future400') return text(res, 500, 'timestamp ahead of this clock');
    if (Math.abs(clock - Number(checked)) > maxSkewSecs) return text(res, 400, 'timestamp outside the tolerance');
    let event;
    try {
      event = JSON.parse(typeof payload === 'string' ? payload : payload.toString('utf8'));
    } catch {
      return text(res, 400, 'not json');
    }
    if (event.event_type !== 'payment.updated') {
      // refuseOtherType: an authentic event of a type the receiver does not handle refused.
      return defect === 'refuseOtherType' ? reply(res, 400, { error: 'event_type_unknown' }) : reply(res, 200, { ignored: true });
    }
    if (defect === 'occurredAtSkew' && Date.now() - Date.parse(event.occurred_at) > maxSkewSecs * 1000) {
      return text(res, 400, 'event too old');
    }
    const shown = new Set(['schema_version', 'event_id', 'event_type', 'occurred_at', 'data']);
    if (defect === 'strictSchema' && Object.keys(event).some((key) => !shown.has(key))) return reply(res, 422, { error: 'unknown_field' });
    const paymentId = event.data.payment_id;
    if (defect === 'notFoundUnknown') return reply(res, 404, { error: 'unknown_payment' });
    if (defect === 'plain400') return reply(res, 400, { error: 'unknown_payment' });
    // numberOnly: a status_version that is not a JSON number (the digits of one beyond 2^53) refused.
    if (defect === 'numberOnly' && typeof event.data.status_version !== 'number') return reply(res, 400, { error: 'bad_version' });
    if (seen.has(event.event_id)) return reply(res, 200, { duplicate: true });
    const version = BigInt(event.data.status_version);
    if (defect === 'int32Version' && version > 2147483647n) return reply(res, 500, { error: 'numeric_value_out_of_range' });
    const stored = versions.get(paymentId);
    if (stored !== undefined && version <= stored) {
      if (defect === 'conflictOnOlder') return reply(res, 409, { error: 'stale_version' });
      seen.add(event.event_id);
      bodies.add(digest);
      return reply(res, 200, { stale: true });
    }
    seen.add(event.event_id);
    bodies.add(digest);
    versions.set(paymentId, version);
    return reply(res, 200, { applied: true });
  };
}

// A JSON value as Python's json.dumps writes it by default: ", " and ": " between items, every
// character past ASCII as \uXXXX (written here from its definition, not from the kit's).
function pythonDumps(value) {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${pythonDumps(key)}: ${pythonDumps(item)}`).join(', ')}}`;
  }
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
