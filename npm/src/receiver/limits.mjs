// The receiver's limits, in one place (docs/receiver.md, "Decisions where the contract is
// silent", tells why each is what it is). An authentic delivery a store cannot hold is refused
// or quarantined before anything is written, never answered 503 on every retry.

/**
 * The longest event_id and payment_id, in UTF-8 bytes, on every store (and no U+0000 in
 * either): PostgreSQL's btree indexes refuse a key over about 2,700 bytes, and its text holds
 * no NUL. A longer one, or one with a NUL, is quarantined as event_malformed.
 */
export const MAX_ID_BYTES = 1024;

/**
 * maxBufferedBytes by default: the bytes of bodies a receiver holds while it reads them, across
 * its deliveries in flight. Sixteen bodies of the default maxBodyBytes (4 MiB); an event is a
 * few KB, so thousands of the service's deliveries at once. What it bounds is many senders
 * holding bodies while they send them slowly: without it, each connection may hold up to
 * maxBodyBytes for as long as the server waits.
 */
export const DEFAULT_BUFFERED_BYTES = 64 * 1024 * 1024;

/**
 * bodyTimeoutMs by default: how long `fetch` and `node` wait for a delivery's whole body, from
 * the moment they start reading it. An event is a few KB, sent at once; a body still coming
 * after 30 s is a sender holding a connection open (Deno.serve has no request timeout, and
 * node:http's requestTimeout is 300 s). It is answered 408, which the service retries.
 */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;
/**
 * How many of the quarantine's newest rows a body about to be kept is compared with: the same
 * code and bytes among them adds no row (a replay of the event, or a captured delivery sent
 * again within maxSkewSecs, is one row, not one per request). The stores' `quarantine`
 * statement writes it as its LIMIT (schema/*.sql; a test holds them to this); read newest first
 * through the primary key, so at most this many rows are compared.
 */
export const QUARANTINE_RECENT = 1000;

/**
 * How long a store's call (a delivery's record, the loop's claim, ...; not ready(), whose
 * migration may take minutes) may take before the receiver gives up on it: 503, retried. The
 * record is one statement, a few ms; a call this slow is a connection or a driver that hangs,
 * or a lock held that long, and a delivery held open meanwhile says nothing to anyone.
 */
export const STORE_CALL_MS = 30_000;

/**
 * How long a body must have been arriving before a new delivery that finds maxBufferedBytes
 * held may end its read (answered 503 busy, which the service retries) to take its room. An
 * event arrives at once; senders that each hold part of a body and send no more could
 * otherwise hold the whole budget, and every delivery be answered busy while they keep it.
 * Held so, they must replace each connection within this time to keep the budget.
 */
export const EVICT_AFTER_MS = 1000;
/** bodyTimeoutMs' bounds: a second (a value in seconds is refused) to ten minutes. */
export const BODY_TIMEOUT_RANGE_MS = [1000, 600_000];

/**
 * The bytes of a body `node` lets go unread (a method but POST, answered 405; a lazy receiver
 * that could not start, answered 503) so that the connection can be reused. Past them the
 * connection is closed: a sender streaming a body nobody reads is not read for ever.
 */
export const UNREAD_BODY_BYTES = 1024 * 1024;

/**
 * A time from here on is milliseconds, not Unix seconds; before PAST, no current Unix time in
 * seconds: written once, in api/hints.mjs.
 */
export { MILLISECONDS, PAST } from '../api/hints.mjs';

/** PostgreSQL's numeric holds at most 131072 digits before the decimal point. */
export const NUMERIC_DIGITS = 131072;

/**
 * Cloudflare D1: a string, BLOB or table row is at most 2,000,000 bytes (Cloudflare's
 * documented limit; SQLITE_TOOBIG past it; local D1 in workerd lets rows reach 2,200,000).
 * An events row holds the body, both ids (MAX_ID_BYTES each), the version (NUMERIC_DIGITS at
 * most, on D1 too) and a few bytes more; a payments row holds the data text in the body's
 * place. Measured in local D1: beside two 1024-byte ids and a 131072-digit version, the
 * largest body that records is the row limit less 133,163 bytes. So 2,000,000 - 133,163 =
 * 1,866,837 fits, and 1,800,000 leaves a margin. Bodies (and data texts) over it are refused.
 */
export const D1_MAX_BODY_BYTES = 1_800_000;
