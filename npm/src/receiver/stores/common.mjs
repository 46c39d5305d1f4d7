// What the stores share: option checks, the table prefix, how a driver's error is described
// in a log line (never a URL's credentials, never more than a line) and what fixes it, and the
// decision read from a record statement's rows (strictly). The tables' schema: schema.mjs.

import { CryptoPayError } from 'cryptopay-verify';
import { unknownOption } from '../../api/hints.mjs';
import { MESSAGE_CHARS, maskCredentials, maskedCopy, printable } from '../../api/redact.mjs';

export const DEFAULT_PREFIX = 'cryptopay_';

/**
 * A driver's bytes (Buffer, Uint8Array, ArrayBuffer, an array of numbers, or PostgreSQL's hex
 * text `\\x…` from a client that answers bytea as text) as a Uint8Array. Any other shape
 * throws: a body read as empty would be a quarantined delivery lost once its row is pruned.
 */
export function bytes(value) {
  if (value instanceof Uint8Array) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (Array.isArray(value)) return Uint8Array.from(value);
  if (typeof value === 'string' && /^\\x(?:[0-9a-fA-F]{2})*$/.test(value)) {
    const out = new Uint8Array((value.length - 2) / 2);
    for (let i = 0; i < out.length; i += 1) out[i] = Number.parseInt(value.slice(2 + 2 * i, 4 + 2 * i), 16);
    return out;
  }
  throw invalid(`a stored body read as ${value === null ? 'null' : typeof value}, not bytes: make the client answer `
    + 'bytea or BLOB columns as a Buffer, a Uint8Array or PostgreSQL\'s hex text (bytea_output hex)');
}

/**
 * A driver's time (a Date, or text) as ISO 8601 text in UTC. Text without an offset is UTC (the
 * SQLite stores' own); PostgreSQL's text names its session's offset, as `+05:30` or `-05`.
 */
