// Types of cryptopay-verify/receiver. Hand-written; the drivers are described by the shapes
// the receiver uses, so no driver's types are needed to compile against them. Self-contained
// like index.d.ts: they name no DOM or Node global, so a project compiled with
// `lib: ["es2022"]` and `types: []` type-checks them; `receiver.fetch` takes and returns the
// project's own Fetch `Request` and `Response` where it has them (DOM, @types/node,
// @cloudflare/workers-types), and the shapes it uses where it has none.

import type {
  Decision, ErrorCode, FulfilmentAction, HeaderContainer, LinkMismatchCode, Order, PaymentView, RawBody, SecretKind, Secrets, SourceAmount,
} from 'cryptopay-verify';

/**
 * What a delivery of the receiver is answered: the HTTP status, a JSON body, its headers.
 *
 * @example
 * const { status, headers, body }: ReceiverAnswer = await receiver.handle({ body: rawBody, headers: req.rawHeaders });
 * reply.code(status).headers(headers).send(body);
 */
export interface ReceiverAnswer {
  /**
   * What `handle` answers: 200 once recorded (after the commit returned) or quarantined; 400 a
   * delivery that failed verification; 413 a body over maxBodyBytes; 500 a configuration error
   * (`body_not_raw`, `invalid_argument`, a secret with white space around it included;
   * `integration_mismatch`; `integration_unknown`; `signature_mismatch` for a delivery signed with the retiring secret
   * inside its overlap that arrived after the overlap ended, so that the service retries it
   * under the active secret; a lazy receiver's `not_configured`); 503 `store_unavailable`.
   * On an unexpected failure `handle` rejects; `fetch` and `node` answer it 500 `internal`, and
   * answer too 405 a method other than POST, 408 `body_timeout` and 503 `busy` (see
   * {@link ReceiverOptions.bodyTimeoutMs} and {@link ReceiverOptions.maxBufferedBytes}).
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
   * `content-type: application/json`, `cache-control: no-store`. (`fetch` and `node` add
   * `allow: POST` to a 405 and `retry-after: 5` to a 503 `busy`; `node` writes
   * `content-length`, and `connection: close` when it answers before reading the whole body.)
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
   * The HTTP method: any other than `POST` is answered 405; none at all (not Node's request:
   * a wrapper or a framework's context was passed) is answered 500 `invalid_argument`, logged,
   * so that the service retries once the route is fixed.
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
   * // With a limit: at express.json()'s default (100kb) a larger event is answered 413, never retried.
   * app.use(express.json({ limit: '4mb', verify: (req, res, buf) => { (req as typeof req & { rawBody?: Buffer }).rawBody = buf; } }));
   */
  rawBody?: unknown;
  /**
   * Set by a framework that read the body first: bytes or a string verify; an object is `body_not_raw`.
   *
   * @example
   * app.post('/webhook', express.raw({ type: () => true, limit: '4mb' }), receiver.node); // req.body: a Buffer
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
   * The event's `data` object as the exact JSON text received (`event.dataText`): never
   * re-serialized, so `128.10` stays `128.10`.
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
  /**
   * The integration whose secret verified the delivery, or `null` for a receiver with one set
   * of secrets.
   *
   * @example
   * integration: 'shop-eu'
   */
  integration?: string | null | undefined;
  /**
   * The kind of the secret that verified the delivery.
   *
   * @example
   * secretKind: 'pending' // a rotation is under way
   */
  secretKind?: SecretKind | null | undefined;
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
  /**
   * The `data.payment_id` the body holds, where it can be read and stored (else `null`): a
   * store that runs the merchant loop makes that payment due for the next pass, since this
   * event's facts could not be applied. A store without the loop may ignore it.
   *
   * @example
   * if (entry.paymentId != null) await markDue(entry.paymentId);
   */
  paymentId?: string | null;
  /**
   * The integration whose secret verified the delivery (`null` for a receiver with one set of
   * secrets). A payment whose stored facts or order are another integration's is not made due:
   * a holder of one integration's secret must not hold back another's fulfilment.
   *
   * @example
   * if (entry.paymentId != null && ownedBy(entry.paymentId, entry.integration)) await markDue(entry.paymentId);
   */
  integration?: string | null;
}

/**
 * What `receiver.handle` takes: the raw body and the request's headers.
 *
 * @example
 * const delivery: ReceiverDelivery = { body: (req as typeof req & { rawBody?: Buffer }).rawBody, headers: req.rawHeaders };
 */
