// startSandbox()'s options, checked and completed with their defaults. A value the sandbox
// cannot use is a CryptoPayError invalid_argument naming the option (as the package's own
// functions refuse options), before anything listens or is written.

import { CryptoPayError, buildSourceAmount, validateCheckoutOrigin, validateWebhookUrl } from 'cryptopay-verify';
import { HEADER_NAME, LOOPBACK_HOST, RESERVED_HEADERS, isLocalHost, localWebhookUrlProbe, unknownOption } from '../api/hints.mjs';
import { randomSeed } from './random.mjs';
import { validateRetryDelays } from './rules.mjs';

export const DEFAULTS = {
  port: 4010,
  host: '127.0.0.1',
  pricing: { kind: 'fiat', ref: 'USD', decimals: 2 },
  retryDelaysMs: [1000, 2000, 4000, 8000, 16000],
  timeoutMs: 10_000,
  // The service's header names are not in its specification: these stand in for them.
  timestampHeader: 'X-Webhook-Timestamp',
  signatureHeader: 'X-Webhook-Signature',
};

const KEYS = ['port', 'host', 'publicUrl', 'data', 'webhookUrl', 'webhookSecret', 'timestampHeader', 'signatureHeader', 'pricing', 'website',
  'retryDelaysMs', 'timeoutMs', 'duplicateRate', 'shuffle', 'seed', 'log'];
// A signing secret given to the sandbox: what a receiver's configuration holds without quoting.
const WEBHOOK_SECRET = /^[\x21-\x7e]{16,256}$/;

const invalid = (detail) => new CryptoPayError('invalid_argument', `invalid_argument: ${detail}`);

/**
 * pay's options, `{ hold? }`: whether the payment stays confirming (its confirmations held)
 * until settle.
 */
export function payOptions(options) {
  if (options === undefined) return false;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalid('pay takes (paymentId, amountRaw, { hold? })');
  }
  for (const key of Object.keys(options)) {
    if (key !== 'hold') throw invalid(unknownOption(key, ['hold'], 'pay'));
  }
  if (options.hold !== undefined && typeof options.hold !== 'boolean') throw invalid('pay: hold is true or false');
  return options.hold === true;
}

/** delivered()'s options: how long to wait at most, in milliseconds (default 30 s). */
export function deliveredOptions(options) {
  if (options === undefined) return 30_000;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalid('delivered takes ({ timeoutMs? })');
  for (const key of Object.keys(options)) {
    if (key !== 'timeoutMs') throw invalid(unknownOption(key, ['timeoutMs'], 'delivered'));
  }
  const { timeoutMs = 30_000 } = options;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 3_600_000) {
    throw invalid('delivered: timeoutMs is an integer from 1 to 3600000 (milliseconds)');
  }
  return timeoutMs;
}

/** Whether `url` names this machine (loopback): the one place a sandbox may send plain http. */
export const isLoopback = (url) => LOOPBACK_HOST.test(url.hostname);

/** Whether `url` is on this machine, under a local development name or on a private network. */
const isLocal = (url) => isLocalHost(url.hostname);

/** What a sandbox takes as http://, said where it refuses one. */
const LOCAL_FORMS = 'a sandbox also takes http:// on any port to this machine (localhost, 127.0.0.1), a local development name '
  + '(*.localhost, *.test, *.local, *.internal such as host.docker.internal), a one-label host (a Compose or CI service name '
  + 'such as http://receiver:8787) or a private address (10.x, 172.16-31.x, 192.168.x)';

/**
 * Checks a webhook URL as the service does (validateWebhookUrl), except that a URL on this
 * machine (127.0.0.0/8, localhost, [::1]), under a local development name (*.localhost,
 * *.test, *.local, *.internal, *.home.arpa), with a one-label host (a Compose service) or a
 * private address may be http:// and have any port, because this is a sandbox; credentials,
 * a query string and a fragment are refused there too. Returns { url, local, loopback };
 * throws the package's CryptoPayError (webhook_url_...) otherwise, an http:// one saying what
 * the sandbox takes.
 */
export function checkWebhookUrl(text) {
  if (typeof text !== 'string') throw new CryptoPayError('webhook_url_malformed', 'webhook_url_malformed: the webhook URL must be a string');
  let url;
  try {
    url = new URL(text);
  } catch {
    validateWebhookUrl(text); // throws the precise code
    throw new CryptoPayError('webhook_url_malformed', 'webhook_url_malformed: not an absolute URL');
  }
  if ((url.protocol === 'http:' || url.protocol === 'https:') && isLocal(url)) {
    const probe = localWebhookUrlProbe(url, text);
    if (probe !== null) validateWebhookUrl(probe); // throws the core's webhook_url_credentials, _query or _fragment
    return { url: text, local: true, loopback: isLoopback(url) };
  }
  try {
    validateWebhookUrl(text);
  } catch (error) {
    if (url.protocol === 'http:' && error?.code === 'webhook_url_not_https') {
      throw new CryptoPayError(error.code, `${error.message}; ${LOCAL_FORMS}`);
    }
    throw error;
  }
  return { url: text, local: false, loopback: false };
}

/**
 * The address a browser opens the sandbox at when it is not the one it listens on (a Docker
 * port mapping, a LAN name, an https proxy): an http(s) origin, answered as its origin
 * (`http://localhost:8080`); a path, query, fragment or credentials are refused.
 */
