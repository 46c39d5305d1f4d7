// Finds the INSTALLED cryptopay-verify (BENCH_CONSUMER_DIR, default target/bench-consumer,
// filled by `scripts/consumer.sh`), never pkg/ or npm/, and loads it as a user's
// `import` would. Optionally captures the WebAssembly instance the package starts, so that
// the harness can read its memory and call raw exports (internal; for measurement only).

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = resolve(benchDir, '..');
export const consumerDir = resolve(repoRoot, process.env.BENCH_CONSUMER_DIR ?? join('target', 'bench-consumer'));

export function packageInfo() {
  const req = createRequire(join(consumerDir, 'package.json'));
  let pkgJsonPath;
  try {
    pkgJsonPath = req.resolve('cryptopay-verify/package.json');
  } catch (error) {
    throw new Error(
      `cryptopay-verify is not installed in ${consumerDir}: run scripts/consumer.sh ${consumerDir}`,
      { cause: error },
    );
  }
  const dir = dirname(pkgJsonPath);
  const json = JSON.parse(readFileSync(pkgJsonPath, 'utf8'));
  return { dir, json, esmEntry: join(dir, esmTarget(json)), cjsEntry: req.resolve('cryptopay-verify') };
}

// The target Node's `import` picks: conditions node, import, default, first match in key order.
function esmTarget(json) {
  const pick = (t) => {
    if (typeof t === 'string') return t;
    if (Array.isArray(t)) {
      for (const x of t) {
        const found = pick(x);
        if (found) return found;
      }
      return null;
    }
    if (t && typeof t === 'object') {
      for (const [key, value] of Object.entries(t)) {
        if (['node', 'import', 'default'].includes(key)) {
          const found = pick(value);
          if (found) return found;
        }
      }
    }
    return null;
  };
  const root = json.exports && typeof json.exports === 'object' && '.' in json.exports ? json.exports['.'] : json.exports;
  const target = pick(root) ?? json.module ?? json.main;
  if (!target) throw new Error('the installed package has no ESM entry for Node');
  return target;
}

/** Every file under dir whose name ends with suffix. */
export function filesEndingWith(dir, suffix) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name.endsWith(suffix)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * Imports the package's ESM entry. With capture, WebAssembly.Instance is wrapped for the
 * duration of the import, so the instance the entry starts (and its memory) is returned too,
 * with the wasm-bindgen glue module, started on an instance of its own, if found.
 */
export async function loadPackage({ capture = false } = {}) {
  const info = packageInfo();
  if (!capture) return { info, api: await import(pathToFileURL(info.esmEntry).href) };
  const instances = [];
  const Original = WebAssembly.Instance;
  WebAssembly.Instance = new Proxy(Original, {
    construct(target, args, newTarget) {
      const instance = Reflect.construct(target, args, newTarget);
      instances.push(instance);
      return instance;
    },
  });
  let api;
  try {
    api = await import(pathToFileURL(info.esmEntry).href);
    if (typeof api.init === 'function') await api.init();
  } finally {
    WebAssembly.Instance = Original;
  }
  const instance = instances.find((i) => i.exports.memory instanceof WebAssembly.Memory) ?? null;
  // The Node entry is one bundled module with its own copy of the glue, so the glue module
  // here is another copy: it gets an instance of its own (same .wasm, same code) for the
  // breakdown's rows that call the glue directly.
  const glueFile = filesEndingWith(info.dir, '_bg.js')[0];
  const startFile = join(info.dir, 'dist', 'api', 'start.mjs');
  const wasmFile = filesEndingWith(info.dir, '.wasm')[0];
  let glue = null;
  if (glueFile && wasmFile && existsSync(startFile)) {
    glue = await import(pathToFileURL(glueFile).href);
    const { startFromModule } = await import(pathToFileURL(startFile).href);
    startFromModule(glue, new WebAssembly.Module(readFileSync(wasmFile)));
  }
  return { info, api, instance, wasm: instance?.exports ?? null, glue };
}
