// Types of cryptopay-verify.
//
// Self-contained: they name no DOM, Node or WebAssembly global, so a project compiled with
// `lib: ["es2022"]` and `types: []` (no DOM, no @types/node) type-checks them. Wherever a
// global type would have been convenient (a Fetch `Response`, a `URL`, a
// `WebAssembly.Module`), the parameter is typed by the shape the package actually uses, so
// the global types are still accepted where a project has them.
//
// `make pkg` writes the documented `ErrorCode` union below from the Rust core's docs
// (src/error/kind.rs, by scripts/error-codes-dts.mjs); the same file is shipped as index.d.ts (ESM)
// and index.d.cts (CommonJS).

// @generated ErrorCode: written here by scripts/error-codes-dts.mjs from src/error/kind.rs

/**
 * The error every function of the package throws (and `init()` rejects with). `code` is
 * stable and meant for programs; `message` is meant for people: it names the problem and
 * the fix, and never contains a secret, a signature, a byte of the body or URL credentials.
 * A delivery refused by `verifySignature` / `verifyWebhook` (forged, stale, malformed) is an
 * expected outcome for input from the network, so its error is built without a stack trace
 * (in V8: Node, Deno, Workers, Chromium; in JavaScriptCore: Bun): its `stack` is its first
 * line only (`CryptoPayError: <message>`, the message starting with its code). Errors of the caller's own making (a wrong
 * argument, a parsed body) keep their stack.
 *
 * @example
 * ```ts
 * import { CryptoPayError, verifyWebhook } from 'cryptopay-verify';
 *
 * try {
 *   verifyWebhook({ body, timestamp, signature, secrets, nowSecs, maxSkewSecs: 300 });
 * } catch (err) {
 *   if (err instanceof CryptoPayError && !err.authentic) {
 *     // answer 500 when the fault is yours (a secret saved with quotes, say: the service
 *     // retries), else 400 (not from the payment service, or tampered with)
 *     return new Response(null, { status: err.receiverFault ? 500 : 400 });
 *   }
 *   throw err;
 * }
 * ```
 */
export declare class CryptoPayError extends Error {
  /**
   * Makes an error as the package makes them (useful in tests of your own code).
   *
   * @param code One of the stable codes.
   * @param message What went wrong and how to fix it.
   * @param receiverFault See {@link CryptoPayError.receiverFault}; by default `true` for
   * `invalid_argument`, `body_not_raw`, `no_secrets` and `secret_empty` only.
   * @example
   * ```ts
   * const err = new CryptoPayError('signature_mismatch', 'signature_mismatch: no signature matches');
   * ```
   */
  constructor(code: ErrorCode, message: string, receiverFault?: boolean);
  /**
   * Always `'CryptoPayError'`.
   *
   * @example
   * ```ts
   * console.error(`${err.name} [${err.code}]: ${err.message}`);
   * ```
   */
  readonly name: 'CryptoPayError';
  /**
   * The stable code: one of {@link ErrorCode}, never renamed.
   *
   * @example
   * ```ts
   * if (err.code === 'body_not_raw') console.error('the framework parsed the body before us');
   * ```
   */
  readonly code: ErrorCode;
  /**
   * `true` when the delivery's signature verified but its event cannot be read
   * (`event_not_json`, `event_malformed`, `event_duplicate_key`, `event_type_unknown`,
   * `status_version_invalid`): the delivery is authentic, so keep it for inspection and
   * answer 2xx rather than have the service retry it. `false` for every other code, and for
   * every error of a function that takes no delivery (`decideEvent`, `compareStatusVersions`,
   * `parsePaymentView`, `linkEvent`, `defaultPolicy`: a `status_version_invalid` there is about
   * the value given, not a delivery's signature).
   *
   * @example
   * ```ts
   * if (err.authentic) return new Response(null, { status: 200 }); // after storing the body
   * ```
   */
  readonly authentic: boolean;
  /**
   * `true` when the refusal is the receiver's own, not the delivery's: answer it 5xx, which
   * the service retries once the receiver is fixed, never 400, which is final and loses the
   * event. Always for `invalid_argument`, `body_not_raw`, `no_secrets` and `secret_empty`
   * (no secret configured: often an environment variable unset or empty), and for every
   * error of `decideEvent` and `compareStatusVersions`, whose values come from your code and
   * your store (a `status_version_invalid` there is a stored version that is not digits: a
   * number column, a float); for a refused
   * delivery, when the
   * core can tell the receiver caused it: `nowSecs` in milliseconds (`timestamp_too_old`), an
   * authentic delivery from the future (`timestamp_in_future`: no replay is ahead of the
   * clock, so this host's clock is behind or the service's ahead; the message names a
   * `nowSecs` before September 2001, a clock that failed or was never set), a
   * secret saved with white space or quotes around it (`signature_mismatch`: no delivery
   * verifies), a delivery that verifies only with its two header values read the other way
   * round (`timestamp_malformed`: the header names swapped; a timestamp that merely reads as
   * a signature is the delivery's own, so that no sender makes it a 5xx without the secret
   * or a captured delivery, replayed with its header values exchanged, as the message says),
   * a delivery signed inside a retiring secret's overlap that arrived after the overlap
   * ended (`signature_mismatch`: the service's retry is signed with the active secret), a
   * header value that is no header's (a number, an object). A forgery sent while a secret is
   * saved with white space or quotes is answered 5xx too; it is never accepted. `false` for
   * a forged, stale or malformed delivery.
   *
   * @example
   * ```ts
   * if (!err.authentic) return new Response(null, { status: err.receiverFault ? 500 : 400 });
   * ```
   */
  readonly receiverFault: boolean;
}

/**
 * The raw request body, exactly as received. Prefer bytes (`Uint8Array`, Node `Buffer`,
 * `ArrayBuffer`, any typed array or `DataView`). A string is taken as its UTF-8 bytes, which
 * only verifies if the framework did not decode and re-encode it. A parsed object never
 * verifies: it is `body_not_raw`.
 *
 * @example
 * ```ts
 * const body: RawBody = new Uint8Array(await request.arrayBuffer()); // Fetch, Next.js, Workers
 * ```
 */
export type RawBody = Uint8Array | ArrayBuffer | ArrayBufferView | string;

/**
 * The role of a secret during a rotation: the `active` one signs today; a `pending` one is
 * about to be activated; a `retiring` one was replaced and is still accepted until its
 * `acceptUntilSecs`.
 *
 * @example
 * ```ts
 * const kind: SecretKind = 'retiring';
 * ```
 */
export type SecretKind = 'active' | 'pending' | 'retiring';

/**
 * One entry of a rotation set. A set holds exactly one `active` entry and at most 4 in all;
 * `acceptUntilSecs` is required on `retiring` entries and refused on the others, which the
 * types say too: an entry is a {@link CurrentSecretEntry} or a {@link RetiringSecretEntry}.
 *
 * @example
 * ```ts
 * const secrets: SecretEntry[] = [
 *   { secret: process.env.CRYPTOPAY_WEBHOOK_SECRET, kind: 'active' },
 *   { secret: process.env.CRYPTOPAY_WEBHOOK_SECRET_RETIRING, kind: 'retiring', acceptUntilSecs: 1767225600 },
 * ];
 * ```
 */
export type SecretEntry = CurrentSecretEntry | RetiringSecretEntry;

/**
 * The `active` entry of a rotation set, or a `pending` one: no `acceptUntilSecs`.
 *
 * @example
 * ```ts
 * const next: CurrentSecretEntry = { secret: process.env.WEBHOOK_SECRET_NEXT, kind: 'pending' };
 * ```
 */
export interface CurrentSecretEntry {
  /**
   * The signing Secret exactly as saved: its UTF-8 bytes are the key (no trimming, no base64
   * decoding, a `whsec_` prefix kept). `undefined` is accepted by the types so that
   * `process.env.NAME` can be passed as it is, and refused at run time with
   * `invalid_argument` ("is the environment variable set?"); an empty string is `secret_empty`.
   *
   * @example
   * ```ts
   * { secret: process.env.CRYPTOPAY_WEBHOOK_SECRET, kind: 'active' }
   * ```
   */
  secret: string | undefined;
  /**
   * `'active'` (signs today; exactly one per set) or `'pending'` (about to be activated).
   *
   * @example
   * ```ts
   * { secret: process.env.WEBHOOK_SECRET_NEXT, kind: 'pending' }
   * ```
   */
  kind: 'active' | 'pending';
  /**
   * Refused on an active or pending entry (`invalid_argument`): leave it out.
   *
   * @example
   * ```ts
   * { secret: process.env.CRYPTOPAY_WEBHOOK_SECRET, kind: 'active' } // no acceptUntilSecs
   * ```
   */
  acceptUntilSecs?: undefined;
}