function publicOrigin(text) {
  const form = 'publicUrl must be the http:// or https:// origin a browser opens the sandbox at, such as http://localhost:8080';
  if (typeof text !== 'string') throw invalid(form);
  let url;
  try {
    url = new URL(text);
  } catch {
    throw invalid(form);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(form);
  // The value is not echoed: a URL with credentials may carry a password.
  if (url.username !== '' || url.password !== '') throw invalid('publicUrl carries no user name or password');
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]/.test(text)) {
    throw invalid('publicUrl is an origin only, with no path, query or fragment (the sandbox serves from its root)');
  }
  return url.origin;
}

function integer(value, name, min, max) {
  if (!Number.isSafeInteger(value) || value < min || value > max) throw invalid(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

function headerName(value, name) {
  if (typeof value !== 'string' || !HEADER_NAME.test(value)) throw invalid(`${name} must be an HTTP header name such as X-Webhook-Signature`);
  if (RESERVED_HEADERS.has(value.toLowerCase())) {
    throw invalid(`${name} names a header HTTP itself uses (${value}): the delivery would lose it; give the service's header, such as X-Webhook-Signature`);
  }
  return value;
}

/** The options of startSandbox, checked, with every default filled in. */
export function sandboxOptions(options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalid('startSandbox takes an options object');
  for (const key of Object.keys(options)) {
    // The key is not echoed: it may be a pasted secret. A near miss of an option is named.
    if (!KEYS.includes(key)) throw invalid(unknownOption(key, KEYS, 'startSandbox'));
  }
  const o = { ...options };
  const port = integer(o.port ?? DEFAULTS.port, 'port', 0, 65535);
  const host = o.host ?? DEFAULTS.host;
  if (typeof host !== 'string' || host === '') throw invalid('host must be an address or host name such as 127.0.0.1');
  const publicUrl = o.publicUrl === undefined ? undefined : publicOrigin(o.publicUrl);
  if (o.data !== undefined && (typeof o.data !== 'string' || o.data === '')) throw invalid('data must be the path of a SQLite file');
  const webhook = o.webhookUrl === undefined ? undefined : checkWebhookUrl(o.webhookUrl);
  // The value is never echoed: it is a secret.
  if (o.webhookSecret !== undefined && (typeof o.webhookSecret !== 'string' || !WEBHOOK_SECRET.test(o.webhookSecret))) {
    throw invalid('webhookSecret must be 16 to 256 visible ASCII characters, no space (such as whsec_ and random text): '
      + 'the signing secret your receiver is configured with (the value given is not shown)');
  }
  const timestampHeader = headerName(o.timestampHeader ?? DEFAULTS.timestampHeader, 'timestampHeader');
  const signatureHeader = headerName(o.signatureHeader ?? DEFAULTS.signatureHeader, 'signatureHeader');
  // With a data file and one name given, the other may be the kept webhook's: compared there.
  const bothKnown = o.data === undefined || (o.timestampHeader !== undefined && o.signatureHeader !== undefined);
  if (bothKnown && timestampHeader.toLowerCase() === signatureHeader.toLowerCase()) throw invalid('timestampHeader and signatureHeader must differ');
  const pricing = o.pricing ?? DEFAULTS.pricing;
  if (pricing === null || typeof pricing !== 'object') throw invalid('pricing must be { kind, ref, decimals }');
  const primarySource = { kind: pricing.kind, ref: pricing.ref, decimals: pricing.decimals };
  buildSourceAmount({ primarySource, amount: '1' }); // store_source_invalid, decimals_invalid...
  // A ref no request could match (the service compares it as it is): refused at the start, not
  // found out as source_currency_mismatch at every creation.
  const unmatched = primarySource.kind === 'fiat'
    ? !/^[A-Z]{3}$/.test(primarySource.ref) && 'a fiat currency is a three-letter code in capitals, as requests send it (e.g. USD)'
    : /[\s\p{Cc}]/u.test(primarySource.ref) && 'a pricing ref holds no white space or control characters';
  if (unmatched) throw new CryptoPayError('store_source_invalid', `store_source_invalid: pricing: ${unmatched}`);
  if (o.website !== undefined) validateCheckoutOrigin(o.website); // an https origin
  const retryDelaysMs = o.retryDelaysMs ?? DEFAULTS.retryDelaysMs;
  validateRetryDelays(retryDelaysMs);
  const timeoutMs = integer(o.timeoutMs ?? DEFAULTS.timeoutMs, 'timeoutMs', 1, 600_000);
  const duplicateRate = o.duplicateRate ?? 0;
  if (typeof duplicateRate !== 'number' || !(duplicateRate >= 0 && duplicateRate <= 1)) throw invalid('duplicateRate must be a number from 0 to 1');
  if (o.shuffle !== undefined && typeof o.shuffle !== 'boolean') throw invalid('shuffle must be a boolean');
  const seed = o.seed === undefined ? randomSeed() : integer(o.seed, 'seed', 0, 0xffff_ffff);
  if (o.log !== undefined && o.log !== false && typeof o.log !== 'function') throw invalid('log must be a function or false');
  return {
    port, host, publicUrl, data: o.data, webhook, webhookSecret: o.webhookSecret, timestampHeader, signatureHeader, primarySource, website: o.website,
    // Which header names this start names: a webhook kept in a data file keeps the others.
    headersGiven: { timestamp: o.timestampHeader !== undefined, signature: o.signatureHeader !== undefined },
    retryDelaysMs: [...retryDelaysMs], timeoutMs, duplicateRate, shuffle: o.shuffle === true, seed,
    log: typeof o.log === 'function' ? o.log : () => {},
  };
}
