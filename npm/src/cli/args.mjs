// The command line's options: parsing, checking, secrets and the body. A usage error names
// the option and what it takes; it never echoes what was typed (a secret pasted where a
// variable or file name belongs must not reach a terminal, a log or a CI transcript).

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { CONSTANTS } from '../api/core-facts.mjs';
import { HEADER_NAME, RESERVED_HEADERS, unquoted } from '../api/hints.mjs';
import { SECRET_MARK, looksLikeSecret, neverPrint } from './redact.mjs';
import { SANDBOX_OPTIONS } from './sandbox-options.mjs';

/**
 * A usage error (exit 2). `usage: false` for an input the command read but cannot use (a file,
 * a variable, stdin, a value's unit): the message is the whole answer, without the usage block
 * a mistyped command line gets.
 */
export class UsageError extends Error {
  constructor(message, command, { usage = true } = {}) {
    super(message);
    this.command = command;
    this.usage = usage;
  }
}

// The options each command takes: name -> 'value' | 'flag'.
const SECRET = { 'secret-env': 'value', 'secret-file': 'value' };
const ROTATION = {
  'pending-secret-env': 'value', 'pending-secret-file': 'value', 'retired-secret-env': 'value', 'retired-secret-file': 'value',
};
export const OPTIONS = {
  verify: {
    ...SECRET, timestamp: 'value', signature: 'value', 'body-file': 'value', 'max-skew': 'value',
    now: 'value', help: 'flag',
  },
  sign: {
    ...SECRET, timestamp: 'value', 'body-file': 'value', encoding: 'value', 'timestamp-header': 'value',
    'signature-header': 'value', json: 'flag', help: 'flag',
  },
  conformance: {
    ...SECRET, ...ROTATION, url: 'value', 'timestamp-header': 'value', 'signature-header': 'value', json: 'flag',
    timeout: 'value', 'max-skew': 'value', encoding: 'value', help: 'flag',
  },
  ...SANDBOX_OPTIONS,
};
// Commands that read a body and so accept `-` (stdin).
const TAKES_BODY = new Set(['verify', 'sign']);

const ordinal = (i) => `argument ${i + 1}`;