export function isoTime(value) {
  if (value instanceof Date) return value.toISOString();
  const text = String(value ?? '');
  const date = new Date(/(?:[zZ]|:\d\d(?:\.\d+)?[+-]\d\d(?::?\d\d)?)$/.test(text) ? text : `${text}Z`);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

/** A driver's boolean as true or false: a JavaScript boolean, 1 (SQLite, D1), or PostgreSQL's text 't'. */
export const flag = (value) => value === true || value === 1 || value === 1n || value === '1' || value === 't';
/** A boolean a query answered as false (a column it left out, or null, is not an answer). */
export const answeredFalse = (value) => value !== undefined && value !== null && !flag(value);
const textOrNull = (value) => (value === null || value === undefined ? null : String(value));

/**
 * `retry`'s last parameter from its `loadedVersion`: the applied version the attempt loaded as
 * it is, '' for none loaded (null), NULL when not known (undefined: the retry then waits).
 */
export const loadedParam = (loadedVersion) => (loadedVersion === undefined ? null : loadedVersion ?? '');

/** The `load` statement's row, the same from every store. */
export function loaded(row) {
  return {
    handledVersion: textOrNull(row.handled_version),
    outcome: row.outcome ?? null,
    code: row.code ?? null,
    attempts: Number(row.attempts ?? 0),
    leased: flag(row.leased),
    eventDue: flag(row.event_due),
    recoverDue: flag(row.recover_due),
    eventVersion: textOrNull(row.event_version),
    eventIntegration: row.event_integration ?? null,
    eventId: row.event_id ?? null,
    hasPayment: flag(row.has_payment),
    order: flag(row.has_order)
      ? { orderRef: row.order_ref ?? null, sourceAmount: String(row.source_amount), integration: row.order_integration ?? null, createdAt: isoTime(row.created_at) }
      : null,
    fulfilVersion: textOrNull(row.fulfil_version),
  };
}
// Unquoted identifiers, lower case (PostgreSQL folds them), short enough for the longest
// derived name (`<prefix>events_payment_id`) to stay within PostgreSQL's 63 bytes.
const PREFIX_SHAPE = /^[a-z_][a-z0-9_]{0,39}$/;

export const invalid = (detail) => new CryptoPayError('invalid_argument', `invalid_argument: ${detail}`);

// Every store takes a client of one kind. Which kind a value is, read once from its shape, so
// that a client given to the wrong store is named with the store it belongs to (rather than
// each store guarding against the others' clients).
const CLIENTS = {
  // @libsql/client: execute() and batch(), no prepare().
  libsql: { is: (has) => has('execute') && has('batch') && !has('prepare'), name: 'a libsql client (@libsql/client, Turso)', store: 'libsqlStore(client)' },
  // A D1 binding: prepare() and batch() (it has exec() too).
  d1: { is: (has) => has('prepare') && has('batch'), name: 'a Cloudflare D1 binding', store: 'd1Store(env.DB)' },
  // better-sqlite3, bun:sqlite, node:sqlite; node-sqlite3 (callbacks: parallelize()) is not synchronous.
  sqlite: { is: (has) => has('prepare') && has('exec') && !has('parallelize'), name: 'a synchronous SQLite database', store: 'sqliteStore(db)' },
  // node-postgres, or anything with query(text, values).
  postgres: { is: (has) => has('query'), name: 'a PostgreSQL client', store: 'postgresStore(pool)' },
};

/** The kind of database client `value` is (`libsql`, `d1`, `sqlite`, `postgres`), or null. */
export function clientKind(value) {
  if (value === null || typeof value !== 'object') return null;
  const has = (method) => typeof value[method] === 'function';
  return Object.keys(CLIENTS).find((kind) => CLIENTS[kind].is(has)) ?? null;
}

/**
 * Refuses anything but a client of `kind` for the store `what`: a client of another kind is
 * named with the store that takes it; anything else gets `takes` (what the store takes).
 */
export function expectClient(client, kind, what, takes) {
  const found = clientKind(client);
  if (found === kind) return;
  if (found !== null) throw invalid(`${what} was given what looks like ${CLIENTS[found].name}: use ${CLIENTS[found].store}`);
  throw invalid(`${what} takes ${takes}`);
}

export const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `value`, refused unless it is a safe integer from `min` to `max`. */
export function integer(value, name, [min, max]) {
  if (!Number.isSafeInteger(value) || value < min || value > max) throw invalid(`${name} is an integer from ${min} to ${max}`);
  return value;
}

/**
 * Refuses anything but an options object whose keys are all `allowed`. An unknown key is
 * never echoed (it could be a pasted secret); a near miss of an option is named.
 */
export function checkKeys(options, allowed, what, usage = `${what} takes an options object`) {
  if (!isPlainObject(options)) throw invalid(usage);
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) throw invalid(unknownOption(key, allowed, what));
  }
}

/** Checks a store's options object; returns it with defaults. */
export function storeOptions(options, allowed, what) {
  if (options === undefined) options = {};
  checkKeys(options, allowed, what);
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (typeof prefix !== 'string' || !PREFIX_SHAPE.test(prefix)) {
    throw invalid(`${what}: prefix is up to 40 lower-case letters, digits and underscores, starting with a letter or underscore (default "cryptopay_")`);
  }
  const createTables = options.createTables ?? true;
  if (typeof createTables !== 'boolean') throw invalid(`${what}: createTables is true or false`);
  return { ...options, prefix, createTables };
}

/** The dialect's statements with the table prefix put in. */
export function withPrefix(statements, prefix) {
  const put = (text) => text.replace(/\bcryptopay_/g, prefix);
  return Object.fromEntries(Object.entries(statements)
    .map(([name, text]) => [name, Array.isArray(text) ? text.map(put) : put(text)]));
}

/**
 * The SQLSTATE of an error a PostgreSQL server sent (or a driver's own code): node-postgres and
 * postgres.js put it in error.code; Bun's SQL client (Bun.SQL) in error.errno, its code being
 * ERR_POSTGRES_SERVER_ERROR.
 */
