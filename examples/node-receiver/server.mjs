// A complete payment.updated receiver on node:http, following every receiver rule of the
// payment service's specification, with cryptopay-verify/receiver:
//
//   1. verify the signature first, over the raw body bytes (bounded), before any parsing;
//   2. durably record the event: a SQLite file (WAL, synchronous=FULL) by default, or
//      PostgreSQL when DATABASE_URL is set (then run as many instances as you like);
//   3. de-duplicate by event_id;
//   4. apply data.status_version only when greater than the stored version of that payment
//      (2, 3 and 4 are one transaction per delivery);
//   5. answer 2xx once committed (duplicates and stale events too), 400 with the error code
//      for a rejected delivery, 503 when the store failed (the service then retries);
//   6. a 2xx acknowledges delivery only: nothing here marks an order paid.
//
// It shows what it has recorded: GET /events, GET /payments, GET /payments/:id.
//
// With the service's base URL and an API key, it also runs the merchant loop: POST /payments
// {"order_ref","amount"} creates a payment (cryptopay-verify/client) and records its order;
// every FULFIL_INTERVAL_MS a pass confirms each changed payment with GET /v1/payments/{id},
// links it to its order, applies the default policy and prints what it would do (ship, hold
// for review, release): the handler is where a shop calls its own fulfilment.
//
// Those routes are the shop's, on the server whose webhook URL must be public: they answer only
// `Authorization: Bearer <ADMIN_TOKEN>` (else 401), and are off (404) when ADMIN_TOKEN is not set.
//
// Configuration (flags win over environment variables):
//   --timestamp-header NAME  TIMESTAMP_HEADER   header carrying the delivery timestamp (required)
//   --signature-header NAME  SIGNATURE_HEADER   header carrying the signature (required)
//   --port N                 PORT               default 8787; 0 picks a free port
//   --host H                 HOST               default 127.0.0.1
//   --data-dir D             DATA_DIR           the folder of the SQLite file receiver.sqlite; default ./data
//   DATABASE_URL                                PostgreSQL instead of SQLite (postgresql://user:password@host/db);
//                                               never printed
//   --path P                 WEBHOOK_PATH       default /webhook
//   --max-skew S             MAX_SKEW_SECS      default 300
//   CRYPTOPAY_WEBHOOK_SECRET                    the signing Secret, exactly as saved (required)
//   CRYPTOPAY_WEBHOOK_SECRET_PENDING            during a rotation: the new, not yet active Secret
//   CRYPTOPAY_WEBHOOK_SECRET_RETIRING and CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL (Unix seconds)
//                                               after activation: the old Secret, for the overlap
//   (the secrets, the header names and the skew are read by the package's receiverOptionsFromEnv,
//   which names every variable missing or malformed, never a value)
//   --service-url URL        CRYPTOPAY_BASE_URL the service's base URL: with CRYPTOPAY_API_KEY, the merchant loop runs
//   CRYPTOPAY_API_KEY                           the API key (environment only; never printed)
//   ADMIN_TOKEN                                 the bearer token of the shop's routes (GET /events, GET /payments[/:id],
//                                               POST /payments): at least 16 visible ASCII characters, environment
//                                               only, never printed; unset, those routes are off (404)
//   --fulfil-interval MS     FULFIL_INTERVAL_MS default 5000: time between fulfilment passes
//   --recover-after S        RECOVER_AFTER_SECS default 900: an order with no news is confirmed again after this

import { parseArgs } from 'node:util';

// The flags that stand for a variable receiverOptionsFromEnv reads: a flag given wins.
const FLAG_VARIABLES = { 'timestamp-header': 'TIMESTAMP_HEADER', 'signature-header': 'SIGNATURE_HEADER', 'max-skew': 'MAX_SKEW_SECS' };

/**
 * The configuration from the command line and the environment. `fromEnv` is the package's
 * receiverOptionsFromEnv (cryptopay-verify/receiver): the secrets (with a rotation), the
 * header names and the skew, checked there.
 */
