// Types of cryptopay-verify/receiver. Hand-written; the drivers are described by the shapes
// the receiver uses, so no driver's types are needed to compile against them. Self-contained
// like index.d.ts: they name no DOM or Node global, so a project compiled with
// `lib: ["es2022"]` and `types: []` type-checks them; `receiver.fetch` takes and returns the
// project's own Fetch `Request` and `Response` where it has them (DOM, @types/node,
// @cloudflare/workers-types), and the shapes it uses where it has none.

import type { Decision, ErrorCode, HeaderContainer, RawBody, Secrets } from 'cryptopay-verify';

/**
 * What a delivery of the receiver is answered: the HTTP status, a JSON body, its headers.
 *
 * @example
 * const { status, headers, body }: ReceiverAnswer = await receiver.handle({ body: rawBody, headers: req.rawHeaders });
 * reply.code(status).headers(headers).send(body);
 */
export interface ReceiverAnswer {
  /**
   * 200 once recorded (after the commit returned) or quarantined; 400 a delivery that failed
   * verification; 405 a method other than POST; 413 a body over maxBodyBytes; 500 a
   * configuration error (`body_not_raw`, `invalid_argument`) or an unexpected one
   * (`internal`); 503 `store_unavailable`.
   *
   * @example
   * if (answer.status === 503) console.warn('the store is down: the service will retry');
   */
  status: 200 | 400 | 405 | 413 | 500 | 503;
  /**
   * The JSON text: `{"received":true,"decision":"apply"|"duplicate"|"stale"}`,
   * `{"received":true,"quarantined":"<code>"}` or `{"error":"<code>"}`. Never a message, a
   * secret or a byte of the delivery.
   *
   * @example
   * answer.body // '{"received":true,"decision":"apply"}'
   */
  body: string;
  /**
   * `content-type: application/json`, `cache-control: no-store`; `allow: POST` with a 405.
   *
   * @example
   * res.writeHead(answer.status, answer.headers).end(answer.body);
   */
  headers: Record<string, string>;
}

/**
 * The smallest request shape `receiver.node` reads (node:http's IncomingMessage and
 * Express's `req` have it).
 *
 * @example
 * http.createServer((req, res) => receiver.node(req, res));
 */
export interface NodeRequestLike {
  /**
   * The HTTP method: anything but `POST` is answered 405.
   *
   * @example
   * method: 'POST'
   */
  method?: string | undefined;
  /**
   * The headers as node:http merges them (read when `rawHeaders` is absent, and for
   * `content-length`).
   *
   * @example
   * headers: { 'x-webhook-timestamp': '1700000000' }
   */
  headers?: Record<string, string | string[] | undefined> | undefined;
  /**
   * node:http's flat `[name, value, ...]` list: a header sent twice stays apart there
   * (`header_duplicated`).
   *
   * @example
   * rawHeaders: ['X-Webhook-Timestamp', '1700000000', 'X-Webhook-Signature', 'v1=...']
   */
  rawHeaders?: string[] | undefined;
  /**
   * Whether the body stream was already read (by a framework): `rawBody`, else `body`, is
   * then used.
   *
   * @example
   * readableEnded: false
   */
  readableEnded?: boolean | undefined;
  /**
   * The bytes a framework read, kept beside the body it parsed (Google Cloud Functions and
   * Firebase, NestJS with `rawBody: true`, a body parser's `verify` callback): verified in
   * preference to `body` once the stream was read.
   *
   * @example
   * app.use(express.json({ verify: (req, res, buf) => { req.rawBody = buf; } }));
   */
  rawBody?: unknown;
  /**
   * Set by a framework that read the body first: bytes or a string verify; an object is `body_not_raw`.
   *
   * @example
   * app.post('/webhook', express.raw({ type: 'application/json' }), receiver.node); // req.body: a Buffer
   */
  body?: unknown;
  /**
   * Adds a stream listener (`data`, `end`, `error`, `close`).
   *
   * @example
   * req.on('data', (chunk) => chunks.push(chunk));
   */
  on(event: string, listener: (...args: any[]) => void): unknown;
  /**
   * Adds a stream listener called once.
   *
   * @example
   * req.once('end', () => done());
   */
  once(event: string, listener: (...args: any[]) => void): unknown;
  /**
   * Removes a stream listener.
   *
   * @example
   * req.off('data', onData);
   */
  off(event: string, listener: (...args: any[]) => void): unknown;
}

/**
 * The smallest response shape `receiver.node` writes (node:http's ServerResponse and
 * Express's `res` have it).
 *
 * @example
 * http.createServer((req, res) => receiver.node(req, res));
 */
