#!/usr/bin/env node
// cryptopay-verify: the command line of the package (npm `bin`).
//
//   verify       checks a captured delivery and prints the verified event or the error code
//   sign         prints a signature and the headers to send, for tests
//   conformance  plays the payment service against a merchant's receiver
//   sandbox      runs the payment service locally (cryptopay-verify/sandbox), and acts on a
//                running one (pay, review, expire, replay, rotate, activate, deliveries)
//
// Exit codes: 0 all good; 1 a verification failed or a receiver broke a rule; 2 a usage
// error, or a run that could not be made (an unreachable receiver). Secrets come from the
// environment (--secret-env) or a file (--secret-file), never from argv, and are never
// printed; nor is what was typed where a variable or file name belongs, nor a URL's
// credentials (redact.mjs).

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { CONSTANTS } from '../api/core-facts.mjs';
import { unquoted } from '../api/hints.mjs';
import { undoings } from '../api/picked-up.mjs';
import { CryptoPayError, signWebhook, validateWebhookUrl, verifyWebhook } from '../entry/node.mjs';
import {
  UsageError, encodingOf, headerName, integer, nowOption, parse, readBody, readSecret, required, seconds,
} from './args.mjs';
import { RULES, rulesFor, runConformance } from './conformance.mjs';
import { unreachableHint } from './hints.mjs';
import { SANDBOX_USAGE, SUBCOMMANDS } from './sandbox-options.mjs';
import { displayUrl, neverPrint, write } from './redact.mjs';
import { formatReport, wrap } from './report.mjs';

const NAME = 'cryptopay-verify';
// The package's refusals of a secret itself (empty; an environment variable set to nothing).
const SECRET_CODES = new Set(['secret_empty', 'no_secrets', 'invalid_argument']);

const USAGE = {
  verify: `${NAME} verify --secret-env VAR --timestamp T --signature S [--body-file F | -]
       [--max-skew 300] [--now N]
  Verifies a captured delivery: the body from --body-file F or stdin (-), the timestamp and
  signature header values exactly as received. --now is the Unix time in seconds to check the
  skew against (default: this machine's clock); give it the time a capture was received to
  check it later. Prints the verified event as JSON (exit 0) or the error code and what to
  fix (exit 1).`,
  sign: `${NAME} sign --secret-env VAR [--timestamp T] [--body-file F | -] [--encoding hex|base64]
       [--timestamp-header NAME] [--signature-header NAME] [--json]
  Signs a body as the service does (for tests): prints the timestamp (default: now), the
  signature and the headers to send (exit 0; with --json, a headers map only when both
  header names are given), or what to fix in the input (exit 2).`,
  conformance: `${NAME} conformance --url URL (--secret-env VAR | --secret-file F)
       --timestamp-header NAME --signature-header NAME
       [--pending-secret-env VAR | --pending-secret-file F]
       [--retired-secret-env VAR | --retired-secret-file F] [--json] [--timeout 10]
       [--max-skew 300] [--encoding hex|base64]
  Plays the service against a receiver: sends signed deliveries, valid and hostile, never
  follows redirects, and prints a table of rule, expected, got, verdict (pass, fail or
  not_judged; --json: an array of { rule, expected, got, verdict }). --pending-secret-env
  names the new secret of a rotation in progress (pending_secret: accepted), and
  --retired-secret-env an old one whose overlap has ended (retired_secret: refused).
  --max-skew is the receiver's (stale and future deliveries are sent 1 h, or 120 s more
  than it, away); an answer slower than --timeout seconds fails response_time.
${wrap(`${RULES.join(', ')}.`, '  Rules: ', '         ')}
  Exit 0 when every rule holds, 1 when one fails (or is not judged), 2 on a usage error or
  when the receiver cannot be reached.`,
  sandbox: SANDBOX_USAGE,
};
for (const sub of SUBCOMMANDS) USAGE[`sandbox ${sub}`] = SANDBOX_USAGE;

const COMMON = `Secrets: --secret-env VAR reads the signing Secret from the environment variable VAR;
--secret-file F reads it from a file (one trailing newline, \\n or \\r\\n, is removed,
nothing else; a file saved with a byte order mark is refused); the same for
--pending-secret-file and --retired-secret-file. A secret is never accepted on the command
line, and nothing typed where a variable or file name belongs is ever printed.
Exit codes: 0 all good, 1 verification failed or a rule failed, 2 a usage error or an
unreachable receiver.`;