/**
 * A `retiring` entry: a secret replaced and still accepted until `acceptUntilSecs`.
 *
 * @example
 * ```ts
 * const old: RetiringSecretEntry = { secret: process.env.CRYPTOPAY_WEBHOOK_SECRET_RETIRING, kind: 'retiring', acceptUntilSecs: 1767225600 };
 * ```
 */
export interface RetiringSecretEntry {
  /**
   * The replaced signing Secret exactly as saved (see {@link CurrentSecretEntry.secret}).
   *
   * @example
   * ```ts
   * { secret: process.env.CRYPTOPAY_WEBHOOK_SECRET_RETIRING, kind: 'retiring', acceptUntilSecs: 1767225600 }
   * ```
   */
  secret: string | undefined;
  /**
   * `'retiring'`.
   *
   * @example
   * ```ts
   * { secret: process.env.CRYPTOPAY_WEBHOOK_SECRET_RETIRING, kind: 'retiring', acceptUntilSecs: 1767225600 }
   * ```
   */
  kind: 'retiring';
  /**
   * Required: the last Unix second, inclusive, at which this secret still verifies. Compared
   * with the `nowSecs` of each call. 13 digits or more (a time in milliseconds, which would
   * keep the old secret verifying for ever) is `invalid_argument`.
   *
   * @example
   * ```ts
   * { secret: process.env.CRYPTOPAY_WEBHOOK_SECRET_RETIRING, kind: 'retiring', acceptUntilSecs: 1767225600 }
   * ```
   */
  acceptUntilSecs: number;
}

/**
 * The secrets to verify with: the signing Secret as a string (the usual case), or during a
 * rotation an array of up to 4 {@link SecretEntry}.
 *
 * @example
 * ```ts
 * const one: Secrets = 'whsec_...';
 * const rotating: Secrets = [{ secret: 'whsec_new', kind: 'active' }, { secret: 'whsec_next', kind: 'pending' }];
 * ```
 */
export type Secrets = string | readonly SecretEntry[];

/**
 * A delivery header's value as a server framework hands it over:
 *
 * - a string: the value exactly as received (Fetch `headers.get()`, Node `req.headers[name]`);
 * - `null` or `undefined`: the header is absent (`timestamp_missing` / `signature_missing`);
 * - an array of strings: the header's values, one per occurrence, as containers that keep
 *   repeated headers apart give them (Node `req.headersDistinct[name]`). No value is an absent
 *   header, one value is that value, and two or more mean the header was sent more than once:
 *   `header_duplicated`, as {@link readDeliveryHeaders} reports it.
 *
 * @example
 * ```ts
 * const timestamp: HeaderValue = request.headers.get('x-your-timestamp-header'); // string | null
 * const signature: HeaderValue = req.headers['x-your-signature-header']; // string | string[] | undefined
 * ```
 */
export type HeaderValue = string | readonly string[] | null | undefined;

/**
 * One delivery: what a {@link Verifier}'s methods take.
 *
 * @example
 * ```ts
 * const delivery: DeliveryInput = {
 *   body: new Uint8Array(await request.arrayBuffer()),
 *   timestamp: request.headers.get('x-your-timestamp-header'),
 *   signature: request.headers.get('x-your-signature-header'),
 *   nowSecs: Math.floor(Date.now() / 1000),
 * };
 * ```
 */
export interface DeliveryInput {
  /**
   * The raw request body (see {@link RawBody}); never a parsed object.
   *
   * @example
   * ```ts
   * body: new Uint8Array(await request.arrayBuffer())
   * ```
   */
  body: RawBody;
  /**
   * The timestamp header's value exactly as received: Unix seconds, 1 to 12 ASCII digits (see
   * {@link HeaderValue} for `null`, `undefined` and arrays).
   *
   * @example
   * ```ts
   * timestamp: request.headers.get('x-your-timestamp-header')
   * ```
   */
  timestamp: HeaderValue;
  /**
   * The signature header's value exactly as received (see {@link HeaderValue} for `null`,
   * `undefined` and arrays).
   *
   * @example
   * ```ts
   * signature: request.headers.get('x-your-signature-header')
   * ```
   */
  signature: HeaderValue;
  /**
   * The current trusted Unix time in seconds (not milliseconds): an integer from 0 to 2^53 - 1.
   *
   * @example
   * ```ts
   * nowSecs: Math.floor(Date.now() / 1000)
   * ```
   */
  nowSecs: number;
}

/**
 * The keying options: what `new Verifier()` takes, and what the one-shot functions take
 * besides the delivery.
 *
 * @example
 * ```ts
 * const options: VerifyOptions = { secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET, maxSkewSecs: 300 };
 * ```
 */
export interface VerifyOptions {
  /**
   * The signing Secret (a string), or a rotation set of up to 4 entries. `undefined` is
   * accepted by the types so that `process.env.NAME` can be passed as it is; at run time it
   * is `invalid_argument` with a message asking whether the environment variable is set.
   *
   * @example
   * ```ts
   * secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET
   * ```
   */
  secrets: Secrets | undefined;
  /**
   * Required: how far, in seconds, the delivery's timestamp may be from `nowSecs`, in both
   * directions. 300 is the usual choice; 0 means "exactly now", never "off".
   *
   * @example
   * ```ts
   * maxSkewSecs: 300
   * ```
   */
  maxSkewSecs: number;
  /**
   * The largest body accepted, in bytes (a string body counts as its UTF-8 bytes); checked
   * before any hashing (a string is encoded first, and a body in shared or resizable memory
   * copied, to be counted). Default 4 MiB; at most 64 MiB.
   *
   * @example
   * ```ts
   * maxBodyBytes: 1024 * 1024
   * ```
   */
  maxBodyBytes?: number | undefined;
}

/**
 * What the one-shot {@link verifySignature} and {@link verifyWebhook} take: one delivery and
 * the keying options.
 *
 * @example
 * ```ts
 * const input: VerifyInput = {
 *   body, timestamp, signature,
 *   nowSecs: Math.floor(Date.now() / 1000),
 *   secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET,
 *   maxSkewSecs: 300,
 * };
 * ```
 */
export interface VerifyInput extends DeliveryInput, VerifyOptions {}

/**
 * The outcome of a verified signature.
 *
 * @example
 * ```ts
 * const { matchedSecret, timestamp }: VerifiedSignature = verifier.verifySignature(delivery);
 * ```
 */
export interface VerifiedSignature {
  /**
   * Which secret verified the delivery: during a rotation, `'pending'` means the service
   * already signs with the new secret, `'retiring'` that it still signs with the old one.
   *
   * @example
   * ```ts
   * if (result.matchedSecret === 'pending') console.info('the service signs with the new secret: activate it');
   * ```
   */
  matchedSecret: SecretKind;
  /**
   * The delivery's timestamp, in Unix seconds.
   *
   * @example
   * ```ts
   * const sentAt = new Date(result.timestamp * 1000);
   * ```
   */
  timestamp: number;
}

/**
 * A JSON value as parsed from a verified body. A number JavaScript cannot hold exactly is
 * given as its decimal text (a string), never rounded.
 *
 * @example
 * ```ts
 * const value: JsonValue | undefined = event.envelope['data'];
 * ```
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * The `data` object of a `payment.updated` event, with the service's wire (snake_case)
 * field names, unknown fields included.
 *
 * @example
 * ```ts
 * const data: PaymentData = event.data;
 * console.log(data.payment_id, data['status']);
 * ```
 */
export interface PaymentData {
  /**
   * The payment this event is about.
   *
   * @example
   * ```ts
   * await fetch(`${base}/v1/payments/${encodeURIComponent(event.data.payment_id)}`);
   * ```
   */
  payment_id: string;
  /**
   * As sent: a JSON number, or a string when the service sent one or when the number is
   * too large for a JavaScript number. Prefer the event's exact `statusVersion`.
   *
   * @example
   * ```ts
   * const version = event.statusVersion; // not event.data.status_version
   * ```
   */
  status_version: number | string;
  /**
   * Every other field of `data`, as received.
   *
   * @example
   * ```ts
   * const status = event.data['status'];
   * ```
   */
  [key: string]: JsonValue;
}

