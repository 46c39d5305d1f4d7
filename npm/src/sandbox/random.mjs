// The sandbox's seeded choices (--seed): which acknowledged events are delivered again
// (--duplicate-rate) and how long each delivery is held back (--shuffle). Each choice is a
// function of the seed, the event's number in the sandbox (1, 2, 3... in the order events
// occur) and what it is for, never of a shared stream: the k-th event gets the same choices
// whatever the network did to the deliveries before it.

/** A random 32-bit seed, for a run started without one (it is printed, to repeat the run). */
export function randomSeed() {
  return Math.floor(Math.random() * 0x1_0000_0000);
}

// splitmix32's finaliser: a well-mixed 32-bit hash of a 32-bit input.
function mix(x) {
  let z = x >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85eb_ca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2_ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

// `again`: the hold of a delivery sent again (a duplicate, a replay), drawn apart from the
// choice to send it, which only draws below --duplicate-rate.
const PURPOSES = { duplicate: 0x9e37_79b9, hold: 0x7f4a_7c15, again: 0x6a09_e667 };

/**
 * A number in [0, 1) drawn for (seed, n, purpose): the same arguments, the same number.
 * `n` is an event's number (a safe integer), `purpose` 'duplicate', 'hold' or 'again'.
 */
export function draw(seed, n, purpose) {
  const high = Math.floor(n / 0x1_0000_0000);
  let h = mix((seed >>> 0) ^ PURPOSES[purpose]);
  h = mix(h ^ (n >>> 0));
  h = mix(h ^ high);
  return h / 0x1_0000_0000;
}
