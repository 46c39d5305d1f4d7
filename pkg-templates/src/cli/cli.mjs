#!/usr/bin/env node
// cryptopay-verify: the command line of the package (npm `bin`).
//
//   verify       checks a captured delivery and prints the verified event or the error code
//   sign         prints a signature and the headers to send, for tests
//   conformance  plays the payment service against a merchant's receiver
//
// Exit codes: 0 all good; 1 a verification failed or a receiver broke a rule; 2 a usage
// error, or a run that could not be made (an unreachable receiver). Secrets come from the
// environment (--secret-env) or a file (--secret-file), never from argv.

import { readFileSync } from 'node:fs';
import { CryptoPayError, signWebhook, verifyWebhook } from '../entry/node.mjs';
import { RULES, formatReport, runConformance } from './conformance.mjs';

const NAME = 'cryptopay-verify';

const USAGE = {
  verify: `${NAME} verify --secret-env VAR --timestamp T --signature S [--body-file F | -] [--max-skew 300] [--now N]
  Verifies a captured delivery: the body from --body-file F or stdin (-), the timestamp and
  signature header values exactly as received. Prints the verified event as JSON (exit 0) or
  the error code with its hint (exit 1).`,
  sign: `${NAME} sign --secret-env VAR [--timestamp T] [--body-file F | -] [--encoding hex|base64]
       [--timestamp-header NAME] [--signature-header NAME] [--json]
  Signs a body as the service does (for tests): prints the timestamp (default: now), the
  signature and the headers to send.`,
  conformance: `${NAME} conformance --url URL --secret-env VAR --timestamp-header NAME --signature-header NAME
       [--json] [--timeout 10] [--max-skew 300] [--encoding hex|base64]
  Plays the service against a receiver: sends signed deliveries, valid and hostile, never
  follows redirects, and prints a table of rule, expected, got, verdict (--json: an array of
  { rule, expected, got, pass }). --max-skew is the receiver's (stale and future deliveries
  are sent 120 s beyond it); an answer slower than --timeout seconds breaks response_time.
  Rules: ${RULES.slice(0, 6).join(', ')},
         ${RULES.slice(6).join(', ')}.
  Exit 0 when every rule holds, 1 when one is broken, 2 when the receiver cannot be reached.`,
};

const COMMON = `Secrets: --secret-env VAR reads the signing Secret from the environment variable VAR;
--secret-file F reads it from a file (one trailing newline is removed, nothing else).
A secret is never accepted on the command line.
Exit codes: 0 all good, 1 verification failed or a rule is broken, 2 usage error or unreachable receiver.`;

function fullUsage() {
  return `usage:\n  ${USAGE.verify}\n\n  ${USAGE.sign}\n\n  ${USAGE.conformance}\n\n${COMMON}\n`;
}

// The options each command takes: name -> 'value' | 'flag'.
const SECRET = { 'secret-env': 'value', 'secret-file': 'value' };
const OPTIONS = {
  verify: {
    ...SECRET, timestamp: 'value', signature: 'value', 'body-file': 'value', 'max-skew': 'value',
    now: 'value', help: 'flag',
  },
  sign: {
    ...SECRET, timestamp: 'value', 'body-file': 'value', encoding: 'value', 'timestamp-header': 'value',
    'signature-header': 'value', json: 'flag', help: 'flag',
  },
  conformance: {
    ...SECRET, url: 'value', 'timestamp-header': 'value', 'signature-header': 'value', json: 'flag',
    timeout: 'value', 'max-skew': 'value', encoding: 'value', help: 'flag',
  },
};
// Commands that read a body and so accept `-` (stdin).
const TAKES_BODY = new Set(['verify', 'sign']);

class UsageError extends Error {
  constructor(message, command) {
    super(message);
    this.command = command;
  }
}

function parse(command, argv) {
  const spec = OPTIONS[command];
  const opts = { stdin: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '-' && TAKES_BODY.has(command)) {
      if (opts.stdin) throw new UsageError('- (stdin) is given twice', command);
      opts.stdin = true;
      continue;
    }
    if (arg === '-h') {
      opts.help = true;
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      throw new UsageError(`unexpected argument "${clip(arg)}"`, command);
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (name === 'secret') {
      throw new UsageError('a secret is never taken from argv: use --secret-env VAR or --secret-file F', command);
    }
    const kind = spec[name];
    if (kind === undefined) throw new UsageError(`unknown option --${clip(name)}`, command);
    if (Object.hasOwn(opts, name)) throw new UsageError(`--${name} is given twice`, command);
    if (kind === 'flag') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`, command);
      opts[name] = true;
    } else if (eq !== -1) {
      opts[name] = arg.slice(eq + 1);
    } else {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`, command);
      opts[name] = value;
      i += 1;
    }
  }
  return opts;
}