/** argv of one command -> { option: value | true, stdin }. */
export function parse(command, argv) {
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
      // Not shown: a stray argument is often a secret or a value whose option was forgotten.
      throw new UsageError(`${ordinal(i)} after "${command}" is not an option (not shown): ${command} takes no ` +
        'positional arguments; a secret is never given on the command line (use --secret-env VAR)', command);
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (/^((pending|retired|webhook)-)?secret$/.test(name)) {
      const prefix = name.slice(0, -'secret'.length);
      throw new UsageError(`a secret is never taken from argv: use --${prefix}secret-env VAR or --${prefix}secret-file F`, command);
    }
    const kind = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (kind === undefined) {
      throw new UsageError(`${ordinal(i)} after "${command}" is not an option of ${command} (not shown); ` +
        `its options: ${Object.keys(spec).map((o) => `--${o}`).join(' ')}`, command);
    }
    if (Object.hasOwn(opts, name) && name !== 'help') throw new UsageError(`--${name} is given twice`, command);
    if (kind === 'flag') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`, command);
      opts[name] = true;
    } else if (eq !== -1) {
      opts[name] = arg.slice(eq + 1);
    } else {
      // The next argument is the value unless it is an option: a base64url signature may
      // itself start with --.
      const value = argv[i + 1];
      if (value === undefined || isOption(value, spec)) throw new UsageError(`--${name} needs a value`, command);
      opts[name] = value;
      i += 1;
    }
  }
  return opts;
}

function isOption(arg, spec) {
  if (!arg.startsWith('--')) return false;
  const name = arg.slice(2).split('=')[0];
  return name === 'help' || Object.hasOwn(spec, name) || /^((pending|retired|webhook)-)?secret$/.test(name);
}

export function required(opts, name, command) {
  if (opts[name] === undefined || opts[name] === '') throw new UsageError(`--${name} is required`, command);
  return opts[name];
}

/** A whole number of seconds (at most 15 digits), or `fallback` when the option is absent. */
export function integer(opts, name, fallback, command) {
  if (opts[name] === undefined) return fallback;
  if (!/^[0-9]{1,15}$/.test(opts[name])) throw new UsageError(`--${name} must be a whole number of seconds`, command);
  return Number(opts[name]);
}

/** --now: Unix seconds. Thirteen digits or more is a time in milliseconds, named as such. */
export function nowOption(opts, fallback, command) {
  const value = opts.now;
  if (value !== undefined && /^[0-9]{13,15}$/.test(value)) {
    throw new UsageError(`--now is in milliseconds (${value.length} digits): give Unix seconds, ` +
      `--now ${value.slice(0, -3)}`, command, { usage: false });
  }
  if (value !== undefined && !/^[0-9]{1,12}$/.test(value)) {
    throw new UsageError('--now must be a Unix time in whole seconds (digits only, e.g. --now 1700000000)', command);
  }
  return integer(opts, 'now', fallback, command);
}

/** A decimal number as people write it: 5, 0.5, .5 or 5. (no sign, no exponent). */
export const DECIMAL = /^([0-9]+(\.[0-9]*)?|\.[0-9]+)$/;

/** A number of seconds from 0.05 (a time a request can take), at most 3600 (fractions allowed). */
export function seconds(opts, name, fallback, command, max = 3600) {
  if (opts[name] === undefined) return fallback;
  const value = Number(opts[name]);
  if (!DECIMAL.test(opts[name]) || !(value >= 0.05) || value > max) {
    throw new UsageError(`--${name} must be a number of seconds from 0.05 to ${max}`, command);
  }
  return value;
}

export function encodingOf(opts, command) {
  const encoding = opts.encoding ?? 'hex';
  if (encoding !== 'hex' && encoding !== 'base64') throw new UsageError('--encoding must be hex or base64', command);
  return encoding;
}

// A secret pasted where a header's name goes (a base64url or hex one is a valid header name):
// a whsec_ or sk_ value, the value of a variable named for a secret (shell-expanded in the
// wrong place), a run of 24 hex digits, or a part between hyphens of 16 characters or more,
// letters and digits, whose characters change class (lower, upper, digit, other) at half of
// their steps or more, as random text does (about 0.64; the words of a name, such as
// HmacSha256Signature or Cryptopay, 0.3 to 0.45).
const classOf = (c) => (/[a-z]/.test(c) ? 0 : /[A-Z]/.test(c) ? 1 : /[0-9]/.test(c) ? 2 : 3);
const changeRate = (part) => {
  let changes = 0;
  for (let i = 1; i < part.length; i += 1) if (classOf(part[i]) !== classOf(part[i - 1])) changes += 1;
  return changes / (part.length - 1);
};
function secretLike(value) {
  if (SECRET_MARK.test(value) || /[0-9a-f]{24,}/i.test(value)) return true;
  if (Object.entries(process.env).some(([name, v]) => /SECRET|TOKEN|KEY|PASSWORD/i.test(name) && v === value)) return true;
  return value.split('-').some((part) => part.length >= 16 && /[0-9]/.test(part) && /[A-Za-z]/.test(part) && changeRate(part) >= 0.5);
}

export function headerName(opts, name, command, optional = false) {
  const value = optional ? opts[name] : required(opts, name, command);
  if (value !== undefined && (!HEADER_NAME.test(value) || secretLike(value))) {
    throw new UsageError(`--${name} must be the NAME of an HTTP header (letters, digits, -), e.g. X-Webhook-Signature; ` +
      'the value given is not shown (it is not one, or it looks like a secret pasted in the wrong place)', command);
  }
  if (value !== undefined && RESERVED_HEADERS.has(value.toLowerCase())) {
    throw new UsageError(`--${name} names a header HTTP itself uses (${value}): give the service's timestamp or signature header, e.g. X-Webhook-Signature`, command);
  }
  return value;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function reason(error) {
  const known = { ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'it is a directory', EPERM: 'not permitted' };
  return error.code ? `${known[error.code] ?? error.code}` : 'unreadable';
}

/**
 * The secret named by --{prefix}secret-env or --{prefix}secret-file (prefix '', 'pending-' or
 * 'retired-'), or undefined when neither is given and `optional`. The name given is never
 * echoed: it may be the secret itself, typed or shell-expanded in the wrong place.
 */