/**
 * A verified `payment.updated` event: facts to record, never a receipt to fulfil from.
 *
 * @example
 * ```ts
 * const { event } = verifier.verifyWebhook(delivery);
 * // data as the exact text received: never the parsed envelope, re-serialized.
 * await db.record(event.eventId, event.paymentId, event.statusVersion, event.dataText);
 * ```
 */
export interface PaymentUpdatedEvent {
  /**
   * `schema_version` of the envelope, as a string (the service sends a string or an integer).
   *
   * @example
   * ```ts
   * if (event.schemaVersion !== '1') console.warn('a newer schema: check the changelog');
   * ```
   */
  schemaVersion: string;
  /**
   * `event_id`: the key to de-duplicate deliveries by.
   *
   * @example
   * ```ts
   * const seen = await db.hasEvent(event.eventId);
   * ```
   */
  eventId: string;
  /**
   * `event_type`: always `'payment.updated'` (any other type is `event_type_unknown`).
   *
   * @example
   * ```ts
   * console.log(event.eventType); // 'payment.updated'
   * ```
   */
  eventType: 'payment.updated';
  /**
   * `occurred_at` as sent by the service (a string or a number); not interpreted.
   *
   * @example
   * ```ts
   * await db.record({ occurredAt: String(event.occurredAt) });
   * ```
   */
  occurredAt: string | number;
  /**
   * `data.payment_id`.
   *
   * @example
   * ```ts
   * const stored = await db.paymentVersion(event.paymentId);
   * ```
   */
  paymentId: string;
  /**
   * `data.status_version` as exact decimal digits, at any size. Compare versions with
   * {@link compareStatusVersions} or {@link decideEvent}, never as numbers.
   *
   * @example
   * ```ts
   * decideEvent(event, { eventSeen: false, statusVersion: storedVersion });
   * ```
   */
  statusVersion: string;
  /**
   * The `data` object with its wire (snake_case) field names.
   *
   * @example
   * ```ts
   * const status = event.data['status'];
   * ```
   */
  data: PaymentData;
  /**
   * The whole top-level object, unknown fields included.
   *
   * @example
   * ```ts
   * // A field this version of the package does not model (store the verified body bytes, or
   * // `event.dataText`: never `JSON.stringify(event.envelope)`, which loses exact numbers).
   * const region = event.envelope['region'];
   * ```
   */
  envelope: { [key: string]: JsonValue };
  /**
   * The `data` object as the exact JSON text received, byte for byte (`128.10` stays
   * `128.10`, key order and spacing kept): what to store, never `JSON.stringify(event.data)`.
   * Cut out of the verified body by the core when first read: from the event's own copy of
   * what was verified, so a body buffer reused or detached afterwards changes nothing. A getter on the event's prototype, not an own
   * property: `JSON.stringify(event)` and `{ ...event }` leave it out (read `event.dataText`
   * from the event itself, never from a copy).
   *
   * @example
   * ```ts
   * await db.query('UPDATE payments SET data = $1::json WHERE payment_id = $2', [event.dataText, event.paymentId]);
   * ```
   */
  readonly dataText: string;
}

/**
 * The outcome of a verified delivery: the signature's and the parsed event.
 *
 * @example
 * ```ts
 * const { event, matchedSecret, timestamp }: VerifiedWebhook = verifier.verifyWebhook(delivery);
 * ```
 */
export interface VerifiedWebhook extends VerifiedSignature {
  /**
   * The event, parsed strictly from the very bytes that verified.
   *
   * @example
   * ```ts
   * const { event } = verifier.verifyWebhook(delivery);
   * console.log(event.paymentId, event.statusVersion);
   * ```
   */
  event: PaymentUpdatedEvent;
}

/**
 * Verifies a delivery's signature and freshness without parsing its body. Keys the secrets
 * on each call with other secrets or options (a {@link Verifier} keys them once); a receiver
 * that passes the same ones on every call pays what a `Verifier` costs. The keyed states of
 * the last four distinct sets of secrets and options are kept; the oldest is freed, and its
 * states wiped, when a fifth comes.
 *
 * @param input The delivery, the secrets and the skew.
 * @returns Which secret matched, and the timestamp.
 * @throws {CryptoPayError} In the order of checks: `invalid_argument` (an unknown option, a
 * missing `maxSkewSecs`, `nowSecs` not a whole number of seconds, `secrets` `undefined` or
 * of the wrong shape, or, in browsers, a call before `await init()`); `body_not_raw`,
 * `body_too_large`; `timestamp_missing`, `timestamp_malformed`, `signature_missing`,
 * `signature_malformed`, `header_duplicated` (a header value given as an array of several
 * values); `no_secrets`, `secret_empty`; `signature_mismatch`; then, only for authentic
 * deliveries, `timestamp_too_old` and `timestamp_in_future`.
 * @example
 * ```ts
 * const { matchedSecret } = verifySignature({
 *   body: new Uint8Array(await request.arrayBuffer()),
 *   timestamp: request.headers.get('x-your-timestamp-header'),
 *   signature: request.headers.get('x-your-signature-header'),
 *   secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET,
 *   nowSecs: Math.floor(Date.now() / 1000),
 *   maxSkewSecs: 300,
 * });
 * ```
 */
export declare function verifySignature(input: VerifyInput): VerifiedSignature;

/**
 * Verifies a delivery, then parses its `payment.updated` event from the same bytes.
 *
 * @param input The delivery, the secrets and the skew.
 * @returns The event, which secret matched, and the timestamp.
 * @throws {CryptoPayError} Every code of {@link verifySignature}, then, for a delivery whose
 * signature is valid (record it, and fetch the payment with `GET /v1/payments/{id}` when
 * needed): `event_not_json`, `event_malformed`, `event_duplicate_key`, `event_type_unknown`
 * (acknowledge and ignore it), `status_version_invalid`.
 * @example
 * ```ts
 * const { event } = verifyWebhook({
 *   body, timestamp, signature,
 *   secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET,
 *   nowSecs: Math.floor(Date.now() / 1000),
 *   maxSkewSecs: 300,
 * });
 * ```
 */
export declare function verifyWebhook(input: VerifyInput): VerifiedWebhook;

/**
 * A verifier keyed once with the secrets and reused for every delivery: the fastest way to
 * verify. Build it lazily, at the first request, where the secret is read from the
 * environment (a `Verifier` built at module scope runs when a build tool such as `next build`
 * imports the module, often without the secret).
 *
 * @example
 * ```ts
 * let verifier: Verifier | undefined;
 * function getVerifier(): Verifier {
 *   verifier ??= new Verifier({ secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET, maxSkewSecs: 300 });
 *   return verifier;
 * }
 * ```
 */
export declare class Verifier {
  /**
   * Keys the secrets once.
   *
   * @param options The secrets, the skew and the body limit.
   * @throws {CryptoPayError} `invalid_argument` (an unknown option, a missing `maxSkewSecs`,
   * `secrets` `undefined` or of the wrong shape, or, in browsers, before `await init()`);
   * `no_secrets` (an empty set); `secret_empty`. Called without `new`, it throws JavaScript's
   * own `TypeError`, as every class does.
   * @example
   * ```ts
   * const verifier = new Verifier({ secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET, maxSkewSecs: 300 });
   * ```
   */
  constructor(options: VerifyOptions);
  /**
   * Verifies a delivery's signature and freshness without parsing its body.
   *
   * @param input The delivery: `{ body, timestamp, signature, nowSecs }`.
   * @returns Which secret matched, and the timestamp.
   * @throws {CryptoPayError} The codes of {@link verifySignature}; also `invalid_argument`
   * after {@link Verifier.free} or when the method is called detached from its `Verifier`.
   * @example
   * ```ts
   * const { matchedSecret } = verifier.verifySignature({
   *   body, timestamp, signature, nowSecs: Math.floor(Date.now() / 1000),
   * });
   * ```
   */
  verifySignature(input: DeliveryInput & { secrets?: never; maxSkewSecs?: never; maxBodyBytes?: never }): VerifiedSignature;
  /**
   * Verifies a delivery, then parses its event from the same bytes.
   *
   * @param input The delivery: `{ body, timestamp, signature, nowSecs }`.
   * @returns The event, which secret matched, and the timestamp.
   * @throws {CryptoPayError} The codes of {@link verifyWebhook}; also `invalid_argument`
   * after {@link Verifier.free} or when the method is called detached from its `Verifier`.
   * @example
   * ```ts
   * const { event } = verifier.verifyWebhook({
   *   body, timestamp, signature, nowSecs: Math.floor(Date.now() / 1000),
   * });
   * ```
   */
  verifyWebhook(input: DeliveryInput & { secrets?: never; maxSkewSecs?: never; maxBodyBytes?: never }): VerifiedWebhook;
  /**
   * The largest body this verifier takes, in bytes: `maxBodyBytes` as given, else the
   * default (4 MiB). Read it to stop reading a request body early.
   *
   * @throws {CryptoPayError} `invalid_argument` when read detached from its `Verifier`.
   * @example
   * ```ts
   * if (Number(request.headers.get('content-length')) > verifier.maxBodyBytes) {
   *   return new Response(null, { status: 413 });
   * }
   * ```
   */
  readonly maxBodyBytes: number;
  /**
   * Releases the keyed state now (the keys are zeroized); a later `verifySignature` or
   * `verifyWebhook` is `invalid_argument`, a second `free()` does nothing, and
   * `maxBodyBytes` still reads. Optional: a `Verifier` that is no longer referenced is reclaimed by
   * the garbage collector.
   *
   * @throws {CryptoPayError} `invalid_argument` when called detached from its `Verifier`.
   * @example
   * ```ts
   * verifier.free();
   * ```
   */
  free(): void;
}

