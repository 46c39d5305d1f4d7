// Types of cryptopay-verify. Hand-written and checked against the core's list of codes.

/** Every stable error code. New codes may be added; none is ever renamed. */
export type ErrorCode =
  | 'invalid_argument'
  | 'body_not_raw'
  | 'body_too_large'
  | 'header_duplicated'
  | 'timestamp_missing'
  | 'signature_missing'
  | 'timestamp_malformed'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'signature_malformed'
  | 'signature_mismatch'
  | 'no_secrets'
  | 'secret_empty'
  | 'event_not_json'
  | 'event_malformed'
  | 'event_duplicate_key'
  | 'event_type_unknown'
  | 'status_version_invalid'
  | 'amount_raw_invalid'
  | 'amount_decimal_invalid'
  | 'amount_too_precise'
  | 'decimals_invalid'
  | 'store_source_invalid'
  | 'source_amount_invalid'
  | 'source_kind_mismatch'
  | 'source_currency_missing'
  | 'source_currency_mismatch'
  | 'source_pricing_ref_missing'
  | 'source_pricing_ref_mismatch'
  | 'pricing_ref_is_address'
  | 'pricing_ref_is_network_id'
  | 'create_payment_invalid'
  | 'origin_invalid'
  | 'origin_not_https'
  | 'origin_not_permitted'
  | 'webhook_url_malformed'
  | 'webhook_url_not_https'
  | 'webhook_url_ip_literal'
  | 'webhook_url_not_registered_domain'
  | 'webhook_url_port'
  | 'webhook_url_credentials'
  | 'webhook_url_query'
  | 'webhook_url_fragment'
  | 'idempotency_key_invalid';

/** The error every function throws. Messages never contain a secret, a signature or the body. */
export declare class CryptoPayError extends Error {
  constructor(code: ErrorCode, message: string);
  readonly name: 'CryptoPayError';
  readonly code: ErrorCode;
}

/**
 * The raw request body. Prefer bytes: a string is taken as its UTF-8 bytes, which only
 * verifies if the framework did not re-encode it. A parsed object never verifies
 * (`body_not_raw`).
 */
export type RawBody = Uint8Array | ArrayBuffer | ArrayBufferView | string;

export type SecretKind = 'active' | 'pending' | 'retiring';

/** One entry of a rotation set: exactly one `active`; `acceptUntilSecs` only (and always) on `retiring`. */
export interface SecretEntry {
  secret: string;
  kind: SecretKind;
  acceptUntilSecs?: number;
}

/** One active secret, or a rotation set of up to 4 entries. Used as the UTF-8 bytes exactly as saved. */
export type Secrets = string | SecretEntry[];

export interface DeliveryInput {
  body: RawBody;
  /** The timestamp header value exactly as received (Unix seconds, 1 to 12 ASCII digits). */
  timestamp: string;
  /** The signature header value exactly as received. */
  signature: string;
  /** The current trusted Unix time in seconds. */
  nowSecs: number;
}

export interface VerifyOptions {
  secrets: Secrets;
  /** Required; 300 seconds is the usual choice. Checked in both directions. */
  maxSkewSecs: number;
  /** Checked before any hashing or copying; default 4 MiB, at most 64 MiB. */
  maxBodyBytes?: number;
}

export type VerifyInput = DeliveryInput & VerifyOptions;

export interface VerifiedSignature {
  matchedSecret: SecretKind;
  timestamp: number;
}

/** A JSON value as parsed; numbers JavaScript cannot hold exactly are given as their decimal text. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface PaymentUpdatedEvent {
  schemaVersion: string;
  eventId: string;
  eventType: 'payment.updated';
  /** As sent by the service (a string or a number); not interpreted. */
  occurredAt: string | number;
  paymentId: string;
  /** Exact decimal digits; compare with compareStatusVersions, never as numbers. */
  statusVersion: string;
  /** The `data` object with its wire (snake_case) field names. */
  data: { payment_id: string; status_version: number | string; [key: string]: JsonValue };
  /** The whole top-level object, unknown fields included. */
  envelope: { [key: string]: JsonValue };
}