export function readSecret(opts, command, prefix = '', optional = false) {
  const envOpt = `${prefix}secret-env`;
  const fileOpt = `${prefix}secret-file`;
  const env = opts[envOpt];
  const file = opts[fileOpt];
  if (env !== undefined && file !== undefined) throw new UsageError(`give --${envOpt} or --${fileOpt}, not both`, command);
  if (env === undefined && file === undefined) {
    if (optional) return undefined;
    throw new UsageError(`--${envOpt} VAR (or --${fileOpt} F) is required`, command);
  }
  if (env !== undefined) {
    const value = ENV_NAME.test(env) && !/^whsec_/i.test(env) ? process.env[env] : undefined;
    if (value === '') {
      throw new UsageError(`--${envOpt}: secret_empty: the environment variable it names is set but empty: `
        + 'export the webhook signing Secret in it, exactly as saved', command, { usage: false });
    }
    if (value !== undefined) {
      neverPrint(value);
      notePadded(value, envOpt, command);
      return value;
    }
    // Not the name of a set variable. Say why without showing what was given.
    const expandedFrom = env.length >= 8
      ? Object.keys(process.env).find((k) => process.env[k] === env && ENV_NAME.test(k))
      : undefined;
    if (expandedFrom !== undefined) {
      neverPrint(env);
      throw new UsageError(`--${envOpt} was given the VALUE of the environment variable ${expandedFrom} (not shown), ` +
        `not a name: write --${envOpt} ${expandedFrom} (no $)`, command);
    }
    if (!ENV_NAME.test(env) || /^whsec_/i.test(env)) {
      neverPrint(env);
      throw new UsageError(`--${envOpt} takes the NAME of an environment variable (letters, digits and _), ` +
        'never the secret itself; the value given is not shown', command);
    }
    throw new UsageError(`the environment variable named by --${envOpt} is not set (export it, or use --${fileOpt} F)`, command, { usage: false });
  }
  let bytes;
  try {
    bytes = readCapped(file, MAX_SECRET_FILE_BYTES);
  } catch (error) {
    if (looksLikeSecret(file)) neverPrint(file);
    throw new UsageError(`cannot read the file named by --${fileOpt} (${reason(error)}); the name given is not shown`, command, { usage: false });
  }
  const text = secretText(bytes, fileOpt, command);
  // Notepad and PowerShell save UTF-8 with a byte order mark: read as part of the secret, every
  // signature would mismatch with nothing to say why.
  if (text.startsWith('\uFEFF')) {
    neverPrint(text.slice(1).replace(/\r?\n$/, ''));
    throw new UsageError(`the file named by --${fileOpt} starts with a byte order mark (Notepad and PowerShell write one): `
      + 'save it as UTF-8 without BOM (the secret is not shown)', command, { usage: false });
  }
  // A file saved by an editor ends with a newline; that one newline is not part of the secret.
  const value = text.replace(/\r?\n$/, '');
  if (value === '') {
    throw new UsageError(`--${fileOpt}: secret_empty: the file it names is empty: save the webhook signing Secret in it, `
      + 'exactly as saved', command, { usage: false });
  }
  neverPrint(value);
  notePadded(value, fileOpt, command);
  return value;
}

/**
 * Says (on stderr, never the value) that a secret has white space or quotes around it: used as
 * given, as a receiver uses its own, but a Secret the service gives has none, so a receiver
 * configured with the same value verifies what this command signs and none of the service's
 * deliveries (a kit run that passes every rule would not show it).
 */
function notePadded(value, option, command) {
  const trimmed = value.trim();
  const why = value !== trimmed ? 'starts or ends with white space (a newline?)'
    : unquoted(trimmed) !== trimmed ? 'is wrapped in quotes' : null;
  if (why === null) return;
  process.stderr.write(`${command}: warning: the secret of --${option} ${why}, used as given: a Secret the service `
    + 'gives has none, so a receiver configured with this value verifies none of its deliveries (while it verifies what '
    + 'this command signs): remove it where the secret is configured (the secret is not shown)\n');
}

// The most of a secret file read: a secret is far shorter; a path to a device or a large
// file named by mistake is refused instead of read whole.
const MAX_SECRET_FILE_BYTES = 64 * 1024;

// A secret file's text: the UTF-8 bytes as saved, refused (not shown) when they are not UTF-8
// text, which would otherwise be changed on reading and sign with another key.
function secretText(bytes, fileOpt, command) {
  const refuse = (why) => new UsageError(`the file named by --${fileOpt} ${why} (the secret is not shown)`, command, { usage: false });
  if (bytes.length > MAX_SECRET_FILE_BYTES) throw refuse(`is over ${MAX_SECRET_FILE_BYTES} bytes: is it the secret's file?`);
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw refuse('is UTF-16 (Windows PowerShell 5\'s > and Out-File write it): save it as UTF-8 without BOM, e.g. Set-Content -Encoding ascii');
  }
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw refuse('is not UTF-8 text: save the secret as it was shown, as UTF-8');
  }
  if (text.includes('\0')) throw refuse('holds a NUL byte: save the secret as it was shown, as UTF-8 text');
  return text;
}

