// Types of cryptopay-verify/sandbox (Node only). Hand-written. Self-contained like
// index.d.ts: they name no DOM or Node global, so a project compiled with `lib: ["es2022"]`
// and `types: []` type-checks them. Objects that mirror the service's JSON keep its
// snake_case names; the sandbox's own options and handle are camelCase.

import type { ErrorCode, PrimarySource, SourceAmount } from 'cryptopay-verify';

/**
 * The codes of the sandbox's refusals: the service's own answers (the core's table, with
 * their HTTP statuses), then those of the sandbox's dashboard endpoints. A value the core
 * refuses (an `amount_raw`, a CreatePayment body, an Idempotency-Key, a webhook URL) is
 * answered `400` with the core's {@link ErrorCode} instead.
 *
 * @example
 * const code: SandboxErrorCode = 'payment_not_payable';
 */
export type SandboxErrorCode =
  | 'unauthorized'
  | 'insufficient_scope'
  | 'idempotency_key_missing'
  | 'idempotency_key_reused'
  | 'payment_not_found'
  | 'payment_not_payable'
  | 'payment_not_confirming'
  | 'payment_not_cancellable'
  | 'payment_not_reviewable'
  | 'payment_not_expirable'
  | 'consumer_access_disabled'
  | 'webhook_exists'
  | 'webhook_not_found'
  | 'secret_mismatch'
  | 'request_invalid'
  | 'not_found'
  | 'method_not_allowed'
  | 'event_not_found'
  | 'key_not_found'
  | 'no_pending_secret'
  | 'request_too_large'
  | 'unsupported_media_type'
  | 'forbidden_origin'
  | 'forbidden_host'
  | 'internal_error'
  | 'sandbox_closed'
  | 'deliveries_pending';

/**
 * The body of every refusal of the sandbox's HTTP API (the service's ErrorResponse).
 *
 * @example
 * const { error } = (await res.json()) as ErrorResponse; // { error: { code: 'unauthorized', message: '...' } }
 */
export interface ErrorResponse {
  /**
   * The code and a message that names the problem and the fix.
   *
   * @example
   * if (body.error.code === 'idempotency_key_reused') console.error(body.error.message);
   */
  error: ErrorResponseError;
}

/**
 * The `error` member of an {@link ErrorResponse}.
 *
 * @example
 * const detail: ErrorResponseError = { code: 'payment_not_found', message: 'payment_not_found: ...' };
 */
export interface ErrorResponseError {
  /**
   * A {@link SandboxErrorCode}, or the core's {@link ErrorCode} for a value it refused.
   *
   * @example
   * detail.code // 'payment_not_cancellable'
   */
  code: SandboxErrorCode | ErrorCode;
  /**
   * The problem and the fix; never a secret or a key.
   *
   * @example
   * console.error(detail.message);
   */
  message: string;
}

/**
 * A refusal of one of the sandbox's operations, as its HTTP API answers it: what a
 * {@link Sandbox} method rejects with.
 *
 * @example
 * try {
 *   await sandbox.pay(paymentId, '100');
 * } catch (err) {
 *   if (err instanceof SandboxError && err.code === 'payment_not_payable') console.log(err.status); // 409
 * }
 */
export declare class SandboxError extends Error {
  /**
   * A refusal as the sandbox answers it (for test doubles of code that handles one).
   *
   * @param code The answer's code.
   * @param message What went wrong and how to fix it.
   * @param status The HTTP status.
   * @example
   * const refused = new SandboxError('payment_not_found', 'payment_not_found: no payment with this id', 404);
   */
  constructor(code: SandboxErrorCode | ErrorCode, message: string, status: number);
  /**
   * Always `'SandboxError'`.
   *
   * @example
   * console.error(`${err.name} [${err.code}]`);
   */
  readonly name: 'SandboxError';
  /**
   * The code of the answer: one of {@link SandboxErrorCode}, or the core's
   * {@link ErrorCode} for a value it refused (`amount_raw_invalid` for a payment's amount).
   *
   * @example
   * if (err.code === 'consumer_access_disabled') console.log('the merchant disabled checkout');
   */
  readonly code: SandboxErrorCode | ErrorCode;
  /**
   * The HTTP status the endpoint answers with (400, 401, 403, 404, 405, 409, 413, 415 or 500),
   * 503 for `sandbox_closed` (a method called after `close()`), or 504 for
   * `deliveries_pending` (`delivered()` waited `timeoutMs`; its `pending` lists what is queued).
   *
   * @example
   * assert.equal(err.status, 404);
   */
  readonly status: number;
  /**
   * For `deliveries_pending` only: the deliveries still queued when `delivered()` stopped
   * waiting, first in line first (as `pendingDeliveries()` lists them).
   *
   * @example
   * if (err.code === 'deliveries_pending') console.error(err.pending?.map((d) => d.event_id));
   */
  readonly pending?: PendingDelivery[];
  /**
   * The service's ErrorResponse for this refusal.
   *
   * @example
   * res.writeHead(err.status, { 'content-type': 'application/json' }).end(JSON.stringify(err));
   */
  toJSON(): ErrorResponse;
}

