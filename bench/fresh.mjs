// One cold start, in a fresh process: import (or require) one implementation and verify one
// 1 KiB delivery with it, parse included (ours: verifyWebhook). Started by bench/run.mjs as
//   node bench/fresh.mjs IMPL     with the delivery in BENCH_FRESH (JSON, prepared and
//                                 signed by the parent, so no library loads before t0)
// Prints { importMs, verifyMs, totalMs } as JSON (ours-phases: { phases }, the start-up of our
// package step by step). Exits non-zero if the delivery is rejected.

import { createRequire } from 'node:module';

const impl = process.argv[2];
const d = JSON.parse(process.env.BENCH_FRESH);
const body = Buffer.from(d.bodyBase64, 'base64');
const nowSecs = () => Math.floor(Date.now() / 1000);
let verify;

const t0 = performance.now();
switch (impl) {
  case 'baseline':
    verify = () => true;
    break;
  case 'node:crypto': {
    const { createHmac, timingSafeEqual } = await import('node:crypto');
    verify = () => {
      if (Math.abs(nowSecs() - Number(d.timestamp)) > 300) return false;
      const mac = createHmac('sha256', Buffer.from(d.secret, 'utf8')).update(`${d.timestamp}.`).update(body).digest();
      return timingSafeEqual(mac, Buffer.from(d.ours.slice(3), 'hex')) && JSON.parse(body.toString('utf8'));
    };
    break;
  }
  case 'ours-esm':
  case 'ours-cjs': {
    // By its name, as a user imports it and as the peers are imported below: run.mjs runs a
    // copy of this file placed in the consumer folder for these, so the name resolves there.
    const api = impl === 'ours-esm' ? await import('cryptopay-verify') : createRequire(import.meta.url)('cryptopay-verify');
    verify = () =>
      api.verifyWebhook({ body, timestamp: d.timestamp, signature: d.ours, nowSecs: nowSecs(), secrets: d.secret, maxSkewSecs: 300 });
    break;
  }
  case 'floor-main':
  case 'floor-exports': {
    // Node's own cost of importing a package by its name: an empty ES module package, with
    // `main` only or with `exports` (run.mjs writes both, and a copy of this file beside them).
    await import(`cryptopay-bench-${impl}`);
    verify = () => true;
    break;
  }
  case 'stripe': {
    const { default: Stripe } = await import('stripe');
    verify = () => new Stripe('sk_test_bench_not_a_key').webhooks.constructEvent(body, d.stripe, d.secret);
    break;
  }
  case 'svix': {
    const { Webhook } = await import('svix');
    verify = () => new Webhook(d.svixSecret).verify(body, d.svixHeaders);
    break;
  }
  case 'standardwebhooks': {
    const { Webhook } = await import('standardwebhooks');
    verify = () => new Webhook(d.svixSecret).verify(body, d.stdHeaders);
    break;
  }
  case 'ours-phases': {
    // Our ESM start-up, phase by phase, through the package's internal modules (the same
    // steps the Node entry takes); then the first and second verifyWebhook.
    const phases = {};
    let t = performance.now();
    const lap = (name) => {
      const now = performance.now();
      phases[name] = now - t;
      t = now;
    };
    const glue = await import(d.internals.glueUrl);
    lap('import glue');
    const start = await import(d.internals.startUrl);
    const api = await import(d.internals.apiUrl);
    lap('import the JavaScript layer');
    const { default: b64 } = await import(d.internals.base64Url);
    lap('import base64 module');
    const bytes = Buffer.from(b64, 'base64');
    lap('base64 decode');
    const module = new WebAssembly.Module(bytes);
    lap('WebAssembly.Module (compile)');
    start.startFromModule(glue, module);
    lap('instantiate + start');
    const call = () =>
      api.verifyWebhook({ body, timestamp: d.timestamp, signature: d.ours, nowSecs: nowSecs(), secrets: d.secret, maxSkewSecs: 300 });
    call();
    lap('first verifyWebhook');
    call();
    lap('second verifyWebhook');
    process.stdout.write(JSON.stringify({ phases }));
    process.exit(0);
  }
  default:
    throw new Error(`fresh.mjs: unknown implementation ${impl}`);
}
const t1 = performance.now();
const ok = verify();
const t2 = performance.now();
if (!ok) {
  process.stderr.write(`fresh.mjs: ${impl} rejected the delivery\n`);
  process.exit(1);
}
process.stdout.write(JSON.stringify({ importMs: t1 - t0, verifyMs: t2 - t1, totalMs: t2 - t0 }));
