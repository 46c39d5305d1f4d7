// receiverOptionsFromEnv: the receiver's secrets, skew and header names from an environment
// object the caller passes (process.env, a Worker's env, Deno.env.toObject()). The receiver
// itself never reads the environment; this reads only the object it is given, and its errors
// name variables, never a value.

import { bindingHint, cutOrRunOn, nearMiss } from '../api/hints.mjs';
import { MILLISECONDS, PAST } from './limits.mjs';
import { checkKeys, invalid } from './stores/common.mjs';

const SECRET = 'CRYPTOPAY_WEBHOOK_SECRET';
const PENDING = `${SECRET}_PENDING`;
const RETIRING = `${SECRET}_RETIRING`;
const RETIRING_UNTIL = `${RETIRING}_UNTIL`;
const REQUIRED = [SECRET, 'TIMESTAMP_HEADER', 'SIGNATURE_HEADER'];
const SECRET_NAMES = [SECRET, PENDING, RETIRING, RETIRING_UNTIL];
// The settings that are not secrets: a near miss of one is refused only while the one meant is
// unset (a skew left at its default, a header name missing), cut short or run on included
// (MAX_SKEW_SECONDS).
const SETTING_NAMES = ['MAX_SKEW_SECS', 'TIMESTAMP_HEADER', 'SIGNATURE_HEADER'];
const OPTIONS = ['required'];
const DEFAULT_MAX_SKEW_SECS = 300;
/** The rotation's secrets receiverOptionsFromEnv read, kept on its result. */
const ROTATION_READ = Symbol('the rotation receiverOptionsFromEnv read');
const WHOLE = /^(?:0|[1-9][0-9]*)$/;

const USAGE = 'receiverOptionsFromEnv takes the environment as an object: process.env, a Worker\'s env, Deno.env.toObject()';

// An empty value is unset: a platform's form or a .env line often leaves a variable empty.
const unset = (value) => value === undefined || value === null || value === '';