export interface VerifiedWebhook extends VerifiedSignature {
  event: PaymentUpdatedEvent;
}

/** Verifies signature and freshness without parsing. */
export declare function verifySignature(input: VerifyInput): VerifiedSignature;
/** Verifies, then parses the event from the same bytes. */
export declare function verifyWebhook(input: VerifyInput): VerifiedWebhook;

/** A verifier keyed once and reused for every delivery. */
export declare class Verifier {
  constructor(options: VerifyOptions);
  verifySignature(input: DeliveryInput): VerifiedSignature;
  verifyWebhook(input: DeliveryInput): VerifiedWebhook;
  /** Releases the keyed state now; any later call is `invalid_argument`. Also reclaimed by GC. */
  free(): void;
}

/** Any container a server framework hands over. */
export type HeaderContainer =
  | { forEach(callback: (value: string, name: string) => void): void; get(name: string): string | null }
  | Record<string, string | string[] | undefined>
  | Map<string, string | string[]>
  | Array<[string, string]>
  | string[];

export interface HeaderNames {
  timestampHeader: string;
  signatureHeader: string;
}

export declare function readDeliveryHeaders(
  headers: HeaderContainer,
  names: HeaderNames,
): { timestamp: string; signature: string };

export interface SignInput {
  secret: string;
  timestamp: string | number;
  body: RawBody;
  /** Lowercase hex (default) or padded standard base64. */
  encoding?: 'hex' | 'base64';
}

/** Signs a body as the service does, for tests. */
export declare function signWebhook(input: SignInput): string;

/** Parses a body that already verified. */
export declare function parseEvent(verifiedBody: RawBody): PaymentUpdatedEvent;

export type Decision = 'apply' | 'duplicate' | 'stale';

export declare function decideEvent(
  incoming: { eventId: string; paymentId: string; statusVersion: string | number },
  stored: { eventSeen: boolean; statusVersion?: string | number | null },
): Decision;

export declare function compareStatusVersions(a: string | number, b: string | number): -1 | 0 | 1;

export declare function validateAmountRaw(amountRaw: string): void;
export declare function isValidAmountRaw(amountRaw: unknown): boolean;
export declare function toAmountRaw(decimal: string, decimals: number): string;
export declare function fromAmountRaw(amountRaw: string, decimals: number): string;

/** `primary_source` of GET /v1/store. */
export interface PrimarySource {
  kind: 'fiat' | 'crypto';
  ref: string;
  decimals: number;
  [key: string]: JsonValue;
}

export type SourceAmount =
  | { kind: 'fiat'; currency: string; amount_raw: string }
  | { kind: 'crypto'; pricing_ref: string; amount_raw: string };

export declare function buildSourceAmount(input: { primarySource: PrimarySource; amount: string }): SourceAmount;
export declare function validateSourceAmount(sourceAmount: unknown, primarySource: PrimarySource): void;

export interface CreatePayment {
  source_amount: SourceAmount;
  order_ref?: string;
  checkout_origin?: string;
}

export declare function validateCreatePayment(
  body: unknown,
  options: { primarySource: PrimarySource; websiteOrigin?: string },
): void;
export declare function validateCheckoutOrigin(origin: string, options?: { websiteOrigin?: string }): void;
export declare function validateWebhookUrl(url: string): void;
/** `{origin}/#payment_id=<encoded id>` */
export declare function hostedCheckoutUrl(checkoutOrigin: string, paymentId: string): string;

/** Lowercase hex SHA-256 of the exact request bytes. */
export declare function requestFingerprint(body: RawBody): string;
export declare function validateIdempotencyKey(key: string): void;

export declare function classifyDeliveryResponse(status: number): 'acknowledged' | 'retry' | 'permanent_failure';

/** Every error code the core knows, in the contract's order. */
export declare function errorCodes(): ErrorCode[];

/** Loads the WebAssembly module: needed once in browsers, a no-op elsewhere. */
export declare function init(
  input?: string | URL | Response | Promise<Response> | BufferSource | WebAssembly.Module,
): Promise<void>;