function fullUsage() {
  return `usage:\n  ${USAGE.verify}\n\n  ${USAGE.sign}\n\n  ${USAGE.conformance}\n\n  ${USAGE.sandbox}\n\n${COMMON}\n`;
}

const nowSecs = () => Math.floor(Date.now() / 1000);

// The package's message in the command line's terms: its options, not the JS option names.
function cliMessage(error, { timestamp, now, maxSkewSecs, nowGiven }) {
  const against = nowGiven ? `--now ${now}` : "this machine's clock";
  if (error.code === 'timestamp_too_old') {
    return `timestamp_too_old: the delivery is authentic (its signature matches), but its timestamp ${timestamp} is ` +
      `${now - Number(timestamp)} s before ${against}, more than --max-skew ${maxSkewSecs}. ` +
      (nowGiven
        ? 'Give --now the Unix time (seconds) the delivery was received, or a wider --max-skew.'
        : `To check a capture after the fact, pass --now with the Unix time (seconds) it was received, e.g. --now ${timestamp}, ` +
          'or a wider --max-skew. A live receiver must refuse it: it may be a replay.');
  }
  if (error.code === 'timestamp_in_future') {
    return `timestamp_in_future: the delivery is authentic, but its timestamp ${timestamp} is ` +
      `${Number(timestamp) - now} s after ${against}, more than --max-skew ${maxSkewSecs}. ` +
      (nowGiven
        ? '--now is before the delivery: give the Unix time (seconds) it was received.'
        : "Check this machine's clock; the timestamp must be Unix seconds.");
  }
  let message = error.message.replace(/\bnowSecs\b/g, '--now').replace(/\bmaxSkewSecs\b/g, '--max-skew');
  if (error.code === 'body_too_large') {
    message = 'body_too_large: the body is larger than the CLI verifies (the package\'s default maxBodyBytes; a receiver\'s '
      + 'maxBodyBytes option raises its own limit): payment.updated bodies are far smaller: is this the request body?';
  }
  return message;
}

// The package's default maxBodyBytes: the most a compressed body is inflated to.
const [DEFAULT_MAX_BODY_BYTES] = CONSTANTS;

// Why a signature that does not match the body would match it as received, or null: the body
// compressed (gzip's first bytes: a proxy compressed it, or the capture kept it so), else the
// changes a body picks up between the wire and a file (api/picked-up.mjs), one undone, else two
// or three together, fewest first.
function pickedUp(body, input) {
  const bytes = Buffer.from(body);
  const verifies = (candidate) => {
    try {
      verifyWebhook({ ...input, body: candidate });
    } catch (error) {
      if (error?.code === 'signature_mismatch' || !(error instanceof CryptoPayError)) return false;
    }
    return true; // it verified, or failed only after the signature matched
  };
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    let inflated = null;
    try {
      inflated = gunzipSync(bytes, { maxOutputLength: DEFAULT_MAX_BODY_BYTES });
    } catch {
      // not gzip after all, or larger than any body verified
    }
    if (inflated !== null && verifies(inflated)) return ['is gzip-compressed, as a proxy or the capture left it (gunzip it)'];
  }
  for (const { changes, undone } of undoings(bytes)) {
    if (verifies(undone())) return changes.map(({ said, file }) => (file === null ? said : `${said} (${file})`));
  }
  return null;
}

/**
 * What a header value copied from a log or a file picked up with it (the header's name, quotes
 * a JSON log wrote, a carriage return of CRLF lines), said for `option`; null when none. Never
 * the value itself.
 */
function copiedValue(value, option) {
  if (/^[A-Za-z0-9-]+:\s*\S/.test(value)) {
    return `${option} starts with a header name and a colon (${value.slice(0, value.indexOf(':'))}:): give the value alone, what follows them`;
  }
  if (unquoted(value) !== value) return `${option} is wrapped in quotes (a JSON log or a shell line kept them): give the value without them`;
  if (/\r\n?$/.test(value)) return `${option} ends with a carriage return (copied from a file with CRLF line endings): give the value without it`;
  return null;
}

