// The browser build (the package's `browser` and `default` export condition, dist/browser.mjs)
// where it is not meant to run or cannot compile, each failure saying its own fix: run by Node
// (a server bundle whose bundler skipped the `node` condition), refused by a page's policy as
// Firefox words it, refused by a Worker's embedder, and a module that is WebAssembly but does
// not compile (a browser without SIMD). WebAssembly.instantiate is replaced in a fresh Node
// process to raise what those runtimes raise (STAND-INs: the browsers and workerd themselves
// are exercised in tests/bundlers and tests/runtimes).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { packageDir } from './package-under-test.mjs';

const BROWSER = pathToFileURL(join(packageDir, 'dist', 'browser.mjs')).href;
const WASM = join(packageDir, 'dist', 'cryptopay_verify_bg.wasm');

// Runs `body` (an async function's body) in a fresh Node process where `api` is the browser
// build; resolves what it printed, as JSON.
function inNode(body, prelude = '') {
  const script = `${prelude}\nconst api = await import(${JSON.stringify(BROWSER)});\nconst out = await (async () => { ${body} })();\nconsole.log(JSON.stringify(out));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}
const message = (call) => `try { ${call}; return 'no error'; } catch (error) { return error.message; }`;

test('run by Node before init(): it says this is the browser build and how to have the Node one', () => {
  const said = inNode(message("api.isValidAmountRaw('1')"));
  assert.match(said, /^invalid_argument: the WebAssembly module is not loaded yet; await init\(\) before the first call \(this is the browser build, running in Node: .*exportConditions: \['node'\] .*platform: 'node'/);
});

test('run by Bun before init() (STAND-IN: a global Bun in Node): it names Bun\'s build option', () => {
  const said = inNode(message("api.isValidAmountRaw('1')"), 'globalThis.Bun = {};');
  assert.match(said, /^invalid_argument: the WebAssembly module is not loaded yet; await init\(\) before the first call \(this is the browser build, running in Bun: .*--target=bun/);
});

test('run by Node, init() with its default URL (a file: URL fetch cannot read): the same hint', () => {
  const said = inNode(message('await api.init()'));
  assert.match(said, /^invalid_argument: init\(\) could not fetch .*this is the browser build, running in Node/);
  // Node's fetch reads no file: URL nor a path, wherever the file is: the bytes are what works,
  // not copying the file (nor the browser's causes: offline, CORS).
  for (const given of [said, inNode(message("await api.init('./cryptopay_verify_bg.wasm')")),
    inNode(message(`await api.init(new URL(${JSON.stringify(pathToFileURL(WASM).href)}))`))]) {
    assert.match(given, /\(TypeError: (a missing file, or a fetch that reads no file: URL, as Node's|a path, which fetch does not read)\): give init\(\) the bytes of cryptopay_verify_bg\.wasm instead, init\(await readFile\(<its path>\)\) \(this is the browser build, running in Node: /);
    assert.doesNotMatch(given, /CORS|copy cryptopay_verify_bg/);
  }
  // And the bytes do work.
  const bytes = inNode(`await api.init(await (await import('node:fs/promises')).readFile(${JSON.stringify(WASM)})); return api.isValidAmountRaw('1');`);
  assert.equal(bytes, true);
});

test('a file: URL a server runtime\'s fetch read but that is no module (Bun\'s fetch of a missing file): not an HTML fallback', () => {
  // STAND-IN for Bun's fetch, which reads file: URLs: an empty answer from the file's URL.
  const bunLike = `globalThis.fetch = async (url) => Object.defineProperty(new Response(new Uint8Array(0), { headers: { 'content-type': 'application/wasm' } }), 'url', { value: String(url) });`;
  const said = inNode(message(`await api.init(${JSON.stringify(pathToFileURL(join(packageDir, 'gone', 'cryptopay_verify_bg.wasm')).href)})`), bunLike);
  assert.match(said, /^invalid_argument: a file: URL could not be read as the WebAssembly module of cryptopay-verify \(a missing or damaged file\?\): pass init\(\) the URL where cryptopay_verify_bg\.wasm is served/);
  assert.doesNotMatch(said, /single-page-app|browser too old/);
});

test('the workerd and edge-light builds given bytes or a URL by another bundler\'s loader: a CryptoPayError naming the build to take', async () => {
  const { startFromModule } = await import(pathToFileURL(join(packageDir, 'dist', 'api', 'start.mjs')).href);
  const { CryptoPayError } = await import(pathToFileURL(join(packageDir, 'dist', 'entry', 'node.mjs')).href);
  for (const [given, entry, said] of [[readFileSync(WASM), 'workerd', 'the bytes of the .wasm'], ['./cryptopay_verify_bg-HASH.wasm', 'edge-light', 'a string \\(a URL or a path\\)']]) {
    assert.throws(() => startFromModule({}, given, entry), (error) => {
      assert.equal(error.code, 'invalid_argument');
      assert.match(error.message, new RegExp(`^invalid_argument: the ${entry} build of cryptopay-verify imports its \\.wasm as a compiled WebAssembly\\.Module, and the bundler gave it ${said}: .*a Node server bundle takes the package's \`node\` export condition instead`));
      return error instanceof Error && error.name === 'CryptoPayError';
    });
  }
});

