// `cryptopay-verify sandbox`: starts the local payment service (cryptopay-verify/sandbox) and
// prints what a merchant needs, as `stripe listen` does: the base URL, a test API key with the
// three scopes and, with --webhook-url, the webhook's resource_id and signing secret (the
// sandbox's own, issued at start: the one secret the command line ever prints, with the
// pending secret of `sandbox rotate`). Then one line per request, event and delivery attempt.
//
// `cryptopay-verify sandbox pay|settle|review|expire|replay|rotate|activate|deliveries [--url URL]`
// acts on a running sandbox through its /sandbox endpoints, as its dashboard and customer
// (sandbox-act.mjs).

import { CryptoPayError } from '../entry/node.mjs';
import { startSandbox } from '../sandbox/index.mjs';
import { DECIMAL, UsageError, headerName, parse, readSecret, seconds } from './args.mjs';
import { displayUrl, looksLikeSecret, neverPrint, write } from './redact.mjs';
import { actCommand } from './sandbox-act.mjs';
import { SANDBOX_USAGE, SUBCOMMANDS } from './sandbox-options.mjs';

const NAME = 'cryptopay-verify';

// --- starting a sandbox ------------------------------------------------------------------

function port(opts) {
  if (opts.port === undefined) return undefined;
  if (!/^[0-9]{1,5}$/.test(opts.port) || Number(opts.port) > 65535) throw new UsageError('--port must be 0 to 65535 (0 picks a free port)', 'sandbox');
  return Number(opts.port);
}

/** --pricing fiat:USD:2 or crypto:<ref>:<decimals> (a ref may itself hold colons: CAIP-19). */
function pricing(opts) {
  if (opts.pricing === undefined) return undefined;
  const parts = opts.pricing.split(':');
  const [kind] = parts;
  const decimals = parts.at(-1);
  const ref = parts.slice(1, -1).join(':');
  if (parts.length < 3 || (kind !== 'fiat' && kind !== 'crypto') || ref === '' || !/^[0-9]{1,2}$/.test(decimals)) {
    throw new UsageError('--pricing must be fiat:<currency>:<decimals> (e.g. fiat:USD:2) or crypto:<pricing ref>:<decimals>', 'sandbox');
  }
  return { kind, ref, decimals: Number(decimals) };
}

/** --retry-delays 1,2,4 (seconds, up to 3 decimals; '' or none: no retry) -> milliseconds. */
function retryDelays(opts) {
  const text = opts['retry-delays'];
  if (text === undefined) return undefined;
  if (text === '' || text === 'none') return [];
  const items = text.split(',');
  if (!items.every((s) => /^[0-9]{1,6}(\.[0-9]{1,3})?$/.test(s.trim()))) {
    throw new UsageError('--retry-delays must be seconds separated by commas, e.g. 1,2,4,8,16 (0.05 for 50 ms; none: no retry)', 'sandbox');
  }
  return items.map((s) => Math.round(Number(s.trim()) * 1000));
}

function duplicateRate(opts) {
  const text = opts['duplicate-rate'];
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!DECIMAL.test(text) || value > 1) throw new UsageError('--duplicate-rate must be a number from 0 to 1, e.g. 0.3', 'sandbox');
  return value;
}

function seed(opts) {
  if (opts.seed === undefined) return undefined;
  if (!/^[0-9]{1,10}$/.test(opts.seed) || Number(opts.seed) > 0xffff_ffff) throw new UsageError('--seed must be an integer from 0 to 4294967295', 'sandbox');
  return Number(opts.seed);
}

/** The webhook URL as it may be printed (credentials, query and fragment masked). */
function shownUrl(text) {
  try {
    const url = new URL(text);
    neverPrint(url.username);
    neverPrint(url.password);
    return displayUrl(url);
  } catch {
    return '(not shown)';
  }
}

/** The option a core code of startSandbox is about, for its message. */
function optionOf(code) {
  if (code.startsWith('webhook_url_')) return '--webhook-url';
  if (code.startsWith('origin_')) return '--website';
  if (code === 'store_source_invalid' || code === 'decimals_invalid') return '--pricing';
  return null;
}

