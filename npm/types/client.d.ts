// Types of cryptopay-verify/client. Hand-written; self-contained like index.d.ts (no DOM or
// Node global is named), so a project compiled with `lib: ["es2022"]` and `types: []`
// type-checks them.

import type { PaymentView, SourceAmount } from 'cryptopay-verify';

/**
 * The `AbortSignal` of the runtime's lib when the project has one (DOM or `@types/node`), so
 * that a {@link FetchLike} may hand its init to the global `fetch`; else what the client reads.
 *
 * @example
 * const signal: HostAbortSignal = AbortSignal.timeout(1000);
 */
export type HostAbortSignal = typeof globalThis extends { AbortSignal: { prototype: infer S } } ? S : { readonly aborted: boolean };

/**
 * The bytes the client sends: `TextEncoder#encode`'s type where the project's lib has one
 * (a `Uint8Array` over an `ArrayBuffer`, which the global `fetch` takes as a body), else `Uint8Array`.
 *
 * @example
 * const body: RequestBytes = new TextEncoder().encode('{}');
 */
export type RequestBytes = typeof globalThis extends { TextEncoder: { prototype: { encode(...args: never[]): infer B } } } ? B : Uint8Array;

/**
 * The `fetch` the client calls: the global one by default (Node 18+, Bun, Deno, Workers); give
 * your own to add a proxy, tracing or a test double. It is called with a URL string and an
 * init holding `method`, `headers`, `body` (bytes, or null), `signal` and `redirect: 'manual'`, which
 * the global `fetch` takes as it is. The client keeps its own deadline (`timeoutMs`) whether or
 * not it honours `signal`, and reads at most 1 MiB of an answer (from `body` when it is a
 * stream, else `text()`).
 *
 * @example
 * const traced: FetchLike = (url, init) => { console.log(init.method, url); return fetch(url, init); };
 * const down: FetchLike = async () => ({ status: 503, text: async () => 'busy' }); // a test double
 */
export type FetchLike = (url: string, init: {
  method: string;
  headers: Record<string, string>;
  body: RequestBytes | null;
  signal: HostAbortSignal;
  redirect: 'manual';
}) => Promise<{
  status: number;
  text(): Promise<string>;
  body?: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>; cancel(): Promise<void> } } | null | undefined;
  headers?: { get(name: string): string | null } | undefined;
}>;

/**
 * What {@link createClient} takes. Unknown keys are refused (`invalid_argument`).
 *
 * @example
 * const options: ClientOptions = { baseUrl: 'https://api.example.com', apiKey: process.env.CRYPTOPAY_API_KEY };
 */
export interface ClientOptions {
  /**
   * The service's base address (`{base_url}`): `https://`, or `http://` to a local sandbox (a
   * loopback host, `host.docker.internal`, or a name under `.test` or `.localhost` such as a
   * Compose alias `sandbox.test`); no credentials, query or fragment. Paths under `/v1/` are added to it
   * (one ending in `/v1` is refused).
   * `undefined` compiles (an environment variable) and is refused at run time.
   *
   * @example
   * baseUrl: 'https://api.example.com'
   */
  baseUrl: string | undefined;
  /**
   * The API key (Integrations > API keys), sent as `Authorization: Bearer <key>` and nowhere
   * else: never in a URL, an error or a message. The key itself: one starting with `Bearer ` or
   * wrapped in quotes is refused. `undefined` compiles and is refused at run time.
   *
   * @example
   * apiKey: process.env.CRYPTOPAY_API_KEY
   */
  apiKey: string | undefined;
  /**
   * The fetch to call. Default: the runtime's global `fetch`. The global one itself (it is a
   * {@link FetchLike}), or one of yours.
   *
   * @example
   * fetch: (url, init) => { console.log(init.method, url); return fetch(url, init); }
   */
  fetch?: FetchLike | undefined;
  /**
   * How long one attempt may take, answer read included, in milliseconds (1 to 600000).
   * Default 10000: with the default `retries`, a stalled service holds a request about 42 s.
   * `createPayment` that first reads the store (its first call, then once its copy is five
   * minutes old) sends two requests, each with that bound. For a request a customer waits on
   * (a checkout route), a client of its own with less.
   *
   * @example
   * // The checkout route's client: gives up after about 8 s a request (16 s for a
   * // createPayment that reads the store first).
   * const checkoutApi = createClient({ baseUrl, apiKey, timeoutMs: 4000, retries: 1 });
   */
  timeoutMs?: number | undefined;
  /**
   * How many times a request is sent again after a timeout, a network error, 408, 425, 429 or
   * a 5xx (0 to 10), with the same Idempotency-Key and the same body bytes, after about 0.25,
   * 0.5, 1 ... seconds (each wait half to all of that, at random; a Retry-After on any of those
   * answers, in seconds or as a date, added when it is 30 s or less: a longer one ends the
   * retries, see `retryAfterMs`). Default 3.
   *
   * @example
   * retries: 5
   */
  retries?: number | undefined;
  /**
   * The name this client's account has in the receiver's `secrets` (several integrations):
   * `createPayment(..., { record: receiver })` records its orders under it. `null` or left
   * out: none (a receiver with one secret).
   *
   * @example
   * integration: 'shop-eu'
   */
  integration?: string | null | undefined;
}

