// The options of `cryptopay-verify sandbox` and of its subcommands (args.mjs's parse reads
// them; sandbox.mjs runs them). Apart from sandbox.mjs so that the other commands never load
// the sandbox.

export const SUBCOMMANDS = ['pay', 'settle', 'review', 'expire', 'replay', 'rotate', 'activate', 'deliveries'];
export const DEFAULT_URL = 'http://127.0.0.1:4010';
const NAME = 'cryptopay-verify';

export const SANDBOX_USAGE = `${NAME} sandbox [--port 4010] [--host 127.0.0.1] [--public-url URL] [--data FILE]
       [--webhook-url URL --timestamp-header NAME --signature-header NAME] [--webhook-secret-env VAR]
       [--pricing fiat:USD:2 | crypto:<ref>:<decimals>] [--website https://shop.example]
       [--retry-delays 1,2,4,8,16] [--timeout 10] [--duplicate-rate R] [--shuffle] [--seed N] [--json]
  Runs the payment service locally, with no account and no network: the /v1 API, checkout
  and signed payment.updated deliveries to --webhook-url (a URL on this machine may be
  http://), retried after each of --retry-delays (seconds) on a network failure, 408, 425,
  429 or 5xx, never after another status (3xx included); --timeout (seconds, 0.05 to 600) is
  how long an attempt waits for the receiver's answer. Prints the base URL (also the
  checkout origin), a test API key with the three scopes and the webhook's resource_id and
  signing secret, then a line per request, event and delivery attempt (--json: one JSON
  object per line). --data FILE keeps the state in a SQLite file (needs better-sqlite3): a
  restart resumes pending retries. --duplicate-rate (0 to 1, default 0) delivers that share of
  acknowledged events again, --shuffle delivers a payment's events out of order; --seed makes
  both repeatable.
  Header names default to X-Webhook-Timestamp and X-Webhook-Signature. --webhook-secret-env
  VAR (or --webhook-secret-file F) signs with the secret your receiver is already configured
  with (16 to 256 visible ASCII characters; never printed) instead of a new one per start: a
  CI job or a Compose file gives both the same. --public-url names
  the origin a browser opens it at when that is not the listening address (a Docker port
  mapping, a LAN name, an https proxy): checkout links use it and its pages may post from it.
  Ctrl-C stops it.
  ${NAME} sandbox pay --payment ID --amount-raw N [--hold] [--url ${DEFAULT_URL}] [--json]
  ${NAME} sandbox settle|review|expire --payment ID [--url URL] [--json]
  ${NAME} sandbox replay --event ID [--url URL] [--json]
  ${NAME} sandbox rotate|activate [--url URL] [--json]
  ${NAME} sandbox deliveries [--event ID] [--payment ID] [--wait SECS] [--url URL] [--json]
  Act on a running sandbox as its customer (pay; --hold keeps the payment confirming until
  settle completes its confirmations) and its dashboard: review, expire, replay an
  event (same event_id and bytes, new timestamp and signature), rotate the webhook's secret
  (prints the new pending secret, once) and activate it, and the webhook log (--wait SECS:
  until nothing is pending, exit 1 if something still is after SECS: what a CI job runs before
  asserting on its receiver; exit 1 too when an event's last attempt ended exhausted or
  failed_permanently, with what the receiver answered). Exit 0 done, 1 the sandbox refused
  (its code and message printed) or --wait ran out, 2 a usage error or no sandbox at --url.`;

// name -> 'value' | 'flag', for each form.
const ACT = { url: 'value', json: 'flag', help: 'flag' };
export const SANDBOX_OPTIONS = {
  sandbox: {
    port: 'value', host: 'value', 'public-url': 'value', data: 'value', 'webhook-url': 'value',
    'webhook-secret-env': 'value', 'webhook-secret-file': 'value', 'timestamp-header': 'value',
    'signature-header': 'value', pricing: 'value', website: 'value', 'retry-delays': 'value', timeout: 'value',
    'duplicate-rate': 'value', shuffle: 'flag', seed: 'value', json: 'flag', help: 'flag',
  },
  'sandbox pay': { ...ACT, payment: 'value', 'amount-raw': 'value', hold: 'flag' },
  'sandbox settle': { ...ACT, payment: 'value' },
  'sandbox review': { ...ACT, payment: 'value' },
  'sandbox expire': { ...ACT, payment: 'value' },
  'sandbox replay': { ...ACT, event: 'value' },
  'sandbox rotate': ACT,
  'sandbox activate': ACT,
  'sandbox deliveries': { ...ACT, event: 'value', payment: 'value', wait: 'value' },
};