/**
 * `[Symbol.dispose]()`, which is {@link Verifier.free}, typed where the project's lib declares
 * `Symbol.dispose` (TypeScript 5.2+ with `esnext.disposable` or `esnext`, or @types/node), so
 * that `using` accepts a `Verifier`; otherwise an empty type, so the typings still need no
 * such lib. At run time the method exists wherever the engine has `Symbol.dispose`.
 *
 * @example
 * ```ts
 * {
 *   using verifier = new Verifier({ secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET, maxSkewSecs: 300 });
 *   verifier.verifyWebhook(delivery);
 * } // freed here
 * ```
 */
export type VerifierDisposal = {
  [K in typeof globalThis extends { Symbol: { readonly dispose: infer D extends symbol } } ? D : never]: () => void;
};

/**
 * A {@link Verifier} is disposable where the project's lib knows `Symbol.dispose` (see
 * {@link VerifierDisposal}).
 *
 * @example
 * ```ts
 * using verifier = new Verifier({ secrets: process.env.CRYPTOPAY_WEBHOOK_SECRET, maxSkewSecs: 300 });
 * ```
 */
export interface Verifier extends VerifierDisposal {}

/**
 * Any container a server framework hands headers over in:
 *
 * - Fetch `Headers` (Workers, Next.js, Deno, Bun, Hono's `c.req.raw.headers`);
 * - Node's `req.headers` (`IncomingHttpHeaders`) or `req.headersDistinct`, or any plain object;
 * - a `Map`;
 * - `[name, value]` pairs;
 * - Node's flat `req.rawHeaders` array (`[name, value, name, value, ...]`).
 *
 * @example
 * ```ts
 * const headers: HeaderContainer = request.headers;
 * ```
 */
export type HeaderContainer =
  | { forEach(callback: (value: string, name: string) => void): void; get(name: string): string | null }
  | { readonly [name: string]: string | readonly string[] | undefined }
  | ReadonlyMap<string, string | readonly string[]>
  | ReadonlyArray<readonly [string, string]>
  | readonly string[];

/**
 * The names of the two delivery headers, as your payment service's dashboard shows them;
 * matched without regard to case.
 *
 * @example
 * ```ts
 * const names: HeaderNames = { timestampHeader: 'x-your-timestamp-header', signatureHeader: 'x-your-signature-header' };
 * ```
 */
export interface HeaderNames {
  /**
   * The name of the header that carries the timestamp.
   *
   * @example
   * ```ts
   * timestampHeader: 'x-your-timestamp-header'
   * ```
   */
  timestampHeader: string;
  /**
   * The name of the header that carries the signature.
   *
   * @example
   * ```ts
   * signatureHeader: 'x-your-signature-header'
   * ```
   */
  signatureHeader: string;
}

/**
 * The two header values of a delivery, exactly as received.
 *
 * @example
 * ```ts
 * const { timestamp, signature }: DeliveryHeaders = readDeliveryHeaders(request.headers, names);
 * ```
 */
export interface DeliveryHeaders {
  /**
   * The timestamp header's value.
   *
   * @example
   * ```ts
   * verifier.verifyWebhook({ body, timestamp: found.timestamp, signature: found.signature, nowSecs });
   * ```
   */
  timestamp: string;
  /**
   * The signature header's value.
   *
   * @example
   * ```ts
   * verifier.verifyWebhook({ body, ...readDeliveryHeaders(req.rawHeaders, names), nowSecs });
   * ```
   */
  signature: string;
}

/**
 * Reads the timestamp and signature header values from any header container, matching names
 * without regard to case. Where the container keeps repeated headers apart (`rawHeaders`,
 * arrays, a `Map` or pairs with names differing in case), a header sent twice is
 * `header_duplicated`; Fetch `Headers` and Node's `req.headers` merge repeats into `a, b`:
 * a merged timestamp then fails as malformed when verified, and a merged signature is read
 * as the list of candidates a signature header may hold (up to eight), so it verifies only
 * if one of them is the delivery's true signature.
 *
 * @param headers The request's headers, in any {@link HeaderContainer}.
 * @param names The two header names.
 * @returns Both values.
 * @throws {CryptoPayError} `invalid_argument` (names missing, empty or equal; a container of
 * another shape; or, in browsers, a call before `await init()`); `header_duplicated`;
 * `timestamp_missing` and `signature_missing` for a header that is absent (one present but
 * empty is returned as `''`, which verifying refuses as missing).
 * @example
 * ```ts
 * const { timestamp, signature } = readDeliveryHeaders(req.rawHeaders, {
 *   timestampHeader: 'x-your-timestamp-header',
 *   signatureHeader: 'x-your-signature-header',
 * });
 * ```
 */
export declare function readDeliveryHeaders(headers: HeaderContainer, names: HeaderNames): DeliveryHeaders;

/**
 * What {@link signWebhook} takes.
 *
 * @example
 * ```ts
 * const input: SignInput = { secret: 'whsec_test', timestamp: 1700000000, body: '{"event_id":"evt_1"}' };
 * ```
 */
export interface SignInput {
  /**
   * The signing Secret exactly as saved.
   *
   * @example
   * ```ts
   * secret: 'whsec_test'
   * ```
   */
  secret: string;
  /**
   * The timestamp to sign with: the header value as text, or Unix seconds as a number.
   *
   * @example
   * ```ts
   * timestamp: Math.floor(Date.now() / 1000)
   * ```
   */
  timestamp: string | number;
  /**
   * The body to sign, as bytes or a string (its UTF-8 bytes).
   *
   * @example
   * ```ts
   * body: JSON.stringify(event)
   * ```
   */
  body: RawBody;
  /**
   * `'hex'` (lowercase, the default) or `'base64'` (padded, standard alphabet).
   *
   * @example
   * ```ts
   * encoding: 'base64'
   * ```
   */
  encoding?: 'hex' | 'base64' | undefined;
}

/**
 * Signs a body as the payment service does (HMAC-SHA256 over the timestamp, a `.` and the
 * body), for tests and local tools.
 *
 * @param input The secret, the timestamp, the body and the encoding.
 * @returns The signature header's value.
 * @throws {CryptoPayError} `invalid_argument` (an unknown option, a secret that is not a
 * string, another encoding, or, in browsers, a call before `await init()`); `body_not_raw`;
 * `timestamp_missing`; `timestamp_malformed`; `secret_empty`; `body_too_large` (a body over
 * 64 MiB).
 * @example
 * ```ts
 * const signature = signWebhook({ secret: 'whsec_test', timestamp: '1700000000', body });
 * ```
 */
export declare function signWebhook(input: SignInput): string;

/**
 * Parses a body that has already been verified (by {@link verifySignature}) into its event,
 * with the same strict rules as {@link verifyWebhook}. Never call it on an unverified body.
 *
 * @param verifiedBody The body that verified, as bytes or a string.
 * @returns The event.
 * @throws {CryptoPayError} `body_not_raw`; `event_not_json`; `event_malformed`;
 * `event_duplicate_key`; `event_type_unknown`; `status_version_invalid`; `body_too_large` (a
 * body over 64 MiB); `invalid_argument` in browsers before `await init()`.
 * @example
 * ```ts
 * verifier.verifySignature(delivery);
 * const event = parseEvent(delivery.body);
 * ```
 */