export interface NodeResponseLike {
  /**
   * Whether an answer was already started (the receiver then writes nothing).
   *
   * @example
   * if (!res.headersSent) res.writeHead(500).end();
   */
  headersSent: boolean;
  /**
   * Writes the status and headers.
   *
   * @example
   * res.writeHead(200, { 'content-type': 'application/json' });
   */
  writeHead(status: number, headers: Record<string, string>): unknown;
  /**
   * Writes the body and ends the answer.
   *
   * @example
   * res.end(new TextEncoder().encode('{"received":true,"decision":"apply"}'));
   */
  end(body?: Uint8Array): unknown;
}

/**
 * An event as the receiver hands it to a store's `record`.
 *
 * @example
 * const decision = await store.record({ eventId: 'evt_1', paymentId: 'pay_1', statusVersion: '7', data: '{}', body });
 */
export interface StoredEvent {
  /**
   * At most 1024 UTF-8 bytes, no U+0000: a longer one, or one with a NUL, is quarantined as `event_malformed`.
   *
   * @example
   * eventId: 'evt_1'
   */
  eventId: string;
  /**
   * At most 1024 UTF-8 bytes, no U+0000, as `eventId`.
   *
   * @example
   * paymentId: 'pay_1'
   */
  paymentId: string;
  /**
   * Canonical decimal digits (no sign, no leading zeros), of any size: store and compare it
   * exactly (PostgreSQL `numeric`; in SQLite, as text compared by length then text).
   *
   * @example
   * statusVersion: '9007199254740993'
   */
  statusVersion: string;
  /**
   * The event's `data` object as JSON text.
   *
   * @example
   * data: '{"payment_id":"pay_1","status_version":7,"status":"paid"}'
   */
  data: string;
  /**
   * The verified body, byte for byte.
   *
   * @example
   * body: new Uint8Array(await request.arrayBuffer())
   */
  body: Uint8Array;
}

/**
 * What a store keeps in quarantine: an authentic delivery that is not a readable event.
 *
 * @example
 * await store.quarantine({ code: 'event_type_unknown', body });
 */
export interface QuarantineEntry {
  /**
   * Why it is not an event (`event_not_json`, `event_malformed`, `event_duplicate_key`,
   * `event_type_unknown`, `status_version_invalid`, or `body_too_large` for data the store
   * cannot hold).
   *
   * @example
   * code: 'event_type_unknown'
   */
  code: ErrorCode;
  /**
   * The verified body, byte for byte.
   *
   * @example
   * body: new TextEncoder().encode(text)
   */
  body: Uint8Array;
}

/**
 * What `receiver.handle` takes: the raw body and the request's headers.
 *
 * @example
 * const delivery: ReceiverDelivery = { body: req.rawBody, headers: req.rawHeaders };
 */
export interface ReceiverDelivery {
  /**
   * The raw body as received (bytes, or a string of its UTF-8 text). `null` or `undefined`
   * (no raw body: a framework parsed it) is answered 500 `body_not_raw`, as a parsed object is.
   *
   * @example
   * body: request.body // Fastify, with a parseAs: 'buffer' content-type parser
   */
  body: RawBody | null | undefined;
  /**
   * The request's headers in any container `readDeliveryHeaders` reads; prefer Node's
   * `rawHeaders`, which keeps a header sent twice apart.
   *
   * @example
   * headers: request.raw.rawHeaders
   */
  headers: HeaderContainer;
}

/**
 * What a store does; postgresStore, sqliteStore, d1Store, libsqlStore and memoryStore return one. A custom
 * store implements the same: `record` decides as `decideEvent` does, in ONE transaction with
 * its writes, and resolves only once they are durable; it rejects on any failure (the
 * receiver then answers 503 and the service retries).
 *
 * @example
 * // A store that counts deliveries around another one.
 * const inner = sqliteStore(db);
 * let recorded = 0;
 * const counting: ReceiverStore = {
 *   ready: () => inner.ready(),
 *   record: async (event) => { const decision = await inner.record(event); recorded += 1; return decision; },
 *   quarantine: (entry) => inner.quarantine(entry),
 * };
 */
