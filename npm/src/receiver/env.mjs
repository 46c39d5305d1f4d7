// receiverOptionsFromEnv: the receiver's secrets, skew and header names from an environment
// object the caller passes (process.env, a Worker's env, Deno.env.toObject()). The receiver
// itself never reads the environment; this reads only the object it is given, and its errors
// name variables, never a value.

import { unknownOption } from '../api/hints.mjs';
import { MILLISECONDS } from './limits.mjs';
import { invalid } from './stores/common.mjs';

const SECRET = 'CRYPTOPAY_WEBHOOK_SECRET';
const PENDING = `${SECRET}_PENDING`;
const RETIRING = `${SECRET}_RETIRING`;
const RETIRING_UNTIL = `${RETIRING}_UNTIL`;
const REQUIRED = [SECRET, 'TIMESTAMP_HEADER', 'SIGNATURE_HEADER'];
const OPTIONS = ['required'];
const DEFAULT_MAX_SKEW_SECS = 300;
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
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalid('receiverOptionsFromEnv takes an options object: { required: [...] }');
  }
  for (const key of Object.keys(options)) {
    if (!OPTIONS.includes(key)) throw invalid(unknownOption(key, OPTIONS, 'receiverOptionsFromEnv'));
  }
  const required = options.required ?? [];
  if (!Array.isArray(required) || !required.every((name) => typeof name === 'string' && name !== '')) {
    throw invalid('receiverOptionsFromEnv: required is an array of variable names, e.g. [\'DATABASE_URL\']');
  }
  return required;
}

const list = (names) => (names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/**
 * { secrets, maxSkewSecs, timestampHeader, signatureHeader } from `env`: see the typings
 * (receiver.d.ts). Throws one invalid_argument naming every variable missing or malformed.
 */
export function receiverOptionsFromEnv(env, options) {
  if (env === null || typeof env !== 'object') throw invalid(USAGE);
  const required = checkOptions(options);
  const missing = [...new Set([...REQUIRED, ...required])].filter((name) => unset(env[name]));
  const retiring = !unset(env[RETIRING]);
  if (retiring && unset(env[RETIRING_UNTIL])) missing.push(RETIRING_UNTIL);
  const problems = [];
  if (missing.length > 0) {
    problems.push(`set ${list(missing)} in the environment (${missing.length === 1 ? 'it is' : 'each is'} missing or empty)`);
  }
  for (const name of [...REQUIRED, PENDING, RETIRING]) {
    if (!unset(env[name]) && typeof env[name] !== 'string') problems.push(`${name} is not text`);
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
  };
}
