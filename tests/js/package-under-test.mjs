// Loads the INSTALLED cryptopay-verify package (never pkg/ or npm/), once through its
// ESM entry and once through its CommonJS entry, as a user's project would resolve it.
//
// The consumer folder is CONSUMER_DIR (default target/consumer, relative to the repository
// root), filled by `make consumer` / scripts/consumer.sh. Not a test file itself: `node --test`
// only runs files named *.test.mjs.

import { createRequire } from 'node:module';
import { readFileSync, readdirSync, realpathSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const consumerDir = resolve(repoRoot, process.env.CONSUMER_DIR ?? join('target', 'consumer'));

function inside(parent, child) {
  const rel = relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

const requireFromConsumer = createRequire(join(consumerDir, 'package.json'));
let packageJsonPath;
try {
  packageJsonPath = requireFromConsumer.resolve('cryptopay-verify/package.json');
} catch (error) {
  throw new Error(
    `cryptopay-verify is not installed in ${consumerDir}: run \`make consumer\` (or scripts/consumer.sh) first`,
    { cause: error },
  );
}

/** The installed package's folder (…/node_modules/cryptopay-verify). */
export const packageDir = dirname(packageJsonPath);
const realPackageDir = realpathSync(packageDir);
if (!inside(realpathSync(join(consumerDir, 'node_modules')), realPackageDir)) {
  throw new Error(`cryptopay-verify resolved to ${realPackageDir}, outside ${consumerDir}/node_modules`);
}
for (const forbidden of ['pkg', 'npm']) {
  if (realPackageDir === join(repoRoot, forbidden) || inside(join(repoRoot, forbidden), realPackageDir)) {
    throw new Error(`cryptopay-verify resolved into ${forbidden}/: the tests must load the installed package`);
  }
}
export const packageJson = JSON.parse(readFileSync(packageJsonPath, 'utf8'));

// Node's conditional-exports resolution for one subpath, with the conditions of `import`
// in Node (node, import, default): the first matching key in object order wins.
function pickTarget(target, conditions) {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const item of target) {
      const found = pickTarget(item, conditions);
      if (found !== null) return found;
    }
    return null;
  }
  if (target !== null && typeof target === 'object') {
    for (const [key, value] of Object.entries(target)) {
      if (conditions.includes(key)) {
        const found = pickTarget(value, conditions);
        if (found !== null) return found;
      }
    }
  }
  return null;
}

function resolveEsmEntry() {
  const { exports } = packageJson;
  const root =
    exports !== null && typeof exports === 'object' && Object.keys(exports).some((k) => k.startsWith('.'))
      ? exports['.']
      : exports;
  const target = pickTarget(root, ['node', 'import', 'default']);
  if (target === null) throw new Error('the installed package exports no ESM entry for Node');
  return join(packageDir, target);
}

/** Absolute paths of the two entries Node picks for `import` and `require`. */
export const esmEntryPath = resolveEsmEntry();
export const cjsEntryPath = requireFromConsumer.resolve('cryptopay-verify');

/** The package as `import 'cryptopay-verify'` gives it. */
export const esm = await import(pathToFileURL(esmEntryPath).href);
/** The package as `require('cryptopay-verify')` gives it. */
export const cjs = requireFromConsumer('cryptopay-verify');
await esm.init();
await cjs.init();

/** Both entries, labelled, for suites that run against each. */
export const entries = [
  ['ESM entry (import)', esm],
  ['CJS entry (require)', cjs],
];

/** The installed type declarations. */
export const typesText = (name) => readFileSync(join(packageDir, 'dist', name), 'utf8');

/** Hex text to a plain Uint8Array (not a Buffer). */
export function fromHex(text) {
  if (typeof text !== 'string' || text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) {
    throw new Error(`bad hex in a vector: ${String(text).slice(0, 20)}`);
  }
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The vector files the JavaScript suite runs, by name, parsed. */
/** The public JSONTestSuite as vendored in tests/vectors/json_suite.json. */
export function jsonSuite() {
  return JSON.parse(readFileSync(join(repoRoot, 'tests', 'vectors', 'json_suite.json'), 'utf8'));
}

export function vectorFiles() {
  const dir = join(repoRoot, 'tests', 'vectors');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json') && !['hmac_sha256_rfc4231.json', 'json_suite.json'].includes(name) && !name.startsWith('hostile'))
    .sort()
    .map((name) => [name, JSON.parse(readFileSync(join(dir, name), 'utf8'))]);
}

/** HMAC-SHA256 over `timestamp.body` with node:crypto, independently of the package. */
export function sign(secret, timestamp, body, encoding = 'hex') {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  mac.update(Buffer.from(`${timestamp}.`, 'utf8'));
  mac.update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  return mac.digest(encoding);
}

/** Runs fn and returns what it threw (failing when it returned). */
export function thrown(fn) {
  let value;
  try {
    value = fn();
  } catch (error) {
    return error;
  }
  const shown = (() => {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  })();
  throw new Error(`expected a throw, got ${shown}`);
}