async function verifyCommand(argv) {
  const command = 'verify';
  const opts = parse(command, argv);
  if (opts.help) return help(command);
  const secret = readSecret(opts, command);
  // Given empty: a header received empty, which the package refuses as missing (exit 1), not
  // an option left out.
  const timestamp = opts.timestamp === '' ? '' : required(opts, 'timestamp', command);
  const signature = opts.signature === '' ? '' : required(opts, 'signature', command);
  const maxSkewSecs = integer(opts, 'max-skew', 300, command);
  const now = nowOption(opts, nowSecs(), command);
  const body = await readBody(opts, command);
  let verified;
  try {
    verified = verifyWebhook({ body, timestamp, signature, secrets: secret, nowSecs: now, maxSkewSecs });
  } catch (error) {
    if (!(error instanceof CryptoPayError)) throw error;
    let message = cliMessage(error, { timestamp, now, maxSkewSecs, nowGiven: opts.now !== undefined });
    const picked = error.code === 'signature_mismatch'
      ? pickedUp(body, { timestamp, signature, secrets: secret, nowSecs: now, maxSkewSecs })
      : null;
    if (picked !== null) {
      message += `\nThe body ${picked.join(' and ')}: without ${picked.length === 1 ? 'it' : 'them'} the signature matches. Give the body byte for byte as received ` +
        '(save it from the request itself, or write it with printf \'%s\' rather than echo or an editor).';
    }
    const copied = error.code === 'timestamp_malformed' ? copiedValue(timestamp, '--timestamp')
      : error.code === 'signature_malformed' ? copiedValue(signature, '--signature') : null;
    if (copied !== null) message += `\n${copied}`;
    // A secret the package refuses is the command's input, not the delivery's: a usage error.
    const usage = SECRET_CODES.has(error.code);
    // The signature was valid and the event is what failed (event_type_unknown, ...): said so,
    // still exit 1 (a receiver would not apply it).
    const heading = usage ? 'usage error' : error.authentic ? 'signature valid, event not usable' : 'not verified';
    write.err(`${NAME} verify: ${heading}\n${message}\n`);
    return usage ? 2 : 1;
  }
  // The package's event as it is, less `envelope` (the whole body, already shown as `data`).
  const { envelope: _envelope, ...event } = verified.event;
  const out = { verified: true, matchedSecret: verified.matchedSecret, timestamp: verified.timestamp, event };
  write.out(`${JSON.stringify(out, null, 2)}\n`);
  return 0;
}