export const sqlState = (error) => (error?.code === 'ERR_POSTGRES_SERVER_ERROR' ? error.errno : error?.code);

// Store states a retry cannot leave, by the SQLSTATE (PostgreSQL) or the driver's message,
// and what fixes each.
const STUCK_STATES = {
  '25006': 'the database is read-only (a standby, as after a failover, or default_transaction_read_only = on): connect to the primary',
  '42501': 'this role may not use the receiver\'s tables: GRANT SELECT, INSERT, UPDATE on the tables events, payments, quarantine, orders and fulfilment, SELECT on schema (each name after the prefix), USAGE on the quarantine id sequence, and USAGE on the schema that holds them to it (docs/receiver.md has the statements)',
  '42P01': 'a table of the receiver is missing (dropped: a migration tool that took it for drift, Prisma Migrate among them, drops it; or another search_path): with createTables (the default), restart the receiver so that ready() creates it; with createTables: false, run dist/receiver/schema/postgres-schema.sql again (a migration tool lists its migration as applied already: run the file by hand). Restore the rows it held from a backup (docs/receiver.md)',
};
const STUCK = [
  [/Client has encountered a connection error and is not queryable|Client was closed and is not queryable/,
    'a node-postgres Client does not reconnect once its connection broke: pass a pg.Pool, which replaces broken connections (until then, restart the process)'],
  [/Cannot use a pool after calling end on the pool/, 'the pg.Pool was ended (pool.end()) while the receiver still uses it'],
  // A pooler in transaction mode (PgBouncer, and those of hosted PostgreSQL built on it) refuses
  // the settings a client sends when it connects: statement_timeout in the URL, in pg's options
  // or in postgres.js's `connection`.
  [/unsupported startup parameter/,
    'a connection pooler in front of the database (PgBouncer in transaction mode, a hosted PostgreSQL\'s pooled address) refuses settings sent when connecting, such as statement_timeout in the URL, in the pool\'s options or in postgres.js\'s connection option: leave them out and set them on the role instead (ALTER ROLE <role> SET statement_timeout = \'10s\'; a pg.Pool\'s query_timeout is kept by the client and passes), or list them in the pooler\'s ignore_startup_parameters'],
  // @libsql/client
  [/\bCLIENT_CLOSED\b|The client is closed/, 'the libsql client was closed (client.close()) while the receiver still uses it'],
  // @libsql/client on a file (0.18.0): a write that failed with SQLITE_BUSY is left in progress,
  // holding the file's lock (tursodatabase/libsql-client-ts#352)
  [/cannot commit transaction - SQL statements in progress/,
    'a libsql connection kept a write that failed with SQLITE_BUSY in progress, and with it the file\'s lock (a bug of @libsql/client): restart the process; create the client with a busy timeout (createClient({ url, timeout: 5000 })) so that a write waits for the lock, and hold no transaction of your own open on the file for longer'],
  // better-sqlite3, node:sqlite, bun:sqlite
  [/The database connection is not open|statement has been finalized|Cannot use a closed database/,
    'the SQLite database was closed (db.close()) while the receiver still uses it'],
  // A SQLite file, through any of them or a libsql client
  [/attempt to write a readonly database/,
    'the SQLite database became read-only for this process (its file or folder lost write permission, the file system was remounted read-only after a disk error, or PRAGMA query_only): restore write access'],
  [/database disk image is malformed|file is not a database/,
    'the SQLite file is damaged: stop the receiver, then restore the file from a backup (PRAGMA integrity_check names what is damaged)'],
];

