// The environment a test starts the example receiver (examples/node-receiver) with: this
// process's, minus every name the example reads as its configuration. A CI machine often sets
// DATABASE_URL, which would turn every SQLite test into one on that database; a test sets
// what it needs itself. The names are those the example's server.mjs reads (`env.NAME`), and,
// since it reads its secrets, header names and skew with the package's receiverOptionsFromEnv,
// every name that function reads: found by calling the installed one on an environment that
// records each name asked for. So a setting added to either is left out here too.

import { readFileSync } from 'node:fs';
import { rx } from './helpers.mjs';

const SERVER = new URL('../../../examples/node-receiver/server.mjs', import.meta.url);
const source = readFileSync(SERVER, 'utf8');
// env.NAME, and the names its option helper reads (`whole('flag', 'NAME', fallback)`).
const READ = new Set([...source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)|\bwhole\('[^']*', '([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1] ?? m[2]));
if (!READ.has('FULFIL_INTERVAL_MS')) throw new Error(`no FULFIL_INTERVAL_MS found in ${SERVER.pathname}: the scan is out of date`);
if (!READ.has('DATABASE_URL')) throw new Error(`no env.DATABASE_URL found in ${SERVER.pathname}: the scan is out of date`);

/** The names receiverOptionsFromEnv reads: each answered with a value, so that every branch asks. */
function namesReadByPackage() {
  const asked = new Set();
  const env = new Proxy({}, {
    get(_target, name) {
      if (typeof name === 'string') asked.add(name);
      return 'x';
    },
  });
  try {
    rx.receiverOptionsFromEnv(env);
  } catch {
    // 'x' is no number of seconds: refused, once every name was read
  }
  return [...asked].filter((name) => /^[A-Z][A-Z0-9_]*$/.test(name));
}

if (source.includes('receiverOptionsFromEnv')) {
  const names = namesReadByPackage();
  if (!names.includes('CRYPTOPAY_WEBHOOK_SECRET')) throw new Error('receiverOptionsFromEnv read no CRYPTOPAY_WEBHOOK_SECRET: the scan is out of date');
  for (const name of names) READ.add(name);
}

/** process.env without the example receiver's configuration names. */
export const inheritedEnv = () => Object.fromEntries(Object.entries(process.env).filter(([key]) => !READ.has(key)));