export declare function parseEvent(verifiedBody: RawBody): PaymentUpdatedEvent;

/**
 * What to do with an event: `'apply'` its facts, ignore a `'duplicate'` delivery, or keep
 * newer facts over a `'stale'` one (acknowledge both).
 *
 * @example
 * ```ts
 * const decision: Decision = decideEvent(event, stored);
 * ```
 */
export type Decision = 'apply' | 'duplicate' | 'stale';

/**
 * The incoming event, as {@link decideEvent} reads it (a {@link PaymentUpdatedEvent} fits;
 * other fields are ignored).
 *
 * @example
 * ```ts
 * const incoming: IncomingEvent = { eventId: 'evt_1', paymentId: 'pay_1', statusVersion: '7' };
 * ```
 */
export interface IncomingEvent {
  /**
   * The event's `event_id` (non-empty).
   *
   * @example
   * ```ts
   * eventId: event.eventId
   * ```
   */
  eventId: string;
  /**
   * The payment's id (non-empty).
   *
   * @example
   * ```ts
   * paymentId: event.paymentId
   * ```
   */
  paymentId: string;
  /**
   * The event's status version: decimal digits without leading zeros, or a safe integer.
   *
   * @example
   * ```ts
   * statusVersion: event.statusVersion
   * ```
   */
  statusVersion: string | number;
}

/**
 * What your store knows about the event and its payment: these two keys only (any other is
 * `invalid_argument`, so a version under another name is never read as none stored).
 *
 * @example
 * ```ts
 * const stored: StoredState = { eventSeen: false, statusVersion: row?.status_version };
 * ```
 */
export interface StoredState {
  /**
   * Whether this `eventId` was already recorded.
   *
   * @example
   * ```ts
   * eventSeen: await db.hasEvent(event.eventId)
   * ```
   */
  eventSeen: boolean;
  /**
   * The newest status version stored for this payment; absent, `null` or `undefined` when
   * none is.
   *
   * @example
   * ```ts
   * statusVersion: row === undefined ? null : row.status_version
   * ```
   */
  statusVersion?: string | number | null | undefined;
}

/**
 * Decides what to do with an event, purely from what is stored: `'duplicate'` when the event
 * was seen, `'apply'` when no version is stored for the payment or the incoming one is
 * greater, otherwise `'stale'`.
 *
 * The look-up, this decision and the writes must be one serialized step, or two deliveries
 * for one payment that arrive together both read the old version, both decide `'apply'`, and
 * the older may be written last: in SQLite one `BEGIN IMMEDIATE` transaction; in PostgreSQL
 * (READ COMMITTED) a locked payment row (`SELECT ... FOR UPDATE`) or a conditional write
 * (`ON CONFLICT (payment_id) DO UPDATE ... WHERE stored < incoming`). `cryptopay-verify/receiver`
 * does all of it for PostgreSQL, SQLite and D1.
 *
 * @param incoming The event (or its `eventId`, `paymentId` and `statusVersion`).
 * @param stored What the store holds.
 * @returns `'apply'`, `'duplicate'` or `'stale'`.
 * @throws {CryptoPayError} `invalid_argument` (arguments of the wrong shape; a key of `stored`
 * other than `eventSeen` and `statusVersion`, since a version under another name, such as a
 * row's snake_case column, would read as none stored and a stale event as `'apply'`; or, in
 * browsers, a call before `await init()`); `status_version_invalid`.
 * @example
 * ```ts
 * const decision = decideEvent(event, { eventSeen: false, statusVersion: '6' }); // 'apply' for '7'
 * ```
 */
export declare function decideEvent(incoming: IncomingEvent, stored: StoredState): Decision;

/**
 * Compares two status versions exactly, at any size (never through a float).
 *
 * @param a A version: decimal digits without leading zeros, or a safe integer.
 * @param b Another.
 * @returns -1, 0 or 1 as `a` is less than, equal to or greater than `b`.
 * @throws {CryptoPayError} `status_version_invalid`; `invalid_argument` in browsers before
 * `await init()`.
 * @example
 * ```ts
 * compareStatusVersions('9007199254740993', '9007199254740992'); // 1
 * ```
 */
export declare function compareStatusVersions(a: string | number, b: string | number): -1 | 0 | 1;

/**
 * Checks an `amount_raw`: a positive integer in the smallest unit, as digits without leading
 * zeros, at most 2^256 - 1.
 *
 * @param amountRaw The value to check.
 * @throws {CryptoPayError} `amount_raw_invalid`; `invalid_argument` in browsers before
 * `await init()`.
 * @example
 * ```ts
 * validateAmountRaw('12800');
 * ```
 */
export declare function validateAmountRaw(amountRaw: string): void;

/**
 * Whether a value is a valid `amount_raw` (see {@link validateAmountRaw}); any value may be
 * passed.
 *
 * @param amountRaw The value to check.
 * @returns `true` when valid.
 * @throws {CryptoPayError} Only `invalid_argument`, in browsers, before `await init()`.
 * @example
 * ```ts
 * isValidAmountRaw('0'); // false
 * ```
 */
export declare function isValidAmountRaw(amountRaw: unknown): boolean;

/**
 * Converts a decimal amount to `amount_raw` by exact string arithmetic, never rounding.
 *
 * @param decimal Digits with an optional fractional part, such as `'128.00'`.
 * @param decimals The pricing source's `decimals` (0 to 77).
 * @returns The amount in the smallest unit.
 * @throws {CryptoPayError} `amount_decimal_invalid`; `amount_too_precise` (non-zero digits past
 * `decimals`); `amount_raw_invalid` (a zero or too large result); `decimals_invalid`;
 * `invalid_argument` in browsers before `await init()`.
 * @example
 * ```ts
 * toAmountRaw('128.00', 2); // '12800'
 * ```
 */
export declare function toAmountRaw(decimal: string, decimals: number): string;

/**
 * Converts `amount_raw` to a decimal with exactly `decimals` fractional digits.
 *
 * @param amountRaw The amount in the smallest unit.
 * @param decimals The pricing source's `decimals` (0 to 77).
 * @returns The decimal amount.
 * @throws {CryptoPayError} `amount_raw_invalid`; `decimals_invalid`; `invalid_argument` in
 * browsers before `await init()`.
 * @example
 * ```ts
 * fromAmountRaw('12800', 2); // '128.00'
 * ```
 */
export declare function fromAmountRaw(amountRaw: string, decimals: number): string;

/**
 * The store's pricing source: `primary_source` of `GET /v1/store`, as received.
 *
 * @example
 * ```ts
 * const { primary_source } = await (await fetch(`${base}/v1/store`, { headers })).json() as { primary_source: PrimarySource };
 * ```
 */
export interface PrimarySource {
  /**
   * `'fiat'` or `'crypto'`.
   *
   * @example
   * ```ts
   * kind: 'fiat'
   * ```
   */
  kind: 'fiat' | 'crypto';
  /**
   * The currency code (fiat) or pricing reference (crypto) to price in.
   *
   * @example
   * ```ts
   * ref: 'USD'
   * ```
   */
  ref: string;
  /**
   * The number of fractional digits of the smallest unit (0 to 77).
   *
   * @example
   * ```ts
   * decimals: 2
   * ```
   */
  decimals: number;
  /**
   * Any other field the service sends, kept.
   *
   * @example
   * ```ts
   * const label = primarySource['display_name'];
   * ```
   */
  [key: string]: JsonValue;
}

/**
 * A fiat `source_amount`.
 *
 * @example
 * ```ts
 * const amount: FiatSourceAmount = { kind: 'fiat', currency: 'USD', amount_raw: '12800' };
 * ```
 */
export interface FiatSourceAmount {
  /**
   * Always `'fiat'`.
   *
   * @example
   * ```ts
   * kind: 'fiat'
   * ```
   */
  kind: 'fiat';
  /**
   * Equal to the store's `primary_source.ref`, case included.
   *
   * @example
   * ```ts
   * currency: 'USD'
   * ```
   */
  currency: string;
  /**
   * The amount in the smallest unit (see {@link validateAmountRaw}).
   *
   * @example
   * ```ts
   * amount_raw: toAmountRaw('128.00', 2)
   * ```
   */
  amount_raw: string;
}

/**
 * A crypto `source_amount`.
 *
 * @example
 * ```ts
 * const amount: CryptoSourceAmount = { kind: 'crypto', pricing_ref: 'USDC', amount_raw: '12500000' };
 * ```
 */