export interface ReceiverStore {
  /**
   * Creates the tables when missing (idempotent) and prepares the store.
   *
   * @example
   * await store.ready();
   */
  ready(): Promise<void>;
  /**
   * Records the event and applies it when newer; resolves with the decision once committed.
   *
   * @example
   * const decision = await store.record(event); // 'apply' | 'duplicate' | 'stale'
   */
  record(event: StoredEvent): Promise<Decision>;
  /**
   * Keeps an authentic delivery that is not a readable event (never applied).
   *
   * @example
   * await store.quarantine({ code: 'event_not_json', body });
   */
  quarantine(entry: QuarantineEntry): Promise<void>;
  /**
   * The longest status_version the store holds exactly; a longer one is quarantined.
   * Left out: no limit.
   *
   * @example
   * maxStatusVersionDigits: 131072 // d1Store's
   */
  readonly maxStatusVersionDigits?: number | undefined;
  /**
   * The largest body (and `data` text) the store records, in bytes. createReceiver's
   * `maxBodyBytes` then defaults to the smaller of this and 4 MiB, and a larger one is refused
   * (`invalid_argument`); a delivery whose data text is larger is quarantined as
   * `body_too_large`. d1Store declares 1,800,000.
   *
   * @example
   * maxBodyBytes: 1_800_000
   */
  readonly maxBodyBytes?: number | undefined;
}

/**
 * A line logger: `console` (the default) fits. Lines never hold a secret, a body or a URL's credentials.
 *
 * @example
 * const log: ReceiverLog = { warn: (line) => logger.warn(line), error: (line) => logger.error(line) };
 */
export interface ReceiverLog {
  /**
   * Rejected and quarantined deliveries (expected from the network).
   *
   * @example
   * warn: (line) => pino.warn(line)
   */
  warn(line: string): void;
  /**
   * Store failures, configuration errors and unexpected ones (someone should look).
   *
   * @example
   * error: (line) => pino.error(line)
   */
  error(line: string): void;
}

/**
 * What {@link createReceiver} takes. Unknown keys are refused (`invalid_argument`), so a
 * misspelt option never silently falls back to a default.
 *
 * @example
 * const options: ReceiverOptions = {
 *   secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET,
 *   maxSkewSecs: 300,
 *   timestampHeader: 'X-Webhook-Timestamp',
 *   signatureHeader: 'X-Webhook-Signature',
 *   store: postgresStore(pool),
 * };
 */
export interface ReceiverOptions {
  /**
   * One active secret, or a rotation set (active, pending, retiring), exactly as saved.
   * `undefined` (an environment variable that is not set) is accepted by the type so that
   * `process.env.NAME` compiles, and refused at run time: `invalid_argument`, asking whether
   * the variable is set.
   *
   * @example
   * secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET
   */
  secrets: Secrets | undefined;
  /**
   * Required: how far, in seconds, a delivery's timestamp may be from now. 300 seconds is the
   * usual choice.
   *
   * @example
   * maxSkewSecs: 300
   */
  maxSkewSecs: number;
  /**
   * The name of the header carrying the delivery timestamp (matched in any letter case).
   * `undefined` (an environment variable that is not set) compiles, as for `secrets`, and is
   * refused at run time: `invalid_argument`, asking whether the variable is set.
   *
   * @example
   * timestampHeader: process.env.TIMESTAMP_HEADER
   */
  timestampHeader: string | undefined;
  /**
   * The name of the header carrying the signature; `undefined` as for `timestampHeader`.
   *
   * @example
   * signatureHeader: 'X-Webhook-Signature'
   */
  signatureHeader: string | undefined;
  /**
   * Where deliveries are recorded: postgresStore, sqliteStore, d1Store, libsqlStore (memoryStore in tests).
   *
   * @example
   * store: d1Store(env.DB)
   */
  store: ReceiverStore;
  /**
   * Larger bodies are answered 413 (read to their end and discarded, up to 16 times this
   * limit, so that the sender sees the 413; past that the connection is closed). Default
   * 4 MiB, or the store's `maxBodyBytes` when smaller (d1Store: 1,800,000); a value over the
   * store's is refused (`invalid_argument`).
   *
   * @example
   * maxBodyBytes: 1024 * 1024
   */
  maxBodyBytes?: number | undefined;
  /**
   * The current Unix time in seconds; default the system clock. A clock in milliseconds is
   * answered 500 `invalid_argument` (the service retries), never a 400.
   *
   * @example
   * nowSecs: () => Math.floor(Date.now() / 1000)
   */
  nowSecs?: (() => number) | undefined;
  /**
   * Where store failures, configuration errors, rejections and quarantines are told; `false` (or `null`) for nowhere. Default `console`.
   *
   * @example
   * log: { warn: (line) => logger.warn(line), error: (line) => logger.error(line) }
   */
  log?: ReceiverLog | false | null | undefined;
}

/**
 * The Fetch `Request` as far as `receiver.fetch` reads it: its method, its headers, and its
 * body as a stream. Any Fetch implementation's `Request` has this shape.
 *
 * @example
 * const request: FetchRequestLike = new Request('https://shop.example/webhook', { method: 'POST', body });
 */