// A refusal of startSandbox in the command line's words: its flags, and seconds where the
// library takes milliseconds.
const CLI_WORDS = [
  [/\bpublicUrl\b/g, '--public-url'],
  [/\bcheckout_origin must be an origin\b/g, '--website must be an origin'],
  [/each retry delay must be from 0 to (\d+) ms/, (_, ms) => `each delay of --retry-delays must be from 0 to ${Number(ms) / 1000} s`],
  [/\bretry_delays_ms\b/g, '--retry-delays'],
  [/\btimestampHeader and signatureHeader\b/g, '--timestamp-header and --signature-header'],
  [/\bwebhookSecret\b/g, 'the secret of --webhook-secret-env (or -file)'],
  [/^invalid_argument: (data|host) must\b/, 'invalid_argument: --$1 must'],
  [/check the call against the documented options$/, `check the options against ${NAME} sandbox --help`],
];
const cliWords = (message) => CLI_WORDS.reduce((text, [pattern, words]) => text.replace(pattern, words), message);

async function startCommand(argv) {
  const command = 'sandbox';
  const opts = parse(command, argv);
  if (opts.help) {
    write.out(`usage:\n  ${SANDBOX_USAGE}\n`);
    return 0;
  }
  const json = opts.json === true;
  const webhookUrl = opts['webhook-url'];
  if (webhookUrl !== undefined) shownUrl(webhookUrl); // its credentials are never printed
  const options = {
    port: port(opts) ?? 4010,
    host: opts.host,
    publicUrl: opts['public-url'],
    data: opts.data,
    webhookUrl,
    // From the environment or a file, as every secret of the command line; never printed.
    webhookSecret: readSecret(opts, command, 'webhook-', true),
    // Checked as sign and conformance check them: a name, never a value shown (a secret pasted
    // here would be printed in the banner).
    timestampHeader: headerName(opts, 'timestamp-header', command, true),
    signatureHeader: headerName(opts, 'signature-header', command, true),
    pricing: pricing(opts),
    website: opts.website,
    retryDelaysMs: retryDelays(opts),
    timeoutMs: opts.timeout === undefined ? undefined : Math.round(seconds(opts, 'timeout', 10, command, 600) * 1000),
    duplicateRate: duplicateRate(opts),
    shuffle: opts.shuffle === true,
    seed: seed(opts),
    // Lines logged while starting wait for the banner, then come in order.
    log: (line, entry) => {
      if (entry?.type === 'seeded') return; // the banner and the started line print the seed
      const text = json
        ? `${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`
        : `${new Date().toISOString().slice(11, 23)}  ${line}\n`;
      if (early === null) out(text);
      else early.push(text);
    },
  };
  let early = [];
  // A reader that went away (`| head`, a jq that failed) ends the log, not the service: its
  // pipe's EPIPE would otherwise be an unhandled error that stops it without closing its data
  // file. Said once on stderr; the sandbox keeps serving until Ctrl-C or SIGTERM.
  let readerGone = false;
  const out = (text) => {
    if (!readerGone) write.out(text);
  };
  process.stdout.on('error', (error) => {
    if (readerGone) return;
    readerGone = true;
    process.stderr.on('error', () => {});
    write.err(`${NAME} sandbox: its output's reader closed (${error?.code ?? 'error'}): log lines are dropped from now on; it keeps serving until Ctrl-C or SIGTERM\n`);
  });
  for (const key of Object.keys(options)) if (options[key] === undefined) delete options[key];
  let sandbox;
  try {
    sandbox = await startSandbox(options);
  } catch (error) {
    if (error instanceof CryptoPayError) {
      const option = optionOf(error.code);
      throw new UsageError(`${option ? `${option}: ` : ''}${cliWords(error.message)}`, command, { usage: false });
    }
    if (error?.code === 'data_in_use' || error?.code === 'data_schema_mismatch') {
      // Its message names the file: not when the name looks like a secret pasted there.
      const message = looksLikeSecret(options.data) ? error.message.replaceAll(options.data, '(its name is not shown)') : error.message;
      throw new UsageError(`--data: ${message}`, command, { usage: false });
    }
    if (error?.code === 'EADDRINUSE') throw new UsageError(`port ${options.port} is in use: give another --port (0 picks a free one)`, command, { usage: false });
    // Node's message names the host given, which may be a secret pasted in the wrong place.
    if (['ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL'].includes(error?.code) && options.host !== undefined) {
      throw new UsageError('--host must be an address of this machine to listen on, e.g. 127.0.0.1 (this machine only) ' +
        `or 0.0.0.0 (every interface); the value given is not shown (${error.code})`, command, { usage: false });
    }
    if (error?.code === 'EACCES') {
      throw new UsageError(`port ${options.port} needs privileges this process lacks: give a --port above 1023 (0 picks a free one)`, command, { usage: false });
    }
    if (error?.code === 'driver_missing') throw new UsageError(error.message, command, { usage: false });
    if (opts.data !== undefined && /SQLITE|database/i.test(`${error?.code} ${error?.message}`)) {
      throw new UsageError(`--data: the file cannot be used as the sandbox's state (${error.code ?? error.message})`, command, { usage: false });
    }
    throw error;
  }
  // A path that looks like a secret (pasted in the wrong place) is not printed, as --secret-file's.
  const dataShown = options.data === undefined ? null : looksLikeSecret(options.data) ? '(--data; its name is not shown)' : options.data;
  const primarySource = options.pricing ?? { kind: 'fiat', ref: 'USD', decimals: 2 };
  const retry = (options.retryDelaysMs ?? [1000, 2000, 4000, 8000, 16000]).map((ms) => ms / 1000);
  // Listening for Ctrl-C and SIGTERM before "Ready" is printed: a stop right after it closes
  // the data file too.
  const stopped = new Promise((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  if (json) {
    const started = {
      type: 'started',
      base_url: sandbox.baseUrl,
      public_url: sandbox.publicUrl,
      api_key: sandbox.apiKey,
      scopes: ['payment:write', 'payment:read', 'webhook:bootstrap'],
      webhook: sandbox.webhook === undefined ? null : {
        resource_id: sandbox.webhook.resourceId,
        url: shownUrl(sandbox.webhook.url),
        // The user's own (--webhook-secret-env or -file, at this start or the one that made it
        // on the data file): not printed (null).
        secret: sandbox.webhook.secretGiven ? null : sandbox.webhook.secret,
        timestamp_header: sandbox.webhook.timestampHeader,
        signature_header: sandbox.webhook.signatureHeader,
      },
      primary_source: primarySource,
      retry_delays_secs: retry,
      seed: sandbox.seed,
      data: dataShown,
    };
    out(`${JSON.stringify(started)}\n`);
  } else {
    const lines = [
      `${NAME} sandbox: the payment service on this machine, ${dataShown === null ? 'state in memory' : `state in ${dataShown}`}`,
      sandbox.publicUrl === sandbox.baseUrl
        ? `  base URL        ${sandbox.baseUrl}   (the API, /v1/..., and the checkout origin)`
        : `  base URL        ${sandbox.baseUrl}   (the API, /v1/...)\n  checkout        ${sandbox.publicUrl}   (the origin a browser opens, --public-url)`,
      `  API key         ${sandbox.apiKey}   (payment:write payment:read webhook:bootstrap)`,
    ];
    if (sandbox.webhook !== undefined) {
      lines.push(
        `  webhook         ${sandbox.webhook.resourceId} -> ${shownUrl(sandbox.webhook.url)}`,
        sandbox.webhook.secretGiven
          ? '  signing secret  your own, from --webhook-secret-env or -file (not printed)'
          : `  signing secret  ${sandbox.webhook.secret}   (give it to your receiver exactly as printed)`,
        `  headers         ${sandbox.webhook.timestampHeader}, ${sandbox.webhook.signatureHeader}`,
      );
    } else {
      lines.push('  webhook         none: set one up with POST /v1/webhook-endpoints, or start with --webhook-url');
    }
    lines.push(
      `  pricing         ${primarySource.kind} ${primarySource.ref}, ${primarySource.decimals} decimals` +
        `; retries after ${retry.length === 0 ? 'none' : `${retry.join(', ')} s`}; seed ${sandbox.seed}` +
        `${options.shuffle ? ', shuffled' : ''}${options.duplicateRate ? `, duplicate rate ${options.duplicateRate}` : ''}`,
      `Ready. Try: npx ${NAME} sandbox pay --url ${sandbox.baseUrl} --payment <payment_id> --amount-raw <amount>. Ctrl-C stops it.`,
    );
    out(`${lines.join('\n')}\n`);
  }
  for (const text of early) out(text);
  early = null;
  await stopped;
  await sandbox.close();
  return 0;
}

/** `cryptopay-verify sandbox ...`: a subcommand when the first argument names one, else a start. */
export function sandboxCommand(argv) {
  const [first, ...rest] = argv;
  if (SUBCOMMANDS.includes(first)) return actCommand(first, rest);
  if (first === 'help' && rest.length === 0) return startCommand(['--help']);
  // A word where a subcommand goes (a misspelt one): named as such, not shown (it could be a secret).
  if (typeof first === 'string' && /^[a-z][a-z-]*$/.test(first)) {
    throw new UsageError(`the argument after sandbox is not a subcommand (not shown): give one of ${SUBCOMMANDS.join(', ')}, ` +
      'or options only to start the sandbox', 'sandbox');
  }
  return startCommand(argv);
}