/**
 * A payment's status in the sandbox (the service names only `open`; these are the
 * sandbox's, documented as its own).
 *
 * @example
 * const done: SandboxPaymentStatus[] = ['paid', 'overpaid', 'expired', 'cancelled'];
 */
export type SandboxPaymentStatus =
  | 'open'
  | 'confirming'
  | 'paid'
  | 'partially_paid'
  | 'overpaid'
  | 'review_required'
  | 'expired'
  | 'cancelled';

/**
 * A line of the sandbox's log and what it is about: each request (never its body or key),
 * each event, each delivery attempt.
 *
 * @example
 * const log: SandboxLog = (line, entry) => { if (entry.type === 'attempt') console.log(line); };
 */
export type SandboxLog = (line: string, entry: SandboxLogEntry) => void;

/**
 * What a log line is about, as data: `type` is `request`, `event`, `attempt`, `replay`,
 * `rotated`, `activated`, `overlap_dropped` (the request in flight at an activation not sent:
 * a later activation replaced its secret, or a restart came in between), `expired`,
 * `webhook_loopback`, `webhook_url_changed`, `webhook_headers_changed` (a start on a data file
 * that names other header names for the kept webhook), `exposed` (not listening on loopback only),
 * `seeded` (at a start that shuffles or duplicates deliveries: its `seed`),
 * `data_file` (at a start with a data file: `resumed`, `folder_created`, and the `payments`,
 * `events` and `deliveries_pending` it holds),
 * `delivery_error` or `internal_error` (a fault of the sandbox);
 * an `attempt` carries the fields of a {@link DeliveryAttempt}.
 *
 * @example
 * if (entry.type === 'attempt' && entry['outcome'] === 'exhausted') console.warn('gave up');
 */
export interface SandboxLogEntry {
  /**
   * What happened.
   *
   * @example
   * entry.type // 'attempt'
   */
  type: string;
  /**
   * The entry's other fields (an attempt's `event_id`, `status`, `outcome`...).
   *
   * @example
   * entry['event_id']
   */
  [field: string]: unknown;
}

/**
 * The options of {@link startSandbox}; each mirrors a flag of `cryptopay-verify sandbox`
 * (times in milliseconds here, seconds on the command line). An unknown key is refused.
 *
 * @example
 * const options: SandboxOptions = { port: 0, webhookUrl: 'http://127.0.0.1:8787/webhook', retryDelaysMs: [100, 200] };
 */