/**
 * The codes the client gives a {@link CryptoPayApiError} itself: no answer (`timeout`,
 * `network_error`), an answer that is no ErrorResponse (`http_<status>`) or not what the
 * endpoint answers (`invalid_response`), a creation answered with another payment
 * (`created_payment_mismatch`), an order the receiver could not record (`record_failed`), a
 * webhook setup answered without its secret (`webhook_secret_not_returned`). The service's
 * own codes are passed through as it sent them.
 *
 * @example
 * const code: ClientErrorCode = 'record_failed';
 */
export type ClientErrorCode =
  | 'timeout'
  | 'network_error'
  | 'invalid_response'
  | 'created_payment_mismatch'
  | 'record_failed'
  | 'webhook_secret_not_returned'
  | `http_${number}`;

/**
 * A failure the service answered, or no answer: `status` 0 for a timeout or a network error.
 * The message never holds the API key or a secret (a service echoing one has it masked).
 *
 * @example
 * try { await api.getPayment(id); } catch (error) { if (error instanceof CryptoPayApiError && error.retryable) retryLater(); }
 */
export declare class CryptoPayApiError extends Error {
  /**
   * Builds one (the client does; exported for `instanceof` and tests).
   *
   * @param details The status, code, message, whether it may be retried, the raw text.
   * @example
   * new CryptoPayApiError({ status: 503, code: 'http_503', message: 'http_503: the service answered 503', retryable: true });
   */
  constructor(details: ApiErrorDetails);
  /**
   * Always `'CryptoPayApiError'`.
   *
   * @example
   * error.name // 'CryptoPayApiError'
   */
  readonly name: 'CryptoPayApiError';
  /**
   * The HTTP status, or 0 when no whole answer came (`timeout`, `network_error`: an answer
   * whose body broke off too).
   *
   * @example
   * if (error.status === 404) markUnknown(id);
   */
  readonly status: number;
  /**
   * The ErrorResponse's `error.code` (`payment_not_found`, `insufficient_scope`,
   * `idempotency_key_reused`, ...) when the service sent one; otherwise `http_<status>`,
   * `timeout`, `network_error`, `invalid_response`, `created_payment_mismatch`,
   * `record_failed` or `webhook_secret_not_returned` ({@link ClientErrorCode}, which an
   * editor offers; any other string is the service's own code).
   *
   * @example
   * if (error.code === 'payment_not_cancellable') showPaid();
   */
  readonly code: ClientErrorCode | (string & {});
  /**
   * Whether the same request may succeed later (a timeout, a network error other than the
   * runtime's own refusal to send it (Deno without `--allow-net` for the service), 408, 425, 429,
   * 5xx; an order not recorded, `record_failed`, unless the receiver refused it as
   * `invalid_argument`, which fails the same way again; a creation whose answer could not be read, or answered 409
   * after an attempt that got no answer; a GET answered 2xx with text that is not JSON, a
   * proxy's page say): for a creation, send it again with the same
   * `idempotencyKey` (the error carries it), never under a new one. Another refusal after an
   * attempt that got no answer (a revoked key, 401) is not retryable; its message says that
   * the payment may exist, to create it once fixed under the same key.
   *
   * @example
   * if (error.retryable) await queue.retry(job);
   */
  readonly retryable: boolean;
  /**
   * The answer's text when the service answered with an error status, not 2xx (at most 2000
   * characters, the API key, secrets and URL credentials masked): the ErrorResponse as sent, or
   * a proxy's page.
   *
   * @example
   * console.error(error.status, error.text);
   */
  readonly text?: string | undefined;
  /**
   * The service's id of the request, from its `Request-Id` or `X-Request-Id` header when it
   * answered with an error status (not 2xx) and sent one (a printable token of at most 128 characters): quote it to the service's support.
   *
   * @example
   * console.error(`${error.code} (request ${error.requestId ?? 'unknown'})`);
   */
  readonly requestId?: string | undefined;
  /**
   * For `createPayment` and `bootstrapWebhook`: the Idempotency-Key of this intent, to send
   * again.
   *
   * @example
   * await api.createPayment(input, { idempotencyKey: error.idempotencyKey });
   */
  readonly idempotencyKey?: string | undefined;
  /**
   * For a retryable status with a Retry-After (seconds or an HTTP date): the milliseconds the
   * service asked to wait, at most a day (86,400,000: a timer holds it). One over 30 s ends
   * the client's retries at once (sooner would be refused again): wait that long, or let your
   * queue retry later.
   *
   * @example
   * if (error.retryAfterMs !== undefined) await new Promise((r) => setTimeout(r, error.retryAfterMs));
   */
  readonly retryAfterMs?: number | undefined;
  /**
   * For `created_payment_mismatch` and `record_failed`: the payment the service created.
   *
   * @example
   * await api.cancelPayment(error.paymentId!);
   */
  readonly paymentId?: string | undefined;
  /**
   * For `webhook_secret_not_returned`: the webhook's resource_id.
   *
   * @example
   * await api.verifyWebhookBinding(error.resourceId!, savedSecret);
   */
  readonly resourceId?: string | undefined;
}