export interface ReceiverDelivery {
  /**
   * The raw body as received (bytes, or a string of its UTF-8 text). `null` (no raw body: a
   * framework parsed it) is answered 500 `body_not_raw`, as a parsed object is; so is
   * `undefined`, unless the request's whole headers (its `Host` among them) say it carried no
   * body (no Content-Type or Transfer-Encoding, a Content-Length absent or 0: Fastify runs no
   * parser for an empty POST): that is an empty body, refused by its signature (400).
   *
   * @example
   * body: request.body as Buffer // Fastify (its body is `unknown`), with a parseAs: 'buffer' content-type parser
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
 *   // The inner store's limits, passed on: the receiver refuses what it cannot hold (413,
 *   // quarantine) rather than answer 503 at every retry.
 *   maxBodyBytes: inner.maxBodyBytes,
 *   maxStatusVersionDigits: inner.maxStatusVersionDigits,
 *   ready: () => inner.ready(),
 *   record: async (event) => { const decision = await inner.record(event); recorded += 1; return decision; },
 *   quarantine: (entry) => inner.quarantine(entry),
 * };
 */
export interface ReceiverStore {
  /**
   * Creates the tables when missing (idempotent) and prepares the store. On Cloudflare Workers
   * the receiver may call it again while a call is still pending (after 10 s without an
   * answer: that request's I/O may have been cancelled), so it must be safe to run twice at
   * once (in one transaction, each statement idempotent).
   *
   * @example
   * await store.ready();
   */
  ready(): Promise<void>;
  /**
   * Records the event and applies it when newer; resolves with the decision once committed.
   * `'integration_mismatch'`, with nothing written, when the payment's stored facts came
   * through another integration's secret than `event.integration` (a stored `null` is
   * anyone's): the receiver answers 500, so the service retries. A store may leave that
   * check out.
   *
   * @example
   * const decision = await store.record(event); // 'apply' | 'duplicate' | 'stale' | 'integration_mismatch'
   */
  record(event: StoredEvent): Promise<Decision | 'integration_mismatch'>;
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
   * The merchant loop (optional for a custom store; the package's stores have it): stores an
   * order once, with its fulfilment row, never replacing one stored before, and marks a lease
   * held on that row (so that the pass holding it, which may have loaded the payment before
   * the order existed, completes nothing and the payment is handled again once the lease
   * ends); resolves the order
   * the store holds for the payment_id, which the receiver compares with the one given (after
   * a first insert it is that order, or `null`), and `inserted`, `true` only when this call
   * stored it (the SQLite-family stores answer `false` and the stored order every time).
   *
   * @example
   * const { stored } = await store.recordOrder({ paymentId: 'pay_1', orderRef: null, sourceAmount: '{"kind":"fiat","currency":"USD","amount_raw":"12800"}', integration: null });
   */
  recordOrder?(order: StoreOrder): Promise<{ inserted: boolean; stored: StoreOrder | null }>;
  /**
   * The merchant loop: leases up to `batch` of the payments due (facts newer than the version
   * handled, not settled and not looked at for `recoverAfterSecs`, or closed and due a check
   * for late money, see {@link ClaimRequest.recheckClosedSecs}) that no other owner holds,
   * those with newer facts first (a payment the loop has not seen yet among them, one with no
   * order say: a batch full of recovery checks never holds it back), then the longest not
   * looked at; resolves their ids.
   *
   * @example
   * const ids = await store.claim({ owner: 'pass-1', leaseSecs: 300, batch: 20, recoverAfterSecs: 900 });
   */
  claim?(request: ClaimRequest): Promise<string[]>;
  /**
   * The merchant loop: what a pass needs of one leased payment, or `null`; its lease renewed
   * for `leaseSecs` from now while it is still this owner's, run out or not: no other pass
   * claimed it and `recordOrder` did not mark it (`leased` says whether it was).
   *
   * @example
   * const state = await store.load({ paymentId: 'pay_1', owner: 'pass-1', recoverAfterSecs: 900, leaseSecs: 300 });
   */
  load?(request: LoadRequest): Promise<FulfilmentState | null>;
  /**
   * The merchant loop, once the handler resolved: raises the version handled (never lowers
   * it), writes the outcome and when the payment was looked at (now; for one held for
   * `review` and not settled, as far past now as its order had lived, so that `claim` takes it
   * less and less often), releases the lease, all of it only while the lease is still this
   * owner's (not taken by another pass, nor marked by `recordOrder`); a lease of this owner
   * that `recordOrder` marked is released with nothing written. A lease a quarantine marked
   * (`quarantine` with its `paymentId`) is written too, but left unsettled and due at once,
   * so that the version handled is not handled again and the next pass fetches the view.
   * Resolves the version now handled, written or not.
   *
   * @example
   * await store.complete({ paymentId: 'pay_1', owner: 'pass-1', version: '3', outcome: 'fulfil', code: null, settled: true });
   */
  complete?(request: CompleteRequest): Promise<string | null>;
  /**
   * The merchant loop, right before `handle` is called with `fulfil`: stores `version` as the
   * one whose key (`payment_id:version`) every fulfil of the payment carries, unless one is
   * stored already, while the lease is still this owner's, run out or not (not taken by
   * another pass, nor marked by `recordOrder` or a quarantine), and renews the lease for
   * `leaseSecs` from now; resolves the version stored, or `null` when the lease was lost.
   * Durable before it resolves.
   *
   * @example
   * const first = await store.intend({ paymentId: 'pay_1', owner: 'pass-1', version: '5', leaseSecs: 300 }); // '3' when a fulfil was decided at 3
   */
  intend?(request: { paymentId: string; owner: string; version: string; leaseSecs: number }): Promise<string | null>;
  /**
   * The merchant loop, right before `handle` is called with `review`, `wait` or `closed`:
   * renews the lease for `leaseSecs` from now while it is still this owner's, run out or not
   * (as `intend`); resolves whether it was. A pass whose lease another pass took must not act
   * on its older view. With `marked: true` (every third of `leaseSecs` while `handle` runs) a
   * lease `recordOrder` or a quarantine marked while this owner held it is renewed too, and
   * stays marked, so that no other pass calls `handle` while this call still runs (a store
   * that ignores `marked` lets such a lease run out). Optional: without it the loop calls
   * `load` again, which renews too.
   *
   * @example
   * const held = await store.renew({ paymentId: 'pay_1', owner: 'pass-1', leaseSecs: 300 }); // false: lost
   */
  renew?(request: { paymentId: string; owner: string; leaseSecs: number; marked?: boolean }): Promise<boolean>;
  /**
   * The merchant loop, after a failure: counts the attempt, releases the lease, sets when to
   * try again; resolves the attempts so far (`null` when the lease was lost).
   *
   * @example
   * await store.retry({ paymentId: 'pay_1', owner: 'pass-1', delaySecs: 2, code: 'handle_failed' });
   */
  retry?(request: RetryRequest): Promise<number | null>;
  /**
   * The merchant loop: gives up every lease an owner still holds, and those `recordOrder` or
   * a quarantine marked while it held them (called when a pass stops early, and at the end of
   * a pass that lost a lease, so the payment is due again at once).
   *
   * @example
   * await store.release({ owner: 'pass-1' });
   */
  release?(request: { owner: string }): Promise<void>;
  /**
   * `receiver.retryNow`: the payments waiting out a failed attempt's backoff (a `retry`'s next
   * try still ahead, no live lease), or the one of `paymentId`, made due at once; resolves how
   * many. Their attempts stay counted.
   *
   * @example
   * const due = await store.retryNow({ paymentId: null }); // every payment backing off
   */
  retryNow?(request: { paymentId: string | null }): Promise<number>;
  /**
   * Lists quarantined deliveries, oldest first, after an id.
   *
   * @example
   * const rows = await store.listQuarantined({ afterId: 0, limit: 100 });
   */
  listQuarantined?(page: { afterId: number; limit: number }): Promise<Array<{ id: number; receivedAt: string; code: ErrorCode; body: Uint8Array }>>;
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
  /**
   * Lines createReceiver logs as warnings when it is made: postgresStore gives one for a
   * pg.Pool made without `connectionTimeoutMillis` or `query_timeout` (a database that stalls
   * would hold each delivery open, with no log line). Left out: none.
   *
   * @example
   * warnings: ['myStore: the connection has no timeout: give it one']
   */
  readonly warnings?: readonly string[] | undefined;
}

/**
 * A store with the merchant loop's methods, which every store of the package has
 * (postgresStore, sqliteStore, d1Store, libsqlStore, memoryStore): they can be called without
 * a check.
 *
 * @example
 * const store: LoopStore = postgresStore(pool);
 * const ids = await store.claim({ owner: 'pass-1', leaseSecs: 300, batch: 20, recoverAfterSecs: 900 });
 */
export type LoopStore = ReceiverStore & Required<Pick<ReceiverStore, 'recordOrder' | 'claim' | 'load' | 'intend' | 'renew' | 'complete' | 'retry' | 'release' | 'listQuarantined' | 'retryNow'>>;

/**
 * An order as a store holds it (the `orders` table), its `sourceAmount` as JSON text.
 *
 * @example
 * const order: StoreOrder = { paymentId: 'pay_1', orderRef: 'order-42', sourceAmount: '{"kind":"fiat","currency":"USD","amount_raw":"12800"}', integration: null };
 */
export interface StoreOrder {
  /**
   * The payment (absent on a stored order read back).
   *
   * @example
   * paymentId: 'pay_1'
   */
  paymentId?: string | undefined;
  /**
   * The `order_ref` sent at creation, or `null`.
   *
   * @example
   * orderRef: 'order-42'
   */
  orderRef: string | null;
  /**
   * The `source_amount` sent at creation, as JSON text.
   *
   * @example
   * sourceAmount: '{"kind":"fiat","currency":"USD","amount_raw":"12800"}'
   */
  sourceAmount: string;
  /**
   * The integration it was created under, or `null`.
   *
   * @example
   * integration: 'shop-eu'
   */
  integration: string | null;
}

/**
 * What a pass asks `store.claim`.
 *
 * @example
 * const request: ClaimRequest = { owner: 'pass-1', leaseSecs: 300, batch: 20, recoverAfterSecs: 900 };
 */
export interface ClaimRequest {
  /**
   * The pass's id, written on each lease it takes.
   *
   * @example
   * owner: 'pass-1'
   */
  owner: string;
  /**
   * How long a lease holds, in seconds.
   *
   * @example
   * leaseSecs: 300
   */
  leaseSecs: number;
  /**
   * How many payments at most.
   *
   * @example
   * batch: 20
   */
  batch: number;
  /**
   * After how many seconds without news a payment not settled is looked at again.
   *
   * @example
   * recoverAfterSecs: 900
   */
  recoverAfterSecs: number;
  /**
   * For how many seconds after its order was recorded a closed payment (ended unpaid) is
   * still looked at for money that came late: each time once it has gone unlooked-at for as
   * long as it had been since the order was recorded at the last look, and at least
   * `recoverAfterSecs`. `0` (the default of a store called directly) never. When each check
   * is due, the built-in stores write at `complete` ({@link CompleteRequest.recheckClosedSecs}).
   *
   * @example
   * recheckClosedSecs: 604800
   */
  recheckClosedSecs?: number | undefined;
}

/**
 * What a pass asks `store.load`.
 *
 * @example
 * const request: LoadRequest = { paymentId: 'pay_1', owner: 'pass-1', recoverAfterSecs: 900, leaseSecs: 300 };
 */
export interface LoadRequest {
  /**
   * The payment.
   *
   * @example
   * paymentId: 'pay_1'
   */
  paymentId: string;
  /**
   * The pass's id (to tell whether it still holds the lease).
   *
   * @example
   * owner: 'pass-1'
   */
  owner: string;
  /**
   * As in {@link ClaimRequest}.
   *
   * @example
   * recoverAfterSecs: 900
   */
  recoverAfterSecs: number;
  /**
   * As in {@link ClaimRequest}.
   *
   * @example
   * recheckClosedSecs: 604800
   */
  recheckClosedSecs?: number | undefined;
  /**
   * The lease renewed from now, in seconds, while it is still this owner's: each payment of a
   * batch gets the whole lease for its own `confirm` and `handle`.
   *
   * @example
   * leaseSecs: 300
   */
  leaseSecs: number;
}

/**
 * A leased payment as `store.load` gives it.
 *
 * @example
 * const state: FulfilmentState | null = await store.load(request);
 */
export interface FulfilmentState {
  /**
   * The version last handled (exact digits), or `null`.
   *
   * @example
   * handledVersion: '3'
   */
  handledVersion: string | null;
  /**
   * The outcome recorded with it.
   *
   * @example
   * outcome: 'fulfil'
   */
  outcome: FulfilmentOutcomeName | null;
  /**
   * The link mismatch, or why the last attempt failed.
   *
   * @example
   * code: 'handle_failed'
   */
  code: string | null;
  /**
   * Failed attempts since the last success.
   *
   * @example
   * attempts: 0
   */
  attempts: number;
  /**
   * Whether the lease is still the asking owner's.
   *
   * @example
   * leased: true
   */
  leased: boolean;
  /**
   * Whether the applied facts are newer than the version handled.
   *
   * @example
   * eventDue: true
   */
  eventDue: boolean;
  /**
   * Whether it is not settled and not looked at for `recoverAfterSecs`, or closed and due a
   * check for late money ({@link ClaimRequest.recheckClosedSecs}).
   *
   * @example
   * recoverDue: false
   */
  recoverDue: boolean;
  /**
   * The version of the facts applied from events, or `null` when no event came.
   *
   * @example
   * eventVersion: '3'
   */
  eventVersion: string | null;
  /**
   * The integration whose secret verified that event.
   *
   * @example
   * eventIntegration: null
   */
  eventIntegration: string | null;
  /**
   * The event that applied those facts.
   *
   * @example
   * eventId: 'evt_1'
   */
  eventId: string | null;
  /**
   * Whether an event named the payment.
   *
   * @example
   * hasPayment: true
   */
  hasPayment: boolean;
  /**
   * The stored order, or `null` when none was recorded.
   *
   * @example
   * order: { orderRef: 'order-42', sourceAmount: '{"kind":"fiat","currency":"USD","amount_raw":"12800"}', integration: null, createdAt: '2026-11-22T10:00:00.000Z' }
   */
  order: (StoreOrder & { createdAt: string }) | null;
  /**
   * The version whose key every `fulfil` of this payment carries (stored by `intend` before
   * the first), as canonical digits, or `null` when none was decided yet.
   *
   * @example
   * fulfilVersion: '3'
   */
  fulfilVersion: string | null;
}

/**
 * What a pass asks `store.complete` once the handler resolved.
 *
 * @example
 * const request: CompleteRequest = { paymentId: 'pay_1', owner: 'pass-1', version: '3', outcome: 'fulfil', code: null, settled: true };
 */
export interface CompleteRequest {
  /**
   * The payment.
   *
   * @example
   * paymentId: 'pay_1'
   */
  paymentId: string;
  /**
   * The pass's id: its lease is released.
   *
   * @example
   * owner: 'pass-1'
   */
  owner: string;
  /**
   * The version handled (exact digits): stored when greater than the one stored.
   *
   * @example
   * version: '3'
   */
  version: string;
  /**
   * The outcome.
   *
   * @example
   * outcome: 'needs_review'
   */
  outcome: FulfilmentOutcomeName | null;
  /**
   * The link mismatch, or `null`.
   *
   * @example
   * code: 'source_amount_mismatch'
   */
  code: string | null;
  /**
   * Whether the payment is not looked at again for a lost delivery (fulfilled, closed, needs review).
   *
   * @example
   * settled: true
   */
  settled: boolean;
  /**
   * As in {@link ClaimRequest}: for a payment closed (and settled), the built-in stores write
   * when its next check for late money is due (as long after now as its order had lived), or
   * that its checks are over, once that would be this long or more after the order was
   * recorded; a claim then reads only the checks that are due, not every closed payment.
   * `0` (the default of a store called directly) ends them.
   *
   * @example
   * recheckClosedSecs: 604800
   */
  recheckClosedSecs?: number | undefined;
}

/**
 * What a pass asks `store.retry` after a failure.
 *
 * @example
 * const request: RetryRequest = { paymentId: 'pay_1', owner: 'pass-1', delaySecs: 4, code: 'confirm_failed' };
 */
export interface RetryRequest {
  /**
   * The payment.
   *
   * @example
   * paymentId: 'pay_1'
   */
  paymentId: string;
  /**
   * The pass's id (nothing changes when the lease is no longer its).
   *
   * @example
   * owner: 'pass-1'
   */
  owner: string;
  /**
   * Seconds before the next try.
   *
   * @example
   * delaySecs: 4
   */
  delaySecs: number;
  /**
   * Why: `confirm_failed`, `confirm_invalid` (confirm resolved neither the view's text nor a
   * view), `view_invalid`, `view_stale`, `policy_failed`, `policy_invalid`, `handle_failed`,
   * `nothing_due` (the payment changed between the claim and its look), `pass_failed` (a step
   * of the loop itself threw for this payment).
   *
   * @example
   * code: 'handle_failed'
   */
  code: string;
  /**
   * The applied `status_version` the attempt loaded (`null`: it loaded no payment; absent: not
   * known). When the payment's applied version is newer now (an event applied while the
   * attempt ran), the next try is due at once instead of after `delaySecs`: the failure was
   * about older facts. A custom store that ignores it only waits longer.
   *
   * @example
   * loadedVersion: '3'
   */
  loadedVersion?: string | null;
}

/**
 * A line logger: `console` (the default) fits. Lines never hold a secret, a body or a URL's credentials.
 *
 * @example
 * const log: ReceiverLog = { warn: (line) => logger.warn(line), error: (line) => logger.error(line) };
 */
export interface ReceiverLog {
  /**
   * Rejected and quarantined deliveries (expected from the network: forgeries, missing
   * headers, bodies too large, too slow or refused while busy).
   *
   * @example
   * warn: (line) => pino.warn(line)
   */
  warn(line: string): void;
  /**
   * Store failures, configuration errors and unexpected ones (someone should look); among
   * them an authentic delivery refused for its timestamp (this host's clock or maxSkewSecs),
   * and a summary of repeated `signature_mismatch` refusals (a secret that is not the
   * service's).
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
   * One active secret, or a rotation set (active, pending, retiring), exactly as saved; or,
   * for several integrations (accounts) in one receiver, `{ <integration>: secretsOfIt }`: a
   * delivery is verified against each, and the integration whose secret verified it is
   * recorded with the event (and must be the order's). `undefined` (an environment variable
   * that is not set) is accepted by the type so that `process.env.NAME` compiles, and refused
   * at run time: `invalid_argument`, asking whether the variable is set. A secret with white
   * space around it is warned about at start (never printed).
   *
   * @example
   * secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET
   * @example
   * secrets: { 'shop-eu': process.env.EU_WEBHOOK_SECRET, 'shop-us': process.env.US_WEBHOOK_SECRET }
   */
  secrets: Secrets | IntegrationSecrets | undefined;
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
   * The most bytes of bodies the receiver holds while it reads them (the room of the buffers
   * that hold them), across every delivery in flight on `fetch` and `node` (bodies a framework
   * read first are its own). A delivery whose
   * next bytes would pass it is answered `503 {"error":"busy"}` with `Retry-After: 5`, unread
   * (the service retries it; `node` closes the connection), and a warning line says so; one
   * delivery alone is always read up to `maxBodyBytes`. Default 64 MiB: thousands of the
   * service's events at once. It bounds what senders that send slowly can hold (each up to
   * `maxBodyBytes` for as long as the server waits); give the server timeouts too. A positive
   * integer, else `invalid_argument`.
   *
   * @example
   * maxBufferedBytes: 16 * 1024 * 1024
   */
  maxBufferedBytes?: number | undefined;
  /**
   * How long `fetch` and `node` wait for a delivery's whole body, in milliseconds from when
   * they start reading it: one deadline for the whole body, so a sender trickling a byte now
   * and then is cut too. A body not all there by then is answered `408
   * {"error":"body_timeout"}`, unread (the service retries it; `node` closes the connection),
   * and a warning line says so. Default 30,000 (an event is a few KB, sent at once): a bound
   * where the server has none (`Deno.serve` has no request timeout; node:http's
   * `requestTimeout` is 300 s). From 1,000 to 600,000, else `invalid_argument` (a value in
   * seconds is refused, not taken as milliseconds). The skew (`maxSkewSecs`) is judged from
   * when the delivery arrived, before its body was read: a slow body is not refused as stale
   * for the time it took.
   *
   * @example
   * bodyTimeoutMs: 10_000
   */
  bodyTimeoutMs?: number | undefined;
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
  /**
   * Called with a record of every answer (a delivery's decision, or why it was refused: a
   * forgery, or an authentic delivery refused for configuration reasons, with the size of a
   * refused body) and of every fulfilment outcome. Records hold codes, ids and sizes: never a
   * secret, a signature, a body or a message. Each record is frozen: copy it
   * (`{ ...record, seenAt }`) to add to it. One that throws is logged once and ignored.
   *
   * @example
   * onOutcome: (record) => metrics.increment(`cryptopay.${record.kind}.${record.kind === 'delivery' ? record.reason : record.outcome}`)
   */
  onOutcome?: ((record: Readonly<OutcomeRecord>) => void) | undefined;
}

/**
 * Several integrations in one receiver: each name's secrets (a string or a rotation set).
 *
 * @example
 * const secrets: IntegrationSecrets = { 'shop-eu': process.env.EU_SECRET, 'shop-us': process.env.US_SECRET };
 */
export interface IntegrationSecrets {
  /**
   * The secrets of the integration of that name (1 to 100 characters, no control character;
   * not `active`, `pending` or `retiring` in any letter case, refused at run time: a rotation
   * set is an array, `[{ secret, kind: 'active' }, { secret, kind: 'pending' }]`).
   *
   * @example
   * 'shop-eu': process.env.EU_WEBHOOK_SECRET
   */
  [integration: string]: Secrets | undefined;
  /**
   * Not an integration's name: `{ secret, kind }` is one secret entry, which goes in an array
   * (`secrets: [{ secret, kind: 'active' }]`); refused at run time too.
   *
   * @example
   * // secrets: [{ secret: process.env.SECRET, kind: 'active' }]
   */
  secret?: never;
  /**
   * Not an integration's name (see `secret`).
   *
   * @example
   * // secrets: [{ secret: process.env.SECRET, kind: 'active' }]
   */
  kind?: never;
  /**
   * Not an integration's name (see `secret`).
   *
   * @example
   * // secrets: [{ secret: process.env.OLD, kind: 'retiring', acceptUntilSecs: 1767225600 }]
   */
  acceptUntilSecs?: never;
}

/**
 * Why a delivery was answered as it was: `recorded` (200, a decision), `quarantined` (200),
 * `forgery` (400: it failed verification), `skew` (authentic, its timestamp out of
 * `maxSkewSecs`: a clock to fix; 400 when it is old, which a replay may be, 500 when it is
 * ahead, which no replay is, so that the service retries), `headers` (400: a delivery header not found: their names
 * may be configured wrong), `too_large` (413), `misconfigured` (500: a body a framework
 * parsed, a bad argument, a delivery that verifies only with a secret trimmed of white
 * space, an event through another integration's secret than its payment's, a delivery signed
 * with a retiring secret inside its overlap that arrived after it ended),
 * `store_unavailable` (503), `busy` (503: the bodies being read held `maxBufferedBytes`; this
 * one was not read), `body_timeout` (408: its body did not arrive within `bodyTimeoutMs`),
 * `method` (405), `internal` (500).
 *
 * @example
 * const reason: DeliveryReason = 'skew';
 */
export type DeliveryReason = 'recorded' | 'quarantined' | 'forgery' | 'skew' | 'headers' | 'too_large' | 'misconfigured'
  | 'store_unavailable' | 'busy' | 'body_timeout' | 'method' | 'internal';

/**
 * What `onOutcome` is told of a delivery.
 *
 * @example
 * const record: DeliveryRecord = { kind: 'delivery', status: 200, reason: 'recorded', decision: 'apply', integration: null };
 */
export interface DeliveryRecord {
  /**
   * Always `'delivery'`.
   *
   * @example
   * if (record.kind === 'delivery') console.log(record.status);
   */
  kind: 'delivery';
  /**
   * The HTTP status answered.
   *
   * @example
   * status: 200
   */
  status: number;
  /**
   * Why.
   *
   * @example
   * reason: 'recorded'
   */
  reason: DeliveryReason;
  /**
   * `apply`, `duplicate` or `stale`, for a recorded event.
   *
   * @example
   * decision: 'duplicate'
   */
  decision?: Decision | undefined;
  /**
   * The error code (a refusal, a quarantine); `integration_mismatch` (500) for an event
   * verified with one integration's secret whose payment's facts came through another's;
   * `signature_mismatch` with status 500 (reason `misconfigured`, not a forgery) for a
   * delivery signed with the retiring secret inside its overlap that arrived after it ended;
   * `integration_unknown` (500) for a delivery to {@link Receiver.integration}'s faces of a
   * name `secrets` does not hold.
   *
   * @example
   * code: 'signature_mismatch'
   */
  code?: ErrorCode | 'integration_mismatch' | 'integration_unknown' | undefined;
  /**
   * The integration whose secret verified it (`null`: none, or a receiver with one); for a
   * delivery to {@link Receiver.integration}'s faces of a name `secrets` holds that was
   * refused unverified, the integration of that route.
   *
   * @example
   * integration: 'shop-eu'
   */
  integration?: string | null | undefined;
  /**
   * For a delivery to {@link Receiver.integration}'s faces, the name it was given (the
   * route's parameter, request data: a name `secrets` does not hold is shown cut to 100
   * characters). Absent for the receiver's own faces.
   *
   * @example
   * route: 'shop-eu'
   */
  route?: string | undefined;
  /**
   * For a delivery that verified: this host's clock minus its timestamp, in seconds, when it
   * arrived (negative for a timestamp ahead). A retry is signed anew, so it is the network's
   * time plus the clocks' difference: a clock drifting toward `maxSkewSecs` shows here before
   * a delivery is refused for it.
   *
   * @example
   * if (Math.abs(record.ageSecs ?? 0) > 60) console.warn('this host\'s clock may be drifting');
   */
  ageSecs?: number | undefined;
  /**
   * The kind of the secret that verified it.
   *
   * @example
   * secretKind: 'active'
   */
  secretKind?: SecretKind | undefined;
  /**
   * The event's id, once verified and read (a `skew` refusal's too: its signature verified; the
   * event to replay once the clock is fixed).
   *
   * @example
   * eventId: 'evt_1'
   */
  eventId?: string | undefined;
  /**
   * The event's payment, once verified and read.
   *
   * @example
   * paymentId: 'pay_1'
   */
  paymentId?: string | undefined;
  /**
   * The event's status_version (exact digits), once verified and read.
   *
   * @example
   * statusVersion: '3'
   */
  statusVersion?: string | undefined;
  /**
   * The size of the body in bytes (for a 413, at least that many; for a 408, the bytes that
   * came before the deadline).
   *
   * @example
   * bodyBytes: 412
   */
  bodyBytes?: number | undefined;
  /**
   * For `busy`: the bytes of bodies being read when this one was refused (maxBufferedBytes'
   * worth, or nearly).
   *
   * @example
   * bufferedBytes: 67108000
   */
  bufferedBytes?: number | undefined;
  /**
   * For `headers`: the names of the headers the delivery did carry (lower case, never a value;
   * `?` for a name no header can have; past 24 names, a last entry `(N more)`).
   *
   * @example
   * headerNames: ['content-type', 'x-signature', 'x-timestamp']
   */
  headerNames?: string[] | undefined;
}

/**
 * A fulfilment outcome: an action handled (`fulfil`, `review`, `wait`, `closed`), a payment
 * that does not link to its order (`needs_review`, handled as `review`), nothing new, or a
 * second `fulfil` of a payment fulfilled at an earlier version, recorded without a call
 * (`seen`, with code `fulfilled_before`),
 * a failure to try again (`retry`), a lease another instance took or an order or a quarantine
 * marked (`lease_lost`: before the handler ran, or after it, when its outcome could not be
 * noted and no other pass has handled that version since; the record then has the `action` it
 * was called with, and the payment is handled again, a fulfil under the same
 * `idempotencyKey`; or after a failure, not counted as an attempt, the record with its `code`).
 *
 * @example
 * const outcome: FulfilmentOutcomeName = 'needs_review';
 */
export type FulfilmentOutcomeName = FulfilmentAction | 'needs_review' | 'seen' | 'retry' | 'lease_lost';

/**
 * Why a payment is tried again later (outcome `retry`): `confirm` failed or answered neither
 * the view's text nor a view (`confirm_failed`, `confirm_invalid`), the view did not read or
 * is older than the facts recorded (`view_invalid`, `view_stale`), the policy threw or
 * answered no action (`policy_failed`, `policy_invalid`), `handle` threw (`handle_failed`),
 * nothing was due any more (`nothing_due`), or the loop's own step failed (`pass_failed`).
 *
 * @example
 * const code: FulfilmentRetryCode = 'handle_failed';
 */
export type FulfilmentRetryCode =
  | 'confirm_failed'
  | 'confirm_invalid'
  | 'view_invalid'
  | 'view_stale'
  | 'policy_failed'
  | 'policy_invalid'
  | 'handle_failed'
  | 'nothing_due'
  | 'pass_failed';

/**
 * What `onOutcome` is told of a payment a pass worked on.
 *
 * @example
 * const record: FulfilmentRecord = { kind: 'fulfilment', paymentId: 'pay_1', outcome: 'fulfil', statusVersion: '3' };
 */
export interface FulfilmentRecord {
  /**
   * Always `'fulfilment'`.
   *
   * @example
   * if (record.kind === 'fulfilment') console.log(record.outcome);
   */
  kind: 'fulfilment';
  /**
   * The payment.
   *
   * @example
   * paymentId: 'pay_1'
   */
  paymentId: string;
  /**
   * What came of it.
   *
   * @example
   * outcome: 'retry'
   */
  outcome: FulfilmentOutcomeName;
  /**
   * The version the outcome is about (exact digits): the authoritative view's when one was
   * read and acted on; for `seen`, the version already handled (no view is read when nothing
   * was due).
   *
   * @example
   * statusVersion: '3'
   */
  statusVersion?: string | undefined;
  /**
   * The action the handler was called with (on a `pass_failed` retry, present when the handler
   * ran before the store failed: it is called again, a `fulfil` under the same
   * `idempotencyKey`).
   *
   * @example
   * action: 'review'
   */
  action?: FulfilmentAction | undefined;
  /**
   * The payment's status in the authoritative view the outcome was decided on, as the service
   * wrote it (`paid`, `partially_paid`, `overpaid`, `expired`, ...): with `action`, what a
   * `review` without a link mismatch (`code` null) is about. Present on the outcomes decided
   * from a view (`fulfil`, `review`, `needs_review`, `wait`, `closed`, and `seen` for `fulfilled_before`).
   *
   * @example
   * paymentStatus: 'partially_paid'
   */
  paymentStatus?: string | undefined;
  /**
   * The link mismatch, why a retry is needed (`confirm_failed`, `confirm_invalid`,
   * `view_invalid`, `view_stale`, `policy_failed`, `policy_invalid`, `handle_failed`,
   * `nothing_due`, `pass_failed`), or `fulfilled_before` (outcome `seen`: the payment was
   * fulfilled at an earlier version, and the handler was not called).
   *
   * @example
   * code: 'source_amount_mismatch'
   */
  code?: LinkMismatchCode | FulfilmentRetryCode | 'fulfilled_before' | null | undefined;
  /**
   * The integration the payment was linked under.
   *
   * @example
   * integration: 'shop-eu'
   */
  integration?: string | null | undefined;
  /**
   * The key the handler was given: `payment_id:status_version` (for `fulfil`, of the version
   * the payment's fulfil was first decided at).
   *
   * @example
   * idempotencyKey: 'pay_1:3'
   */
  idempotencyKey?: string | undefined;
  /**
   * For a retry: the failed attempts so far (absent on a `pass_failed` retry).
   *
   * @example
   * attempts: 2
   */
  attempts?: number | undefined;
  /**
   * For a retry: the backoff set, in seconds (1, 2, 4, ... at most 3600; for `pass_failed`,
   * 60, or 60, 120, 240, ... at most 3600 once the handler had run); the next try comes
   * sooner, at the next pass, when the payment's facts were applied after the attempt loaded
   * them.
   *
   * @example
   * retryInSecs: 2
   */
  retryInSecs?: number | undefined;
}

/**
 * A record given to `onOutcome`.
 *
 * @example
 * const onOutcome = (record: OutcomeRecord) => { if (record.kind === 'delivery' && record.reason === 'skew') alert(record); };
 */
export type OutcomeRecord = DeliveryRecord | FulfilmentRecord;

/**
 * The receiver's counters since it was created (this process only).
 *
 * @example
 * const { deliveries, fulfilment }: ReceiverCounters = receiver.counters();
 */
export interface ReceiverCounters {
  /**
   * Deliveries: `total`, one count per {@link DeliveryReason}, and per decision (`apply`, `duplicate`, `stale`).
   *
   * @example
   * receiver.counters().deliveries.forgery
   */
  deliveries: Record<'total' | DeliveryReason | Decision, number>;
  /**
   * Fulfilment: `total`, one count per {@link FulfilmentOutcomeName}, `passes` and the payments
   * `claimed`, and `failedPasses`: passes that failed (the store refused the claim, or failed
   * between payments; startFulfilment logs them, at most five lines a minute with the rest
   * counted in one line: this counter has every one). A pass that failed after its claim is in
   * `passes` too; one whose claim failed only in `failedPasses`.
   *
   * @example
   * receiver.counters().fulfilment.fulfil
   */
  fulfilment: Record<'total' | 'passes' | 'failedPasses' | 'claimed' | FulfilmentOutcomeName, number>;
}

/**
 * The payment as `POST /v1/payments` created it (what the client's `createPayment` resolves):
 * its `payment_id`, and the `order_ref` and `source_amount` it was created with.
 *
 * @example
 * const created: CreatedPayment = { payment_id: 'pay_1', order_ref: 'order-42', source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '12800' } };
 */
export interface CreatedPayment {
  /**
   * The service's id of the payment.
   *
   * @example
   * payment_id: 'pay_1'
   */
  payment_id: string;
  /**
   * The merchant's order reference sent, if any.
   *
   * @example
   * order_ref: 'order-42'
   */
  order_ref?: string | null | undefined;
  /**
   * The source amount sent (strictly a SourceAmount: an unknown key is refused).
   *
   * @example
   * source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '12800' }
   */
  source_amount: SourceAmount;
  /**
   * Any other field of the answer (ignored).
   *
   * @example
   * created['checkout_origin']
   */
  [key: string]: unknown;
}

/**
 * Options of `receiver.recordCreated`.
 *
 * @example
 * const options: RecordCreatedOptions = { integration: 'shop-eu' };
 */
export interface RecordCreatedOptions {
  /**
   * The integration the payment was created under: required when `secrets` names
   * integrations (one of those names), refused otherwise.
   *
   * @example
   * integration: 'shop-eu'
   */
  integration?: string | null | undefined;
}

/**
 * An order as fulfilment hands it to `policy`, `handle` and `confirm`.
 *
 * @example
 * const order: StoredOrder = { paymentId: 'pay_1', orderRef: 'order-42', sourceAmount, integration: null, createdAt: '2026-11-22T10:00:00.000Z' };
 */
export interface StoredOrder extends Order {
  /**
   * The `order_ref`, or `null`.
   *
   * @example
   * orderRef: 'order-42'
   */
  orderRef: string | null;
  /**
   * The integration, or `null`.
   *
   * @example
   * integration: 'shop-eu'
   */
  integration: string | null;
  /**
   * When it was recorded (ISO 8601, UTC; absent for what recordCreated resolves).
   *
   * @example
   * createdAt: '2026-11-22T10:00:00.000Z'
   */
  createdAt?: string | undefined;
}

/**
 * The second argument of `confirm`: what the receiver knows of the payment, so that a
 * merchant with several integrations asks with the right API key.
 *
 * @example
 * const clients: Record<string, Client> = { main: createClient({ baseUrl, apiKey }) };
 * const confirm = (paymentId: string, { integration }: ConfirmContext) => clients[integration ?? 'main']!.getPayment(paymentId);
 */
export interface ConfirmContext {
  /**
   * The stored order, or `null` (a payment no order holds).
   *
   * @example
   * order?.orderRef
   */
  order: StoredOrder | null;
  /**
   * The integration of the event (or, with none, of the order). When that confirm throws and
   * the order names another integration, `confirm` is called once more with the order's: the
   * payment is then held for review (`integration_mismatch`).
   *
   * @example
   * integration: 'shop-eu'
   */
  integration: string | null;
  /**
   * The version of the facts events applied, or `null` (no event came: recovery).
   *
   * @example
   * statusVersion: '3'
   */
  statusVersion: string | null;
}

/**
 * What `handle` is called with, at least once for each (payment, status_version) a pass
 * reads. A payment reaches `handle` with `fulfil` under one key only.
 *
 * `handle` is given a {@link FulfilHandleInput} or an {@link OtherHandleInput}: with `action`
 * `fulfil`, TypeScript narrows `order` to the stored order.
 *
 * @example
 * async function handle(input: HandleInput) {
 *   if (input.action === 'review') await tickets.open(input.paymentId, input.mismatch?.code ?? input.view.status);
 * }
 */
export interface HandleInput {
  /**
   * What to do: `fulfil` only for a payment linked to its order and paid as the policy requires.
   *
   * @example
   * if (input.action === 'review') await tickets.open(input.paymentId);
   */
  action: FulfilmentAction;
  /**
   * The authoritative view `confirm` gave (its `responseText` kept).
   *
   * @example
   * input.view.status // 'paid'
   */
  view: PaymentView;
  /**
   * The stored order, or `null` for a payment the merchant never created here (then `action`
   * is `review` and `mismatch.code` is `payment_unknown`).
   *
   * @example
   * input.order?.orderRef
   */
  order: StoredOrder | null;
  /**
   * `payment_id:status_version`: the same for every call about the same facts; give it to the
   * systems the handler calls (with the action, where one table records them all) so that a
   * repeat after a crash is recognised there. For
   * `fulfil`, the version is the one the payment's fulfil was first decided at (stored before
   * the handler runs): a fulfil repeated after a crash, once the payment has moved to a newer
   * version, carries the same key, so keying a shipment by it ships once.
   *
   * @example
   * idempotencyKey: 'pay_1:3'
   */
  idempotencyKey: string;
  /**
   * The payment.
   *
   * @example
   * paymentId: 'pay_1'
   */
  paymentId: string;
  /**
   * The view's status_version, exact digits. Not always the version `idempotencyKey` names:
   * a `fulfil` repeated after a crash or a throw, once the payment moved to a newer version,
   * has this newer version and the key of the first; key what you ship by `idempotencyKey`
   * (or `fulfilKey`), never by `paymentId:statusVersion`. When the view came through the order's integration after the event's failed (an
   * `integration_mismatch` review), the applied event's version if it is greater, so that
   * the payment is not due again.
   *
   * @example
   * statusVersion: '3'
   */
  statusVersion: string;
  /**
   * The integration whose secret verified the applied event (the order's when none came):
   * with an `integration_mismatch`, not the account the view came through.
   *
   * @example
   * integration: null
   */
  integration: string | null;
  /**
   * Why the payment does not link to its order (`action` is then `review`), else `null`.
   *
   * @example
   * mismatch: { code: 'source_amount_mismatch', message: 'source_amount_mismatch: ...' }
   */
  mismatch: { code: LinkMismatchCode; message: string } | null;
  /**
   * Whether `fulfil` was handled for this payment at an earlier version. A later version the
   * policy would fulfil again is recorded without calling `handle`; the other actions still
   * come (a `review` after a fulfilment: a person looks, nothing is shipped again).
   *
   * @example
   * if (input.action === 'review' && input.fulfilledBefore) await tickets.open(input.paymentId, 'after fulfilment');
   */
  fulfilledBefore: boolean;
  /**
   * The idempotency key `handle` was called with for `fulfil` for this payment (stored before
   * the call), whether that call completed or not; `null` when none was made. With `action`
   * `fulfil` it is `idempotencyKey`. With another action and `fulfilledBefore` false, a
   * fulfil may have run without its note (it threw, or the process died or lost its lease
   * after shipping): the effect's own record of this key says whether it did (the shipping
   * API's, by its idempotency key, or a row written once the effect is done; a claim written
   * before the effect proves nothing).
   *
   * @example
   * const shipped = input.fulfilKey !== null && (await shipping.findByIdempotencyKey(input.fulfilKey)) !== null;
   */
  fulfilKey: string | null;
}

/**
 * What `handle` is given with `fulfil`: the payment is linked to its order, so `order` is
 * the stored order, `mismatch` is `null` and `fulfilKey` is the call's `idempotencyKey`.
 *
 * @example
 * handle: async ({ action, order, idempotencyKey }) => {
 *   if (action === 'fulfil') await shipping.ship(order.orderRef, { idempotencyKey }); // order: StoredOrder here
 * }
 */
export interface FulfilHandleInput extends HandleInput {
  /**
   * Always `fulfil`.
   *
   * @example
   * action: 'fulfil'
   */
  action: 'fulfil';
  /**
   * The stored order the payment is linked to.
   *
   * @example
   * input.order.orderRef // 'order-42'
   */
  order: StoredOrder;
  /**
   * Always `null`: a payment that does not link is never fulfilled.
   *
   * @example
   * mismatch: null
   */
  mismatch: null;
  /**
   * The same as `idempotencyKey`.
   *
   * @example
   * fulfilKey: 'pay_1:3'
   */
  fulfilKey: string;
}

/**
 * What `handle` is given with `review`, `wait` or `closed`: `order` is `null` for a payment
 * never created here (`mismatch.code` `payment_unknown`).
 *
 * @example
 * handle: async (input) => {
 *   if (input.action === 'review') await tickets.open(input.order?.orderRef ?? input.paymentId, { key: input.idempotencyKey });
 * }
 */
export interface OtherHandleInput extends HandleInput {
  /**
   * `review` (for a person), `wait` (looked at again) or `closed` (ended unpaid).
   *
   * @example
   * action: 'review'
   */
  action: 'review' | 'wait' | 'closed';
}

/**
 * Options of `receiver.fulfil` (one pass). Unknown keys are refused (`invalid_argument`).
 *
 * @example
 * const options: FulfilOptions = { confirm: (id) => api.getPayment(id), handle: async (input) => ship(input) };
 */
export interface FulfilOptions {
  /**
   * The authoritative view of a payment: resolves the exact text of
   * `GET /v1/payments/{payment_id}`'s answer, or the view the client's `getPayment` returns.
   * A throw is retried with backoff.
   *
   * @example
   * confirm: (paymentId) => api.getPayment(paymentId)
   */
  confirm: (paymentId: string, context: ConfirmContext) => Promise<string | { responseText: string }> | string | { responseText: string };
  /**
   * What fulfilling means for you; called after the link check and the policy, at least once
   * for each (payment, status_version) a pass reads, and with `fulfil` for one version of a
   * payment only. Once it resolves, that version is stored as handled; a throw is retried with
   * backoff (1, 2, 4 ... seconds, at most an hour apart), or at the next pass once a newer
   * event was applied, while the failed attempt ran or after it.
   *
   * @example
   * handle: async ({ action, order, idempotencyKey }) => { if (action === 'fulfil') await ship(order, idempotencyKey); }
   */
  handle: (input: FulfilHandleInput | OtherHandleInput) => unknown;
  /**
   * Your exception policy, for a payment linked to its order: `fulfil`, `review`, `wait` or
   * `closed`. Default: the core's `defaultPolicy` (paid exactly: fulfil; partial, over and
   * review required: review; open and confirming: wait; expired and cancelled: closed when
   * nothing was received, else review; any other status: review). `fulfilledBefore`: whether
   * `fulfil` was handled at an earlier version (a second `fulfil` is then recorded, not handled);
   * `fulfilKey`: the key of a `fulfil` `handle` was called with, noted or not (see HandleInput).
   *
   * @example
   * policy: (view) => (view.status === 'partially_paid' && shortByLessThanACent(view) ? 'fulfil' : defaultPolicy(view))
   */
  policy?: ((view: PaymentView, order: StoredOrder | null, context: { fulfilledBefore: boolean; fulfilKey: string | null }) => FulfilmentAction | Promise<FulfilmentAction>) | undefined;
  /**
   * How many payments a pass claims at most, 1 to 1000. Default 20.
   *
   * @example
   * batch: 50
   */
  batch?: number | undefined;
  /**
   * How long a claim holds, in seconds (1 to 86400): another instance takes the payment over
   * once it expires (a crashed one's work is repeated, never skipped). Renewed as each payment
   * of the batch is taken up, and every third of it while `handle` runs (so no other pass calls
   * `handle` meanwhile): longer than `confirm` takes for one payment. Default 300.
   *
   * @example
   * leaseSecs: 120
   */
  leaseSecs?: number | undefined;
  /**
   * An order not settled (not fulfilled, closed or held as not linked) with no news for this
   * many seconds is looked at again with `confirm`: a delivery may be lost (1 to 31536000
   * seconds). Default 900. One
   * held for `review`, less and less often: once unlooked-at for as long as it had been since
   * its order was recorded, and this many seconds more.
   *
   * @example
   * recoverAfterSecs: 600
   */
  recoverAfterSecs?: number | undefined;
  /**
   * A closed payment (the policy said `closed`: expired or cancelled with nothing received)
   * may still receive money sent late, whose event may be lost: for this many seconds after
   * its order was recorded it is looked at again with `confirm`, less and less often (once it
   * has gone unlooked-at for as long as it had been since the order was recorded at the last
   * look, and at least `recoverAfterSecs`: an order closed after an hour is looked at about 2,
   * 4, 8, ... hours after it was recorded). `0` turns it off; at most 31536000 (a year).
   * Default 604800 (7 days).
   *
   * @example
   * recheckClosedSecs: 86400
   */
  recheckClosedSecs?: number | undefined;
}

/**
 * Options of `receiver.startFulfilment`: those of a pass, and how long to wait between passes.
 *
 * @example
 * const options: StartFulfilmentOptions = { intervalMs: 5000, confirm, handle };
 */
export interface StartFulfilmentOptions extends FulfilOptions {
  /**
   * Milliseconds between passes (1 to 86400000); a pass that claimed a full batch is followed at once.
   *
   * @example
   * intervalMs: 5000
   */
  intervalMs: number;
}

/**
 * What one pass did.
 *
 * @example
 * const { claimed, outcomes, more }: FulfilResult = await receiver.fulfil(options);
 */
export interface FulfilResult {
  /**
   * How many payments it claimed.
   *
   * @example
   * claimed: 3
   */
  claimed: number;
  /**
   * How many ended in each outcome.
   *
   * @example
   * outcomes: { fulfil: 2, retry: 1 }
   */
  outcomes: Partial<Record<FulfilmentOutcomeName, number>>;
  /**
   * Whether it claimed a full batch (more may be due: run another pass).
   *
   * @example
   * while ((await receiver.fulfil(options)).more);
   */
  more: boolean;
}

/**
 * A running fulfilment loop.
 *
 * @example
 * const loop: FulfilmentLoop = receiver.startFulfilment({ intervalMs: 5000, confirm, handle });
 * process.on('SIGTERM', async () => { await loop.stop(); process.exit(0); });
 */
export interface FulfilmentLoop {
  /**
   * Stops the loop: resolves once the payment under way (if any) is handled; the rest of
   * the pass's batch is given back at once, for another instance to take up (a batch the
   * store refused to take back earlier is asked again here; a store still down leaves those
   * leases to run out after leaseSecs).
   *
   * @example
   * await loop.stop();
   */
  stop(): Promise<void>;
}

/**
 * Options of `receiver.quarantined`.
 *
 * @example
 * const page: QuarantinedOptions = { afterId: 0, limit: 50 };
 */
export interface QuarantinedOptions {
  /**
   * List those after this id (0, the default: from the first). On PostgreSQL with several
   * instances, ids are taken in the order deliveries arrive but committed in the order they
   * finish: a row with a lower id can appear just after a page that listed a higher one. To
   * miss none, list again from an earlier id (a few seconds' worth) and skip the ids seen.
   *
   * @example
   * afterId: rows.at(-1)?.id ?? 0
   */
  afterId?: number | undefined;
  /**
   * At most this many, 1 to 10000. Default 100.
   *
   * @example
   * limit: 50
   */
  limit?: number | undefined;
}

/**
 * An authentic delivery kept in quarantine (never applied).
 *
 * @example
 * for (const q of await receiver.quarantined()) console.log(q.code, q.paymentId);
 */
export interface QuarantinedDelivery {
  /**
   * Its id in the quarantine table.
   *
   * @example
   * id: 7
   */
  id: number;
  /**
   * When it was kept (ISO 8601, UTC).
   *
   * @example
   * receivedAt: '2026-11-22T10:00:00.000Z'
   */
  receivedAt: string;
  /**
   * Why it is not an event.
   *
   * @example
   * code: 'event_type_unknown'
   */
  code: ErrorCode;
  /**
   * Its `event_id`, where the body is JSON holding one.
   *
   * @example
   * eventId: 'evt_1'
   */
  eventId: string | null;
  /**
   * Its `data.payment_id`, where the body is JSON holding one.
   *
   * @example
   * paymentId: 'pay_1'
   */
  paymentId: string | null;
  /**
   * The verified body, byte for byte.
   *
   * @example
   * new TextDecoder().decode(q.body)
   */
  body: Uint8Array;
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
   * rejection is unhandled). The rejection is an `Error` with the driver's message, name and
   * code, and what may be a credential (a database URL's password) masked: never the
   * driver's own error object. `recordCreated`, `fulfil` and `quarantined` reject alike.
   * It waits as long as the store's `ready()` takes (a migration included). Deliveries that
   * arrive meanwhile wait on the same attempt for at most 20 s, then are answered 503; on
   * Workers, where an attempt whose request was cancelled never settles, one that has waited
   * 10 s starts the next, and `ready()` too rejects after 20 s (an `Error` saying so).
   *
   * @example
   * await receiver.ready();
   */
  ready(): Promise<void>;
  /**
   * For Fetch runtimes: Workers, Deno, Bun, Next.js route handlers, Hono (`c.req.raw`).
   * Reads the raw body itself (bounded), never throws. Mounted in Express by mistake (given
   * Node's request, and its response second), it answers 500 `invalid_argument` through that
   * response and logs that `node` is the face for Express, rather than leave it hanging.
   *
   * @example
   * export default { fetch: (request: Request, env: Env) => getReceiver(env).fetch(request) };
   */
  fetch(request: FetchRequest): Promise<FetchResponse>;
  /**
   * For node:http and Express. Reads the raw body itself (bounded); when a framework read it
   * first, its `req.rawBody` (bytes or a string, as a verify callback keeps it) is used, else its
   * `req.body` (bytes or a string verify; a parsed object, or no `req.body` at all, is answered
   * 500 `body_not_raw`). Fastify reads every body before its handlers: there, give
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
   * answer, never a rejection. Mounted in Express by mistake (given Node's request, and its
   * response second), it answers 500 `invalid_argument` through that response and logs that
   * `node` is the face for Express.
   *
   * @example
   * const { status, body, headers } = await receiver.handle({ body: rawBuffer, headers: req.rawHeaders });
   */
  handle(delivery: ReceiverDelivery): Promise<ReceiverAnswer>;
  /**
   * The faces of one integration, for a receiver whose `secrets` names several (a platform
   * holding each connected merchant's Secret, one webhook URL per merchant): a delivery to
   * them is verified with that integration's secrets alone, so it costs one integration's
   * HMACs however many `secrets` holds, and every `onOutcome` record of them carries the
   * `route`, a refusal the route's `integration` too, and its log line the integration it came
   * for: one merchant's rotated Secret is said apart from the others' deliveries. A delivery
   * only another integration's secret verifies (that integration's webhook registered with
   * this route's URL, or two secrets swapped in `secrets`) is recorded under neither: 500
   * `integration_mismatch`, logged naming both, so that the service retries it once the URL
   * or the secrets are right. The other integrations are tried so at most 20 times a second
   * (forged requests to any route count): past that such a delivery is answered 503 `busy`,
   * retried, never a final 400. A name `secrets` does not hold (a merchant connected since
   * the receiver was created, or removed) is answered 500 `integration_unknown`, unverified,
   * so that the service retries it. The same object is returned for the same name.
   *
   * @throws {CryptoPayError} `invalid_argument`: a name that is not a string, or a receiver
   * whose `secrets` names no integrations (a lazy receiver answers that 500 `not_configured`).
   * @example
   * app.post('/webhooks/:merchant', (req, res) => receiver.integration(req.params.merchant).node(req, res));
   */
  integration(name: string): ReceiverRoute;
  /**
   * Records the merchant's side of a created payment in the `orders` table (its
   * `payment_id`, `order_ref`, exact `source_amount` and integration), what fulfilment links
   * events to. Idempotent: the same payment recorded again with the same order changes
   * nothing; with another `order_ref`, `source_amount` or integration it is refused
   * (`invalid_argument`), the stored order kept. The client's `createPayment(..., { record:
   * receiver })` calls it. Rejects when the store fails (an `Error` carrying the driver's
   * message and code, credentials masked).
   *
   * @example
   * const created = await api.createPayment({ order_ref: order.id, amount: order.total, currency: 'USD' },
   *   { idempotencyKey: `create-${order.id}-${order.paymentAttempt}` });
   * await receiver.recordCreated(created);
   */
  recordCreated(created: CreatedPayment, options?: RecordCreatedOptions): Promise<StoredOrder>;
  /**
   * One fulfilment pass: claims, under a lease, the payments whose applied facts changed
   * since they were last handled and the orders with no news for `recoverAfterSecs`; for
   * each, the authoritative view (`confirm`), the link to its order checked exactly
   * (`linkEvent`: a mismatch is `needs_review`, never fulfilled), the policy, then `handle`,
   * at least once for each (payment, status_version) it reads (with `fulfil` for one version
   * of a payment only). Call it from a timer, a queue consumer or a
   * cron (a Worker's `scheduled`). A payment whose own step fails in the loop is set aside
   * (`pass_failed`) and the pass goes on; it rejects when the store cannot record even that
   * (what it claimed is then released) or for wrong options (`invalid_argument`).
   *
   * @example
   * await receiver.fulfil({ confirm: (id) => api.getPayment(id), handle: ship });
   */
  fulfil(options: FulfilOptions): Promise<FulfilResult>;
  /**
   * Runs passes in a loop: every `intervalMs`, at once after a full batch. A failed pass is
   * logged and the loop goes on. Throws `invalid_argument` at once for wrong options.
   *
   * @example
   * const loop = receiver.startFulfilment({ intervalMs: 5000, confirm: (id) => api.getPayment(id), handle: ship });
   * process.on('SIGTERM', async () => { await loop.stop(); process.exit(0); });
   */
  startFulfilment(options: StartFulfilmentOptions): FulfilmentLoop;
  /**
   * Lists quarantined deliveries (authentic, not readable as events), oldest first, with
   * their `event_id` and `payment_id` where the body holds them.
   *
   * @example
   * for (const q of await receiver.quarantined({ limit: 20 })) console.log(q.id, q.code, q.paymentId ?? '(unreadable)');
   */
  quarantined(options?: QuarantinedOptions): Promise<QuarantinedDelivery[]>;
  /**
   * Makes the payments waiting out the backoff of a failed attempt (1, 2, 4 ... seconds after
   * each, at most an hour) due at once, or only `paymentId`'s: for after you fixed what failed
   * (a `handle` that threw, `confirm`'s API key, a service or a store that was down). The next
   * pass takes them up; a fulfil that may have run is repeated under its key, as always.
   * Resolves how many were made due (a payment a running pass holds is that pass's, and is
   * not counted). Rejects `invalid_argument` for a store without it (a store of your own).
   *
   * @example
   * // A deploy that fixed the handler: no order waits out its backoff.
   * const due = await receiver.retryNow();
   * console.log(`${due} payments due at the next pass`);
   * @example
   * await receiver.retryNow({ paymentId: 'pay_1' });
   */
  retryNow(options?: { paymentId?: string | undefined }): Promise<number>;
  /**
   * The counters of this receiver (this process): every delivery by reason and decision,
   * every fulfilment outcome.
   *
   * @example
   * setInterval(() => console.log(receiver.counters()), 60_000);
   */
  counters(): ReceiverCounters;
}

/**
 * Creates a receiver: verify first, then record each delivery in the store in one
 * transaction, and answer 2xx only after the commit returned.
 *
 * @param options The secrets, the skew, the two header names and the store.
 * @throws {CryptoPayError} At once, for a wrong option: `invalid_argument` (an unknown option;
 * a missing or `undefined` header name or secret; a header name that is not one, is one HTTP
 * uses, names the other or holds a secret; a bad secret set; a missing or non-integer
 * `maxSkewSecs`; `maxBodyBytes`, `maxBufferedBytes` or `bodyTimeoutMs` out of range, or a
 * `maxBodyBytes` over the store's; `nowSecs`, `log` or `onOutcome` of the wrong type; no store
 * or not a store); `no_secrets`; `secret_empty`.
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
   * The tables' name prefix: `<prefix>events`, `<prefix>payments`, `<prefix>quarantine`,
   * `<prefix>orders`, `<prefix>fulfilment` and `<prefix>schema` (and their indexes).
   * Up to 40 lower-case letters, digits and underscores, starting with a letter or an
   * underscore. Default `cryptopay_`.
   *
   * @example
   * prefix: 'shop_'
   */
  prefix?: string | undefined;
  /**
   * `false`: ready() only checks the tables exist (create them in a migration). Default `true`.
   * Either way ready() then checks the column types, defaults and keys the statements depend on,
   * and rejects naming each table, column, type found and type expected that differ, and
   * each column without the default the statements leave to it.
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
 * const client: PostgresClientLike = new pg.Pool({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5_000, query_timeout: 10_000 });
 * @example
 * // postgres.js (npm postgres): values are unknown[] here, its parameter type is narrower
 * const sql = postgres(process.env.DATABASE_URL!, { connect_timeout: 5, connection: { statement_timeout: 10_000 } });
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
 * receiver's own transactions); a serialization failure or deadlock is retried up to 5 times;
 * ready() refuses a database whose encoding is not UTF8, and one no delivery could be written
 * to (read-only, or a role without INSERT or UPDATE on the tables), naming the fix.
 *
 * @param client A node-postgres `Pool` (or a `Client` of pg 8.21 or later), or anything with
 * `query(text, values)` resolving `{ rows }`, such as an adapter over postgres.js's `sql.unsafe`.
 * @param options The table prefix, and whether ready() creates the tables.
 * @throws {CryptoPayError} `invalid_argument`: not a client, options of the wrong shape, a
 * node-postgres `Client` older than pg 8.21 (it cannot tell whether your code holds a
 * transaction open on it: pass a `pg.Pool`, or upgrade pg), or a `pg.Pool` in a Cloudflare Worker (a Worker may not use a connection across requests: give it
 * a client per statement, as in the example below).
 * @example
 * import pg from 'pg';
 * const store = postgresStore(new pg.Pool({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5_000, query_timeout: 10_000 }));
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
 * const sql = postgres(process.env.DATABASE_URL!, { connect_timeout: 5, connection: { statement_timeout: 10_000 } });
 * const store = postgresStore({ query: async (text, values) => ({ rows: await sql.unsafe(text, values as postgres.ParameterOrJSON<never>[]) }) });
 */
export declare function postgresStore(client: PostgresClientLike, options?: StoreOptions): LoopStore;

/**
 * What sqliteStore uses of a prepared statement: `run` for a statement that returns no rows
 * where `reader` is `false` (better-sqlite3 refuses `get` and `all` there), else `get` (one
 * row, or `undefined`) and `all` (every row).
 *
 * @example
 * const statement: SqliteStatementLike = db.prepare('SELECT 1 AS one');
 */
export interface SqliteStatementLike {
  /**
   * Runs a statement that returns no rows.
   *
   * @example
   * db.prepare('DELETE FROM t WHERE id = ?').run(1);
   */
  run(...params: any[]): unknown;
  /**
   * The first row, or `undefined`.
   *
   * @example
   * db.prepare('SELECT 1 AS one').get(); // { one: 1 }
   */
  get(...params: any[]): unknown;
  /**
   * Every row.
   *
   * @example
   * db.prepare('SELECT 1 AS one').all(); // [{ one: 1 }]
   */
  all(...params: any[]): unknown[];
  /**
   * better-sqlite3's: `false` for a statement that returns no rows (then `run` is called);
   * absent elsewhere (then `get` or `all`, which every other driver takes for any statement).
   *
   * @example
   * db.prepare('SELECT 1').reader; // true
   */
  readonly reader?: boolean;
}

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
  prepare(sql: string): SqliteStatementLike;
  /**
   * Present on every synchronous driver: the store requires it, to tell a synchronous SQLite
   * database from other clients, and runs every statement through `prepare`.
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
 * connection at ready(): `busy_timeout`, `journal_mode=WAL`, `synchronous` and
 * `journal_size_limit` (64 MiB). ready() rejects a database in memory (`':memory:'`): every
 * event it acknowledged would end with the process (for tests, memoryStore is named so).
 *
 * @param db An open better-sqlite3 `Database`, bun:sqlite `Database` or node:sqlite `DatabaseSync`.
 * @param options The table prefix, durability, lock timeout and batch size.
 * @throws {CryptoPayError} `invalid_argument`: not a synchronous SQLite database (a D1
 * binding, a libsql client, node-sqlite3), or an option of the wrong shape or out of range.
 * @example
 * import Database from 'better-sqlite3';
 * const store = sqliteStore(new Database('receiver.sqlite'));
 */
export declare function sqliteStore(db: SqliteDatabaseLike, options?: SqliteStoreOptions): LoopStore;

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
export declare function d1Store(binding: D1DatabaseLike, options?: StoreOptions): LoopStore;

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
 * WebSockets) are untested. ready() rejects a local database in memory (`url: ':memory:'`), as
 * sqliteStore does.
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
export declare function libsqlStore(client: LibsqlClientLike, options?: StoreOptions): LoopStore;