export interface SandboxOptions {
  /**
   * The port to listen on (`--port`): default 4010; 0 picks a free one.
   *
   * @example
   * port: 0
   */
  port?: number | undefined;
  /**
   * The address to listen on (`--host`): default `127.0.0.1`. The sandbox endpoints take no
   * key: keep it on loopback.
   *
   * @example
   * host: '127.0.0.1'
   */
  host?: string | undefined;
  /**
   * A SQLite file for the state (`--data`), through better-sqlite3 (an optional peer
   * dependency: `npm install better-sqlite3`). A restart on the same file keeps payments,
   * keys, idempotency records, events and the webhook, and resumes pending retries. Without
   * it the state is in memory.
   *
   * @example
   * data: './sandbox.sqlite'
   */
  data?: string | undefined;
  /**
   * The webhook to deliver to (`--webhook-url`), configured at start as the dashboard would.
   * Checked as the service checks it, except that, because this is a sandbox, `http://` on
   * any port is accepted to this machine (`localhost`, `127.0.0.1`, `[::1]`), under a local
   * development name (`*.localhost`, `*.test`, `*.local`, `*.internal` such as
   * `host.docker.internal`, `*.home.arpa`), to a one-label host (a Compose or CI service name
   * such as `http://receiver:8787/webhook`) or to a private address (10.x, 172.16-31.x,
   * 192.168.x); credentials, a query string and a fragment are refused there too.
   *
   * @example
   * webhookUrl: 'http://127.0.0.1:8787/webhook'
   */
  webhookUrl?: string | undefined;
  /**
   * The signing secret of the webhook (`--webhook-secret-env`): the one your receiver is
   * already configured with, instead of a new random one per start (a CI job or a Compose
   * file gives both processes the same). 16 to 256 visible ASCII characters, no space; used
   * when the webhook is made (at start, or through `POST /v1/webhook-endpoints`); a webhook a
   * data file kept must sign with it, else `invalid_argument`. A rotation replaces it as
   * usual. Never echoed in an error.
   *
   * @example
   * webhookSecret: process.env.CRYPTOPAY_WEBHOOK_SECRET
   */
  webhookSecret?: string | undefined;
  /**
   * The header that carries the delivery timestamp (`--timestamp-header`); the service's
   * name is not in its specification: default `X-Webhook-Timestamp`. A webhook kept in the
   * data file keeps its own unless this is given.
   *
   * @example
   * timestampHeader: 'X-Webhook-Timestamp'
   */
  timestampHeader?: string | undefined;
  /**
   * The header that carries the signature (`--signature-header`): default
   * `X-Webhook-Signature`. A webhook kept in the data file keeps its own unless this is given.
   *
   * @example
   * signatureHeader: 'X-Webhook-Signature'
   */
  signatureHeader?: string | undefined;
  /**
   * The store's primary pricing source (`--pricing fiat:USD:2`): default
   * `{ kind: 'fiat', ref: 'USD', decimals: 2 }`.
   *
   * @example
   * pricing: { kind: 'crypto', ref: 'usdc', decimals: 6 }
   */
  pricing?: Pick<PrimarySource, 'kind' | 'ref' | 'decimals'> | undefined;
  /**
   * The origin a browser opens the sandbox at (`--public-url`), when it is not the address
   * it listens on: a Docker port mapping, a LAN name, an https proxy. Checkout links
   * (`checkout_url`, a payment's default `checkout_origin`) use it, and a page served from it
   * may post the checkout's Pay button (any other `Origin` is 403 `forbidden_origin`). An
   * http(s) origin only: a path, query, fragment or credentials are `invalid_argument`.
   * Default: {@link Sandbox.baseUrl}.
   *
   * @example
   * // docker run -p 8080:4010 ... (listening on 0.0.0.0:4010 inside the container)
   * publicUrl: 'http://localhost:8080'
   */
  publicUrl?: string | undefined;
  /**
   * The store's website origin (`--website`), the only `checkout_origin` a payment may then
   * name besides none.
   *
   * @example
   * website: 'https://shop.example'
   */
  website?: string | undefined;
  /**
   * The delays before each retry (`--retry-delays`, in seconds there): a failed delivery is
   * attempted at most once more per delay, then `exhausted`. Default
   * `[1000, 2000, 4000, 8000, 16000]`; at most 20, each at most a day.
   *
   * @example
   * retryDelaysMs: [50, 100, 200]
   */
  retryDelaysMs?: readonly number[] | undefined;
  /**
   * How long an attempt may wait for the receiver's answer (`--timeout`, seconds there):
   * default 10000; then it is a network failure, retried.
   *
   * @example
   * timeoutMs: 2000
   */
  timeoutMs?: number | undefined;
  /**
   * The share of acknowledged events delivered once more (`--duplicate-rate`), 0 to 1:
   * default 0.
   *
   * @example
   * duplicateRate: 0.3
   */
  duplicateRate?: number | undefined;
  /**
   * Delivers a payment's events out of order (`--shuffle`): each delivery is held back for up
   * to 250 ms, drawn from the seed, and a payment's deliveries start in the order their holds
   * end, without waiting for each other, so a later event often arrives first and a slow
   * receiver gets two deliveries of one payment at once.
   *
   * @example
   * shuffle: true
   */
  shuffle?: boolean | undefined;
  /**
   * The seed of the duplicate and shuffle choices (`--seed`), 0 to 2^32 - 1: the same seed
   * makes the same choices for the same events. Default: a random one ({@link Sandbox.seed}).
   *
   * @example
   * seed: 42
   */
  seed?: number | undefined;
  /**
   * Where log lines go: default none.
   *
   * @example
   * log: (line) => console.log(`sandbox: ${line}`)
   */
  log?: SandboxLog | false | undefined;
}

/**
 * The sandbox's webhook (configured from {@link SandboxOptions.webhookUrl}, kept in the data
 * file, or set up through the API), as `stripe listen` prints its secret: give the secret to
 * the receiver.
 *
 * @example
 * // Set when the sandbox was started with webhookUrl, or on a data file that holds one.
 * if (sandbox.webhook) process.env.CRYPTOPAY_WEBHOOK_SECRET = sandbox.webhook.secret;
 */
