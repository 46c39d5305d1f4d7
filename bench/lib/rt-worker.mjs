// The verify rows in workerd: ours against crypto.subtle.verify in the same isolate. Copied by
// bench/runtimes.mjs into a Worker folder of the bench consumer, bundled by wrangler and served
// by Miniflare (workerd). GET /?case=ID&size=N&n=COUNT runs COUNT verifications of that size,
// one after the other, and answers 204 (500 if one is refused). A Worker's clock does not move
// while it computes (workerd's timing-attack mitigation), so the driver times each request and
// subtracts the time of a request that runs nothing (case=none).
import { Verifier } from 'cryptopay-verify';
import inputs from './inputs.json';

const { secret, maxSkewSecs } = inputs;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const verifier = new Verifier({ secrets: secret, maxSkewSecs });
const nowSecs = () => Math.floor(Date.now() / 1000);
const bySize = new Map();
let keyPromise = null;

function fromBase64(text) {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i += 1) out[i] = bin.charCodeAt(i);
  return out;
}
function fromHex(hex) {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error('signature malformed');
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i += 1) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}
function delivery(size) {
  if (!bySize.has(size)) {
    const d = inputs.deliveries.find((x) => x.size === size);
    if (!d) throw new Error(`no delivery of ${size} B`);
    bySize.set(size, { body: fromBase64(d.bodyBase64), timestamp: d.timestamp, signature: d.signature });
  }
  return bySize.get(size);
}

// What a Worker writes with WebCrypto alone: grammar and skew, hex decoded, `<ts>.` and the
// body in one buffer, subtle.verify awaited (its HMAC key imported once).
async function subtle({ body, timestamp, signature }) {
  const ts = Number(timestamp);
  if (!Number.isSafeInteger(ts) || Math.abs(nowSecs() - ts) > maxSkewSecs) throw new Error('timestamp');
  if (!signature.startsWith('v1=') || signature.length !== 67) throw new Error('signature malformed');
  const expected = fromHex(signature.slice(3));
  const prefix = encoder.encode(`${timestamp}.`);
  const data = new Uint8Array(prefix.length + body.length);
  data.set(prefix, 0);
  data.set(body, prefix.length);
  keyPromise ??= crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  return crypto.subtle.verify('HMAC', await keyPromise, expected, data);
}

const CASES = {
  none: () => true,
  // Object literals, not spreads: a spread costs about 1.8 us per call (bench/lib/cases.mjs).
  'V.verifySignature': (d) => verifier.verifySignature({ body: d.body, timestamp: d.timestamp, signature: d.signature, nowSecs: nowSecs() }),
  'V.verifyWebhook': (d) => verifier.verifyWebhook({ body: d.body, timestamp: d.timestamp, signature: d.signature, nowSecs: nowSecs() }),
  subtle,
  'subtle+parse': async (d) => (await subtle(d)) && JSON.parse(decoder.decode(d.body)),
};

export default {
  async fetch(request) {
    const url = new URL(request.url);
    const fn = CASES[url.searchParams.get('case')];
    if (!fn) return new Response('unknown case', { status: 400 });
    const d = delivery(Number(url.searchParams.get('size')));
    const n = Number(url.searchParams.get('n'));
    const isAsync = url.searchParams.get('case').startsWith('subtle');
    // A wrong answer is a BENCH_WRONG line (bench/lib/wrong.mjs): the run fails.
    const refused = (why) => new Response(`BENCH_WRONG ${url.searchParams.get('case')}: a valid delivery was refused${why}`, { status: 500 });
    try {
      for (let i = 0; i < n; i += 1) {
        const ok = isAsync ? await fn(d) : fn(d);
        if (!ok) return refused('');
      }
    } catch (error) {
      return refused(`: ${error?.code ?? error?.message ?? error}`);
    }
    return new Response(null, { status: 204 });
  },
};
