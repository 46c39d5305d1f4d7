// Where the time of one call goes: the same deliveries through each layer of the package
// separately (raw wasm exports, the wasm-bindgen glue, the public API), next to node:crypto's
// parts. Uses the package's internals (the glue module and the instance's exports), for
// measurement only; a row is skipped when the installed build does not have what it needs.

import { createHash, createHmac } from 'node:crypto';
import { nodeVerifyBytes } from './cases.mjs';
import { MAX_SKEW_SECS, SECRET } from './inputs.mjs';

const nowSecs = () => Math.floor(Date.now() / 1000);
const SECRET_BYTES = Buffer.from(SECRET, 'utf8');
const decoder = new TextDecoder('utf-8', { fatal: true });

export const BREAKDOWN = [
  { id: 'node', label: 'node:crypto reference (headers + HMAC + compare: the throughput tables\' `node` case)' },
  { id: 'node.hmac', label: 'node:crypto `createHmac(...).update x2.digest()` only' },
  { id: 'node.sha256', label: 'node:crypto `createHash(sha256)` of the body only' },
  { id: 'wasm.malloc+free', perBody: false, label: 'empty wasm round trip: raw `__wbindgen_malloc` + `__wbindgen_free` exports' },
  { id: 'glue.classify', perBody: false, label: 'smallest full glue call: `rawClassifyDeliveryResponse(200)` (number in, string out)' },
  { id: 'wasm.copyBody', label: 'copy the body into wasm memory (malloc + `Uint8Array.set` + free)' },
  { id: 'glue.fingerprint', label: 'glue `rawRequestFingerprint(body)`: SHA-256 in wasm (copy + hash + hex out)' },
  { id: 'glue.RawVerifier', label: 'glue: `RawVerifier.verify(body, timestamp, signature, now, parse=false)` (wasm-bindgen marshals the arguments; always the WebAssembly HMAC, where the public API hashes with node:crypto from {HOST_MAC_MIN_BODY} B)' },
  { id: 'api.V.verifySignature', label: 'public `Verifier.verifySignature`' },
  { id: 'glue.RawVerifier+parse', label: 'glue: the same with `parse=true`: + Rust strict parse' },
  { id: 'glue.checkEvent', label: 'glue `checkEvent(body)`: the strict scan only (copy + src/json/scan.rs)' },
  { id: 'js.parse', label: '`JSON.parse` of the body\'s text, decoded as verifyWebhook decodes it (Latin-1: these bodies are ASCII): the JS parse verifyWebhook adds' },
  { id: 'api.V.verifyWebhook', label: 'public `Verifier.verifyWebhook`' },
];

export function breakdownFns(pkg, inp) {
  const { api, glue, wasm } = pkg;
  const { body, timestamp, ours } = inp;
  const fns = {};
  fns.node = () => nodeVerifyBytes(body, timestamp, ours);
  fns['node.hmac'] = () => createHmac('sha256', SECRET_BYTES).update(`${timestamp}.`).update(body).digest();
  fns['node.sha256'] = () => createHash('sha256').update(body).digest();
  if (wasm?.__wbindgen_malloc && wasm?.__wbindgen_free) {
    fns['wasm.malloc+free'] = () => {
      const p = wasm.__wbindgen_malloc(64, 1);
      wasm.__wbindgen_free(p, 64, 1);
      return true;
    };
    fns['wasm.copyBody'] = () => {
      const p = wasm.__wbindgen_malloc(body.length, 1) >>> 0;
      new Uint8Array(wasm.memory.buffer, p, body.length).set(body);
      wasm.__wbindgen_free(p, body.length, 1);
      return true;
    };
  }
  if (typeof glue?.rawClassifyDeliveryResponse === 'function') fns['glue.classify'] = () => glue.rawClassifyDeliveryResponse(200);
  if (typeof glue?.rawRequestFingerprint === 'function') fns['glue.fingerprint'] = () => glue.rawRequestFingerprint(body);
  if (typeof glue?.RawVerifier === 'function') {
    let raw = null;
    try {
      raw = new glue.RawVerifier([SECRET], ['active'], [-1], MAX_SKEW_SECS, 4 * 1024 * 1024, false);
    } catch {
      raw = null; // another internal signature: skip these rows
    }
    if (raw && typeof raw.verify === 'function') {
      // What the public API does below its checks: the export, a negative answer a failure.
      const call = (parse) => {
        const outcome = raw.verify(body, timestamp, ours, nowSecs(), parse);
        if (outcome < 0) throw new Error(`verify failed: ${glue.failureMessage(-1 - outcome)}`);
        return outcome + 1;
      };
      fns['glue.RawVerifier'] = () => call(false);
      fns['glue.RawVerifier+parse'] = () => call(true);
    }
  }
  if (typeof glue?.checkEvent === 'function') fns['glue.checkEvent'] = () => glue.checkEvent(body) + 1;
  // The text as verifyWebhook's Node entry reads it: Latin-1 for a body of ASCII (as these are).
  const ascii = !body.some((b) => b >= 0x80);
  fns['js.parse'] = ascii ? () => JSON.parse(body.latin1Slice(0, body.length)) : () => JSON.parse(decoder.decode(body));
  const verifier = new api.Verifier({ secrets: SECRET, maxSkewSecs: MAX_SKEW_SECS });
  const delivery = () => ({ body, timestamp, signature: ours, nowSecs: nowSecs() });
  fns['api.V.verifySignature'] = () => verifier.verifySignature(delivery());
  fns['api.V.verifyWebhook'] = () => verifier.verifyWebhook(delivery());
  return fns;
}