export interface SandboxWebhook {
  /**
   * The webhook's `resource_id`.
   *
   * @example
   * sandbox.webhook?.resourceId // 'we_...'
   */
  resourceId: string;
  /**
   * The URL deliveries go to.
   *
   * @example
   * sandbox.webhook?.url // 'http://127.0.0.1:8787/webhook'
   */
  url: string;
  /**
   * The active signing secret, exactly as the receiver must use it.
   *
   * @example
   * const webhook = sandbox.webhook; // set when the sandbox was started with webhookUrl
   * if (webhook) receiver = createReceiver({ secrets: webhook.secret, ...rest });
   */
  secret: string;
  /**
   * Whether `secret` is the one `webhookSecret` gave (at this start, or the start that made
   * the webhook on a data file): the command line then never prints it. False once a rotation
   * made the sandbox's own secret active.
   *
   * @example
   * if (!sandbox.webhook?.secretGiven) console.log(sandbox.webhook?.secret);
   */
  secretGiven: boolean;
  /**
   * The header the delivery timestamp comes in: the `timestampHeader` the webhook was made
   * with (`X-Webhook-Timestamp` when none was given), kept in a data file until a later start
   * gives another.
   *
   * @example
   * createReceiver({ secrets, maxSkewSecs: 300, timestampHeader: sandbox.webhook!.timestampHeader, signatureHeader: sandbox.webhook!.signatureHeader, store })
   */
  timestampHeader: string;
  /**
   * The header the signature comes in: the `signatureHeader` the webhook was made with
   * (`X-Webhook-Signature` when none was given), kept in a data file until a later start gives
   * another.
   *
   * @example
   * sandbox.webhook?.signatureHeader // 'X-Webhook-Signature'
   */
  signatureHeader: string;
}

/**
 * The authoritative facts of a payment (`GET /v1/payments/{payment_id}`); the `data` of
 * its events carries the same fields but `consumer_access`.
 *
 * @example
 * const view: SandboxPaymentView = await sandbox.pay(paymentId, '12800'); // view.status === 'paid'
 */
export interface SandboxPaymentView {
  /**
   * The payment's id.
   *
   * @example
   * view.payment_id // 'pay_...'
   */
  payment_id: string;
  /**
   * The merchant's order reference; absent (never `null`) when none was given.
   *
   * @example
   * view.order_ref // 'order-1234', or undefined
   */
  order_ref?: string;
  /**
   * The source amount of the creation, exactly as sent.
   *
   * @example
   * view.source_amount // { kind: 'fiat', currency: 'USD', amount_raw: '12800' }
   */
  source_amount: SourceAmount;
  /**
   * The status.
   *
   * @example
   * if (view.status === 'partially_paid') askForTheRest();
   */
  status: SandboxPaymentStatus;
  /**
   * 1 at creation, one more at each change: a JSON number while it is a safe integer, a
   * digit string beyond.
   *
   * @example
   * String(view.status_version) // '3'
   */
  status_version: number | string;
  /**
   * The total received so far, in the smallest unit (`'0'` when nothing).
   *
   * @example
   * view.amount_received_raw // '6400'
   */
  amount_received_raw: string;
  /**
   * The checkout origin: the one the creation named, else the sandbox's public URL
   * (`publicUrl` when given, else the base URL).
   *
   * @example
   * view.checkout_origin // 'http://127.0.0.1:4010'
   */
  checkout_origin: string;
  /**
   * When the payment expires if still payable (an ISO 8601 time, one hour after creation).
   *
   * @example
   * new Date(view.expires_at)
   */
  expires_at: string;
  /**
   * Whether the customer's checkout is enabled (`DELETE .../consumer-access` turns it off).
   *
   * @example
   * view.consumer_access // true
   */
  consumer_access: boolean;
}

/**
 * One attempt of one delivery, as the webhook log (`GET /sandbox/deliveries`) lists it.
 *
 * @example
 * const exhausted = (await sandbox.deliveries()).filter((a: DeliveryAttempt) => a.outcome === 'exhausted');
 */
