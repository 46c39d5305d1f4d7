// Browsers and bundlers: call `await init()` once before the first call. The .wasm is
// fetched from next to this file: this file sits beside the .wasm in the package, so the
// same relative URL finds it unbundled (import maps, CDNs), is rewritten by the bundlers that
// emit `new URL(..., import.meta.url)` assets (Vite, webpack), and names the file next to the
// bundle for those that do not (esbuild, Rollup): copy it there, or pass its URL to init().
import * as glue from './cryptopay_verify_bg.js';
import { CryptoPayError, IN_SERVER } from './api/errors.mjs';
import { isBytes, isModule, startFromInstance } from './api/start.mjs';

export * from './public.mjs';

const FILE = 'cryptopay_verify_bg.wasm';
const FIX = `copy ${FILE} (from node_modules/cryptopay-verify/dist/) next to your bundle, or pass its URL to init(url)`;
const FIX_GIVEN = `pass init() the URL where ${FILE} is served (copy it from node_modules/cryptopay-verify/dist/)`;
const FIX_VITE = 'Vite 5 to 7 pre-bundled the package into node_modules/.vite/deps/, away from its .wasm: add '
  + "optimizeDeps: { exclude: ['cryptopay-verify'] } to vite.config";

// What to do about a .wasm not found: where it was looked for says which fix applies.
function fixFor(input, url) {
  if (typeof url === 'string' && url.includes('/.vite/deps/')) return FIX_VITE;
  return input === undefined ? FIX : FIX_GIVEN;
}
const KINDS = 'a URL (string or URL), a Response or a Promise of one, the bytes of the .wasm '
  + '(ArrayBuffer or typed array) or a compiled WebAssembly.Module';

let loading = null;

/**
 * Loads the WebAssembly module (see index.d.ts for the inputs). Idempotent: concurrent calls
 * share one load, later calls return the same promise, and a failed load may be tried again.
 */
export function init(input) {
  loading ??= load(input).catch((error) => {
    loading = null; // let a later call try again
    throw error;
  });
  return loading;
}

function failure(message, cause) {
  const error = new CryptoPayError('invalid_argument', `invalid_argument: ${message}`);
  if (cause !== undefined) error.cause = cause;
  return error;
}

// The default location, as a literal `new URL(..., import.meta.url)` so that bundlers see it.
function defaultUrl() {
  try {
    return new URL('./cryptopay_verify_bg.wasm', import.meta.url);
  } catch (error) {
    throw failure(`init() cannot locate ${FILE}: this build has no import.meta.url (an IIFE or CommonJS bundle?); `
      + `serve ${FILE} and pass its URL to init(url), or bundle as an ES module`, error);
  }
}

/** Whether a URL carries a user name or password (never shown). */
function holdsCredentials(url) {
  try {
    const parsed = new URL(url, globalThis.document?.baseURI ?? globalThis.location?.href);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}

// A URL as errors may show it: no credentials, query or fragment (they may carry tokens).
function shown(url) {
  try {
    const parsed = new URL(url, globalThis.document?.baseURI ?? globalThis.location?.href);
    // A data: or blob: URL has no origin to show, and its path is the payload itself.
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `a ${parsed.protocol} URL`;
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'the URL given';
  }
}

// A compile refused by the page's Content-Security-Policy (no 'wasm-unsafe-eval'), which a
// browser reports as a CompileError or an EvalError naming the policy (Chrome, Safari) or
// saying it was blocked by CSP (Firefox); or by the embedder (a Cloudflare Worker compiles no
// WebAssembly at run time: the browser build was bundled where the workerd one belongs).
const refusedByPolicy = (error) => error?.name === 'EvalError'
  || /Content[ -]Security[ -]Policy|unsafe-eval|blocked by CSP|disallowed by embedder/i.test(String(error?.message ?? ''));
const policyFix = (error) => (/disallowed by embedder/i.test(String(error?.message ?? ''))
  ? 'this runtime compiles no WebAssembly at run time (a Cloudflare Worker): the browser build was bundled; bundle for '
    + 'Workers (wrangler) so that the package\'s `workerd` export condition picks its entry'
  : "the page's Content-Security-Policy forbids compiling WebAssembly: add 'wasm-unsafe-eval' to its script-src");
// A module that is WebAssembly but does not compile: a browser without WebAssembly SIMD or
// reference types (wasm-bindgen's table of JavaScript values), or a damaged file.
const notCompiled = (where, error, streamed) => `init() could not compile ${where} (${String(error?.message ?? error).slice(0, 160)}): `
  + 'a browser too old for its WebAssembly (SIMD and reference types: it needs Safari and iOS 16.4, Chrome 96, Firefox 93 or later), or a damaged file'
  + (streamed ? ', or something else served as application/wasm' : '');
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];
const isWasm = (bytes) => bytes.byteLength >= 4 && new Uint8Array(bytes, 0, 4).every((byte, i) => byte === WASM_MAGIC[i]);

