// What createClient and createPayment check before anything is sent: the client's options,
// a SourceAmount's key order, and the small readers of what the service answers.

import { CryptoPayError, validateCheckoutOrigin } from 'cryptopay-verify';

import { LOOPBACK_HOST, bindingHint } from '../api/hints.mjs';
import { isPlainObject } from './transport.mjs';

export const invalid = (detail) => new CryptoPayError('invalid_argument', `invalid_argument: ${detail}`);

// A SourceAmount's keys in one order (the others after them, for the core to refuse), so that
// the same intent sent again after a crash, built with its keys in another order, is the same
// bytes under its Idempotency-Key (another order would be idempotency_key_reused).
export const SOURCE_KEYS = ['kind', 'currency', 'pricing_ref', 'amount_raw'];
export function inOrder(sourceAmount) {
  if (!isPlainObject(sourceAmount)) return sourceAmount;
  const keys = Object.keys(sourceAmount);
  const known = SOURCE_KEYS.filter((key) => keys.includes(key));
  const rest = keys.filter((key) => !SOURCE_KEYS.includes(key));
  return Object.fromEntries([...known, ...rest].map((key) => [key, sourceAmount[key]]));
}

/** The names besides loopback a base URL may reach over http: a sandbox beside the tests. */
const SANDBOX_NAME = /(^|\.)localhost\.?$|\.test\.?$|^host\.docker\.internal\.?$/i;

// The base URL, checked: HTTPS (or http to a loopback host or a local development name: a
// local sandbox), no credentials,
// query or fragment; without a trailing slash.
export function baseUrlOf(value) {
  if (value === undefined) throw invalid('baseUrl is undefined: is the environment variable set? It is the service\'s base address, such as https://api.example.com');
  let url;
  try {
    url = new URL(value);
  } catch {
    throw invalid('baseUrl is not a URL: give the service\'s base address, such as https://api.example.com');
  }
  // A sandbox in a container beside the tests is reached as host.docker.internal or by a name
  // of its own under .test or .localhost (a Compose alias): names no network resolves to
  // another machine. Not *.local (mDNS: the LAN's machines) nor *.internal (a cloud network's
  // own DNS): a live key would cross the network in the clear.
  const loopback = LOOPBACK_HOST.test(url.hostname) || SANDBOX_NAME.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw invalid('baseUrl must be https:// (the API key travels in every request); http:// only to a local sandbox: '
      + 'a loopback host, host.docker.internal, or a name under .test or .localhost (a Compose alias such as sandbox.test)');
  }
  if (url.username !== '' || url.password !== '') throw invalid('baseUrl must not hold credentials: the API key is given as apiKey');
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(value)) throw invalid('baseUrl must not hold a query or a fragment');
  // The API reference's server address names the version: the client adds /v1 to every path.
  if (/\/v1\/*$/.test(url.pathname)) {
    throw invalid('baseUrl ends in /v1: give the service\'s base address without it, such as https://api.example.com (the client adds /v1 to every path)');
  }
  return { base: url.href.replace(/\/+$/, ''), loopback };
}

export function apiKeyOf(value) {
  if (value === undefined) throw invalid('apiKey is undefined: is the environment variable set?');
  const binding = bindingHint(value);
  if (binding !== '') throw invalid(`apiKey is not a key${binding}`);
  if (typeof value !== 'string' || value === '') throw invalid('apiKey is required: the API key issued under Integrations > API keys');
  // Never echoed: the message names the problem only.
  if (value !== value.trim()) throw invalid('apiKey starts or ends with white space: remove it where the key is configured');
  if (/^bearer\s/i.test(value)) throw invalid('apiKey starts with "Bearer ": give the key itself (the client writes the Authorization header)');
  if (/^(["'])[\s\S]*\1$/.test(value)) {
    throw invalid('apiKey is wrapped in quotes: remove them where the key is configured (an env file read by a tool that keeps them, such as docker --env-file)');
  }
  if (!/^[\x21-\x7e]+$/.test(value)) throw invalid('apiKey holds a character an HTTP header cannot carry: check where the key is configured');
  return value;
}

export function integerOption(value, name, fallback, min, max) {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min || value > max) throw invalid(`${name} is an integer from ${min} to ${max}`);
  return value;
}

// Whether a store's website_origin is an https origin the core can check a checkout_origin
// against.
export function isOrigin(value) {
  try {
    validateCheckoutOrigin(value);
    return true;
  } catch {
    return false;
  }
}

export function isJson(text) {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// An idempotency key: a random UUID where the runtime has one (Node 19+, Bun, Deno, Workers),
// else 128 bits of Math.random (Node 18 without its crypto global): unique per creation intent,
// not a secret.
export function newKey() {
  if (typeof globalThis.crypto?.randomUUID === 'function') return globalThis.crypto.randomUUID();
  const hex = () => Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0');
  return `${hex()}${hex()}-${hex()}-${hex()}`;
}