export interface FetchRequestLike {
  /** The HTTP method: anything but `POST` is answered 405. @example method: 'POST' */
  readonly method: string;
  /** The request's headers. @example request.headers.get('content-length') */
  readonly headers: { get(name: string): string | null; forEach(callback: (value: string, name: string) => void): void };
  /** Whether some code already read the body (answered 500 `body_not_raw`). @example bodyUsed: false */
  readonly bodyUsed: boolean;
  /** The body as a stream, or `null` for none. @example body: null */
  readonly body: {
    getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>; cancel(reason?: unknown): Promise<void> };
    cancel(reason?: unknown): Promise<void>;
  } | null;
}

/**
 * The Fetch `Response` as far as a project without Fetch types can see it.
 *
 * @example
 * const response: FetchResponseLike = await receiver.fetch(request);
 */
export interface FetchResponseLike {
  /** The HTTP status of the answer. @example response.status // 200 */
  readonly status: number;
  /** The answer's headers. @example response.headers.get('content-type') // 'application/json' */
  readonly headers: { get(name: string): string | null };
  /** Reads the JSON answer as text. @example await response.text() // '{"received":true,"decision":"apply"}' */
  text(): Promise<string>;
}

/**
 * What `receiver.fetch` takes: the project's global Fetch `Request` type when it has one (DOM
 * lib, @types/node, @cloudflare/workers-types), else {@link FetchRequestLike}.
 *
 * @example
 * export async function POST(request: Request) { return getReceiver().fetch(request); }
 */
export type FetchRequest = typeof globalThis extends { Request: { prototype: infer R } } ? R : FetchRequestLike;

/**
 * What `receiver.fetch` resolves to: the project's global Fetch `Response` type when it has
 * one, else {@link FetchResponseLike}.
 *
 * @example
 * const response: FetchResponse = await receiver.fetch(request);
 */
export type FetchResponse = typeof globalThis extends { Response: { prototype: infer R } } ? R : FetchResponseLike;

/**
 * A receiver: three faces over one `handle`.
 *
 * @example
 * let receiver: Receiver | undefined;
 * const getReceiver = (env: Env): Receiver => (receiver ??= createReceiver({ ...options, store: d1Store(env.DB) }));
 */
export interface Receiver {
  /**
   * Prepares the store (creates the tables when missing; idempotent). Optional: the first
   * delivery does it otherwise. Rejects when the store cannot be reached or written, so
   * awaiting it at start makes a wrong connection fail the start (left unawaited, that
   * rejection is unhandled).
   *
   * @example
   * await receiver.ready();
   */
  ready(): Promise<void>;
  /**
   * For Fetch runtimes: Workers, Deno, Bun, Next.js route handlers, Hono (`c.req.raw`).
   * Reads the raw body itself (bounded), never throws.
   *
   * @example
   * export default { fetch: (request, env) => getReceiver(env).fetch(request) };
   */
  fetch(request: FetchRequest): Promise<FetchResponse>;
  /**
   * For node:http and Express. Reads the raw body itself (bounded); when a framework read it
   * first, its `req.body` is used (bytes verify; a parsed object, or no `req.body` at all, is
   * answered 500 `body_not_raw`). Fastify reads every body before its handlers: there, give
   * the bytes of a `parseAs: 'buffer'` content-type parser to `handle`. Never rejects.
   *
   * @example
   * app.post('/webhook', receiver.node); // Express: no body parser on this route
   */
  node(req: NodeRequestLike, res: NodeResponseLike): Promise<void>;
  /**
   * What `fetch` and `node` share: verifies, records, and says what to answer. For a
   * framework that already holds the raw body. Rejects only on a programming error (a
   * `delivery` that is not an object, a `nowSecs` that throws); a store failure is a 503
   * answer, never a rejection.
   *
   * @example
   * const { status, body, headers } = await receiver.handle({ body: rawBuffer, headers: req.rawHeaders });
   */
  handle(delivery: ReceiverDelivery): Promise<ReceiverAnswer>;
}

/**
 * Creates a receiver: verify first, then record each delivery in the store in one
 * transaction, and answer 2xx only after the commit returned.
 *
 * @param options The secrets, the skew, the two header names and the store.
 * @throws {CryptoPayError} At once, for a wrong option: `invalid_argument` (an unknown option,
 * a missing or `undefined` header name or secret, a bad secret set, no store or not a store,
 * a `maxBodyBytes` over the store's); `no_secrets`; `secret_empty`.
 * @example
 * import Database from 'better-sqlite3';
 * import { createReceiver, sqliteStore } from 'cryptopay-verify/receiver';
 *
 * const receiver = createReceiver({
 *   secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET,
 *   maxSkewSecs: 300,
 *   timestampHeader: process.env.TIMESTAMP_HEADER,
 *   signatureHeader: process.env.SIGNATURE_HEADER,
 *   store: sqliteStore(new Database('receiver.sqlite')),
 * });
 * await receiver.ready();
 * http.createServer(receiver.node).listen(8787);
 */