/**
 * What {@link CryptoPayApiError}'s constructor takes.
 *
 * @example
 * const details: ApiErrorDetails = { status: 0, code: 'timeout', message: 'timeout: no answer', retryable: true };
 */
export interface ApiErrorDetails {
  /**
   * The HTTP status, or 0.
   *
   * @example
   * status: 409
   */
  status: number;
  /**
   * The code.
   *
   * @example
   * code: 'idempotency_key_reused'
   */
  code: string;
  /**
   * The message (never a key or a secret).
   *
   * @example
   * message: 'idempotency_key_reused: the service answered 409'
   */
  message: string;
  /**
   * Whether it may be retried.
   *
   * @example
   * retryable: false
   */
  retryable: boolean;
  /**
   * The answer's raw text.
   *
   * @example
   * text: '<html>Bad Gateway</html>'
   */
  text?: string | undefined;
  /**
   * What caused it.
   *
   * @example
   * cause: networkError
   */
  cause?: unknown;
  /**
   * Anything else to carry (`idempotencyKey`, `paymentId`, `resourceId`).
   *
   * @example
   * idempotencyKey: 'order-42-create'
   */
  [key: string]: unknown;
}

/**
 * The store's view (`GET /v1/store`, MerchantStoreView): its `primary_source`, which prices
 * every payment, and the other fields as the service sends them.
 *
 * @example
 * const { primary_source }: StoreView = await api.getStore();
 */
export interface StoreView {
  /**
   * The configured pricing source: `kind`, `ref`, `decimals`.
   *
   * @example
   * primary_source: { kind: 'fiat', ref: 'USD', decimals: 2 }
   */
  primary_source: { kind: 'fiat' | 'crypto'; ref: string; decimals: number };
  /**
   * Every other field (the website domain...), as sent.
   *
   * @example
   * store['website_origin']
   */
  [key: string]: unknown;
}

/**
 * A payment to create: `amount` (a decimal string, priced from the store's primary source with
 * the core's exact arithmetic: `'128.00'` in USD is `amount_raw` `'12800'`), or a ready
 * `source_amount`, exactly one of them; `order_ref` and `checkout_origin` as the service takes
 * them.
 *
 * @example
 * const input: CreatePaymentInput = { order_ref: 'order-42', amount: '128.00', currency: 'USD' };
 */
export type CreatePaymentInput = CreatePaymentByAmount | CreatePaymentBySourceAmount;

/**
 * What every creation may name besides its price.
 *
 * @example
 * const common: CreatePaymentCommon = { order_ref: 'order-42', checkout_origin: 'https://shop.example' };
 */
