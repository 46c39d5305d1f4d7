// The receiver's limits, in one place (README, "Receiver": "Decisions where the contract is
// silent" tells why each is what it is). An authentic delivery a store cannot hold is refused
// or quarantined before anything is written, never answered 503 on every retry.

/** maxBodyBytes when the options give none: the package's default. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The longest event_id and payment_id, in UTF-8 bytes, on every store (and no U+0000 in
 * either): PostgreSQL's btree indexes refuse a key over about 2,700 bytes, and its text holds
 * no NUL. A longer one, or one with a NUL, is quarantined as event_malformed.
 */
export const MAX_ID_BYTES = 1024;

/** PostgreSQL's numeric holds at most 131072 digits before the decimal point. */
export const NUMERIC_DIGITS = 131072;