/**
 * At most `limit` + 1 bytes of a file (a regular file, a pipe or a device alike): one byte over
 * the limit is enough to refuse it, and /dev/zero or a file of gigabytes is not read whole.
 */
function readCapped(file, limit) {
  const fd = openSync(file, 'r');
  try {
    const chunks = [];
    let size = 0;
    while (size <= limit) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, limit + 1 - size));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      size += n;
    }
    return Buffer.concat(chunks, size);
  } finally {
    closeSync(fd);
  }
}

// The most of a body each command reads: one byte past the limit it applies (the package's
// default maxBodyBytes for verify, the largest any verification takes for sign), so that the
// package answers body_too_large instead of the process holding all of an endless stdin.
const [DEFAULT_MAX_BODY_BYTES, MAX_MAX_BODY_BYTES] = CONSTANTS;
const BODY_LIMIT = { verify: DEFAULT_MAX_BODY_BYTES, sign: MAX_MAX_BODY_BYTES };

/** How long an implicit read of stdin waits in silence before saying what it waits for. */
const STDIN_NOTE_MS = 2000;

/**
 * The body: from --body-file F, or stdin (`-`, or implicitly when stdin is not a terminal).
 * An empty stdin that is not a terminal is a usage error: nothing was piped.
 */
export async function readBody(opts, command) {
  const limit = BODY_LIMIT[command] ?? MAX_MAX_BODY_BYTES;
  const file = opts['body-file'];
  if (file !== undefined && opts.stdin) throw new UsageError('give --body-file F or -, not both', command);
  if (file !== undefined && file !== '-') {
    let bytes;
    try {
      bytes = readCapped(file, limit);
    } catch (error) {
      // Never echoed: a value typed where a file name belongs may be a secret pasted there.
      if (looksLikeSecret(file)) neverPrint(file);
      throw new UsageError(`cannot read the file named by --body-file (${reason(error)}); the name given is not shown: ` +
        '--body-file takes the path of the file that holds the raw body', command, { usage: false });
    }
    // As an empty stdin: nothing was saved there (a download that failed leaves an empty file).
    if (bytes.length === 0) {
      throw new UsageError('the file named by --body-file is empty: no body was saved there. Save the raw body exactly as received',
        command, { usage: false });
    }
    return bytes;
  }
  const tty = process.stdin.isTTY === true;
  if (file === undefined && !opts.stdin && tty) {
    throw new UsageError('no body: give --body-file F, or pipe the body on stdin (-)', command);
  }
  // A folder redirected in (< dir) reads as nothing at all: said as what it is.
  let folder = false;
  try {
    folder = fstatSync(0).isDirectory();
  } catch {
    // No stdin to look at: read as it is.
  }
  if (folder) {
    throw new UsageError('stdin is a folder, not the body: redirect the file that holds the raw body (- < body.json), or give --body-file F',
      command, { usage: false });
  }
  const chunks = [];
  // Read without being asked (no -, no --body-file): a parent that leaves stdin open and writes
  // nothing (execFile, docker -i, ssh) would keep the command waiting in silence.
  const waiting = file === undefined && !opts.stdin ? setTimeout(() => {
    process.stderr.write(`${command}: waiting for the body on stdin (no --body-file given, and stdin is not a terminal); `
      + 'give --body-file F, or close stdin (< /dev/null) to be told what is missing\n');
  }, STDIN_NOTE_MS) : null;
  let size = 0;
  try {
    for await (const chunk of process.stdin) {
      if (waiting !== null) clearTimeout(waiting);
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) break; // stdin is closed: its writer gets EPIPE, not an endless wait
    }
  } finally {
    if (waiting !== null) clearTimeout(waiting);
  }
  const body = Buffer.concat(chunks);
  if (body.length === 0 && !tty) {
    throw new UsageError('stdin is empty: no body was piped. Pipe the raw body exactly as received ' +
      '(... - < body.json) or give --body-file F', command, { usage: false });
  }
  return body;
}