export interface CreatePaymentCommon {
  /**
   * Your order's reference (not a unique key for the service).
   *
   * @example
   * order_ref: 'order-42'
   */
  order_ref?: string | undefined;
  /**
   * For Embedded Checkout: your website's HTTPS origin, as permitted by Website (optional).
   *
   * @example
   * checkout_origin: 'https://shop.example'
   */
  checkout_origin?: string | undefined;
}

/**
 * A payment priced from a decimal amount.
 *
 * @example
 * const input: CreatePaymentByAmount = { order_ref: 'order-42', amount: '128.00', currency: 'USD' };
 */
export interface CreatePaymentByAmount extends CreatePaymentCommon {
  /**
   * The price as a decimal string, never a number (`'128.00'`, `'0.5'`); more decimals than
   * the store's are refused (`amount_too_precise`), never rounded. `undefined` compiles (a
   * value read at run time) and is refused then.
   *
   * @example
   * amount: '128.00'
   */
  amount: string | undefined;
  /**
   * The fiat currency `amount` is in. When the store's primary source is another (changed in
   * the dashboard), the creation is refused before anything is sent
   * (`source_currency_mismatch`, or `source_kind_mismatch` for a crypto source), never priced
   * in it: without it, `'128.00'` meant in dollars is priced in whatever the store names.
   *
   * @example
   * currency: 'USD'
   */
  currency?: string | undefined;
  /**
   * The crypto pricing reference `amount` is in, as `currency` for a fiat one
   * (`source_pricing_ref_mismatch`, or `source_kind_mismatch` for a fiat source).
   *
   * @example
   * pricing_ref: 'BTC'
   */
  pricing_ref?: string | undefined;
  /**
   * Not with `amount`.
   *
   * @example
   * // source_amount is left out
   */
  source_amount?: never;
}

/**
 * A payment whose SourceAmount is built already.
 *
 * @example
 * const input: CreatePaymentBySourceAmount = { source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '12800' } };
 */
export interface CreatePaymentBySourceAmount extends CreatePaymentCommon {
  /**
   * The SourceAmount, built already (checked against the store before anything is sent).
   *
   * @example
   * source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '12800' }
   */
  source_amount: SourceAmount;
  /**
   * Not with `source_amount`.
   *
   * @example
   * // amount is left out
   */
  amount?: never;
  /**
   * Not with `source_amount` (it names its own).
   *
   * @example
   * // currency is left out
   */
  currency?: never;
  /**
   * Not with `source_amount` (it names its own).
   *
   * @example
   * // pricing_ref is left out
   */
  pricing_ref?: never;
}

/**
 * Where `createPayment` records the order: a receiver (its `recordCreated`).
 *
 * @example
 * const record: OrderRecorder = receiver;
 */
export interface OrderRecorder {
  /**
   * Stores the created payment's order.
   *
   * @example
   * await receiver.recordCreated(created, { integration: 'shop-eu' });
   */
  recordCreated(created: CreatedPaymentResult, options?: { integration?: string | null | undefined }): Promise<unknown>;
}

/**
 * Options of `createPayment`.
 *
 * @example
 * // One key per payment you mean to create: checkout 2 only after checkout 1's payment expired
 * // or was cancelled. A retry of the same creation reuses its key (the client does).
 * const options: CreatePaymentRequestOptions = { idempotencyKey: `order-42-checkout-${checkout}`, record: receiver };
 */
export interface CreatePaymentRequestOptions {
  /**
   * One key per creation intent (1 to 255 visible ASCII characters); generated when left
   * out. A retry of the same intent (after a crash, a `retryable` error) must send the same
   * key: store it with the order before calling, or take it from the error.
   *
   * @example
   * idempotencyKey: `create-${order.id}-${order.paymentAttempt}` // stored with the order
   */
  idempotencyKey?: string | undefined;
  /**
   * A receiver: the order (payment_id, order_ref, the exact source_amount, the client's
   * integration) is recorded once the service answered, for fulfilment to link events to. A
   * receiver whose integrations the client's `integration` does not fit (none named for a
   * receiver of several, an unknown name, a name for a receiver of one) is refused with
   * `invalid_argument` before anything is sent.
   *
   * @example
   * record: receiver
   */
  record?: OrderRecorder | undefined;
}

