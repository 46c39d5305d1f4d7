// The example receiver (examples/node-receiver) as processes, run from a copy beside the
// installed package (so `cryptopay-verify` resolves to it; the drivers resolve from the
// repository's node_modules above the consumer folder), and a small HTTP load generator.

import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { readAnswer } from '../../lib/answer.mjs';
import { CONSUMER_DIR, ROOT, SECRET, SIG_HEADER, TS_HEADER, signedHeaders } from './helpers.mjs';
import { inheritedEnv } from './example-env.mjs';

/** A new copy of examples/node-receiver beside the installed package, removed at exit. */
export function copyExample() {
  const dir = mkdtempSync(join(CONSUMER_DIR, '.rx-node-receiver-'));
  cpSync(join(ROOT, 'examples', 'node-receiver'), dir, {
    recursive: true,
    filter: (src) => !/[/\\](node_modules|data)$/.test(src),
  });
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

let copy = null;
/** The copy of examples/node-receiver the tests start (made once per process). */
export function exampleDir() {
  copy ??= copyExample();
  return copy;
}


const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * Starts `node server.mjs` of the example (in `dir`, a copyExample()). env adds to (or, given
 * undefined, removes from) the defaults. Resolves { url, webhookUrl, pid, output, exited,
 * stop(), kill() } once it listens.
 */
export async function startExample({ env = {}, args = [], timeoutMs = 20_000, dir = exampleDir() } = {}) {
  const merged = {
    ...inheritedEnv(),
    CRYPTOPAY_WEBHOOK_SECRET: SECRET,
    TIMESTAMP_HEADER: TS_HEADER,
    SIGNATURE_HEADER: SIG_HEADER,
    PORT: '0',
    HOST: '127.0.0.1',
    ...env,
  };
  for (const [key, value] of Object.entries(merged)) if (value === undefined) delete merged[key];
  const child = spawn(process.execPath, [join(dir, 'server.mjs'), ...args], { env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const state = { output: '' };
  child.stdout.on('data', (d) => { state.output += d; });
  child.stderr.on('data', (d) => { state.output += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => {
    children.delete(child);
    resolve(code ?? signal);
  }));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the example receiver did not start:\n${state.output}`)), timeoutMs);
    const check = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(state.output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', check);
    exited.then((code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`the example receiver exited (${code}):\n${state.output}`), { exitCode: code }));
    });
  });
  return {
    url,
    webhookUrl: `${url}/webhook`,
    pid: child.pid,
    exited,
    get output() {
      return state.output;
    },
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
    kill() {
      child.kill('SIGKILL');
      return exited;
    },
  };
}

/** GET a JSON view. Resolves { status, json }. */
export function getJson(url) {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => { text += d; });
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode, json: JSON.parse(text) });
        } catch (error) {
          reject(error);
        }
      });
    }).on('error', reject);
  });
}

const agents = new Map();
function agentFor(url, sockets) {
  const origin = new URL(url).origin;
  if (!agents.has(origin)) agents.set(origin, new http.Agent({ keepAlive: true, maxSockets: sockets }));
  return agents.get(origin);
}

/**
 * POSTs a delivery of `body` (signed now unless `headers` are given). Resolves { status,
 * headers, text, json, ms } or { error, ms }. `method` another method; `chunked` streams the
 * body without a content-length; `agent: false` a connection of its own.
 */
export function send(url, body, { headers = body === undefined ? {} : signedHeaders(body), method = 'POST', chunked = false,
  agent, sockets = 64, timeoutMs = 30_000 } = {}) {
  const started = process.hrtime.bigint();
  const ms = () => Number(process.hrtime.bigint() - started) / 1e6;
  const length = chunked || body === undefined ? {} : { 'content-length': body.length };
  return new Promise((resolve) => {
    const req = http.request(url, {
      method,
      agent: agent ?? agentFor(url, sockets),
      headers: { 'content-type': 'application/json', ...length, ...headers },
      timeout: timeoutMs,
    }, (res) => readAnswer(res).then((answer) => resolve({ ...answer, ms: ms() }), (error) => resolve({ error, ms: ms() })));
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve({ error, ms: ms() }));
    if (chunked && body) {
      for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.subarray(i, i + 64 * 1024));
      req.end();
    } else {
      req.end(body);
    }
  });
}

/**
 * Sends jobs with at most `concurrency` in flight. job(i) resolves a result; onResult(i,
 * result, done) runs after each. Resolves the results in order.
 */
export async function burst(count, job, { concurrency = 32, onResult } = {}) {
  const results = new Array(count);
  let next = 0;
  let done = 0;
  async function worker() {
    while (next < count) {
      const i = next;
      next += 1;
      results[i] = await job(i);
      done += 1;
      await onResult?.(i, results[i], done);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

/** Closes the kept-alive sockets of the load generator. */
export function closeAgents() {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}
