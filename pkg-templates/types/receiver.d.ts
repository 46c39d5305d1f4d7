// Types of cryptopay-verify/receiver. Hand-written; the drivers are described by the shapes
// the receiver uses, so no driver's types are needed to compile against them. Self-contained
// like index.d.ts: they name no DOM or Node global, so a project compiled with
// `lib: ["es2022"]` and `types: []` type-checks them; `receiver.fetch` takes and returns the
// project's own Fetch `Request` and `Response` where it has them (DOM, @types/node,
// @cloudflare/workers-types), and the shapes it uses where it has none.

import type { Decision, ErrorCode, HeaderContainer, RawBody, Secrets } from 'cryptopay-verify';

/** What a delivery of the receiver is answered: the HTTP status, a JSON body, its headers. */
export interface ReceiverAnswer {
  /**
   * 200 once recorded (after the commit returned) or quarantined; 400 a delivery that failed
   * verification; 405 a method other than POST; 413 a body over maxBodyBytes; 500 a
   * configuration error (`body_not_raw`, `invalid_argument`) or an unexpected one
   * (`internal`); 503 `store_unavailable`.
   */
  status: 200 | 400 | 405 | 413 | 500 | 503;
  /**
   * The JSON text: `{"received":true,"decision":"apply"|"duplicate"|"stale"}`,
   * `{"received":true,"quarantined":"<code>"}` or `{"error":"<code>"}`. Never a message, a
   * secret or a byte of the delivery.
   */
  body: string;
  /** `content-type: application/json`, `cache-control: no-store`; `allow: POST` with a 405. */
  headers: Record<string, string>;
}

/** The smallest request shape `receiver.node` reads (node:http's IncomingMessage has it). */
export interface NodeRequestLike {
  method?: string | undefined;
  headers?: Record<string, string | string[] | undefined> | undefined;
  rawHeaders?: string[] | undefined;
  readableEnded?: boolean | undefined;
  /** Set by a framework that read the body first: bytes or a string verify; an object is `body_not_raw`. */
  body?: unknown;
  on(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
  off(event: string, listener: (...args: any[]) => void): unknown;
}

/** The smallest response shape `receiver.node` writes (node:http's ServerResponse has it). */
export interface NodeResponseLike {
  headersSent: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: Uint8Array): unknown;
}

/** An event as the receiver hands it to a store. */
export interface StoredEvent {
  /** At most 1024 UTF-8 bytes, no U+0000: a longer one, or one with a NUL, is quarantined as `event_malformed`. */
  eventId: string;
  /** At most 1024 UTF-8 bytes, no U+0000, as `eventId`. */
  paymentId: string;
  /** Canonical decimal digits (no sign, no leading zeros), of any size. */
  statusVersion: string;
  /** The event's `data` object as JSON text. */
  data: string;
  /** The verified body, byte for byte. */
  body: Uint8Array;
}

/**
 * What a store does; postgresStore, sqliteStore, d1Store and memoryStore return one. A custom
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
  /** Creates the tables when missing (idempotent) and prepares the store. */
  ready(): Promise<void>;
  /** Records the event and applies it when newer; resolves with the decision once committed. */
  record(event: StoredEvent): Promise<Decision>;
  /** Keeps an authentic delivery that is not a readable event (never applied). */
  quarantine(entry: { code: ErrorCode; body: Uint8Array }): Promise<void>;
  /** The longest status_version the store holds exactly; a longer one is quarantined. */
  readonly maxStatusVersionDigits?: number | undefined;
  /**
   * The largest body (and `data` text) the store records, in bytes. createReceiver's
   * `maxBodyBytes` then defaults to the smaller of this and 4 MiB, and a larger one is refused
   * (`invalid_argument`); a delivery whose data text is larger is quarantined as
   * `body_too_large`. d1Store declares 1,800,000.
   */
  readonly maxBodyBytes?: number | undefined;
}

/** A line logger: `console` (the default) fits. Lines never hold a secret, a body or a URL's credentials. */
export interface ReceiverLog {
  warn(line: string): void;
  error(line: string): void;
}

export interface ReceiverOptions {
  /**
   * One active secret, or a rotation set (active, pending, retiring), exactly as saved.
   * `undefined` (an environment variable that is not set) is accepted by the type so that
   * `process.env.NAME` compiles, and refused at run time: `invalid_argument`, asking whether
   * the variable is set.
   */
  secrets: Secrets | undefined;
  /** Required; 300 seconds is the usual choice. */
  maxSkewSecs: number;
  /**
   * The name of the header carrying the delivery timestamp (matched in any letter case).
   * `undefined` (an environment variable that is not set) compiles, as for `secrets`, and is
   * refused at run time: `invalid_argument`, asking whether the variable is set.
   */
  timestampHeader: string | undefined;
  /** The name of the header carrying the signature; `undefined` as for `timestampHeader`. */
  signatureHeader: string | undefined;
  /** Where deliveries are recorded: postgresStore, sqliteStore, d1Store (memoryStore in tests). */
  store: ReceiverStore;
  /**
   * Larger bodies are answered 413 without being read further. Default 4 MiB, or the store's
   * `maxBodyBytes` when smaller (d1Store: 1,800,000); a value over the store's is refused
   * (`invalid_argument`).
   */
  maxBodyBytes?: number | undefined;
  /** The current Unix time in seconds; default the system clock. */
  nowSecs?: (() => number) | undefined;
  /** Where store failures, configuration errors, rejections and quarantines are told; `false` (or `null`) for nowhere. Default `console`. */
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

/** A receiver: three faces over one `handle`. */
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
   * framework that already holds the raw body.
   *
   * @example
   * const { status, body, headers } = await receiver.handle({ body: rawBuffer, headers: req.rawHeaders });
   */
  handle(delivery: { body: RawBody | null | undefined; headers: HeaderContainer }): Promise<ReceiverAnswer>;
}