/**
 * The created payment (CreatedPayment): the service's answer, with the `order_ref` and the
 * exact `source_amount` that were sent.
 *
 * @example
 * const { payment_id }: CreatedPaymentResult = await api.createPayment(
 *   { order_ref: order.id, amount: order.total, currency: 'USD' },
 *   { idempotencyKey: `create-${order.id}-${order.paymentAttempt}`, record: receiver });
 */
export interface CreatedPaymentResult {
  /**
   * The payment's id: store it with the order; open checkout with it.
   *
   * @example
   * hostedCheckoutUrl(checkoutOrigin, created.payment_id)
   */
  payment_id: string;
  /**
   * The `order_ref` sent (`null` when none was sent and the service wrote `null`).
   *
   * @example
   * order_ref: 'order-42'
   */
  order_ref?: string | null | undefined;
  /**
   * The `source_amount` sent.
   *
   * @example
   * source_amount: { kind: 'fiat', currency: 'USD', amount_raw: '12800' }
   */
  source_amount: SourceAmount;
  /**
   * The payment's status_version when the answer has one, exact as a string (as `getPayment`
   * gives it); left out when the answer was not a payment view and the number is beyond what
   * a double holds.
   *
   * @example
   * created.status_version // '1'
   */
  status_version?: string | undefined;
  /**
   * Every other field of the answer, as sent (as exact digits, a number a double cannot hold,
   * when the answer reads as a payment view).
   *
   * @example
   * created['checkout_origin']
   */
  [key: string]: unknown;
}

/**
 * Options of `bootstrapWebhook`.
 *
 * @example
 * const options: BootstrapOptions = { idempotencyKey: 'webhook-setup-1' };
 */
export interface BootstrapOptions {
  /**
   * The Idempotency-Key of the setup; generated when left out.
   *
   * @example
   * idempotencyKey: 'webhook-setup-1'
   */
  idempotencyKey?: string | undefined;
}

/**
 * The binding check's answer (WebhookBindingView), as the service sends it: an object; the
 * fields below where it names them.
 *
 * @example
 * const binding: WebhookBindingView = await api.verifyWebhookBinding(resourceId, savedSecret);
 */
export interface WebhookBindingView {
  /**
   * The webhook's id.
   *
   * @example
   * binding.resource_id // 'we_...'
   */
  resource_id?: string;
  /**
   * The URL deliveries go to.
   *
   * @example
   * binding.url // 'https://shop.example/webhook'
   */
  url?: string;
  /**
   * Which of the webhook's secrets the one sent is: `active` (deliveries are signed with it)
   * or `pending` (rotated, not yet activated).
   *
   * @example
   * if (binding.secret_kind !== 'active') console.warn('the saved secret does not sign deliveries yet');
   */
  secret_kind?: string;
  /**
   * Any other field the service sends.
   *
   * @example
   * binding['created_at']
   */
  [field: string]: unknown;
}

/**
 * The webhook setup's answer (OneTimeSecretResponse): `resource_id` to save, and the signing
 * secret, returned this once: save it in your secret store.
 *
 * @example
 * const { resource_id, secret }: WebhookSetup = await api.bootstrapWebhook('https://shop.example/webhook');
 */
export interface WebhookSetup {
  /**
   * The webhook's identifier.
   *
   * @example
   * resource_id: 'whk_1'
   */
  resource_id: string;
  /**
   * The signing secret (never logged by the package).
   *
   * @example
   * await secrets.put('CRYPTOPAY_WEBHOOK_SECRET', setup.secret);
   */
  secret: string;
  /**
   * Every other field, as sent.
   *
   * @example
   * setup['url']
   */
  [key: string]: unknown;
}

/**
 * The client: the payment service's endpoints for a merchant server. Every method rejects
 * with a {@link CryptoPayApiError} when the service refuses or cannot be reached, and with a
 * `CryptoPayError` for an argument the package refuses before sending.
 *
 * @example
 * const api: Client = createClient({ baseUrl, apiKey });
 */
