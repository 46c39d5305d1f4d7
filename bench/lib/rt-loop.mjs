// The verify rows in Bun and Deno (and Node, for reference): ours against node:crypto in the
// same process, as bench/throughput.mjs does in Node. Copied by bench/runtimes.mjs into a
// folder of the bench consumer, so 'cryptopay-verify' is the installed package and the
// runtime picks its own entry. Usage: <runtime> rt-loop.mjs INPUTS.json ROUNDS
// Prints one JSON line: { runtime, entry, groups: [{ size, samples: { id: [ns/op per round] } }] }.
import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { Verifier } from 'cryptopay-verify';

const [inputsFile, roundsArg] = process.argv.slice(2);
const { secret, maxSkewSecs, deliveries } = JSON.parse(readFileSync(inputsFile, 'utf8'));
const ROUNDS = Number(roundsArg);
const BATCH_MS = 10;
const runtime = typeof Deno !== 'undefined' ? `Deno ${Deno.version.deno}`
  : typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.version}`;
const secretBytes = Buffer.from(secret, 'utf8');
const verifier = new Verifier({ secrets: secret, maxSkewSecs });
const nowSecs = () => Math.floor(Date.now() / 1000);

// The node:crypto reference of bench/lib/cases.mjs: grammar and skew, hex decoded, HMAC, compare.
function nodeVerify(body, timestamp, header) {
  const ts = Number(timestamp);
  if (!Number.isSafeInteger(ts) || Math.abs(nowSecs() - ts) > maxSkewSecs) throw new Error('timestamp');
  if (!header.startsWith('v1=') || header.length !== 67) throw new Error('signature malformed');
  const expected = Buffer.from(header.slice(3), 'hex');
  const mac = createHmac('sha256', secretBytes).update(`${timestamp}.`).update(body).digest();
  return timingSafeEqual(mac, expected);
}

function cases({ body, timestamp, signature }) {
  const delivery = () => ({ body, timestamp, signature, nowSecs: nowSecs() });
  return {
    'V.verifySignature': () => verifier.verifySignature(delivery()),
    'V.verifyWebhook': () => verifier.verifyWebhook(delivery()),
    node: () => nodeVerify(body, timestamp, signature),
    'node+parse': () => nodeVerify(body, timestamp, signature) && JSON.parse(body.toString('utf8')),
  };
}

// A wrong answer is a BENCH_WRONG line (bench/lib/wrong.mjs): the run fails, not only this row.
function wrong(what) {
  console.log(`BENCH_WRONG ${runtime}: ${what}`);
  process.exit(3);
}

function batch(fn, n) {
  const t = performance.now();
  try {
    for (let i = 0; i < n; i += 1) if (!fn()) wrong('a valid delivery was refused');
  } catch (error) {
    wrong(`a valid delivery was refused: ${error?.code ?? error?.message ?? error}`);
  }
  return ((performance.now() - t) * 1e6) / n;
}

const groups = [];
for (const d of deliveries) {
  const fns = cases({ body: Buffer.from(d.bodyBase64, 'base64'), timestamp: d.timestamp, signature: d.signature });
  const ids = Object.keys(fns);
  const counts = {};
  for (const id of ids) {
    // Warm up about 150 ms, then size a batch to about BATCH_MS.
    let n = 1;
    const until = performance.now() + 150;
    while (performance.now() < until) batch(fns[id], n);
    for (;;) {
      const t = performance.now();
      batch(fns[id], n);
      if (performance.now() - t >= BATCH_MS || n >= 1 << 22) break;
      n *= 2;
    }
    counts[id] = n;
  }
  const samples = Object.fromEntries(ids.map((id) => [id, []]));
  for (let r = 0; r < ROUNDS; r += 1) {
    for (let k = 0; k < ids.length; k += 1) {
      const id = ids[(r + k) % ids.length];
      samples[id].push(batch(fns[id], counts[id]));
    }
  }
  groups.push({ size: d.size, samples });
}
let entry = null;
try {
  entry = String(import.meta.resolve('cryptopay-verify')).replace(/^.*node_modules\//, '');
} catch {}
console.log(JSON.stringify({ runtime, entry, groups }));