/**
 * The rows a memoryStore holds, mirroring the tables.
 *
 * @example
 * const store: MemoryStore = memoryStore();
 */
export interface MemoryStore extends LoopStore {
  /**
   * The events table: every recorded event, by `event_id`.
   *
   * @example
   * store.events.get('evt_1')?.decision; // 'apply' | 'stale'
   */
  readonly events: Map<string, { event_id: string; payment_id: string; status_version: string; decision: 'apply' | 'stale'; received_at: string; body: Uint8Array; integration: string | null; secret_kind: SecretKind | null }>;
  /**
   * The payments table: the facts applied last, by `payment_id`.
   *
   * @example
   * store.payments.get('pay_1')?.status_version; // '7'
   */
  readonly payments: Map<string, { payment_id: string; status_version: string; event_id: string; data: string; updated_at: string; integration: string | null; handled_version: string | null }>;
  /**
   * The quarantine table: authentic deliveries that were not readable events.
   *
   * @example
   * store.quarantined.map((row) => row.code); // ['event_type_unknown']
   */
  readonly quarantined: Array<{ id: number; received_at: string; code: ErrorCode; body: Uint8Array }>;
  /**
   * The orders table: what recordCreated stored, by `payment_id`.
   *
   * @example
   * store.orders.get('pay_1')?.order_ref; // 'order-42'
   */
  readonly orders: Map<string, { payment_id: string; order_ref: string | null; source_amount: string; integration: string | null; created_at: string }>;
  /**
   * The fulfilment table: the version handled, the outcome and the lease, by `payment_id`.
   *
   * @example
   * store.fulfilment.get('pay_1')?.handled_version; // '3'
   */
  readonly fulfilment: Map<string, { payment_id: string; handled_version: string | null; outcome: FulfilmentOutcomeName | null; code: string | null; settled: boolean; seen_at: string; attempts: number; next_attempt_at: string | null; lease_owner: string | null; lease_until: string | null; updated_at: string; fulfil_version: string | null; recheck_at: string | null }>;
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
 * `..._RETIRING_UNTIL` that is not whole seconds), never a value; or `env` not an object.
 * A `..._RETIRING_UNTIL` in milliseconds (13 digits or more) is refused too, and one with no
 * `..._RETIRING` that is still ahead by the wall clock (`Date.now()`) or is no time (the old
 * Secret's deliveries in flight would be refused; a clock before 2001, as a Worker's global
 * scope reads, judges no end), and so is a
 * variable one edit (or only letter case) away from one of the four Secret names above (a
 * misspelt Secret would go unread), naming the one meant; likewise a variable near
 * `MAX_SKEW_SECS`, `TIMESTAMP_HEADER` or `SIGNATURE_HEADER` (one edit, or cut short or run
 * on: `MAX_SKEW_SECONDS`) while that one is unset (the skew would silently stay 300 s).
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
   * Where a failed creation is told (its `error`), once per attempt, at most five times a
   * minute for each code; `false` (or `null`) for nowhere. Default `console`. The receiver's own lines go to the log given to createReceiver.
   *
   * @example
   * log: { warn: (line) => logger.warn(line), error: (line) => logger.error(line) }
   */
  log?: (Pick<ReceiverLog, 'error'> & Partial<ReceiverLog>) | false | null | undefined;
}