export interface DeliveryAttempt {
  /**
   * The attempt's number in the log (1, 2, 3...).
   *
   * @example
   * attempt.seq // 7
   */
  seq: number;
  /**
   * The delivery it belongs to: an event's first delivery, a replay or a duplicate each
   * have their own, with their own attempts.
   *
   * @example
   * attempt.delivery_id // 'dlv_3'
   */
  delivery_id: string;
  /**
   * `event` (the event's own delivery), `replay` (queued by a replay), `duplicate`
   * (duplicateRate) or `overlap` (the request in flight when a rotated secret was activated:
   * the event of the last attempt once more, its first attempt signed with the old secret).
   *
   * @example
   * attempt.kind // 'replay'
   */
  kind: 'event' | 'replay' | 'duplicate' | 'overlap';
  /**
   * The event delivered.
   *
   * @example
   * attempt.event_id // 'evt_...'
   */
  event_id: string;
  /**
   * Its payment.
   *
   * @example
   * attempt.payment_id // 'pay_...'
   */
  payment_id: string;
  /**
   * The event's status_version (a number while safe, else digits).
   *
   * @example
   * attempt.status_version // 3
   */
  status_version: number | string;
  /**
   * The attempt's number within its delivery, from 1.
   *
   * @example
   * attempt.attempt // 2
   */
  attempt: number;
  /**
   * When the attempt was answered (or failed), ISO 8601.
   *
   * @example
   * attempt.at // '2026-01-01T12:00:00.000Z'
   */
  at: string;
  /**
   * The delivery timestamp it was signed with (Unix seconds, as sent).
   *
   * @example
   * attempt.timestamp // '1767268800'
   */
  timestamp: string;
  /**
   * The receiver's HTTP status, when it answered.
   *
   * @example
   * attempt.status // 503
   */
  status?: number;
  /**
   * The status's class (`classifyDeliveryResponse`), when it answered.
   *
   * @example
   * attempt.classification // 'retry'
   */
  classification?: 'acknowledged' | 'retry' | 'permanent_failure';
  /**
   * The start of the receiver's answer body, when it answered: text, at most 200 characters
   * (then `...`), control characters as spaces, the attempt's signature and the secret masked
   * as `***`; `''` for an empty body.
   *
   * @example
   * attempt.answer // '{"error":"signature_mismatch"}'
   */
  answer?: string;
  /**
   * Why there was no answer: a network error code (`ECONNREFUSED`, `ECONNRESET`...;
   * `request_failed` or `connection_failed` when Node gave none), `timeout`, or `invalid_status`
   * (the receiver answered a status outside 100-599, counted as a network failure).
   *
   * @example
   * attempt.error // 'ECONNREFUSED'
   */
  error?: string;
  /**
   * What followed: `acknowledged` (2xx), `retrying`, `failed_permanently` (never retried:
   * 3xx and other 4xx) or `exhausted` (retryable, but the delays are used up).
   *
   * @example
   * attempt.outcome // 'retrying'
   */
  outcome: 'acknowledged' | 'retrying' | 'failed_permanently' | 'exhausted';
  /**
   * With `retrying`: the delay before the next attempt.
   *
   * @example
   * attempt.next_attempt_in_ms // 2000
   */
  next_attempt_in_ms?: number;
}

/**
 * A delivery queued and not finished (waiting for its turn, its hold or its next attempt).
 *
 * @example
 * const waiting: PendingDelivery[] = await sandbox.pendingDeliveries();
 */
export interface PendingDelivery {
  /**
   * The delivery.
   *
   * @example
   * pending.delivery_id // 'dlv_4'
   */
  delivery_id: string;
  /**
   * The event it delivers.
   *
   * @example
   * pending.event_id // 'evt_...'
   */
  event_id: string;
  /**
   * Its payment.
   *
   * @example
   * pending.payment_id // 'pay_...'
   */
  payment_id: string;
  /**
   * `event`, `replay`, `duplicate` or `overlap` (as {@link DeliveryAttempt.kind}).
   *
   * @example
   * pending.kind // 'event'
   */
  kind: 'event' | 'replay' | 'duplicate' | 'overlap';
  /**
   * The number of its next attempt.
   *
   * @example
   * pending.next_attempt // 2
   */
  next_attempt: number;
  /**
   * When it may be attempted (ISO 8601); without shuffle it also waits for its payment's
   * earlier deliveries.
   *
   * @example
   * pending.due_at
   */
  due_at: string;
  /**
   * Whether an attempt is under way.
   *
   * @example
   * pending.in_flight // false
   */
  in_flight: boolean;
}

/**
 * An event the sandbox emitted (`GET /sandbox/events`).
 *
 * @example
 * const [first]: SandboxEvent[] = await sandbox.events(paymentId);
 */
