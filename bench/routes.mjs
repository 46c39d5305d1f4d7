// Part of bench/receiver.mjs: what a delivery costs a receiver holding many integrations'
// secrets, through its own faces (each delivery verified against every integration's secrets
// in turn) and through one integration's route (`receiver.integration(name)`: its secrets
// alone). In process, `handle` on a memory store: the verification and the receiver's own
// work, no HTTP and no disk. A forged delivery (no secret verifies it: every secret of the own
// faces is tried) and an authentic one of the last integration (the own faces' worst case).

const ROUNDS = 15;

/** Median and range of `rounds` timings of `count` calls of `run`, in microseconds per call. */
const WARMUP = 200;
async function timed(run, count) {
  let k = 0;
  for (let i = 0; i < WARMUP; i += 1) await run(k++);
  const perCall = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    for (let i = 0; i < count; i += 1) await run(k++);
    perCall.push(((performance.now() - started) * 1000) / count);
  }
  perCall.sort((a, b) => a - b);
  return { median: perCall[Math.floor(ROUNDS / 2)], min: perCall[0], max: perCall[ROUNDS - 1] };
}

/**
 * Resolves [{ integrations, face, delivery, median, min, max }] (microseconds per delivery) for
 * each count of integrations in `counts`. `pkg` and `rx` are the installed package's main and
 * receiver entries.
 */
export async function measureRoutes({ pkg, rx, counts = [1, 50, 300], quick = false }) {
  const rows = [];
  const now = Math.floor(Date.now() / 1000);
  const headerNames = { timestampHeader: 'X-Webhook-Timestamp', signatureHeader: 'X-Webhook-Signature' };
  const body = (i) => `{"schema_version":1,"event_id":"evt_bench_${i}","event_type":"payment.updated","occurred_at":"2026-01-01T00:00:00Z",`
    + `"data":{"payment_id":"pay_bench_${i % 500}","status":"open","status_version":${1 + Math.floor(i / 500)},"note":"${'x'.repeat(160)}"}}`;
  const signed = (text, secret) => ({
    body: new TextEncoder().encode(text),
    headers: { 'X-Webhook-Timestamp': String(now), 'X-Webhook-Signature': pkg.signWebhook({ secret, timestamp: String(now), body: text }) },
  });
  for (const count of counts) {
    const secrets = Object.fromEntries(Array.from({ length: count }, (_, i) => [`shop-${i}`, `whsec_bench_${i}_${'k'.repeat(24)}`]));
    const last = `shop-${count - 1}`;
    const receiver = rx.createReceiver({ secrets, maxSkewSecs: 300, ...headerNames, store: rx.memoryStore(), nowSecs: () => now, log: false });
    await receiver.ready();
    const route = receiver.integration(last);
    const calls = quick ? 200 : 1000;
    const forged = Array.from({ length: 64 }, (_, i) => signed(body(i), 'whsec_nobody_holds_this_one_at_all'));
    for (const [face, handle] of [['own faces', (d) => receiver.handle(d)], ['its route', (d) => route.handle(d)]]) {
      // The forged deliveries at a route are past its 20 cross-checks a second after the first
      // twenty: what a flood costs, the steady state.
      rows.push({ integrations: count, face, delivery: 'forged', ...await timed((i) => handle(forged[i % forged.length]), calls) });
      // Signed before the clock starts, each a new event (recorded: apply).
      const offset = face === 'own faces' ? 0 : 1_000_000;
      const authentic = Array.from({ length: WARMUP + ROUNDS * calls }, (_, i) => signed(body(offset + i), secrets[last]));
      rows.push({ integrations: count, face, delivery: 'authentic, recorded', ...await timed((i) => handle(authentic[i]), calls) });
    }
  }
  return rows;
}