/**
 * A receiver created at its first call, for serverless platforms and builds that must not need
 * the configuration (Next.js, Nitro, Workers, AWS Lambda, Cloud Run functions, Supabase Edge
 * Functions). `create` runs once however many requests arrive together, then the receiver's
 * `ready()`; the receiver is kept while the process or isolate lives. A failure is forgotten,
 * so the next POST tries again; meanwhile each request is answered, and the failure logged
 * once per attempt (at most five lines a minute for each code). A request that has waited
 * 20 s on an attempt is answered 503 while it goes on; on Workers, where an attempt whose
 * request was cancelled never settles, one that has waited 10 s starts the next:
 *
 * - `500 {"error":"not_configured"}` when `create` throws a `CryptoPayError` (a variable
 *   missing: {@link receiverOptionsFromEnv}; a wrong option: createReceiver, a store), or
 *   returns something that is not a receiver;
 * - `503 {"error":"store_unavailable"}` when it throws anything else (a driver that does not
 *   load, a connection refused) or `ready()` rejects (the store cannot be reached or prepared).
 *
 * The service retries both. A method other than POST is answered `405` (as the receiver
 * answers it) by `fetch` and `node` without an attempt. `fetch`, `node` and `handle` answer in their own form (a
 * `Response`, the Node response written, a {@link ReceiverAnswer}); `ready()` rejects with
 * what failed (the package's own error as it is; any other as a copy with credentials
 * masked, as {@link Receiver.ready} does). It answers requests only ({@link LazyReceiver}): the merchant loop's methods
 * (`recordCreated`, `fulfil`, `startFulfilment`, `retryNow`, `quarantined`, `counters`) are on the
 * {@link Receiver} that `create` returns.
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
 * // The pool made once: an attempt whose ready() fails leaves none of its own behind, open.
 * let pool: pg.Pool | undefined;
 * const receiver = lazyReceiver(() => createReceiver({
 *   ...receiverOptionsFromEnv(process.env, { required: ['DATABASE_URL'] }),
 *   store: postgresStore(pool ??= new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1, connectionTimeoutMillis: 5_000, query_timeout: 10_000 })),
 * }));
 * export const POST = (request: Request) => receiver.fetch(request); // Next.js route handler
 */
export declare function lazyReceiver(create: () => Receiver | PromiseLike<Receiver>, options?: LazyReceiverOptions): LazyReceiver;

/**
 * What {@link lazyReceiver} returns: the faces of a {@link Receiver} that answer requests (and `integration(name)`'s),
 * each creating the receiver first when it is not there yet.
 *
 * @example
 * const receiver: LazyReceiver = lazyReceiver(() => createReceiver({ ...receiverOptionsFromEnv(process.env), store }));
 * export default { fetch: (request: Request) => receiver.fetch(request) };
 */
export type LazyReceiver = Pick<Receiver, 'ready' | 'handle' | 'fetch' | 'node' | 'integration'>;

/**
 * What {@link Receiver.integration} returns: the faces of one integration, which verify a
 * delivery with its secrets alone, and its name.
 *
 * @example
 * const route: ReceiverRoute = receiver.integration('shop-eu');
 * export default { fetch: (request: Request) => route.fetch(request) };
 */
export interface ReceiverRoute extends Pick<Receiver, 'handle' | 'fetch' | 'node'> {
  /**
   * The integration's name, as given.
   *
   * @example
   * route.name // 'shop-eu'
   */
  readonly name: string;
}