async function signCommand(argv) {
  const command = 'sign';
  const opts = parse(command, argv);
  if (opts.help) return help(command);
  const secret = readSecret(opts, command);
  const timestamp = opts.timestamp ?? String(nowSecs());
  const encoding = encodingOf(opts, command);
  const timestampHeader = headerName(opts, 'timestamp-header', command, true);
  const signatureHeader = headerName(opts, 'signature-header', command, true);
  if (timestampHeader !== undefined && timestampHeader.toLowerCase() === signatureHeader?.toLowerCase()) {
    throw new UsageError('--timestamp-header and --signature-header name the same header: the service sends two', command);
  }
  const body = await readBody(opts, command);
  let signature;
  try {
    signature = signWebhook({ secret, timestamp, body, encoding });
  } catch (error) {
    // Everything sign is given is the command's input (nothing is verified): a usage error,
    // said in the command line's terms (the core's timestamp messages speak of a header).
    if (!(error instanceof CryptoPayError)) throw error;
    const message = error.code === 'timestamp_missing' || error.code === 'timestamp_malformed'
      ? `${error.code}: --timestamp is the Unix time in seconds, 1 to 12 digits (e.g. ${nowSecs()}); leave it out to sign at now`
      : error.code === 'body_too_large' ? 'body_too_large: sign signs a body of at most 64 MiB' : error.message;
    write.err(`${NAME} sign: ${message}\n`);
    return 2;
  }
  const tsName = timestampHeader ?? '<timestamp-header>';
  const sigName = signatureHeader ?? '<signature-header>';
  if (opts.json) {
    // headers only when both names were given: a script that sends this map would otherwise
    // send a header literally named <timestamp-header>.
    const out = { timestamp, signature };
    if (timestampHeader !== undefined && signatureHeader !== undefined) out.headers = { [tsName]: timestamp, [sigName]: signature };
    write.out(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    write.out(
      `timestamp  ${timestamp}\nsignature  ${signature}\n\nheaders to send (POST, the body byte for byte):\n` +
        `  ${tsName}: ${timestamp}\n  ${sigName}: ${signature}\n`,
    );
  }
  return 0;
}

// The option a secret came from, for messages: --{prefix}secret-env or --{prefix}secret-file.
const secretOption = (opts, prefix) => `--${prefix}secret-${opts[`${prefix}secret-env`] !== undefined ? 'env' : 'file'}`;

function conformanceOptions(opts, command) {
  const rawUrl = required(opts, 'url', command);
  let url;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new UsageError('--url is not an absolute URL (what was given is not shown), e.g. https://shop.example/webhook', command);
  }
  neverPrint(url.username);
  neverPrint(url.password);
  for (const part of [url.username, url.password]) {
    try {
      decodeURIComponent(part);
    } catch {
      throw new UsageError('--url holds credentials with a % that is not percent-encoding: write % as %25 (what was given is not shown)', command);
    }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--url must be http:// or https://', command);
  const timestampHeader = headerName(opts, 'timestamp-header', command);
  const signatureHeader = headerName(opts, 'signature-header', command);
  if (timestampHeader.toLowerCase() === signatureHeader.toLowerCase()) {
    throw new UsageError('--timestamp-header and --signature-header must differ', command);
  }
  const secret = readSecret(opts, command);
  const pendingSecret = readSecret(opts, command, 'pending-', true);
  const retiredSecret = readSecret(opts, command, 'retired-', true);
  if (pendingSecret !== undefined && pendingSecret === secret) {
    throw new UsageError(`${secretOption(opts, 'pending-')} gives the same secret as ${secretOption(opts, '')}: ` +
      'pending_secret would prove nothing; give the new secret of the rotation', command);
  }
  if (retiredSecret !== undefined && retiredSecret === secret) {
    throw new UsageError(`${secretOption(opts, 'retired-')} gives the same secret as ${secretOption(opts, '')}: ` +
      'retired_secret would expect the active secret to be refused; give an old secret whose overlap has ended', command);
  }
  if (retiredSecret !== undefined && retiredSecret === pendingSecret) {
    throw new UsageError(`${secretOption(opts, 'retired-')} and ${secretOption(opts, 'pending-')} give the same secret: ` +
      'one secret cannot be both pending and retired', command);
  }
  return {
    rawUrl, url, timestampHeader, signatureHeader, secret, pendingSecret, retiredSecret,
    timeoutSecs: seconds(opts, 'timeout', 10, command),
    maxSkewSecs: receiverSkew(opts, command),
    encoding: encodingOf(opts, command),
    json: opts.json === true,
  };
}

// The receiver's max skew, at most a day: the stale delivery is sent beyond it, after 1970.
function receiverSkew(opts, command) {
  const secs = integer(opts, 'max-skew', 300, command);
  if (secs > 86_400) throw new UsageError('--max-skew is the receiver\'s max skew: at most 86400 seconds (a day)', command);
  return secs;
}

async function conformanceCommand(argv) {
  const command = 'conformance';
  const opts = parse(command, argv);
  if (opts.help) return help(command);
  const config = conformanceOptions(opts, command);
  const { url, json } = config;
  // A secret the package refuses (empty) stops the run before anything is sent.
  for (const [prefix, secret] of [['', config.secret], ['pending-', config.pendingSecret], ['retired-', config.retiredSecret]]) {
    if (secret === undefined) continue;
    try {
      signWebhook({ secret, timestamp: '0', body: '', encoding: config.encoding });
    } catch (error) {
      if (!(error instanceof CryptoPayError)) throw error;
      write.err(`${NAME} conformance: ${secretOption(opts, prefix)}: ${error.message}\n`);
      return 2;
    }
  }
  const shown = displayUrl(url);
  try {
    validateWebhookUrl(config.rawUrl);
  } catch (error) {
    if (!(error instanceof CryptoPayError)) throw error;
    write.err(`${wrap(`the service would not deliver to this URL (${error.message}). Fine for a local test; the ` +
      'URL you register must be https, port 443, on a registered domain, with no credentials, query or fragment.',
    `${NAME} conformance: warning: `)}\n`);
  }

  const progress = progressReporter(shown);
  const started = Date.now();
  const outcome = await runConformance({ ...config, timeoutMs: Math.round(config.timeoutSecs * 1000), onProgress: progress.step });
  progress.done();
  if (outcome.unreachable) {
    write.err(`${NAME} conformance: cannot reach the receiver at ${shown}: ${outcome.unreachable}\n` +
      `no rule was checked (exit 2). ${unreachableHint(outcome.unreachable)}\n`);
    return 2;
  }
  const { results } = outcome;
  const checked = new Set(rulesFor(config));
  const unchecked = RULES.filter((rule) => !checked.has(rule));
  if (json) {
    const rows = results.map(({ rule, expected, got, verdict }) => ({ rule, expected, got, verdict }));
    write.out(`${JSON.stringify(rows, null, 2)}\n`);
  } else {
    write.out(formatReport(results, { url: shown, millis: Date.now() - started, unchecked }));
  }
  const failed = results.filter((r) => r.verdict === 'fail').map((r) => r.rule);
  const notJudged = results.filter((r) => r.verdict === 'not_judged').map((r) => r.rule);
  const waiting = results.filter((r) => r.reason === 'valid_delivery' || r.reason === 'stopped').length;
  if (failed.length === 0 && notJudged.length === 0) {
    if (json) write.err(`${NAME} conformance: all ${results.length} rules hold\n`);
    return 0;
  }
  let line;
  if (failed[0] === 'valid_delivery') {
    line = `valid_delivery failed: fix it first (${waiting} rules not judged until it holds)`;
    if (failed.length > 1) line += `; also failed: ${failed.slice(1).join(', ')}`;
  } else {
    line = `${failed.length} rule${failed.length === 1 ? '' : 's'} failed: ${failed.join(', ')}`;
    if (notJudged.length > 0) line += `; not judged: ${notJudged.join(', ')}`;
  }
  write.err(`${NAME} conformance: ${line}\n`);
  // The table prints each failure's fix; --json keeps its rows as they are, so they go here.
  if (json) {
    for (const r of results.filter((x) => x.verdict === 'fail' && x.hint !== undefined)) write.err(`${wrap(r.hint, `  ${r.rule}: `)}\n`);
  }
  return 1;
}

// One line that is rewritten on a terminal; one line per rule otherwise.
function progressReporter(shownUrl) {
  const tty = process.stderr.isTTY === true;
  if (!tty) write.err(`conformance: playing the service against ${shownUrl}\n`);
  return {
    step(index, total, rule) {
      const line = `conformance [${String(index).padStart(String(total).length)}/${total}] ${rule}`;
      write.err(tty ? `\r\x1b[K${line}` : `${line}\n`);
    },
    done() {
      if (tty) write.err('\r\x1b[K');
    },
  };
}

function help(command) {
  write.out(`usage:\n  ${USAGE[command]}\n\n${COMMON}\n`);
  return 0;
}

// The sandbox is loaded only for its own command: the others never start its module.
async function sandboxCommand(argv) {
  const { sandboxCommand: run } = await import('./sandbox.mjs');
  return run(argv);
}

const COMMANDS = { verify: verifyCommand, sign: signCommand, conformance: conformanceCommand, sandbox: sandboxCommand };

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('a command is required: verify, sign, conformance or sandbox');
  if (command === '--help' || command === '-h' || command === 'help') {
    write.out(fullUsage());
    return 0;
  }
  if (command === '--version') {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    write.out(`${pkg.version}\n`);
    return 0;
  }
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (run === undefined) throw new UsageError('the first argument is not a command (not shown): give verify, sign, conformance or sandbox');
  return run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    if (error instanceof UsageError) {
      // The sandbox takes no secret and says its own exit codes: the secrets' block is not its.
      const common = error.command?.startsWith('sandbox') ? '\n' : `\n\n${COMMON}\n`;
      const usage = !error.usage ? '' : error.command ? `\nusage:\n  ${USAGE[error.command]}${common}` : `\n${fullUsage()}`;
      write.err(`${NAME}: ${error.message}\n${usage}`);
      process.exitCode = 2;
    } else if (error instanceof CryptoPayError) {
      write.err(`${NAME}: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      write.err(`${NAME}: unexpected error: ${error?.stack ?? error}\n`);
      process.exitCode = 2;
    }
  },
);