// Whole seconds written in decimal digits (a Worker's JSON var may be a number).
function wholeSeconds(value) {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !WHOLE.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

function checkOptions(options) {
  if (options === undefined) return [];
  checkKeys(options, OPTIONS, 'receiverOptionsFromEnv', 'receiverOptionsFromEnv takes an options object: { required: [...] }');
  const required = options.required ?? [];
  if (!Array.isArray(required) || !required.every((name) => typeof name === 'string' && name !== '')) {
    throw invalid('receiverOptionsFromEnv: required is an array of variable names, e.g. [\'DATABASE_URL\']');
  }
  return required;
}

const list = (names) => (names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

// A variable named one edit (or only letter case, or underscores) away from one of ours
// (CRYPTOPAY_WEBHOOK_SECRET_RETIRNG, CRYPTOPAY_WEBHOK_SECRET_PENDING): left unread, a rotation
// would silently lose its old or new Secret, so it is refused, naming the one meant. So is a
// near miss of a setting that is unset (MAX_SKEW_SEC: the skew silently left at 300 s). A name
// that extends one of ours (a deployment's own CRYPTOPAY_WEBHOOK_SECRET_SHOP_B, or _2) is not
// this function's. Names are shown (one that is not a plain variable name, which a pasted
// value could be, is not), never values.
function strayNames(env) {
  const problems = [];
  for (const name of Object.keys(env)) {
    const upper = name.toUpperCase();
    // Windows' process.env reads a name in any letter case: there the known name gives this value.
    const known = (SECRET_NAMES.includes(upper) || SETTING_NAMES.includes(upper)) && env[upper] === env[name];
    if (known || unset(env[name])) continue;
    const shown = (near) => (/^[A-Za-z0-9_]{1,64}$/.test(name) ? name : `a variable whose name is not a plain name, close to ${near},`);
    const near = SECRET_NAMES.find((candidate) => nearMiss(name, candidate) && !upper.startsWith(`${candidate}_`));
    if (near !== undefined) {
      problems.push(`${shown(near)} is not a variable receiverOptionsFromEnv reads: did you mean ${near}? (it reads ` +
        `${list(SECRET_NAMES)}; rename it, or remove it)`);
      continue;
    }
    const setting = SETTING_NAMES.find((candidate) => unset(env[candidate]) && (nearMiss(name, candidate) || cutOrRunOn(name, candidate)));
    if (setting !== undefined) {
      problems.push(`${shown(setting)} is set and ${setting} is not: did you mean ${setting}? (receiverOptionsFromEnv reads ` +
        `${list(SETTING_NAMES)}; rename it)`);
    }
  }
  return problems;
}

/**
 * The variables of `env` this function reads, and every other one it can list (for
 * strayNames), as a plain object. Deno run with `--allow-env` scoped to some names throws
 * NotCapable for any other name read, and for listing the environment: the names refused are
 * named with the flag that allows them (the receiver's configuration, not a store outage); a
 * listing refused only leaves near misses unsought.
 */
function readable(env, required) {
  const names = [...new Set([...SECRET_NAMES, ...SETTING_NAMES, ...required])];
  const view = {};
  const refused = [];
  for (const name of names) {
    try {
      view[name] = env[name];
    } catch {
      refused.push(name);
    }
  }
  if (refused.length > 0) {
    throw invalid(`reading ${list(refused)} from the environment was refused (Deno with --allow-env scoped to other names?): `
      + `allow every variable receiverOptionsFromEnv reads, --allow-env=${names.join(',')}, and pass process.env `
      + '(Deno.env.toObject() needs the whole environment)');
  }
  let listed = [];
  try {
    listed = Object.keys(env);
  } catch {
    // not listable here: no near misses to find
  }
  for (const name of listed) {
    if (names.includes(name)) continue;
    try {
      view[name] = env[name];
    } catch {
      // this one is not readable: not ours either
    }
  }
  return view;
}

/**
 * { secrets, maxSkewSecs, timestampHeader, signatureHeader } from `env`: see the typings
 * (receiver.d.ts). Throws one invalid_argument naming every variable missing or malformed.
 */
export function receiverOptionsFromEnv(given, options) {
  if (given === null || typeof given !== 'object') throw invalid(USAGE);
  const required = checkOptions(options);
  const env = readable(given, required);
  const missing = [...new Set([...REQUIRED, ...required])].filter((name) => unset(env[name]));
  const retiring = !unset(env[RETIRING]);
  if (retiring && unset(env[RETIRING_UNTIL])) missing.push(RETIRING_UNTIL);
  const problems = strayNames(env);
  // An overlap's end still ahead with no old secret (left empty by a form or a secret store):
  // the deliveries in flight signed with it would be refused (400, never retried) while the
  // configuration says an overlap runs. One already past, left behind once both were meant to
  // go, is harmless.
  // A Worker's global scope reads Date.now() as 0 (its clock starts with a request): no time
  // at all, so an end then is judged by no clock rather than always "ahead".
  const leftUntil = retiring || unset(env[RETIRING_UNTIL]) ? undefined : wholeSeconds(env[RETIRING_UNTIL]);
  const nowMs = Date.now();
  if (leftUntil === null) {
    problems.push(`${RETIRING_UNTIL} is set, to no Unix time, and ${RETIRING} is not: remove ${RETIRING_UNTIL} (or, during `
      + `an overlap, set ${RETIRING} to the old Secret and ${RETIRING_UNTIL} to the last second it verifies)`);
  } else if (leftUntil !== undefined && nowMs >= PAST * 1000 && leftUntil * 1000 > nowMs) {
    problems.push(`${RETIRING_UNTIL} is set, and not past, but ${RETIRING} is not: during the overlap set ${RETIRING} to `
      + `the old Secret; once the overlap has ended, remove ${RETIRING_UNTIL} too`);
  }
  if (missing.length > 0) {
    // A name of the caller's may be a Worker binding (D1's DB, Hyperdrive), which is declared
    // in the Worker's configuration under that name, not set as a variable.
    const binding = missing.some((name) => required.includes(name) && !REQUIRED.includes(name))
      ? '; a Worker binding (D1, Hyperdrive) is declared in wrangler.jsonc under that name, not set as a variable' : '';
    problems.push(`set ${list(missing)} in the environment (${missing.length === 1 ? 'it is' : 'each is'} missing or empty${binding})`);
  }
  for (const name of [...REQUIRED, PENDING, RETIRING]) {
    if (!unset(env[name]) && typeof env[name] !== 'string') problems.push(`${name} is not text${bindingHint(env[name])}`);
  }
  const maxSkewSecs = unset(env.MAX_SKEW_SECS) ? DEFAULT_MAX_SKEW_SECS : wholeSeconds(env.MAX_SKEW_SECS);
  if (maxSkewSecs === null) problems.push(`MAX_SKEW_SECS is whole seconds, 0 or more (default ${DEFAULT_MAX_SKEW_SECS})`);
  const until = retiring && !unset(env[RETIRING_UNTIL]) ? wholeSeconds(env[RETIRING_UNTIL]) : undefined;
  if (until === null) problems.push(`${RETIRING_UNTIL} is a Unix time in seconds: the last second the retiring secret verifies`);
  else if (until !== undefined && until >= MILLISECONDS) {
    problems.push(`${RETIRING_UNTIL} has 13 digits or more: it is in milliseconds; give the last second the retiring secret verifies, in Unix seconds`);
  }
  if (problems.length > 0) throw invalid(problems.join('; '));

  // One secret as a string, the usual case; during a rotation, the set of entries.
  const rotation = [];
  if (!unset(env[PENDING])) rotation.push({ secret: env[PENDING], kind: 'pending' });
  if (retiring) rotation.push({ secret: env[RETIRING], kind: 'retiring', acceptUntilSecs: until });
  return {
    secrets: rotation.length === 0 ? env[SECRET] : [{ secret: env[SECRET], kind: 'active' }, ...rotation],
    maxSkewSecs,
    timestampHeader: env.TIMESTAMP_HEADER,
    signatureHeader: env.SIGNATURE_HEADER,
    // During a rotation, spread along with the rest ({ ...receiverOptionsFromEnv(env), secrets:
    // {...} }); not a key Object.keys lists, nor an option createReceiver checks.
    ...(rotation.length === 0 ? {} : {
      [ROTATION_READ]: rotation.map(({ secret, kind }) => ({ secret, name: kind === 'pending' ? PENDING : RETIRING })),
    }),
  };
}

/**
 * Says, at start, that a secrets option given after receiverOptionsFromEnv's (a receiver of
 * several integrations: { ...receiverOptionsFromEnv(env), secrets: { 'shop-a': ..., } }) holds
 * none of the rotation's secrets the environment had: every delivery signed with them would
 * be refused, for good.
 */
export function droppedRotation(options, held) {
  const read = Array.isArray(options?.[ROTATION_READ]) ? options[ROTATION_READ] : [];
  const dropped = read.filter(({ secret }) => !held.includes(secret)).map(({ name }) => name);
  if (dropped.length === 0) return [];
  return [`${list(dropped)} ${dropped.length === 1 ? 'is' : 'are'} set and read by receiverOptionsFromEnv, but the secrets option `
    + `given after it replaced what it read: this receiver does not hold ${dropped.length === 1 ? 'that Secret' : 'those Secrets'}, `
    + 'and a delivery signed with one is refused (400, final). Give the integration that rotates its secrets as a list, e.g. '
    + '{ \'shop-a\': [{ secret: active, kind: \'active\' }, { secret: pending, kind: \'pending\' }] } (a retiring one: kind \'retiring\' '
    + 'with acceptUntilSecs), or unset the variable'];
}
