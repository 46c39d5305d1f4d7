// Shared by the sandbox's tests: the INSTALLED package (CONSUMER_DIR, default target/consumer,
// as `make consumer` leaves it) and its cryptopay-verify/sandbox, loaded as a user's project
// resolves them; requests to a sandbox; a programmable webhook endpoint whose answers a test
// scripts; waiting. Not a test file itself: `node --test` only runs *.test.mjs.

import { existsSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tempDir as makeTempDir } from '../lib/temp.mjs';

export { startProcess } from '../lib/process.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CONSUMER_DIR = resolve(ROOT, process.env.CONSUMER_DIR ?? join('target', 'consumer'));
export const PACKAGE_DIR = join(CONSUMER_DIR, 'node_modules', 'cryptopay-verify');
export const CLI = join(CONSUMER_DIR, 'node_modules', '.bin', 'cryptopay-verify');
if (!existsSync(join(PACKAGE_DIR, 'package.json'))) {
  throw new Error(`cryptopay-verify is not installed in ${CONSUMER_DIR}: run make consumer (or make sandbox-test) first`);
}

const requireFromConsumer = createRequire(join(CONSUMER_DIR, 'package.json'));
const manifest = requireFromConsumer('cryptopay-verify/package.json');
const esmTarget = (subpath, conditions) => {
  let target = manifest.exports[subpath];
  while (typeof target === 'object') target = target[Object.keys(target).find((k) => conditions.includes(k))];
  return join(PACKAGE_DIR, target);
};

/** The package's main entry, as `import 'cryptopay-verify'` gives it in Node. */
export const pkg = await import(pathToFileURL(esmTarget('.', ['node', 'import', 'default'])).href);
/** cryptopay-verify/sandbox, as `import` gives it. */
export const sandboxEsm = await import(pathToFileURL(esmTarget('./sandbox', ['import', 'default'])).href);
/** cryptopay-verify/sandbox, as `require()` gives it. */
export const sandboxCjs = requireFromConsumer('cryptopay-verify/sandbox');
export const { startSandbox, SandboxError } = sandboxEsm;

export const TS_HEADER = 'X-Webhook-Timestamp';
export const SIG_HEADER = 'X-Webhook-Signature';
export const USD = { kind: 'fiat', ref: 'USD', decimals: 2 };

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Resolves once fn() is truthy (its value), or rejects after timeoutMs naming `what`. */
export async function waitFor(fn, { timeoutMs = 10_000, what = 'the condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(15);
  }
}

/** Resolves once the sandbox has no delivery queued or in flight. */
export const settled = (sandbox, timeoutMs = 15_000) =>
  waitFor(async () => (await sandbox.pendingDeliveries()).length === 0, { timeoutMs, what: 'the deliveries to settle' });

/**
 * A request to a sandbox. options: key (default the sandbox's; null: none), body (an object is
 * sent as JSON; a string or Buffer as it is), idem (an Idempotency-Key), headers. Resolves
 * { status, json, text, headers }.
 */
export async function api(sandbox, method, path, { key = sandbox.apiKey, body, idem, headers = {} } = {}) {
  const sent = { ...headers };
  if (key !== null) sent.authorization = `Bearer ${key}`;
  if (idem !== undefined) sent['idempotency-key'] = idem;
  let payload = body;
  if (body !== undefined && typeof body === 'object' && !Buffer.isBuffer(body)) {
    payload = JSON.stringify(body);
    sent['content-type'] = 'application/json';
  }
  const res = await fetch(`${sandbox.baseUrl}${path}`, { method, headers: sent, body: payload });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

let keys = 0;
/** A fresh Idempotency-Key. */
export const newKey = () => `test-key-${process.pid}-${(keys += 1)}-${Math.random().toString(36).slice(2)}`;

/** Creates a payment of `amountRaw` (USD). Resolves the CreatedPayment. */
export async function createPayment(sandbox, amountRaw = '12800', extra = {}) {
  const body = { source_amount: { kind: 'fiat', currency: 'USD', amount_raw: amountRaw }, ...extra };
  const res = await api(sandbox, 'POST', '/v1/payments', { body, idem: newKey() });
  if (res.status !== 200) throw new Error(`create: ${res.status} ${res.text}`);
  return res.json;
}

/**
 * A webhook endpoint whose answers the test scripts: answer(request, n) returns { status,
 * headers?, body? }, 'drop' (close the connection without an answer) or 'hang' (never answer),
 * or a promise of one. Records every request: { n, headers, body (Buffer), event (parsed), at }.
 */
export async function endpoint(answer = () => ({ status: 200 })) {
  const requests = [];
  const sockets = new Set();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      let event;
      try {
        event = JSON.parse(body.toString('utf8'));
      } catch {
        event = undefined;
      }
      const request = { n: requests.length + 1, method: req.method, url: req.url, headers: req.headers, body, event, at: Date.now() };
      requests.push(request);
      const reply = await answer(request, request.n);
      if (reply === 'drop') {
        req.socket.destroy();
        return;
      }
      if (reply === 'hang') return;
      res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
      res.end(reply.body ?? '{"received":true}');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/webhook`;
  return {
    url,
    requests,
    close: () => new Promise((r) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => r());
    }),
  };
}

/** Verifies a recorded delivery with the package's verifyWebhook. Returns its result. */
export function verifyRecorded(request, secrets, { timestampHeader = TS_HEADER, signatureHeader = SIG_HEADER } = {}) {
  return pkg.verifyWebhook({
    body: request.body,
    timestamp: request.headers[timestampHeader.toLowerCase()],
    signature: request.headers[signatureHeader.toLowerCase()],
    secrets,
    nowSecs: Math.floor(Date.now() / 1000),
    maxSkewSecs: 300,
  });
}

/** A port free on 127.0.0.1 right now (for a receiver that must be named before it starts). */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** A temporary folder, removed when the process exits. */
export const tempDir = (prefix = 'cpv-sandbox-') => makeTempDir(prefix);

