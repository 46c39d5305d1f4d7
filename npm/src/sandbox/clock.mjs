// The host's timers and clocks as they were when the package loaded. A merchant's test that
// fakes time after importing the sandbox (node:test's mock.timers, jest.useFakeTimers(),
// sinon) must not freeze the sandbox's deliveries, their retries and timeouts, or delivered()'s
// wait: those talk to a real receiver over real sockets. What a delivery is signed with is
// the clock the test sees (Date.now when it is called), so that a receiver in the same
// process, reading the same faked clock, finds its timestamp fresh.

export const realSetTimeout = globalThis.setTimeout;
export const realClearTimeout = globalThis.clearTimeout;
export const realQueueMicrotask = globalThis.queueMicrotask;
/** Wall-clock milliseconds, for when a delivery is due (kept in a data file across restarts). */
export const realNow = Date.now;
/** Monotonic milliseconds, for waits. */
export const monotonic = globalThis.performance.now.bind(globalThis.performance);