function clip(text) {
  const safe = String(text).replace(/[^\x20-\x7e]/g, '?');
  return safe.length > 40 ? `${safe.slice(0, 40)}...` : safe;
}

function required(opts, name, command) {
  if (opts[name] === undefined || opts[name] === '') throw new UsageError(`--${name} is required`, command);
  return opts[name];
}

function integer(opts, name, fallback, command) {
  if (opts[name] === undefined) return fallback;
  if (!/^[0-9]{1,15}$/.test(opts[name])) {
    throw new UsageError(`--${name} must be a whole number of seconds (got "${clip(opts[name])}")`, command);
  }
  return Number(opts[name]);
}

function seconds(opts, name, fallback, command) {
  if (opts[name] === undefined) return fallback;
  const value = Number(opts[name]);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(opts[name]) || !(value > 0) || value > 3600) {
    throw new UsageError(`--${name} must be a number of seconds above 0, at most 3600 (got "${clip(opts[name])}")`, command);
  }
  return value;
}

function encodingOf(opts, command) {
  const encoding = opts.encoding ?? 'hex';
  if (encoding !== 'hex' && encoding !== 'base64') throw new UsageError('--encoding must be hex or base64', command);
  return encoding;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function headerName(opts, name, command, optional = false) {
  const value = optional ? opts[name] : required(opts, name, command);
  if (value !== undefined && !HEADER_NAME.test(value)) {
    throw new UsageError(`--${name} must be an HTTP header name (got "${clip(value)}")`, command);
  }
  return value;
}

function readSecret(opts, command) {
  const env = opts['secret-env'];
  const file = opts['secret-file'];
  if (env !== undefined && file !== undefined) throw new UsageError('give --secret-env or --secret-file, not both', command);
  if (env === undefined && file === undefined) throw new UsageError('--secret-env VAR (or --secret-file F) is required', command);
  if (env !== undefined) {
    if (env === '') throw new UsageError('--secret-env needs the name of an environment variable', command);
    const value = process.env[env];
    if (value === undefined) throw new UsageError(`the environment variable ${clip(env)} (--secret-env) is not set`, command);
    return value;
  }
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --secret-file: ${error.code ?? error.message}`, command);
  }
  // A file saved by an editor ends with a newline; that one newline is not part of the secret.
  return text.replace(/\r?\n$/, '');
}

async function readBody(opts, command) {
  const file = opts['body-file'];
  if (file !== undefined && opts.stdin) throw new UsageError('give --body-file F or -, not both', command);
  if (file !== undefined) {
    if (file === '-') return readStdin();
    try {
      return readFileSync(file);
    } catch (error) {
      throw new UsageError(`cannot read --body-file: ${error.code ?? error.message}`, command);
    }
  }
  if (!opts.stdin && process.stdin.isTTY) {
    throw new UsageError('no body: give --body-file F, or pipe the body on stdin (-)', command);
  }
  return readStdin();
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const nowSecs = () => Math.floor(Date.now() / 1000);

async function verifyCommand(argv) {
  const opts = parse('verify', argv);
  if (opts.help) return help('verify');
  const secret = readSecret(opts, 'verify');
  const timestamp = required(opts, 'timestamp', 'verify');
  const signature = required(opts, 'signature', 'verify');
  const maxSkewSecs = integer(opts, 'max-skew', 300, 'verify');
  const now = integer(opts, 'now', nowSecs(), 'verify');
  const body = await readBody(opts, 'verify');
  let verified;
  try {
    verified = verifyWebhook({ body, timestamp, signature, secrets: secret, nowSecs: now, maxSkewSecs });
  } catch (error) {
    if (!(error instanceof CryptoPayError)) throw error;
    process.stderr.write(`${NAME} verify: not verified\n${error.message}\n`);
    return 1;
  }
  const { event } = verified;
  const out = {
    verified: true,
    matchedSecret: verified.matchedSecret,
    timestamp: verified.timestamp,
    event: {
      schemaVersion: event.schemaVersion,
      eventId: event.eventId,
      eventType: event.eventType,
      occurredAt: event.occurredAt,
      paymentId: event.paymentId,
      statusVersion: event.statusVersion,
      data: event.data,
    },
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  return 0;
}

async function signCommand(argv) {
  const opts = parse('sign', argv);
  if (opts.help) return help('sign');
  const secret = readSecret(opts, 'sign');
  const timestamp = opts.timestamp ?? String(nowSecs());
  const encoding = encodingOf(opts, 'sign');
  const timestampHeader = headerName(opts, 'timestamp-header', 'sign', true);
  const signatureHeader = headerName(opts, 'signature-header', 'sign', true);
  const body = await readBody(opts, 'sign');
  let signature;
  try {
    signature = signWebhook({ secret, timestamp, body, encoding });
  } catch (error) {
    if (!(error instanceof CryptoPayError)) throw error;
    process.stderr.write(`${NAME} sign: ${error.message}\n`);
    return 1;
  }
  const tsName = timestampHeader ?? '<timestamp-header>';
  const sigName = signatureHeader ?? '<signature-header>';
  if (opts.json) {
    const out = { timestamp, signature, headers: { [tsName]: timestamp, [sigName]: signature } };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    process.stdout.write(
      `timestamp  ${timestamp}\nsignature  ${signature}\n\nheaders to send (POST, the body byte for byte):\n` +
        `  ${tsName}: ${timestamp}\n  ${sigName}: ${signature}\n`,
    );
  }
  return 0;
}

async function conformanceCommand(argv) {
  const command = 'conformance';
  const opts = parse(command, argv);
  if (opts.help) return help(command);
  const rawUrl = required(opts, 'url', command);
  let url;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new UsageError(`--url is not a URL (got "${clip(rawUrl)}")`, command);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--url must be http:// or https://', command);
  const timestampHeader = headerName(opts, 'timestamp-header', command);
  const signatureHeader = headerName(opts, 'signature-header', command);
  if (timestampHeader.toLowerCase() === signatureHeader.toLowerCase()) {
    throw new UsageError('--timestamp-header and --signature-header must differ', command);
  }
  const secret = readSecret(opts, command);
  const timeoutSecs = seconds(opts, 'timeout', 10, command);
  const maxSkewSecs = integer(opts, 'max-skew', 300, command);
  const encoding = encodingOf(opts, command);
  const json = opts.json === true;
  try {
    // A secret the package refuses (empty) stops the run before anything is sent.
    signWebhook({ secret, timestamp: '0', body: '', encoding });
  } catch (error) {
    if (!(error instanceof CryptoPayError)) throw error;
    process.stderr.write(`${NAME} conformance: ${error.message}\n`);
    return 2;
  }

  const progress = progressReporter(url);
  const started = Date.now();
  const outcome = await runConformance({
    url, secret, timestampHeader, signatureHeader, timeoutMs: Math.round(timeoutSecs * 1000), maxSkewSecs, encoding,
    onProgress: progress.step,
  });
  progress.done();
  if (outcome.unreachable) {
    const tls = /CERT|SSL|TLS|ERR_TLS/i.test(outcome.unreachable)
      ? 'The TLS certificate is not trusted: for a local test CA, set NODE_EXTRA_CA_CERTS=ca.pem.'
      : 'Is the receiver running and listening on that address?';
    process.stderr.write(`${NAME} conformance: cannot reach the receiver at ${url.href}: ${outcome.unreachable}\n` +
      `no rule was checked (exit 2). ${tls}\n`);
    return 2;
  }
  const { results } = outcome;
  const broken = results.filter((r) => !r.pass).map((r) => r.rule);
  if (json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } else {
    process.stdout.write(formatReport(results, { url: url.href, millis: Date.now() - started }));
  }
  if (broken.length > 0) {
    process.stderr.write(`${NAME} conformance: ${broken.length} rule${broken.length === 1 ? '' : 's'} broken: ${broken.join(', ')}\n`);
    return 1;
  }
  if (json) process.stderr.write(`${NAME} conformance: all ${results.length} rules hold\n`);
  return 0;
}

// One line that is rewritten on a terminal; one line per rule otherwise.
function progressReporter(url) {
  const tty = process.stderr.isTTY === true;
  if (!tty) process.stderr.write(`conformance: playing the service against ${url.href}\n`);
  return {
    step(index, total, rule) {
      const line = `conformance [${String(index).padStart(String(total).length)}/${total}] ${rule}`;
      process.stderr.write(tty ? `\r\x1b[K${line}` : `${line}\n`);
    },
    done() {
      if (tty) process.stderr.write('\r\x1b[K');
    },
  };
}

function help(command) {
  process.stdout.write(`usage:\n  ${USAGE[command]}\n\n${COMMON}\n`);
  return 0;
}

const COMMANDS = { verify: verifyCommand, sign: signCommand, conformance: conformanceCommand };

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('a command is required');
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(fullUsage());
    return 0;
  }
  if (command === '--version') {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (run === undefined) throw new UsageError(`unknown command "${clip(command)}"`);
  return run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    if (error instanceof UsageError) {
      const usage = error.command ? `usage:\n  ${USAGE[error.command]}\n\n${COMMON}\n` : fullUsage();
      process.stderr.write(`${NAME}: ${error.message}\n\n${usage}`);
      process.exitCode = 2;
    } else if (error instanceof CryptoPayError) {
      process.stderr.write(`${NAME}: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`${NAME}: unexpected error: ${error?.stack ?? error}\n`);
      process.exitCode = 2;
    }
  },
);