export interface SandboxEvent {
  /**
   * The event's id.
   *
   * @example
   * event.event_id // 'evt_...'
   */
  event_id: string;
  /**
   * Its payment.
   *
   * @example
   * event.payment_id // 'pay_...'
   */
  payment_id: string;
  /**
   * Its number in the sandbox, in the order events occurred (what the seed's choices are
   * drawn by).
   *
   * @example
   * event.number // 12
   */
  number: number;
  /**
   * The status it announces.
   *
   * @example
   * event.status // 'confirming'
   */
  status: SandboxPaymentStatus;
  /**
   * Its status_version (a number while safe, else digits).
   *
   * @example
   * event.status_version // 2
   */
  status_version: number | string;
  /**
   * When it occurred (ISO 8601), as its envelope's `occurred_at`.
   *
   * @example
   * event.occurred_at
   */
  occurred_at: string;
  /**
   * The envelope exactly as every attempt and replay sends it (UTF-8 JSON).
   *
   * @example
   * JSON.parse(event.body).data.status
   */
  body: string;
}

/**
 * A new signing secret from a rotation: pending until activated.
 *
 * @example
 * const { secret }: RotatedSecret = await sandbox.rotate();
 */
export interface RotatedSecret {
  /**
   * The webhook's `resource_id`.
   *
   * @example
   * rotated.resource_id // 'we_...'
   */
  resource_id: string;
  /**
   * The new secret, returned once: save it, and let the receiver accept it as `pending`.
   *
   * @example
   * secrets: [{ secret: active, kind: 'active' }, { secret: rotated.secret, kind: 'pending' }]
   */
  secret: string;
  /**
   * Always `pending`.
   *
   * @example
   * rotated.secret_kind // 'pending'
   */
  secret_kind: 'pending';
}

/**
 * The answer of an activation: the rotated secret is now the active one.
 *
 * @example
 * const { secret_kind }: ActivatedSecret = await sandbox.activate(); // 'active'
 */
export interface ActivatedSecret {
  /**
   * The webhook's `resource_id`.
   *
   * @example
   * activated.resource_id // 'we_...'
   */
  resource_id: string;
  /**
   * Always `active`.
   *
   * @example
   * activated.secret_kind // 'active'
   */
  secret_kind: 'active';
}

/**
 * The answer of a replay: queued, which proves nothing about its acceptance (see the log).
 *
 * @example
 * const { replay }: QueuedReplay = await sandbox.replay(eventId); // 'queued'
 */
export interface QueuedReplay {
  /**
   * The event queued again (same id, same bytes).
   *
   * @example
   * queued.event_id // 'evt_...'
   */
  event_id: string;
  /**
   * Always `queued`.
   *
   * @example
   * queued.replay // 'queued'
   */
  replay: 'queued';
}

/**
 * A running sandbox: its address and credentials, and the dashboard's and the customer's
 * actions (the `/sandbox` endpoints) as methods. Each method rejects with a
 * {@link SandboxError} where the endpoint answers a refusal.
 *
 * @example
 * const sandbox = await startSandbox({ port: 0, webhookUrl });
 * const api = { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey };
 * await sandbox.close();
 */
