// The environment a test starts the example receiver (examples/node-receiver) with: this
// process's, minus every name the example reads as its configuration. A CI machine often sets
// DATABASE_URL, which would turn every SQLite test into one on that database; a test sets
// what it needs itself. The names are read from the example's server.mjs (`env.NAME`), so a
// setting added there is left out here too.

import { readFileSync } from 'node:fs';

const SERVER = new URL('../../../examples/node-receiver/server.mjs', import.meta.url);
const READ = new Set([...readFileSync(SERVER, 'utf8').matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]));
if (!READ.has('DATABASE_URL')) throw new Error(`no env.DATABASE_URL found in ${SERVER.pathname}: the scan is out of date`);

/** process.env without the example receiver's configuration names. */
export const inheritedEnv = () => Object.fromEntries(Object.entries(process.env).filter(([key]) => !READ.has(key)));