export interface CryptoSourceAmount {
  /**
   * Always `'crypto'`.
   *
   * @example
   * ```ts
   * kind: 'crypto'
   * ```
   */
  kind: 'crypto';
  /**
   * Equal to the store's `primary_source.ref`: never a token contract, a wallet address or a
   * network id.
   *
   * @example
   * ```ts
   * pricing_ref: primarySource.ref
   * ```
   */
  pricing_ref: string;
  /**
   * The amount in the smallest unit (see {@link validateAmountRaw}).
   *
   * @example
   * ```ts
   * amount_raw: toAmountRaw('12.5', 6)
   * ```
   */
  amount_raw: string;
}

/**
 * The `source_amount` of a CreatePayment, with the service's snake_case keys so it can be
 * sent as it is.
 *
 * @example
 * ```ts
 * const sourceAmount: SourceAmount = buildSourceAmount({ primarySource, amount: '128.00' });
 * ```
 */
export type SourceAmount = FiatSourceAmount | CryptoSourceAmount;

/**
 * What {@link buildSourceAmount} takes.
 *
 * @example
 * ```ts
 * const input: BuildSourceAmountInput = { primarySource, amount: '128.00' };
 * ```
 */
export interface BuildSourceAmountInput {
  /**
   * `primary_source` of `GET /v1/store`.
   *
   * @example
   * ```ts
   * primarySource: store.primary_source
   * ```
   */
  primarySource: Pick<PrimarySource, 'kind' | 'ref' | 'decimals'>;
  /**
   * The decimal amount, such as `'128.00'`.
   *
   * @example
   * ```ts
   * amount: '128.00'
   * ```
   */
  amount: string;
}

/**
 * Builds the `source_amount` of a payment from the store's pricing source and a decimal.
 *
 * @param input The pricing source and the decimal amount.
 * @returns The `source_amount`, ready to send.
 * @throws {CryptoPayError} `invalid_argument` (an unknown option, or, in browsers, a call
 * before `await init()`); `store_source_invalid`; `amount_decimal_invalid`;
 * `amount_too_precise`; `amount_raw_invalid`.
 * @example
 * ```ts
 * buildSourceAmount({ primarySource: { kind: 'fiat', ref: 'USD', decimals: 2 }, amount: '128' });
 * // { kind: 'fiat', currency: 'USD', amount_raw: '12800' }
 * ```
 */
export declare function buildSourceAmount(input: BuildSourceAmountInput): SourceAmount;

/**
 * Checks a `source_amount` against the store's pricing source.
 *
 * @param sourceAmount The value to check (any value).
 * @param primarySource `primary_source` of `GET /v1/store`.
 * @throws {CryptoPayError} `store_source_invalid`; `source_amount_invalid`;
 * `source_kind_mismatch`; `source_currency_missing`; `source_currency_mismatch`;
 * `source_pricing_ref_missing`; `source_pricing_ref_mismatch`; `pricing_ref_is_address`;
 * `pricing_ref_is_network_id`; `amount_raw_invalid`; `invalid_argument` in browsers before
 * `await init()`.
 * @example
 * ```ts
 * validateSourceAmount({ kind: 'crypto', pricing_ref: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', amount_raw: '1' }, primarySource);
 * // throws pricing_ref_is_address: use primary_source.ref, never an address
 * ```
 */
export declare function validateSourceAmount(sourceAmount: unknown, primarySource: Pick<PrimarySource, 'kind' | 'ref' | 'decimals'>): void;

/**
 * The body of `POST /v1/payments`.
 *
 * @example
 * ```ts
 * const body: CreatePayment = { source_amount: buildSourceAmount({ primarySource, amount: '128' }), order_ref: 'order-42' };
 * ```
 */
export interface CreatePayment {
  /**
   * Required: what to charge, from the store's pricing source.
   *
   * @example
   * ```ts
   * source_amount: buildSourceAmount({ primarySource, amount: '128.00' })
   * ```
   */
  source_amount: SourceAmount;
  /**
   * Your order's reference.
   *
   * @example
   * ```ts
   * order_ref: 'order-42'
   * ```
   */
  order_ref?: string | undefined;
  /**
   * The HTTPS origin the buyer checks out from.
   *
   * @example
   * ```ts
   * checkout_origin: 'https://shop.example'
   * ```
   */
  checkout_origin?: string | undefined;
}

/**
 * What {@link validateCreatePayment} checks a body against.
 *
 * @example
 * ```ts
 * const options: CreatePaymentOptions = { primarySource, websiteOrigin: 'https://shop.example' };
 * ```
 */
export interface CreatePaymentOptions {
  /**
   * `primary_source` of `GET /v1/store`.
   *
   * @example
   * ```ts
   * primarySource: store.primary_source
   * ```
   */
  primarySource: Pick<PrimarySource, 'kind' | 'ref' | 'decimals'>;
  /**
   * The store's website origin (Checkout > Website); when given, any other
   * `checkout_origin` is `origin_not_permitted`.
   *
   * @example
   * ```ts
   * websiteOrigin: 'https://shop.example'
   * ```
   */
  websiteOrigin?: string | undefined;
}

/**
 * Checks a whole CreatePayment body before it is sent.
 *
 * @param body The body (any value).
 * @param options The store's pricing source and website origin.
 * @throws {CryptoPayError} `invalid_argument` (options of the wrong shape, or, in browsers,
 * a call before `await init()`); `store_source_invalid`; `create_payment_invalid`; the codes
 * of {@link validateSourceAmount} and of {@link validateCheckoutOrigin}.
 * @example
 * ```ts
 * validateCreatePayment(body, { primarySource, websiteOrigin: 'https://shop.example' });
 * ```
 */
export declare function validateCreatePayment(body: unknown, options: CreatePaymentOptions): void;

/**
 * What {@link validateCheckoutOrigin} checks an origin against.
 *
 * @example
 * ```ts
 * const options: CheckoutOriginOptions = { websiteOrigin: 'https://shop.example' };
 * ```
 */
export interface CheckoutOriginOptions {
  /**
   * The store's website origin; when given, any other origin is `origin_not_permitted`.
   *
   * @example
   * ```ts
   * websiteOrigin: 'https://shop.example'
   * ```
   */
  websiteOrigin?: string | undefined;
}

/**
 * Checks a `checkout_origin`: `https://host[:port]` with nothing after it (not even `/`),
 * compared as browsers compare origins.
 *
 * @param origin The origin to check.
 * @param options The store's website origin, if any.
 * @throws {CryptoPayError} `origin_invalid`; `origin_not_https`; `origin_not_permitted`;
 * `invalid_argument` (options of the wrong shape, or, in browsers, a call before
 * `await init()`).
 * @example
 * ```ts
 * validateCheckoutOrigin('https://shop.example', { websiteOrigin: 'https://shop.example:443' });
 * ```
 */
export declare function validateCheckoutOrigin(origin: string, options?: CheckoutOriginOptions): void;

/**
 * Checks a webhook URL before registering it: HTTPS, a registered domain name (not a single
 * label, nor under `.local`, `.internal`, `.test`, `localhost` or another special-use name),
 * port 443, no credentials, query or fragment.
 *
 * @param url The URL to check.
 * @throws {CryptoPayError} `webhook_url_malformed`; `webhook_url_not_https`;
 * `webhook_url_ip_literal`; `webhook_url_not_registered_domain`; `webhook_url_port`;
 * `webhook_url_credentials`; `webhook_url_query`; `webhook_url_fragment`; `invalid_argument`
 * in browsers before `await init()`.
 * @example
 * ```ts
 * validateWebhookUrl('https://shop.example/webhooks/payments');
 * ```
 */
export declare function validateWebhookUrl(url: string): void;

/**
 * The Hosted Checkout address of a payment: `{origin}/#payment_id=<encoded id>`.
 *
 * @param checkoutOrigin The checkout origin.
 * @param paymentId The payment's id (non-empty).
 * @returns The address to send the buyer to.
 * @throws {CryptoPayError} `origin_invalid`; `origin_not_https`; `invalid_argument` (an empty
 * payment id, or, in browsers, a call before `await init()`).
 * @example
 * ```ts
 * hostedCheckoutUrl('https://pay.example', 'pay_1'); // 'https://pay.example/#payment_id=pay_1'
 * ```
 */
export declare function hostedCheckoutUrl(checkoutOrigin: string, paymentId: string): string;