export interface Sandbox {
  /**
   * The base URL of the API (`/v1/...`), where the sandbox listens; also the checkout origin
   * unless {@link SandboxOptions.publicUrl} names another.
   *
   * @example
   * await fetch(`${sandbox.baseUrl}/v1/store`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } });
   */
  readonly baseUrl: string;
  /**
   * The origin a browser opens for checkout: {@link SandboxOptions.publicUrl} as its origin,
   * else the base URL.
   *
   * @example
   * const sandbox = await startSandbox({ host: '0.0.0.0', publicUrl: 'http://192.168.1.20:4010' });
   * sandbox.publicUrl; // 'http://192.168.1.20:4010': checkout_url starts with it
   */
  readonly publicUrl: string;
  /**
   * What `JSON.stringify` (and `util.inspect`, `console.log`) show of the handle: its
   * addresses, the webhook's id and URL, the seed; never the API key or the signing secret,
   * which are read by name ({@link Sandbox.apiKey}, {@link Sandbox.webhook}).
   *
   * @example
   * console.log(JSON.stringify(sandbox)); // {"baseUrl":"http://127.0.0.1:4010",...,"apiKey":"(hidden: read sandbox.apiKey)",...}
   */
  toJSON(): object;
  /**
   * A test API key with the three standard scopes (`payment:write`, `payment:read`,
   * `webhook:bootstrap`); the same across restarts on a data file.
   *
   * @example
   * headers: { authorization: `Bearer ${sandbox.apiKey}` }
   */
  readonly apiKey: string;
  /**
   * The webhook, with its active secret as it is when read: the one configured from
   * `webhookUrl`, the one a data file kept (a sandbox started again on it without
   * `webhookUrl`), or one set up through `POST /v1/webhook-endpoints`; `undefined` while there
   * is none.
   *
   * @example
   * const secret = sandbox.webhook?.secret;
   */
  readonly webhook: SandboxWebhook | undefined;
  /**
   * The seed of the duplicate and shuffle choices (the one given, or the random one drawn):
   * start again with it to make the same choices.
   *
   * @example
   * console.log(`sandbox seed ${sandbox.seed}`);
   */
  readonly seed: number;
  /**
   * Whether the state is in a data file (true) or in memory.
   *
   * @example
   * if (!sandbox.durable) console.log('state in memory: gone at close');
   */
  readonly durable: boolean;
  /**
   * The customer pays `amountRaw` (`POST /sandbox/payments/{id}/pay`): `confirming`, then
   * `paid`, `partially_paid` or `overpaid` by the total received; two events. With
   * `{ hold: true }` the payment stays `confirming` (one event) until {@link settle}: while
   * it is held, the service answers `confirming`, and it cannot be paid, reviewed,
   * cancelled or expired. Rejects with `payment_not_found`, `consumer_access_disabled`,
   * `amount_raw_invalid` or `payment_not_payable`.
   *
   * @example
   * const view = await sandbox.pay(paymentId, '6400'); // partially_paid
   * const held = await sandbox.pay(otherId, '12800', { hold: true }); // confirming
   */
  pay(paymentId: string, amountRaw: string, options?: { hold?: boolean | undefined }): Promise<SandboxPaymentView>;
  /**
   * Completes the confirmations of a payment paid with `{ hold: true }`
   * (`POST /sandbox/payments/{id}/settle`): `paid`, `partially_paid` or `overpaid` by the
   * total received, one event. Rejects with `payment_not_found` or `payment_not_confirming`.
   *
   * @example
   * await sandbox.pay(paymentId, '12800', { hold: true });
   * const view = await sandbox.settle(paymentId); // paid
   */
  settle(paymentId: string): Promise<SandboxPaymentView>;
  /**
   * Holds the payment for review (`POST /sandbox/payments/{id}/review`): `review_required`,
   * one event. Rejects with `payment_not_found` or `payment_not_reviewable`.
   *
   * @example
   * await sandbox.review(paymentId);
   */
  review(paymentId: string): Promise<SandboxPaymentView>;
  /**
   * Expires the payment now (`POST /sandbox/payments/{id}/expire`): `expired`, one event.
   * Rejects with `payment_not_found` or `payment_not_expirable`.
   *
   * @example
   * await sandbox.expire(paymentId);
   */
  expire(paymentId: string): Promise<SandboxPaymentView>;
  /**
   * Queues an event again for the webhook (`POST /sandbox/events/{id}/replay`): the same
   * `event_id` and bytes, a new timestamp and signature. Rejects with `event_not_found` or
   * `webhook_not_found`.
   *
   * @example
   * await sandbox.replay(eventId);
   */
  replay(eventId: string): Promise<QueuedReplay>;
  /**
   * Rotates the webhook's secret (`POST /sandbox/webhook/rotate`): a pending secret,
   * returned once; deliveries stay signed with the active one. Rejects with
   * `webhook_not_found`.
   *
   * @example
   * const { secret: next } = await sandbox.rotate();
   */
  rotate(): Promise<RotatedSecret>;
  /**
   * Activates the rotated secret (`POST /sandbox/webhook/activate`): from now on only it
   * signs, retries of older events included. The request in flight at the switch, which the
   * spec's overlap exists for, follows: the event of the last attempt once more (kind
   * `overlap`), signed with the old secret at the activation, at once, so a receiver must
   * still accept the old secret as `retiring`. Rejects with `webhook_not_found` or `no_pending_secret`.
   *
   * @example
   * await sandbox.activate();
   */
  activate(): Promise<ActivatedSecret>;
  /**
   * The webhook log (`GET /sandbox/deliveries`): every attempt so far, in order.
   *
   * @example
   * for (const a of await sandbox.deliveries()) console.log(a.event_id, a.attempt, a.status ?? a.error, a.outcome);
   */
  deliveries(): Promise<DeliveryAttempt[]>;
  /**
   * The deliveries queued and not finished (`pending` of `GET /sandbox/deliveries`).
   *
   * @example
   * const queued = (await sandbox.pendingDeliveries()).length;
   */
  pendingDeliveries(): Promise<PendingDelivery[]>;
  /**
   * Waits until no delivery is queued or in flight (each acknowledged, failed for good or out
   * of retries), then resolves the webhook log, as `deliveries()`: what a test awaits before
   * asserting on what its receiver recorded.
   *
   * @param options `timeoutMs`: how long to wait at most (default 30000, at most 3600000).
   * @throws {CryptoPayError} `invalid_argument` for an option it cannot use.
   * @throws {SandboxError} `deliveries_pending` (status 504, and `pending`, the deliveries
   *   still queued, as `pendingDeliveries()` lists them) when some are still queued after
   *   `timeoutMs`: the message names the one first in line (in flight, or retrying, with the
   *   receiver's last answer). A receiver that is down keeps its deliveries queued through
   *   `retryDelaysMs` (31 s by default). Under a test runner that stops a test sooner (Vitest
   *   and Jest: 5 s), give a `timeoutMs` below its limit, or the runner's timeout hides this.
   * @throws {SandboxError} `sandbox_closed` when `close()` is called while it waits.
   * @example
   * await sandbox.pay(paymentId, '12800');
   * const log = await sandbox.delivered({ timeoutMs: 10_000 });
   */
  delivered(options?: { timeoutMs?: number | undefined }): Promise<DeliveryAttempt[]>;
  /**
   * Every event emitted (`GET /sandbox/events`), in the order they occurred; one payment's
   * when `paymentId` is given.
   *
   * @example
   * const last = (await sandbox.events(paymentId)).at(-1);
   */
  events(paymentId?: string): Promise<SandboxEvent[]>;
  /**
   * Issues an API key with the given scopes (`POST /sandbox/keys`), to test a restricted
   * key. Rejects with `request_invalid` for a scope that is not one of the three.
   *
   * @example
   * const readOnly = await sandbox.issueKey(['payment:read']);
   */
  issueKey(scopes: readonly ('payment:write' | 'payment:read' | 'webhook:bootstrap')[]): Promise<string>;
  /**
   * Revokes an API key (`POST /sandbox/keys/revoke`), the last step of a key replacement:
   * every request with it is then 401 `unauthorized` (across restarts with `data`). The
   * handle's own `apiKey` may be revoked too (a later start with the same `data` issues
   * another). Rejects with `key_not_found` for a key this sandbox does not hold.
   *
   * @example
   * const next = await sandbox.issueKey(['payment:write', 'payment:read']);
   * // deploy `next`, check a request with it, then:
   * await sandbox.revokeKey(oldKey);
   */
  revokeKey(key: string): Promise<void>;
  /**
   * Stops listening and delivering: attempts in flight are cut (and stay queued in a data
   * file, attempted again at the next start). A `delivered()` still waiting rejects at once,
   * and every method called after it that changes or waits, with `SandboxError`
   * `sandbox_closed`; `deliveries()`, `pendingDeliveries()` and `events()` still read what
   * happened. Idempotent.
   *
   * @example
   * after(() => sandbox.close());
   */
  close(): Promise<void>;
}