// The browser's own fetch errors may quote the whole URL: they are named, never quoted.
const named = (error) => (error !== null && typeof error === 'object' && typeof error.name === 'string' ? error.name : 'an error');

const tag = (value) => Object.prototype.toString.call(value);
const isUrl = (value) => typeof value === 'string' || tag(value) === '[object URL]'
  || (value !== null && typeof value === 'object' && typeof value.href === 'string' && typeof value.arrayBuffer !== 'function');
const isResponse = (value) => value !== null && typeof value === 'object'
  && typeof value.arrayBuffer === 'function' && typeof value.ok === 'boolean';

async function load(input) {
  let source = input === undefined ? defaultUrl() : input;
  let url = null; // the URL fetched, when there is one
  if (source !== null && typeof source === 'object' && typeof source.then === 'function') {
    try {
      source = await source; // init(fetch(url))
    } catch (error) {
      throw failure(`the promise given to init() rejected (${named(error)}; a failed fetch?): ${fixFor(input, url)}`);
    }
  }
  let where = null;
  if (isUrl(source)) {
    url = typeof source === 'string' ? source : String(source.href);
    where = shown(url);
    try {
      source = await fetch(url);
    } catch (error) {
      // Shown without them, a URL holding a user name or password would look fine: fetch
      // refuses such a URL, whatever the network.
      if (holdsCredentials(url)) {
        throw failure(`init() could not fetch ${where}: its URL holds a user name or password, which fetch refuses: `
          + `give the URL without them (the module is public; an authenticated origin takes a cookie or a header): ${fixFor(input, url)}`);
      }
      // A server's fetch (Node's) reads no file: URL nor a path: copying the file changes nothing.
      if (IN_SERVER !== '' && !/^https?:/i.test(url)) {
        const why = url.startsWith('file:') ? 'a missing file, or a fetch that reads no file: URL, as Node\'s' : 'a path, which fetch does not read';
        throw failure(`init() could not fetch ${where} (${named(error)}: ${why}): give init() the bytes of ${FILE} instead, `
          + `init(await readFile(<its path>))${IN_SERVER}`);
      }
      throw failure(`init() could not fetch ${where} (${named(error)}: offline, blocked by CORS or a `
        + `Content-Security-Policy, or not a URL?): ${fixFor(input, url)}`);
    }
  }
  const imports = { './cryptopay_verify_bg.js': glue };
  let instance;
  if (isResponse(source)) {
    where = source.url ? shown(source.url) : where ?? 'the Response given';
    url = source.url || url;
    if (!source.ok) {
      throw failure(`init() fetched ${where} and got HTTP ${source.status}, not the WebAssembly module: ${fixFor(input, url)}`);
    }
    const type = source.headers?.get?.('content-type') ?? '';
    const streamed = typeof WebAssembly.instantiateStreaming === 'function' && type.startsWith('application/wasm');
    let bytes = null;
    try {
      if (streamed) {
        instance = (await WebAssembly.instantiateStreaming(source, imports)).instance;
      } else {
        bytes = await source.arrayBuffer();
        instance = (await WebAssembly.instantiate(bytes, imports)).instance;
      }
    } catch (error) {
      if (refusedByPolicy(error)) throw failure(`init() could not compile ${where}: ${policyFix(error)}`, error);
      // A file: URL a server runtime's fetch read (Bun's): a file missing or damaged, not a web
      // server's fallback nor an old browser.
      if (typeof url === 'string' && url.startsWith('file:')) {
        throw failure(`${where} could not be read as the WebAssembly module of cryptopay-verify (a missing or damaged file?): `
          + `${fixFor(input, url)}${IN_SERVER}`, error);
      }
      if (error instanceof WebAssembly.CompileError && (streamed || (bytes !== null && isWasm(bytes)))) {
        throw failure(notCompiled(where, error, streamed), error);
      }
      throw failure(`${where} is not the WebAssembly module of cryptopay-verify (content-type ${type || 'none'}; `
        + `a single-page-app fallback answering with HTML?): ${fixFor(input, url)}`, error);
    }
  } else if (isModule(source) || isBytes(source)) {
    try {
      const made = await WebAssembly.instantiate(source, imports);
      instance = isModule(source) ? made : made.instance;
    } catch (error) {
      if (refusedByPolicy(error)) throw failure(`init() could not compile the bytes given: ${policyFix(error)}`, error);
      throw failure(`the ${isModule(source) ? 'WebAssembly.Module' : 'bytes'} given to init() are not the `
        + `WebAssembly module of this version of cryptopay-verify (${error?.message ?? error})`, error);
    }
  } else {
    throw failure(`init() takes ${KINDS}; it was given ${source === null ? 'null' : typeof source}`);
  }
  if (typeof instance.exports.__wbindgen_start !== 'function' || !(instance.exports.memory instanceof WebAssembly.Memory)) {
    throw failure(`${where ?? 'the module given to init()'} is a WebAssembly module, but not the one of this version of `
      + `cryptopay-verify: ${fixFor(input, url)}`);
  }
  startFromInstance(glue, instance);
}