/**
 * The lowercase hex SHA-256 of the exact request bytes, to store beside an Idempotency-Key
 * so that a retry can prove it sends the same body.
 *
 * @param body The request body, as bytes or a string.
 * @returns 64 lowercase hex digits.
 * @throws {CryptoPayError} `body_not_raw` (not bytes or a string); `body_too_large` (over
 * 64 MiB); `invalid_argument` in browsers before `await init()`.
 * @example
 * ```ts
 * const fingerprint = requestFingerprint(JSON.stringify(body));
 * ```
 */
export declare function requestFingerprint(body: RawBody): string;

/**
 * Checks an Idempotency-Key: 1 to 255 visible ASCII characters.
 *
 * @param key The key to check.
 * @throws {CryptoPayError} `idempotency_key_invalid`; `invalid_argument` in browsers before
 * `await init()`.
 * @example
 * ```ts
 * validateIdempotencyKey(crypto.randomUUID());
 * ```
 */
export declare function validateIdempotencyKey(key: string): void;

/**
 * How the payment service treats a receiver's answer: 2xx `'acknowledged'`; 408, 425, 429
 * and 5xx `'retry'`; any other status (3xx included) `'permanent_failure'`.
 *
 * @example
 * ```ts
 * const outcome: DeliveryOutcome = classifyDeliveryResponse(503); // 'retry'
 * ```
 */
export type DeliveryOutcome = 'acknowledged' | 'retry' | 'permanent_failure';

/**
 * Classifies an HTTP status as the payment service does when it delivers a webhook.
 *
 * @param status An HTTP status, an integer from 100 to 599.
 * @returns `'acknowledged'`, `'retry'` or `'permanent_failure'`.
 * @throws {CryptoPayError} `invalid_argument` (not an integer from 100 to 599, or, in
 * browsers, a call before `await init()`).
 * @example
 * ```ts
 * classifyDeliveryResponse(302); // 'permanent_failure': never redirect webhooks
 * ```
 */
export declare function classifyDeliveryResponse(status: number): DeliveryOutcome;

/**
 * What the authoritative view of a payment justifies doing with its order: `'fulfil'` (paid
 * exactly), `'review'` (a case for a person: partial or over payment, review required, an
 * unknown status, money received before a payment expired or was cancelled, a payment that
 * does not link to its order), `'wait'` (not settled yet) or `'closed'` (ended unpaid: expired
 * or cancelled with nothing received).
 *
 * @example
 * ```ts
 * const action: FulfilmentAction = defaultPolicy(viewText);
 * ```
 */
export type FulfilmentAction = 'fulfil' | 'review' | 'wait' | 'closed';

/**
 * The authoritative view of a payment (`GET /v1/payments/{payment_id}`'s answer, the service's
 * MerchantPaymentView) as {@link parsePaymentView} (and the client's `getPayment`) returns
 * it: every field as the service sent it, with its snake_case name, unknown ones included.
 *
 * @example
 * ```ts
 * const view: PaymentView = parsePaymentView(text);
 * if (view.status === 'paid') console.log(view.status_version); // '3'
 * ```
 */
export interface PaymentView {
  /**
   * The payment.
   *
   * @example
   * ```ts
   * view.payment_id // 'pay_1'
   * ```
   */
  payment_id: string;
  /**
   * The merchant's `order_ref` given at creation, when there was one (`null` where the
   * service writes it so: read as absent by linking).
   *
   * @example
   * ```ts
   * view.order_ref // 'order-42'
   * ```
   */
  order_ref?: string | null;
  /**
   * The `source_amount` the payment was created with (unknown keys kept, as sent; a service
   * may write `null` for the field its kind does not use, `pricing_ref` of a fiat amount, which
   * linking reads as absent).
   *
   * @example
   * ```ts
   * view.source_amount.amount_raw // '12800'
   * ```
   */
  source_amount: SourceAmount;
  /**
   * The authoritative status, exactly as the service wrote it (the sandbox's names: `open`,
   * `confirming`, `paid`, `partially_paid`, `overpaid`, `review_required`, `expired`,
   * `cancelled`).
   *
   * @example
   * ```ts
   * if (view.status === 'partially_paid') await holdForReview(view);
   * ```
   */
  status: string;
  /**
   * `status_version` as exact decimal digits, at any size (the service may send a number).
   *
   * @example
   * ```ts
   * compareStatusVersions(view.status_version, event.statusVersion) >= 0
   * ```
   */
  status_version: string;
  /**
   * The total received so far, in the smallest unit, when the view carries it (`null` where
   * the service writes it so: read as absent).
   *
   * @example
   * ```ts
   * view.amount_received_raw // '12800'
   * ```
   */
  amount_received_raw?: string | null;
  /**
   * The exact text of the answer the view was read from (not enumerable): what
   * {@link linkEvent} and {@link defaultPolicy} read. A spread copy (`{ ...view }`) and
   * `JSON.parse(JSON.stringify(view))` leave it out, and are refused where a view is taken:
   * pass the view itself (a `confirm` returns what `getPayment` resolved, as it is).
   *
   * @example
   * ```ts
   * defaultPolicy(view.responseText);
   * ```
   */
  readonly responseText: string;
  /**
   * Every other field, as sent (numbers a JavaScript number cannot hold exactly as strings
   * of their digits).
   *
   * @example
   * ```ts
   * view['expires_at']
   * ```
   */
  [key: string]: unknown;
}

/**
 * Reads the answer of `GET /v1/payments/{payment_id}`: the core checks the fields fulfilment
 * relies on (`payment_id`, `order_ref`, `source_amount`, `status`, `status_version` exact at
 * any size, `amount_received_raw`), then every field is returned as sent, `status_version` as
 * a string, and the text itself as `responseText`.
 *
 * @param viewText The exact text of the answer (`await response.text()`).
 * @returns The view.
 * @throws {CryptoPayError} `invalid_argument` (not JSON text of an object, a key repeated, a
 * required field missing or of another type); `status_version_invalid` (a float, a sign, an
 * exponent, leading zeros); `source_amount_invalid`; `amount_raw_invalid`.
 * @example
 * ```ts
 * const view = parsePaymentView(await response.text());
 * console.log(view.status, view.status_version);
 * ```
 */
export declare function parsePaymentView(viewText: string): PaymentView;

/**
 * The merchant's own record of a payment, stored when it was created: the order the payment
 * must pay for (the receiver's `orders` table holds it).
 *
 * @example
 * ```ts
 * const order: Order = { paymentId: created.payment_id, orderRef: 'order-42', sourceAmount: body.source_amount };
 * ```
 */
export interface Order {
  /**
   * The `payment_id` the service answered the creation with.
   *
   * @example
   * ```ts
   * paymentId: 'pay_1'
   * ```
   */
  paymentId: string;
  /**
   * The `order_ref` sent at creation; absent (or `null`) when none was sent.
   *
   * @example
   * ```ts
   * orderRef: 'order-42'
   * ```
   */
  orderRef?: string | null | undefined;
  /**
   * The `source_amount` sent at creation, read strictly (an unknown key is `source_amount_invalid`).
   *
   * @example
   * ```ts
   * sourceAmount: { kind: 'fiat', currency: 'USD', amount_raw: '12800' }
   * ```
   */
  sourceAmount: SourceAmount;
  /**
   * The integration the payment was created under (your name for the store, API key and
   * signing secret), or absent for a receiver with one integration.
   *
   * @example
   * ```ts
   * integration: 'shop-eu'
   * ```
   */
  integration?: string | null | undefined;
}

/**
 * Options of {@link linkEvent}.
 *
 * @example
 * ```ts
 * const options: LinkOptions = { integration: 'shop-eu' };
 * ```
 */
export interface LinkOptions {
  /**
   * The integration whose signing secret verified the event; absent (or `null`) for a
   * receiver with one integration. It must equal the order's: absent matches only absent.
   *
   * @example
   * ```ts
   * integration: 'shop-eu'
   * ```
   */
  integration?: string | null | undefined;
}

/**
 * Why a payment does not link to its order (each a case for review, never for fulfilment):
 * `payment_unknown` (no order), `payment_id_mismatch`, `order_ref_mismatch`,
 * `source_amount_mismatch`, `integration_mismatch`. Not {@link ErrorCode}s: answers, not errors.
 *
 * @example
 * ```ts
 * const code: LinkMismatchCode = 'source_amount_mismatch';
 * ```
 */
export type LinkMismatchCode =
  | 'payment_unknown'
  | 'payment_id_mismatch'
  | 'order_ref_mismatch'
  | 'source_amount_mismatch'
  | 'integration_mismatch';