export declare function createReceiver(options: ReceiverOptions): Receiver;

/**
 * Options of {@link postgresStore}, {@link d1Store}, {@link libsqlStore} (and, with more, {@link sqliteStore}).
 * Unknown keys are refused (`invalid_argument`).
 *
 * @example
 * const store = postgresStore(pool, { prefix: 'shop_', createTables: false });
 */
export interface StoreOptions {
  /**
   * The tables' name prefix: `<prefix>events`, `<prefix>payments`, `<prefix>quarantine`.
   * Up to 40 lower-case letters, digits and underscores, starting with a letter or an
   * underscore. Default `cryptopay_`.
   *
   * @example
   * prefix: 'shop_'
   */
  prefix?: string | undefined;
  /**
   * `false`: ready() only checks the tables exist (create them in a migration). Default `true`.
   * Either way ready() then checks the column types the statements depend on, and rejects
   * naming each table, column, type found and type expected that differ.
   *
   * @example
   * createTables: false // the tables come from a migration (dist/receiver/schema/*.sql)
   */
  createTables?: boolean | undefined;
}

/**
 * What postgresStore uses of node-postgres: a `Pool` (recommended) or `Client`. Another client
 * fits through an object with `query`, e.g. postgres.js (`sql.unsafe`; its `error.code` and
 * `error.constraint_name` are read as node-postgres's `code` and `constraint`).
 *
 * @example
 * const client: PostgresClientLike = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * @example
 * // postgres.js (npm postgres): values are unknown[] here, its parameter type is narrower
 * const sql = postgres(process.env.DATABASE_URL!);
 * const client: PostgresClientLike = {
 *   query: async (text, values) => ({ rows: await sql.unsafe(text, values as postgres.ParameterOrJSON<never>[]) }),
 * };
 */