// Store failures a retry may get past, with where to look meanwhile.
const SLOW = 'the statement outlasted query_timeout or statement_timeout: most often a lock held by another transaction '
  + '(SELECT pid, state, xact_start, left(query, 80) FROM pg_stat_activity WHERE wait_event_type = \'Lock\' '
  + 'OR state LIKE \'idle in transaction%\' names it: a connection your code left inside a transaction, a long report or '
  + 'migration), else an overloaded server, or a pooler in front queueing it (PgBouncer: SHOW POOLS, cl_waiting and maxwait; for up '
  + 'to server_login_retry after the database restarted)';
const LOCKED = 'another connection held the SQLite file\'s write lock past the busy timeout: a transaction your own code '
  + 'holds open on the file (commit it before the receiver writes: a createPayment with record inside it waits on itself), '
  + 'another process writing, or a busy timeout too short (libsql: createClient({ url, timeout: 5000 }))';
const TRANSIENT_STATES = { '57014': SLOW, '55P03': SLOW };
const WRITE_FAILED = 'a write below SQLite failed: the disk full (df), the file or its folder no longer writable by this process '
  + '(its permissions or owner changed, a read-only remount), or a network file system (SQLite needs a local disk)';
const TRANSIENT = [
  [/^Query read timeout$/, SLOW],
  [/SQLITE_BUSY|database is locked/, LOCKED],
  [/SQLITE_IOERR|disk I\/O error|SQLITE_FULL|database or disk is full/, WRITE_FAILED],
];

/**
 * What the receiver warns of at its creation for a node-postgres Pool made without a connection
 * timeout or a query timeout (what most tutorials write): a database that stalls (a lock, a
 * failover's half-open connection) then holds each delivery open for as long as it stalls, with
 * no log line, until every connection of the pool is taken and the receiver answers nothing.
 * A timeout named in the pool's options or its connection string counts; pg.defaults and a
 * role's statement_timeout cannot be seen from here, and the line says so.
 */
export function poolWarnings(client) {
  // A pg.Pool: its options (pg-pool copies what it was given) and its counts.
  const options = client?.options;
  if (typeof client?.totalCount !== 'number' || options === null || typeof options !== 'object') return [];
  let url = null;
  try {
    url = typeof options.connectionString === 'string' ? new URL(options.connectionString).searchParams : null;
  } catch {
    // not a URL (libpq's key=value form): its settings are not read here
  }
  const set = (...names) => names.some((name) => Number(options[name]) > 0 || Number(url?.get(name)) > 0);
  const missing = [
    set('connectionTimeoutMillis', 'connect_timeout') ? null : 'connectionTimeoutMillis',
    set('query_timeout', 'statement_timeout') ? null : 'query_timeout',
  ].filter(Boolean);
  if (missing.length === 0) return [];
  return [`postgresStore: the pg.Pool was made without ${missing.join(' or ')}, so a database that stalls (a lock held, `
    + 'a connection a failover left half-open) holds each delivery open for as long as it stalls, with no log line, until '
    + 'every connection of the pool is taken: give the pool connectionTimeoutMillis: 5_000 and query_timeout: 10_000 '
    + '(then a stall is a 503 the service retries); where pg.defaults or the role sets them, this line can be ignored'];
}

/** The text `states` (by SQLSTATE) or `patterns` (by message) give a store failure, or null. */
function saidOf(error, states, patterns) {
  try {
    const state = states[sqlState(error)];
    if (state !== undefined) return state;
    const message = printable(error?.message ?? error);
    return patterns.find(([pattern]) => pattern.test(message))?.[1] ?? null;
  } catch {
    return null; // a failure that cannot be read (describeError): nothing to name
  }
}

/** Where to look for a store failure a retry may get past (a timeout), or null. */
export const transientHint = (error) => saidOf(error, TRANSIENT_STATES, TRANSIENT);

/** What fixes a store failure no retry of the service can get past, or null. */
export const stuckFix = (error) => saidOf(error, STUCK_STATES, STUCK);

/**
 * What a public method of the receiver rejects with for `failure`: the package's own error as
 * it is; any other (a driver's, or a store's error holding one as its cause) as a copy with
 * what may be a credential masked (maskedCopy), so that printing it never shows a database's
 * password.
 */