/**
 * What {@link linkEvent} answers.
 *
 * @example
 * ```ts
 * const link: LinkResult = linkEvent(order, viewText);
 * if (!link.linked) console.warn(link.code);
 * ```
 */
export type LinkResult =
  | {
      /**
       * The payment links to the order: decide with the policy.
       *
       * @example
       * ```ts
       * // Linked is not paid: the policy decides.
       * if (link.linked && defaultPolicy(view) === 'fulfil') await ship(order);
       * ```
       */
      linked: true;
    }
  | {
      /**
       * The payment does not link: hold the order for review.
       *
       * @example
       * ```ts
       * if (!link.linked) review(order, link.code);
       * ```
       */
      linked: false;
      /**
       * The first mismatch found.
       *
       * @example
       * ```ts
       * if (!link.linked) link.code // 'source_amount_mismatch'
       * ```
       */
      code: LinkMismatchCode;
      /**
       * `code: what it means and what to do`.
       *
       * @example
       * ```ts
       * if (!link.linked) console.warn(link.message);
       * ```
       */
      message: string;
    };

/**
 * Links a payment's authoritative view to the merchant's order (spec: receiver rule 7), each
 * field compared exactly, in this order: an order exists (`payment_unknown`), `payment_id`,
 * `order_ref` (both absent is equal), `source_amount` (`kind`, `currency`, `pricing_ref`,
 * `amount_raw`), the integration whose secret verified the event. The options and the
 * order's shape (`invalid_argument`) are checked first, then the view is read, then the
 * order's `sourceAmount`.
 * A mismatch is never fulfilled.
 *
 * @param order The order stored for the payment, or `null` when none is.
 * @param view The exact text of `GET /v1/payments/{payment_id}`'s answer, or a {@link PaymentView} (its `responseText` is read).
 * @param options The integration that verified the event.
 * @returns `{ linked: true }` or `{ linked: false, code, message }`.
 * @throws {CryptoPayError} For an invalid view (the codes of {@link parsePaymentView}); for an
 * order of the wrong shape `invalid_argument`, and the codes of its `sourceAmount`
 * (`source_amount_invalid`; `amount_raw_invalid` for an amount_raw that is not a string: an
 * invalid string is only compared, and is a mismatch, not a throw).
 * @example
 * ```ts
 * const link = linkEvent(order, view.responseText, { integration: 'shop-eu' });
 * const action = link.linked ? defaultPolicy(view) : 'review';
 * ```
 */
export declare function linkEvent(order: Order | null | undefined, view: string | PaymentView, options?: LinkOptions): LinkResult;

/**
 * The default fulfilment policy: `paid` is `'fulfil'` only when `amount_received_raw` is
 * absent or exactly the source `amount_raw` (else `'review'`); `partially_paid`, `overpaid`
 * and `review_required` are `'review'`; `open` and `confirming` `'wait'`; `expired` and
 * `cancelled` `'closed'` when nothing was received (`amount_received_raw` absent or `"0"`),
 * else `'review'`; any other status (case included: `PAID`) `'review'`. Call it only
 * once {@link linkEvent} linked the payment to its order.
 *
 * @param view The exact text of `GET /v1/payments/{payment_id}`'s answer, or a {@link PaymentView}.
 * @returns `'fulfil'`, `'review'`, `'wait'` or `'closed'`.
 * @throws {CryptoPayError} For an invalid view (the codes of {@link parsePaymentView}).
 * @example
 * ```ts
 * const link = linkEvent(order, viewText);
 * const action = link.linked ? defaultPolicy(viewText) : 'review';
 * if (action === 'fulfil') await ship(order);
 * ```
 */
export declare function defaultPolicy(view: string | PaymentView): FulfilmentAction;

/**
 * Every error code the package can throw, in the contract's order (the members of
 * {@link ErrorCode}).
 *
 * @returns A new array of codes.
 * @throws {CryptoPayError} `invalid_argument` in browsers before `await init()`.
 * @example
 * ```ts
 * const known = new Set<string>(errorCodes());
 * ```
 */
export declare function errorCodes(): ErrorCode[];

/**
 * A URL object (`URL`, or anything with an `href`), typed by what `init()` reads from it so
 * that the types need no DOM or Node globals.
 *
 * @example
 * ```ts
 * const where: UrlLike = new URL('/static/cryptopay_verify_bg.wasm', location.href);
 * ```
 */
export interface UrlLike {
  /**
   * The absolute URL.
   *
   * @example
   * ```ts
   * href: 'https://shop.example/static/cryptopay_verify_bg.wasm'
   * ```
   */
  readonly href: string;
}

/**
 * A Fetch `Response` (what `fetch()` resolves to), typed by what `init()` reads from it.
 *
 * @example
 * ```ts
 * const response: ResponseLike = await fetch('/static/cryptopay_verify_bg.wasm');
 * ```
 */
export interface ResponseLike {
  /**
   * Whether the status is 2xx; otherwise `init()` rejects naming the URL and the status.
   *
   * @example
   * ```ts
   * if (!response.ok) console.error(response.status);
   * ```
   */
  readonly ok: boolean;
  /**
   * The HTTP status.
   *
   * @example
   * ```ts
   * status: 200
   * ```
   */
  readonly status: number;
  /**
   * The URL the response came from (named in errors).
   *
   * @example
   * ```ts
   * url: 'https://shop.example/assets/cryptopay_verify_bg.wasm'
   * ```
   */
  readonly url: string;
  /**
   * The response headers (`content-type: application/wasm` allows streaming compilation).
   *
   * @example
   * ```ts
   * response.headers.get('content-type'); // 'application/wasm'
   * ```
   */
  readonly headers: { get(name: string): string | null };
  /**
   * Reads the body.
   *
   * @example
   * ```ts
   * const bytes = await response.arrayBuffer();
   * ```
   */
  arrayBuffer(): Promise<ArrayBuffer>;
}

/**
 * A compiled `WebAssembly.Module` of `cryptopay_verify_bg.wasm` (as wrangler's CompiledWasm
 * rule or Next.js's `?module` import give it). A `WebAssembly.Module` has no members that a
 * type could check, so any object fits this type; `init()` checks at run time that it is one.
 *
 * @example
 * ```ts
 * const wasmModule = await WebAssembly.compileStreaming(fetch('/static/cryptopay_verify_bg.wasm'));
 * await init(wasmModule);
 * ```
 */
export type CompiledWasmModule = object;

/**
 * Where `init()` gets the WebAssembly module from:
 *
 * - a URL, as a string or a `URL` object, fetched (`fetch` is the browser's);
 * - a Fetch `Response`, or a Promise of one (`init(fetch(url))`);
 * - the bytes of `cryptopay_verify_bg.wasm` (`ArrayBuffer`, `Uint8Array` or another view);
 * - a compiled `WebAssembly.Module`.
 *
 * @example
 * ```ts
 * const input: InitInput = '/static/cryptopay_verify_bg.wasm';
 * ```
 */
export type InitInput =
  | string
  | UrlLike
  | ResponseLike
  | PromiseLike<ResponseLike>
  | ArrayBuffer
  | ArrayBufferView
  | CompiledWasmModule;

/**
 * Loads the WebAssembly module. Needed once in browsers, before the first call; a no-op
 * everywhere else (Node, Bun, Deno, Workers and edge runtimes load it at import, and ignore
 * `input`), so portable code calls it everywhere.
 *
 * In browsers, `init()` with no argument fetches `cryptopay_verify_bg.wasm` next to the
 * module that holds the package's code: next to the package's own files when served
 * unbundled, the file Vite and webpack emit, or next to an esbuild or Rollup bundle (copy it
 * there). Idempotent: concurrent calls share one load, later calls return the same promise,
 * and a failed load may be tried again.
 *
 * @param input Where to load the module from (browsers only); see {@link InitInput}.
 * @returns A promise that resolves once the package can be called.
 * @throws {CryptoPayError} Rejects with `invalid_argument` when the module cannot be loaded:
 * the URL answered 404 or another non-2xx status, served something that is not this
 * package's WebAssembly module, or could not be fetched (the message names the URL, without
 * credentials or query, and the fix: copy `cryptopay_verify_bg.wasm` next to your bundle, or
 * pass its URL to `init(url)`); or `input` is of none of the accepted kinds.
 * @example
 * ```ts
 * await init(); // browsers: fetches cryptopay_verify_bg.wasm next to the bundle
 * await init('/static/cryptopay_verify_bg.wasm'); // or from where you serve it
 * ```
 */
export declare function init(input?: InitInput): Promise<void>;