export interface PostgresClientLike {
  /**
   * Runs one parameterized statement.
   *
   * @example
   * const { rows } = await pool.query('SELECT 1 AS one', []);
   */
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/**
 * PostgreSQL, the store for several instances: each delivery is one statement, so one
 * transaction, safe under concurrent deliveries across instances; `status_version` is
 * `numeric`. Pass a node-postgres `Pool`; the receiver never opens a connection itself.
 * Its commits are durable even where `synchronous_commit` is `off` (raised to `on` for the
 * receiver's own transactions); a serialization failure or deadlock is retried up to 3 times;
 * ready() refuses a database whose encoding is not UTF8, and one no delivery could be written
 * to (read-only, or a role without INSERT or UPDATE on the tables), naming the fix.
 *
 * @param client A node-postgres `Pool` (or `Client`), or anything with `query(text, values)`
 * resolving `{ rows }`, such as an adapter over postgres.js's `sql.unsafe`.
 * @param options The table prefix, and whether ready() creates the tables.
 * @throws {CryptoPayError} `invalid_argument`: not a client, options of the wrong shape, or a
 * `pg.Pool` in a Cloudflare Worker (a Worker may not use a connection across requests: give it
 * a client per statement, as in the example below).
 * @example
 * import pg from 'pg';
 * const store = postgresStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * @example
 * // In a Cloudflare Worker, through Hyperdrive: a client per statement.
 * const store = postgresStore({
 *   async query(text, values) {
 *     const client = new pg.Client({ connectionString: env.HYPERDRIVE.connectionString });
 *     client.on('error', () => {});
 *     await client.connect();
 *     try { return await client.query(text, values); } finally { await client.end(); }
 *   },
 * });
 * @example
 * import postgres from 'postgres'; // postgres.js
 * const sql = postgres(process.env.DATABASE_URL!);
 * const store = postgresStore({ query: async (text, values) => ({ rows: await sql.unsafe(text, values as postgres.ParameterOrJSON<never>[]) }) });
 */
export declare function postgresStore(client: PostgresClientLike, options?: StoreOptions): ReceiverStore;

/**
 * What sqliteStore uses of better-sqlite3, bun:sqlite or node:sqlite's DatabaseSync.
 *
 * @example
 * const db: SqliteDatabaseLike = new Database('receiver.sqlite'); // better-sqlite3
 */
export interface SqliteDatabaseLike {
  /**
   * Prepares one statement.
   *
   * @example
   * db.prepare('SELECT 1 AS one').get();
   */
  prepare(sql: string): { run(...params: any[]): unknown; get(...params: any[]): unknown };
  /**
   * Runs statements without results (the schema, pragmas).
   *
   * @example
   * db.exec('PRAGMA journal_mode = WAL');
   */
  exec(sql: string): unknown;
}

/**
 * Options of {@link sqliteStore}: those of every store, and its durability and batching.
 *
 * @example
 * const store = sqliteStore(db, { busyTimeoutMs: 10_000 });
 */
export interface SqliteStoreOptions extends StoreOptions {
  /**
   * `FULL` (default) or `EXTRA`: a commit is on disk before it is answered. `NORMAL`: faster, but the last commits can be lost on power loss.
   *
   * @example
   * synchronous: 'EXTRA'
   */
  synchronous?: 'FULL' | 'EXTRA' | 'NORMAL' | undefined;
  /**
   * How long a write waits for another connection's lock before failing (503), in
   * milliseconds, 0 to 600000. Default 5000.
   *
   * @example
   * busyTimeoutMs: 10_000
   */
  busyTimeoutMs?: number | undefined;
  /**
   * At most this many deliveries share one commit (group commit), 1 to 10000. Default 100.
   *
   * @example
   * maxBatch: 1 // one commit per delivery
   */
  maxBatch?: number | undefined;
}

/**
 * SQLite, the embedded store for one process: a file in WAL mode with durable commits
 * (`synchronous=FULL`), writes in `BEGIN IMMEDIATE` transactions; deliveries that arrive
 * together share one commit, each answered only after it. Sets the pragmas it needs on the
 * connection at ready(): `busy_timeout`, `journal_mode=WAL`, `synchronous`.
 *
 * @param db An open better-sqlite3 `Database`, bun:sqlite `Database` or node:sqlite `DatabaseSync`.
 * @param options The table prefix, durability, lock timeout and batch size.
 * @throws {CryptoPayError} `invalid_argument`: not a synchronous SQLite database (a D1
 * binding, a libsql client, node-sqlite3), or an option of the wrong shape or out of range.
 * @example
 * import Database from 'better-sqlite3';
 * const store = sqliteStore(new Database('receiver.sqlite'));
 */
export declare function sqliteStore(db: SqliteDatabaseLike, options?: SqliteStoreOptions): ReceiverStore;

/**
 * What d1Store uses of a Cloudflare D1 binding.
 *
 * @example
 * const binding: D1DatabaseLike = env.DB;
 */
export interface D1DatabaseLike {
  /**
   * Prepares one statement.
   *
   * @example
   * env.DB.prepare('SELECT 1 AS one').all();
   */
  prepare(sql: string): { bind(...values: unknown[]): any; all(): Promise<unknown>; run(): Promise<unknown> };
  /**
   * Runs statements as one transaction.
   *
   * @example
   * await env.DB.batch([env.DB.prepare('SELECT 1')]);
   */
  batch(statements: any[]): Promise<Array<{ results?: any[] }>>;
}

/**
 * Cloudflare D1, for Workers: each delivery is one `batch()`, which D1 runs as one
 * transaction, so every isolate agrees. D1 holds at most 2,000,000 bytes in a row, so the
 * store records bodies up to 1,800,000 bytes (`maxBodyBytes`; larger ones are answered 413)
 * and versions up to 131072 digits (longer ones are quarantined).
 *
 * @param binding The D1 binding (`env.DB`, declared under `d1_databases` in wrangler.jsonc).
 * @param options The table prefix, and whether ready() creates the tables.
 * @throws {CryptoPayError} `invalid_argument`: not a D1 binding (a libsql client: use libsqlStore), or options of the wrong shape.
 * @example
 * const receiver = createReceiver({ ...options, store: d1Store(env.DB) });
 */
export declare function d1Store(binding: D1DatabaseLike, options?: StoreOptions): ReceiverStore;

/**
 * What libsqlStore uses of a @libsql/client `Client` (from `createClient`).
 *
 * @example
 * const client: LibsqlClientLike = createClient({ url: 'file:receiver.db', timeout: 5000 });
 */
export interface LibsqlClientLike {
  /**
   * Runs one statement with its positional arguments.
   *
   * @example
   * const { rows } = await client.execute({ sql: 'SELECT ? AS one', args: [1] });
   */
  execute(statement: { sql: string; args: any[] }): Promise<{ rows: any[] }>;
  /**
   * Runs statements as one transaction; `'write'` takes the write lock before the first.
   *
   * @example
   * await client.batch([{ sql: 'SELECT 1', args: [] }], 'write');
   */
  batch(statements: Array<{ sql: string; args: any[] }>, mode: 'write'): Promise<Array<{ rows: any[] }>>;
}

/**
 * libsql and Turso, through @libsql/client: each delivery is one `batch()` in `'write'`
 * mode, which the client runs as one transaction (so every client of the database agrees);
 * `status_version` is digit text compared exactly, as in sqliteStore. It sets no pragma. Give
 * a client on a file that other clients or processes also write a busy timeout
 * (`createClient({ url, timeout: 5000 })`): without one, a write that meets another's lock
 * fails at once (503), and @libsql/client 0.18.0 can then keep the file locked until the
 * process restarts. Tested on local files; remote databases (Turso, over HTTP or
 * WebSockets) are untested.
 *
 * @param client A `Client` from @libsql/client's `createClient` (`file:` URL, or a remote
 * `libsql:` URL with its `authToken`).
 * @param options The table prefix, and whether ready() creates the tables.
 * @throws {CryptoPayError} `invalid_argument`: not a libsql client (a D1 binding: use
 * d1Store), or options of the wrong shape.
 * @example
 * import { createClient } from '@libsql/client';
 * const store = libsqlStore(createClient({ url: 'file:receiver.db', timeout: 5000 }));
 * @example
 * // Turso (untested here)
 * const store = libsqlStore(createClient({ url: process.env.TURSO_DATABASE_URL!, authToken: process.env.TURSO_AUTH_TOKEN }));
 */
export declare function libsqlStore(client: LibsqlClientLike, options?: StoreOptions): ReceiverStore;

/**
 * The rows a memoryStore holds, mirroring the tables.
 *
 * @example
 * const store: MemoryStore = memoryStore();
 */
export interface MemoryStore extends ReceiverStore {
  /**
   * The events table: every recorded event, by `event_id`.
   *
   * @example
   * store.events.get('evt_1')?.decision; // 'apply' | 'stale'
   */
  readonly events: Map<string, { event_id: string; payment_id: string; status_version: string; decision: 'apply' | 'stale'; received_at: string; body: Uint8Array }>;
  /**
   * The payments table: the facts applied last, by `payment_id`.
   *
   * @example
   * store.payments.get('pay_1')?.status_version; // '7'
   */
  readonly payments: Map<string, { payment_id: string; status_version: string; event_id: string; data: string; updated_at: string }>;
  /**
   * The quarantine table: authentic deliveries that were not readable events.
   *
   * @example
   * store.quarantined.map((row) => row.code); // ['event_type_unknown']
   */
  readonly quarantined: Array<{ id: number; received_at: string; code: ErrorCode; body: Uint8Array }>;
}

/**
 * FOR TESTS ONLY: a store in this process's memory, lost at restart and invisible to any
 * other instance. Never use it to receive real deliveries.
 *
 * @example
 * const store = memoryStore();
 * const receiver = createReceiver({ ...options, store });
 * await receiver.handle({ body, headers });
 * store.payments.get('pay_123')?.status_version;
 */
export declare function memoryStore(): MemoryStore;

/**
 * What {@link receiverOptionsFromEnv} returns: the options of {@link createReceiver} an
 * environment gives. Spread them into its options with the store.
 *
 * @example
 * const options: EnvReceiverOptions = receiverOptionsFromEnv(process.env);
 * const receiver = createReceiver({ ...options, store: postgresStore(pool) });
 */
export interface EnvReceiverOptions {
  /**
   * `CRYPTOPAY_WEBHOOK_SECRET` as a string; during a rotation, the set of entries: that one
   * `active`, `CRYPTOPAY_WEBHOOK_SECRET_PENDING` `pending`, and `CRYPTOPAY_WEBHOOK_SECRET_RETIRING`
   * `retiring` until `CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL`.
   *
   * @example
   * secrets: [{ secret: 'whsec_new', kind: 'active' }, { secret: 'whsec_old', kind: 'retiring', acceptUntilSecs: 1767225600 }]
   */
  secrets: Secrets;
  /**
   * `MAX_SKEW_SECS`, whole seconds; 300 when it is unset or empty.
   *
   * @example
   * maxSkewSecs: 300
   */
  maxSkewSecs: number;
  /**
   * `TIMESTAMP_HEADER`: the name of the header carrying the delivery timestamp.
   *
   * @example
   * timestampHeader: 'X-Webhook-Timestamp'
   */
  timestampHeader: string;
  /**
   * `SIGNATURE_HEADER`: the name of the header carrying the signature.
   *
   * @example
   * signatureHeader: 'X-Webhook-Signature'
   */
  signatureHeader: string;
}

/**
 * Options of {@link receiverOptionsFromEnv}. Unknown keys are refused (`invalid_argument`).
 *
 * @example
 * receiverOptionsFromEnv(process.env, { required: ['DATABASE_URL'] });
 */
export interface FromEnvOptions {
  /**
   * More variables the deployment cannot run without (its database URL, a Worker's binding):
   * a missing or empty one is named in the same error as the receiver's own. Their values are
   * not returned: read them from the environment yourself.
   *
   * @example
   * required: ['DATABASE_URL']
   */
  required?: readonly string[] | undefined;
}

/**
 * The receiver's options from an environment object you pass: `process.env` (Node, Bun), a
 * Worker's `env`, `Deno.env.toObject()`. The receiver never reads the environment itself.
 *
 * | Variable | |
 * |---|---|
 * | `CRYPTOPAY_WEBHOOK_SECRET` | the signing Secret exactly as saved (required) |
 * | `TIMESTAMP_HEADER`, `SIGNATURE_HEADER` | the delivery header names (required) |
 * | `MAX_SKEW_SECS` | whole seconds, default 300 |
 * | `CRYPTOPAY_WEBHOOK_SECRET_PENDING` | during a rotation: the new Secret, not yet active |
 * | `CRYPTOPAY_WEBHOOK_SECRET_RETIRING`, `..._RETIRING_UNTIL` | after activation: the old Secret, and the last Unix second it verifies (required with it) |
 *
 * An empty value counts as unset. Values are used exactly as given (no trimming).
 *
 * @param env The environment: an object of variables, each a string (a Worker's bindings may
 * be other values: only those named in `required` are read, and only whether they are set).
 * @param options `required`: more variables that must be set.
 * @throws {CryptoPayError} `invalid_argument`, one error naming every variable that is missing
 * or empty (and every one that is malformed: `MAX_SKEW_SECS` not whole seconds, a
 * `..._RETIRING_UNTIL` that is not Unix seconds), never a value; or `env` not an object.
 * @example
 * import { createReceiver, receiverOptionsFromEnv, sqliteStore } from 'cryptopay-verify/receiver';
 *
 * const receiver = createReceiver({ ...receiverOptionsFromEnv(process.env), store: sqliteStore(db) });
 * @example
 * // A Worker: env exists only inside a request
 * receiver ??= createReceiver({ ...receiverOptionsFromEnv(env, { required: ['DB'] }), store: d1Store(env.DB) });
 */
export declare function receiverOptionsFromEnv(env: object, options?: FromEnvOptions): EnvReceiverOptions;

/**
 * Options of {@link lazyReceiver}. Unknown keys are refused (`invalid_argument`).
 *
 * @example
 * const receiver = lazyReceiver(create, { log: { warn: (line) => logger.warn(line), error: (line) => logger.error(line) } });
 */
export interface LazyReceiverOptions {
  /**
   * Where a failed creation is told (its `error`), once per attempt; `false` (or `null`) for
   * nowhere. Default `console`. The receiver's own lines go to the log given to createReceiver.
   *
   * @example
   * log: { warn: (line) => logger.warn(line), error: (line) => logger.error(line) }
   */
  log?: ReceiverLog | false | null | undefined;
}

/**
 * A receiver created at its first call, for serverless platforms and builds that must not need
 * the configuration (Next.js, Nitro, Workers, AWS Lambda, Cloud Run functions, Supabase Edge
 * Functions). `create` runs once however many requests arrive together, then the receiver's
 * `ready()`; the receiver is kept while the process or isolate lives. A failure is forgotten,
 * so the next request tries again; meanwhile each request is answered, and the failure logged
 * once per attempt:
 *
 * - `500 {"error":"not_configured"}` when `create` throws a `CryptoPayError` (a variable
 *   missing: {@link receiverOptionsFromEnv}; a wrong option: createReceiver, a store);
 * - `503 {"error":"store_unavailable"}` when it throws anything else (a driver that does not
 *   load, a connection refused) or `ready()` rejects (the store cannot be reached or prepared).
 *
 * The service retries both. `fetch`, `node` and `handle` answer in their own form (a
 * `Response`, the Node response written, a {@link ReceiverAnswer}); `ready()` rejects with
 * what failed.
 *
 * @param create Makes the receiver: reads the configuration, opens the store, returns
 * createReceiver's result (or a promise of it).
 * @param options Where the failures are logged.
 * @throws {CryptoPayError} `invalid_argument`: `create` is not a function, or an option of the
 * wrong shape. Never later: a failed creation is an answer, not a rejection.
 * @example
 * import pg from 'pg';
 * import { createReceiver, lazyReceiver, postgresStore, receiverOptionsFromEnv } from 'cryptopay-verify/receiver';
 *
 * const receiver = lazyReceiver(() => createReceiver({
 *   ...receiverOptionsFromEnv(process.env, { required: ['DATABASE_URL'] }),
 *   store: postgresStore(new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 })),
 * }));
 * export const POST = (request: Request) => receiver.fetch(request); // Next.js route handler
 */
export declare function lazyReceiver(create: () => Receiver | PromiseLike<Receiver>, options?: LazyReceiverOptions): Receiver;
