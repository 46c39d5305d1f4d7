// Alternating micro-benchmark runner: every case of a group is warmed up and calibrated to a
// batch of about `batchMs`, then each round runs one batch of every case (in an order shuffled
// each round, a minor GC before each batch so no case pays another's garbage), and the
// per-operation time of every batch is kept. Ratios are taken per round, then the median.
//
// A case is { id, fn, async? }: fn returns truthy when it accepts the delivery and throws or
// returns false when it rejects it. Every batch checks that the case accepted (valid
// group) or rejected (invalid group) every delivery: a correctness check, never a timing one.

import { random as seeded } from '../../tests/receiver/lib/events.mjs';

const hr = () => Number(process.hrtime.bigint());

const minorGc = typeof globalThis.gc === 'function' ? () => globalThis.gc({ type: 'minor' }) : () => {};
export const majorGc = typeof globalThis.gc === 'function' ? () => globalThis.gc() : () => {};

function runSync(fn, n) {
  let rejected = 0;
  for (let i = 0; i < n; i += 1) {
    try {
      if (!fn()) rejected += 1;
    } catch {
      rejected += 1;
    }
  }
  return rejected;
}

async function runAsync(fn, n) {
  let rejected = 0;
  for (let i = 0; i < n; i += 1) {
    try {
      if (!(await fn())) rejected += 1;
    } catch {
      rejected += 1;
    }
  }
  return rejected;
}

async function timed(c, n) {
  minorGc();
  const t0 = hr();
  const rejected = c.async ? await runAsync(c.fn, n) : runSync(c.fn, n);
  const ns = hr() - t0;
  return { ns, rejected };
}

function checkOutcome(c, n, rejected, expectAccept, where) {
  const want = expectAccept ? 0 : n;
  if (rejected !== want) {
    throw new Error(
      `${c.id}: ${where}: ${expectAccept ? 'rejected' : 'accepted'} ${expectAccept ? rejected : n - rejected} ` +
        `of ${n} ${expectAccept ? 'valid' : 'invalid'} deliveries`,
    );
  }
}

/**
 * Runs one group. Returns { [id]: { samples: [ns per op, one per round], batch } }.
 * expectAccept: true for valid signatures, false for invalid ones.
 */
export async function runGroup(cases, { rounds, batchMs, warmupMs, expectAccept }) {
  majorGc();
  const state = new Map();
  for (const c of cases) {
    // Correctness first: one call must give the expected outcome.
    const first = await timed(c, 1);
    checkOutcome(c, 1, first.rejected, expectAccept, 'first call');
    // Warm-up, doubling the batch until warmupMs is spent; the last batches calibrate.
    // The batch is sized from the fastest warm-up batch, so that one noisy batch cannot
    // shrink it (a batch only gets longer than batchMs, never much shorter).
    let n = 1;
    let spent = 0;
    let perOp = first.ns;
    while (spent < warmupMs * 1e6) {
      const { ns, rejected } = await timed(c, n);
      checkOutcome(c, n, rejected, expectAccept, 'warm-up');
      spent += ns;
      perOp = Math.min(perOp, ns / n);
      if (ns < batchMs * 1e6) n *= 2;
    }
    state.set(c.id, { batch: Math.max(1, Math.round((batchMs * 1e6) / perOp)), samples: [] });
  }
  const random = seeded(cases.length);
  for (let r = 0; r < rounds; r += 1) {
    // A new order each round (seeded, so a run can be repeated): no case always follows the
    // same neighbour and pays for what it left behind.
    const order = random.shuffle([...cases]);
    for (const c of order) {
      const s = state.get(c.id);
      const { ns, rejected } = await timed(c, s.batch);
      checkOutcome(c, s.batch, rejected, expectAccept, `round ${r}`);
      s.samples.push(ns / s.batch);
    }
  }
  return Object.fromEntries(state);
}