/**
 * Creates a receiver: verify first, then record each delivery in the store in one
 * transaction, and answer 2xx only after the commit returned. Throws `invalid_argument`
 * at once for a wrong option (a missing header name, a bad secret set, no store).
 *
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

export interface StoreOptions {
  /** The tables' name prefix: `<prefix>events`, `<prefix>payments`, `<prefix>quarantine`. Default `cryptopay_`. */
  prefix?: string | undefined;
  /**
   * `false`: ready() only checks the tables exist (create them in a migration). Default `true`.
   * Either way ready() then checks the column types the statements depend on, and rejects
   * naming each table, column, type found and type expected that differ.
   */
  createTables?: boolean | undefined;
}

/** What postgresStore uses of node-postgres: a `Pool` (recommended) or `Client`. */
export interface PostgresClientLike {
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/**
 * PostgreSQL, the store for several instances: each delivery is one statement, so one
 * transaction, safe under concurrent deliveries across instances; `status_version` is
 * `numeric`. Pass a node-postgres `Pool`; the receiver never opens a connection itself.
 * Its commits are durable even where `synchronous_commit` is `off` (raised to `on` for the
 * receiver's own transactions); a serialization failure or deadlock is retried up to 3 times;
 * ready() refuses a database whose encoding is not UTF8.
 *
 * @example
 * import pg from 'pg';
 * const store = postgresStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 */
export declare function postgresStore(client: PostgresClientLike, options?: StoreOptions): ReceiverStore;

/** What sqliteStore uses of better-sqlite3, bun:sqlite or node:sqlite's DatabaseSync. */
export interface SqliteDatabaseLike {
  prepare(sql: string): { run(...params: any[]): unknown; get(...params: any[]): unknown };
  exec(sql: string): unknown;
}

export interface SqliteStoreOptions extends StoreOptions {
  /** `FULL` (default) or `EXTRA`: a commit is on disk before it is answered. `NORMAL`: faster, but the last commits can be lost on power loss. */
  synchronous?: 'FULL' | 'EXTRA' | 'NORMAL' | undefined;
  /** How long a write waits for another connection's lock before failing (503). Default 5000. */
  busyTimeoutMs?: number | undefined;
  /** At most this many deliveries share one commit (group commit). Default 100. */
  maxBatch?: number | undefined;
}

/**
 * SQLite, the embedded store for one process: a file in WAL mode with durable commits
 * (`synchronous=FULL`), writes in `BEGIN IMMEDIATE` transactions; deliveries that arrive
 * together share one commit, each answered only after it. Sets the pragmas it needs on the
 * connection at ready(): `busy_timeout`, `journal_mode=WAL`, `synchronous`.
 *
 * @example
 * import Database from 'better-sqlite3';
 * const store = sqliteStore(new Database('receiver.sqlite'));
 */
export declare function sqliteStore(db: SqliteDatabaseLike, options?: SqliteStoreOptions): ReceiverStore;

/** What d1Store uses of a Cloudflare D1 binding. */
export interface D1DatabaseLike {
  prepare(sql: string): { bind(...values: unknown[]): any; all(): Promise<unknown>; run(): Promise<unknown> };
  batch(statements: any[]): Promise<Array<{ results?: any[] }>>;
}

/**
 * Cloudflare D1, for Workers: each delivery is one `batch()`, which D1 runs as one
 * transaction, so every isolate agrees. D1 holds at most 2,000,000 bytes in a row, so the
 * store records bodies up to 1,800,000 bytes (`maxBodyBytes`; larger ones are answered 413)
 * and versions up to 131072 digits (longer ones are quarantined).
 *
 * @example
 * const receiver = createReceiver({ ...options, store: d1Store(env.DB) });
 */
export declare function d1Store(binding: D1DatabaseLike, options?: StoreOptions): ReceiverStore;

/** The rows a memoryStore holds, mirroring the tables. */
export interface MemoryStore extends ReceiverStore {
  readonly events: Map<string, { event_id: string; payment_id: string; status_version: string; decision: 'apply' | 'stale'; received_at: string; body: Uint8Array }>;
  readonly payments: Map<string, { payment_id: string; status_version: string; event_id: string; data: string; updated_at: string }>;
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