export interface Client {
  /**
   * `GET /v1/store` (payment:read): the primary source every payment is priced from, and the
   * website domain; `createPayment` keeps the answer for five minutes, and reads it again at once
   * when the kept one refuses a creation (a pricing source changed in the dashboard). A change of
   * `decimals` alone (the same currency or pricing ref) refuses nothing: where the service may
   * change a source's decimals, call `getStore()` before each `createPayment`, which then prices
   * from the answer just read.
   *
   * @example
   * const { primary_source } = await api.getStore();
   */
  getStore(): Promise<StoreView>;
  /**
   * `POST /v1/payments` (payment:write): builds `source_amount` from `amount` with the store's
   * primary source (exactly; read again after five minutes or when it refuses the creation), checks the body (`validateCreatePayment`),
   * sends it with one Idempotency-Key, and after a timeout, a network error, 408, 425, 429 or a
   * 5xx (see `retries`) sends the same bytes with the same key: an identical replay is the same payment, never a second.
   * With `record`, the order is recorded in the receiver once the service answered.
   *
   * @example
   * const created = await api.createPayment({ order_ref: order.id, amount: order.total, currency: 'USD' },
   *   { idempotencyKey: `create-${order.id}-${order.paymentAttempt}`, record: receiver });
   * redirect(hostedCheckoutUrl(checkoutOrigin, created.payment_id));
   */
  createPayment(input: CreatePaymentInput, options?: CreatePaymentRequestOptions): Promise<CreatedPaymentResult>;
  /**
   * `GET /v1/payments/{payment_id}` (payment:read): the authoritative view, read by the core
   * (`status_version` exact, as a string), its text kept as `responseText` for `linkEvent`,
   * `defaultPolicy` and fulfilment's `confirm`.
   *
   * @example
   * const view = await api.getPayment('pay_1');
   * console.log(view.status, view.status_version);
   */
  getPayment(paymentId: string): Promise<PaymentView>;
  /**
   * `POST /v1/payments/{payment_id}/cancel` (payment:write): cancels an open, unexpired
   * payment with no accepted or confirming funds (else `payment_not_cancellable`); a repeat
   * after success reads the current state. Resolves the answer (a view when it reads as one).
   *
   * @example
   * await api.cancelPayment('pay_1');
   */
  cancelPayment(paymentId: string): Promise<unknown>;
  /**
   * `DELETE /v1/payments/{payment_id}/consumer-access` (payment:write): checkout no longer
   * reaches the payment; its status is unchanged, no event is sent.
   *
   * @example
   * await api.disableConsumerAccess('pay_1');
   */
  disableConsumerAccess(paymentId: string): Promise<unknown>;
  /**
   * `POST /v1/webhook-endpoints` (webhook:bootstrap): sets the webhook up (the URL checked as
   * the service does; only against a loopback sandbox, a URL the sandbox delivers to over
   * http as well: a loopback host, a local development name such as `host.docker.internal` or
   * `shop.test`, a one-label Compose service name such as `receiver`, or a private address)
   * and resolves its
   * `resource_id` and signing secret. A repeated setup whose answer has no secret rejects with
   * `webhook_secret_not_returned`, which says to use the saved secret or rotate it.
   *
   * @example
   * const { resource_id, secret } = await api.bootstrapWebhook('https://shop.example/webhook');
   */
  bootstrapWebhook(url: string, options?: BootstrapOptions): Promise<WebhookSetup>;
  /**
   * `POST /v1/webhook-endpoints/{id}/verify` (webhook:bootstrap): checks a saved signing
   * secret; resolves the WebhookBindingView (`secret_kind`: `active` or `pending`; an answer
   * that is not a JSON object is `invalid_response`). The secret is sent in the body only, and
   * masked in any error.
   *
   * @example
   * const { secret_kind } = await api.verifyWebhookBinding(resourceId, process.env.CRYPTOPAY_WEBHOOK_SECRET!);
   */
  verifyWebhookBinding(resourceId: string, secret: string): Promise<WebhookBindingView>;
}

/**
 * Creates a client of the payment service's API for a merchant server. Refuses to run where
 * `document` exists: an API key must never be in browser code.
 *
 * @param options The base URL, the API key, and optionally fetch, the timeout and the retries.
 * @throws {CryptoPayError} `invalid_argument`: in a browser, an unknown option, a base URL that
 * is not HTTPS (or loopback http), an API key that is missing or has white space around it, a
 * timeout or retry count out of range.
 * @example
 * import { createClient } from 'cryptopay-verify/client';
 * const api = createClient({ baseUrl: process.env.CRYPTOPAY_BASE_URL, apiKey: process.env.CRYPTOPAY_API_KEY });
 * const created = await api.createPayment({ order_ref: order.id, amount: order.total, currency: 'USD' },
 *   { idempotencyKey: `create-${order.id}-${order.paymentAttempt}`, record: receiver });
 */
export declare function createClient(options: ClientOptions): Client;