/**
 * Starts the sandbox: a local, stateful stand-in for the payment service (its `/v1` API,
 * checkout, and signed `payment.updated` deliveries with the service's retry rules), for
 * tests and development with no account and no network. Node only.
 *
 * @param options What `cryptopay-verify sandbox`'s flags say; all optional.
 * @throws {CryptoPayError} `invalid_argument` for an option it cannot use; the core's code
 *   for a pricing source (`store_source_invalid`), a website origin
 *   (`origin_invalid`, `origin_not_https`) or a webhook URL (`webhook_url_not_https`...)
 *   it refuses. It also rejects when the port cannot be listened on (`EADDRINUSE`: give
 *   `port: 0` for a free one), and, with `data`, when better-sqlite3 is not installed (an
 *   Error whose code is driver_missing, saying what to install), when another sandbox is
 *   using the file (code data_in_use: one file per sandbox) or the file cannot be opened.
 * @example
 * import { startSandbox } from 'cryptopay-verify/sandbox';
 * const sandbox = await startSandbox({ port: 0, webhookUrl: 'http://127.0.0.1:8787/webhook', retryDelaysMs: [100, 200] });
 * console.log(sandbox.baseUrl, sandbox.apiKey, sandbox.webhook?.secret);
 */
export declare function startSandbox(options?: SandboxOptions): Promise<Sandbox>;
