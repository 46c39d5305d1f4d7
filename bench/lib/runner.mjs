// Alternating micro-benchmark runner: every case of a group is warmed up and calibrated to a
// batch of about `batchMs`, then each round runs one batch of every case (in an order shuffled
// each round, a minor GC before each batch so no case pays another's garbage), and the
// per-operation time of every batch is kept. Ratios are taken per round, then the median.
//
// A case is { id, fn, async?, check? }: fn returns truthy when it accepts the delivery and
// throws or returns false when it rejects it. Every batch checks that the case accepted (valid
// group) or rejected (invalid group) every delivery, and `check` reads the batch's last
// outcome ({ error, result }: the event it returned, the error it threw) for what the case must
// give, so that a refusal for another reason, or an acceptance that returns the wrong event,
// fails the run: a correctness check, never a timing one.

import { random as seeded } from '../../tests/receiver/lib/events.mjs';

const hr = () => Number(process.hrtime.bigint());

const minorGc = typeof globalThis.gc === 'function' ? () => globalThis.gc({ type: 'minor' }) : () => {};
export const majorGc = typeof globalThis.gc === 'function' ? () => globalThis.gc() : () => {};

function runSync(fn, n) {
  let rejected = 0;
  const last = { error: undefined, result: undefined };
  for (let i = 0; i < n; i += 1) {
    try {
      last.result = fn();
      if (!last.result) rejected += 1;
    } catch (error) {
      rejected += 1;
      last.error = error;
    }
  }
  return { rejected, last };
}

async function runAsync(fn, n) {
  let rejected = 0;
  const last = { error: undefined, result: undefined };
  for (let i = 0; i < n; i += 1) {
    try {
      last.result = await fn();
      if (!last.result) rejected += 1;
    } catch (error) {
      rejected += 1;
      last.error = error;
    }
  }
  return { rejected, last };
}

async function timed(c, n) {
  minorGc();
  const t0 = hr();
  const { rejected, last } = c.async ? await runAsync(c.fn, n) : runSync(c.fn, n);
  const ns = hr() - t0;
  return { ns, rejected, last };
}

function checkOutcome(c, n, { rejected, last }, expectAccept, where) {
  const want = expectAccept ? 0 : n;
  if (rejected !== want) {
    throw new Error(
      `${c.id}: ${where}: ${expectAccept ? 'rejected' : 'accepted'} ${expectAccept ? rejected : n - rejected} ` +
        `of ${n} ${expectAccept ? 'valid' : 'invalid'} deliveries`,
    );
  }
  const wrong = c.check?.(last);
  if (wrong) throw new Error(`${c.id}: ${where}: ${wrong}`);
}

/**
 * One call of each case, untimed, checked as the batches are: for inputs the timed groups do
 * not use (another character of the signature changed).
 */
export async function checkOnce(cases, expectAccept, where) {
  for (const c of cases) checkOutcome(c, 1, await timed(c, 1), expectAccept, where);
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
    checkOutcome(c, 1, first, expectAccept, 'first call');
    // Warm-up, doubling the batch until warmupMs is spent; the last batches calibrate.
    // The batch is sized from the fastest warm-up batch, so that one noisy batch cannot
    // shrink it (a batch only gets longer than batchMs, never much shorter).
    let n = 1;
    let spent = 0;
    let perOp = first.ns;
    while (spent < warmupMs * 1e6) {
      const batch = await timed(c, n);
      const { ns } = batch;
      checkOutcome(c, n, batch, expectAccept, 'warm-up');
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
      const batch = await timed(c, s.batch);
      const { ns } = batch;
      checkOutcome(c, s.batch, batch, expectAccept, `round ${r}`);
      s.samples.push(ns / s.batch);
    }
  }
  return Object.fromEntries(state);
}