function configure(argv, env, fromEnv) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      'timestamp-header': { type: 'string' },
      'signature-header': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      path: { type: 'string' },
      'max-skew': { type: 'string' },
      'service-url': { type: 'string' },
      'fulfil-interval': { type: 'string' },
      'recover-after': { type: 'string' },
    },
  });
  const given = Object.fromEntries(Object.entries(FLAG_VARIABLES)
    .filter(([flag]) => values[flag] !== undefined).map(([flag, name]) => [name, values[flag]]));
  // Secrets come from the environment only, used exactly as saved.
  const config = fromEnv({ ...env, ...given });
  // A flag given wins; an empty variable counts as unset, as receiverOptionsFromEnv reads them.
  const setting = (flag, name, fallback) => values[flag] ?? (env[name] || undefined) ?? fallback;
  const whole = (flag, name, fallback) => {
    const text = String(setting(flag, name, fallback));
    return /^[0-9]{1,15}$/.test(text) ? Number(text) : NaN;
  };
  Object.assign(config, {
    port: whole('port', 'PORT', 8787),
    host: setting('host', 'HOST', '127.0.0.1'),
    dataDir: setting('data-dir', 'DATA_DIR', 'data'),
    path: setting('path', 'WEBHOOK_PATH', '/webhook'),
    databaseUrl: env.DATABASE_URL || undefined,
    serviceUrl: setting('service-url', 'CRYPTOPAY_BASE_URL', undefined),
    fulfilIntervalMs: whole('fulfil-interval', 'FULFIL_INTERVAL_MS', 5000),
    recoverAfterSecs: whole('recover-after', 'RECOVER_AFTER_SECS', 900),
  });
  // A path the service posts to: the webhook URL's path, from its leading slash.
  if (!/^\/[\x21-\x7e]*$/.test(config.path)) throw new Error('the webhook path (--path or WEBHOOK_PATH) starts with / and holds no spaces, e.g. /webhook');
  if (config.host === '' || config.dataDir === '') throw new Error('--host and --data-dir are not empty');
  // The API key from the environment only, used as it is (the client checks it).
  config.apiKey = env.CRYPTOPAY_API_KEY || undefined;
  // The shop's routes' token from the environment only; checked here, named, never shown.
  config.adminToken = env.ADMIN_TOKEN || undefined;
  if (config.adminToken !== undefined && !/^[\x21-\x7e]{16,}$/.test(config.adminToken)) {
    throw new Error('ADMIN_TOKEN must be at least 16 visible ASCII characters, no spaces (a random value: openssl rand -hex 32)');
  }
  if (!Number.isSafeInteger(config.fulfilIntervalMs) || config.fulfilIntervalMs < 1) throw new Error('the fulfilment interval is whole milliseconds');
  if (!Number.isSafeInteger(config.recoverAfterSecs) || config.recoverAfterSecs < 1) throw new Error('recover-after is whole seconds');
  if ((config.serviceUrl === undefined) !== (config.apiKey === undefined)) {
    throw new Error('the merchant loop needs both the service URL (--service-url or CRYPTOPAY_BASE_URL) and CRYPTOPAY_API_KEY');
  }
  if (!Number.isInteger(config.port) || config.port < 0 || config.port > 65535) throw new Error('the port (--port or PORT) is a whole number from 0 to 65535');
  return config;
}

// node:util's parseArgs errors, said without the argument they quote.
function usageMessage(error) {
  if (error?.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return 'this command takes options only (an argument without -- is not shown)';
  if (error?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return 'an option this command does not take (not shown): see the usage at the top of server.mjs';
  if (error?.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return 'an option without its value (not shown): see the usage at the top of server.mjs';
  return error.message;
}

async function main() {
  let startReceiver;
  let receiverOptionsFromEnv;
  try {
    ({ startReceiver, receiverOptionsFromEnv } = await import('./receiver.mjs'));
  } catch (error) {
    const missing = error.code === 'ERR_MODULE_NOT_FOUND' && /'(cryptopay-verify|better-sqlite3|pg)'/.exec(error.message);
    if (!missing) throw error;
    const install = missing[1] === 'cryptopay-verify'
      // On no registry yet: a plain `npm install` would look for the name there.
      ? 'install it from the package built in a clone of its repository: npm install <clone>/pkg (make pkg builds it)'
      : `run npm install ${missing[1]} in this folder`;
    console.error(`node-receiver: the package ${missing[1]} is not installed where this folder can import it:\n` +
      `  ${install}, or copy the folder next to a node_modules that has it\n` +
      '  (NODE_PATH does not apply to ES modules); see README.md');
    process.exit(2);
  }
  let config;
  try {
    config = configure(process.argv.slice(2), process.env, receiverOptionsFromEnv);
  } catch (error) {
    // A usage error: the message names the flag or variable, never a value (node:util's own
    // messages quote what was given, which may be a secret pasted on the command line).
    console.error(`node-receiver: ${usageMessage(error)}`);
    process.exit(2);
  }
  const log = {
    info: (line) => console.log(`node-receiver: ${line}`),
    warn: (line) => console.log(`node-receiver: ${line}`),
    error: (line) => console.error(`node-receiver: ${line}`),
  };
  let receiver;
  try {
    receiver = await startReceiver(config, log);
  } catch (error) {
    // The receiver's options refused (a usage error, named as such), the address it cannot
    // listen on, or the store. A driver's message names the host or file, never the
    // password; the URL is not printed.
    if (error?.name === 'CryptoPayError') {
      console.error(`node-receiver: ${error.message}`);
      process.exit(2);
    }
    const what = error?.syscall === 'listen' || error?.syscall === 'getaddrinfo' ? `listen on ${config.host}:${config.port}` : 'open the store';
    console.error(`node-receiver: could not ${what}: ${error.code ? `${error.code}: ` : ''}${error.message}`);
    process.exit(1);
  }
  const { events, payments } = await receiver.storage.counts();
  console.log(`node-receiver: recording to ${receiver.storage.description} (${events} events, ${payments} payments)`);
  console.log(receiver.fulfilling
    ? `node-receiver: fulfilling every ${config.fulfilIntervalMs} ms, confirming with the service at ${config.serviceUrl}`
    : 'node-receiver: fulfilment off (set CRYPTOPAY_BASE_URL and CRYPTOPAY_API_KEY to run the merchant loop)');
  const routes = `GET /events, GET /payments, GET /payments/:id${receiver.fulfilling ? ', POST /payments' : ''}`;
  console.log(receiver.admin
    ? `node-receiver: the shop's routes (${routes}) answer Authorization: Bearer with ADMIN_TOKEN only`
    : `node-receiver: the shop's routes (${routes}) are off: set ADMIN_TOKEN (a long random value) to serve them, behind Authorization: Bearer`);
  console.log(`node-receiver: listening on ${receiver.url}${config.path}`);
  let stopping = false;
  const stop = async () => {
    if (stopping) {
      // A second signal: out now (a pass cut here leaves its leases to run out).
      console.error('node-receiver: stopped at once (a second signal)');
      process.exit(1);
    }
    stopping = true;
    await receiver.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  console.error(`node-receiver: ${error.message}`);
  process.exit(1);
});