export const shownError = (failure) => (failure instanceof CryptoPayError ? failure : maskedCopy(failure));

/**
 * The rows a claim returns ({ payment_id, seen_at, newer }: SQL's RETURNING keeps no order),
 * as the ids in the order a pass works them: newer facts first, then the longest not looked
 * at, then by id.
 */
export function inClaimOrder(rows) {
  const keyed = rows.map((row) => ({ id: String(row.payment_id), newer: flag(row.newer), seen: String(row.seen_at) }));
  const text = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  return keyed.sort((a, b) => Number(b.newer) - Number(a.newer) || text(a.seen, b.seen) || text(a.id, b.id)).map((row) => row.id);
}

// A wrapper's cause, one level down, when its own message is too short to say why: fetch's
// `TypeError: fetch failed` (libsql over HTTP, the client) says it only there (ECONNREFUSED,
// ENOTFOUND, a certificate refused). Masked as the message is. A longer message (the stores'
// own, which name the fix) stands alone.
const TERSE = 40;
function causeOf(error, message) {
  const cause = error?.cause;
  if (cause === null || typeof cause !== 'object' || message.length >= TERSE) return '';
  const code = typeof cause.code === 'string' ? maskCredentials(cause.code).slice(0, 80) : '';
  const said = typeof cause.message === 'string' ? maskCredentials(cause.message).slice(0, 300) : '';
  const text = joined(code, said);
  return text === '' || message.includes(said || code) ? '' : ` (cause: ${text})`;
}

// "code: message", or the one of them there is; the code alone is left out when the message
// already holds it.
function joined(code, message) {
  if (code === '' || message.includes(code)) return message || code;
  return message === '' ? code : `${code}: ${message}`;
}

/**
 * One line about a driver's error: its code and message, with what may be a credential
 * masked (maskCredentials: URL user information, `password=` and the like, quoted values
 * after such a word, Bearer and Basic credentials, query values), the code too.
 */
export function describeError(error) {
  // Never throws: what fails is any value (a getter of its message may throw), and the line
  // about it is written where a throw would end a pass, or the loop.
  try {
    const code = sqlState(error) ?? error?.errcode ?? error?.name;
    const shown = code === undefined || code === null ? '' : maskCredentials(code).slice(0, 80);
    const message = maskCredentials(error?.message ?? error).slice(0, MESSAGE_CHARS);
    return `${joined(shown, message) || 'a failure with no message'}${causeOf(error, message)}`;
  } catch {
    return 'a failure whose message could not be read';
  }
}

/**
 * The decision in a record statement's rows: none when the event_id was stored already (a
 * duplicate), else one row saying apply, stale or integration_mismatch (the payment's facts
 * came through another integration's secret: nothing written). Any other shape (a client
 * that answers something else) is an error, so the delivery is answered 503: never a guessed
 * 200.
 */
export function decisionOf(rows, what, decisions = ['apply', 'stale', 'integration_mismatch']) {
  if (!Array.isArray(rows)) throw new Error(`${what}: the record statement's result holds no rows array`);
  if (rows.length === 0) return 'duplicate';
  const decision = rows[0]?.decision;
  if (rows.length === 1 && decisions.includes(decision)) return decision;
  throw new Error(`${what}: the record statement returned an unexpected row`);
}

/**
 * The decision of schema/sqlite.sql's `foreign` and `record` statements, from their rows:
 * `foreign`'s one row says integration_mismatch (and `record` then wrote nothing), else
 * `record`'s rows say as decisionOf reads them.
 */
export function sqliteDecisionOf(foreign, recorded, what) {
  if (!Array.isArray(foreign)) throw new Error(`${what}: the foreign statement's result holds no rows array`);
  if (foreign.length > 0) return decisionOf(foreign, what, ['integration_mismatch']);
  return decisionOf(recorded, what, ['apply', 'stale']);
}