test('a compile refused by a policy (Firefox\'s words) or by a Worker\'s embedder: each its own fix', () => {
  const refusing = (text) => `const real = WebAssembly.instantiate; WebAssembly.instantiate = async () => { throw new WebAssembly.CompileError(${JSON.stringify(text)}); };`;
  const bytes = `new Uint8Array(${JSON.stringify([...readFileSync(WASM).subarray(0, 8)])})`;
  const firefox = inNode(message(`await api.init(${bytes})`), refusing('call to WebAssembly.instantiate() blocked by CSP'));
  assert.match(firefox, /could not compile the bytes given: the page's Content-Security-Policy forbids compiling WebAssembly: add 'wasm-unsafe-eval' to its script-src$/);
  const worker = inNode(message(`await api.init(${bytes})`), refusing('Wasm code generation disallowed by embedder'));
  assert.match(worker, /could not compile the bytes given: this runtime compiles no WebAssembly at run time \(a Cloudflare Worker\).*`workerd` export condition/);
});

test('a Response of WebAssembly that does not compile: a browser without SIMD or a damaged file, not an HTML fallback', () => {
  // The module's first bytes, then garbage: the magic number says it is WebAssembly.
  const damaged = [...readFileSync(WASM).subarray(0, 64), 0xff, 0xff, 0xff];
  const said = inNode(message(`await api.init(new Response(new Uint8Array(${JSON.stringify(damaged)}), { headers: { 'content-type': 'application/octet-stream' } }))`));
  assert.match(said, /could not compile the Response given \(.*\): a browser too old for its WebAssembly \(SIMD and reference types: it needs Safari and iOS 16\.4, Chrome 96, Firefox 93 or later\), or a damaged file$/);
  // HTML where the module should be: still the fallback's fix.
  const html = inNode(message("await api.init(new Response('<!doctype html><title>app</title>', { headers: { 'content-type': 'text/html' } }))"));
  assert.match(html, /is not the WebAssembly module of cryptopay-verify \(content-type text\/html; a single-page-app fallback answering with HTML\?\)/);
});

test('init() given a URL holding a user name and password: fetch refuses it, and the message says so without them', () => {
  const said = inNode(message("await api.init('https://merchant:Pw_Canary@cdn.example.invalid/cryptopay_verify_bg.wasm')"));
  assert.match(said, /^invalid_argument: init\(\) could not fetch https:\/\/cdn\.example\.invalid\/cryptopay_verify_bg\.wasm: its URL holds a user name or password, which fetch refuses/);
  assert.ok(!said.includes('Pw_Canary') && !said.includes('merchant'), said);
});
