// `make bundlers-test`: the package README's browser recipes, built and run for real.
//
// For Vite, webpack, esbuild and Rollup, a small page (page/main.js, which imports
// 'cryptopay-verify' by name) is bundled in a folder inside the consumer folder, where the
// INSTALLED package resolves, with the configuration files taken verbatim from the
// `<!-- recipe-file: BUNDLER FILE -->` blocks of npm/README.md (Vite has none: the
// README says there is nothing to configure). Each bundle is served by its own static server on
// 127.0.0.1 and loaded in one headless Chromium (Debian's, driven by playwright-core), where:
//   1. init() is called while every .wasm request answers 404: it must reject with a
//      CryptoPayError (invalid_argument) whose message names the URL the bundle asked for;
//   2. init() is called again with the file served: it must load (a failed load is retried),
//      and the .wasm must come from the bundle's own output (emitted or copied by the recipe);
//   3. a delivery signed here with node:crypto verifies, and the same delivery with one byte
//      of the body changed is refused as signature_mismatch.
// Env CHROMIUM overrides /usr/bin/chromium.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { copyFileSync, cpSync, createReadStream, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, sep } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { recipeFiles, repoRoot } from '../types/readme.mjs';

const consumer = join(repoRoot, process.env.CONSUMER_DIR ?? join('target', 'consumer'));
if (!existsSync(join(consumer, 'node_modules', 'cryptopay-verify', 'package.json'))) {
  throw new Error(`cryptopay-verify is not installed in ${consumer}: run make consumer first`);
}
const work = join(consumer, 'bundlers');
const page = join(repoRoot, 'tests', 'bundlers', 'page');
const bin = (...path) => join(repoRoot, 'node_modules', ...path);
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';

const recipes = recipeFiles();
const recipe = (bundler) => recipes.filter((r) => r.bundler === bundler);

// How each bundler is run: the README's files, the command its recipe names, the page.
const BUNDLERS = [
  {
    name: 'vite',
    files: [],
    command: [bin('vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'],
    html: null, // Vite builds index.html itself
    prefix: '/', // Vite's default base
  },
  {
    name: 'webpack',
    files: recipe('webpack'),
    command: [bin('webpack', 'bin', 'webpack.js'), '--config', 'webpack.config.mjs'],
    html: '<script src="./main.js"></script>', // a classic script, as webpack emits by default
    prefix: '/app/',
  },
  {
    name: 'esbuild',
    files: recipe('esbuild'),
    command: ['build.mjs'],
    html: '<script type="module" src="./main.js"></script>',
    prefix: '/app/',
  },
  {
    name: 'rollup',
    files: recipe('rollup'),
    command: [bin('rollup', 'dist', 'bin', 'rollup'), '-c', 'rollup.config.mjs'],
    html: '<script type="module" src="./main.js"></script>',
    prefix: '/app/',
  },
];

// A delivery signed independently of the package.
const SECRET = 'whsec_bundler_test';
const TIMESTAMP = '1700000000';
const BODY = '{"schema_version":1,"event_id":"evt_bundler_1","event_type":"payment.updated",'
  + '"occurred_at":"2023-11-14T22:13:20Z","data":{"payment_id":"pay_bundler_1","status_version":18446744073709551617}}';
const SIGNATURE = createHmac('sha256', SECRET).update(`${TIMESTAMP}.${BODY}`).digest('hex');
const DELIVERY = { body: BODY, timestamp: TIMESTAMP, signature: SIGNATURE, secret: SECRET, nowSecs: 1700000030 };
const TAMPERED = { ...DELIVERY, body: BODY.replace('pay_bundler_1', 'pay_bundler_2') };

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
};

function build(bundler) {
  const dir = join(work, bundler.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `bundle-${bundler.name}`, private: true, type: 'module' })}\n`);
  copyFileSync(join(page, 'main.js'), join(dir, 'src', 'main.js'));
  if (bundler.html === null) copyFileSync(join(page, 'index.html'), join(dir, 'index.html'));
  for (const file of bundler.files) writeFileSync(join(dir, file.file), file.code);
  const run = spawnSync(process.execPath, bundler.command, {
    cwd: dir, encoding: 'utf8', timeout: 180_000, env: { ...process.env, NO_COLOR: '1' },
  });
  assert.equal(run.status, 0, `${bundler.name} build failed (${run.error?.message ?? `exit ${run.status}`}):\n${run.stdout}\n${run.stderr}`);
  const dist = join(dir, 'dist');
  if (bundler.html !== null) {
    writeFileSync(join(dist, 'index.html'), `<!doctype html>\n<meta charset="utf-8">\n<title>loading</title>\n${bundler.html}\n`);
  }
  return dist;
}

// A static server for one bundle's output folder, under `prefix` (a bundle served from a
// sub-folder, as most sites do, so a URL resolved against the wrong folder is a 404); records
// what it served.
async function serve(dist, prefix) {
  const root = realpathSync(dist);
  const served = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    let file = path.startsWith(prefix) ? join(root, path === prefix ? 'index.html' : path.slice(prefix.length)) : null;
    try {
      file = file && realpathSync(file);
    } catch {
      file = null;
    }
    if (req.method !== 'GET' || file === null || !file.startsWith(root + sep) || !statSync(file).isFile()) {
      served.push({ path, status: 404 });
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    served.push({ path, status: 200 });
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    createReadStream(file).pipe(res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return { origin: `http://127.0.0.1:${server.address().port}`, served, server };
}

let browser = null;

before(async () => {
  assert.ok(existsSync(executablePath), `no ${executablePath}: run make setup-browser`);
  mkdirSync(work, { recursive: true });
  // playwright gives the browser a fresh temporary profile.
  browser = await chromium.launch({
    executablePath,
    headless: true,
    timeout: 30_000,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      // Anything not on loopback goes to a closed local port instead of the network.
      '--proxy-server=127.0.0.1:9'],
  });
});

after(async () => {
  await browser?.close().catch(() => {});
});

test('the README holds a recipe file for webpack, esbuild and Rollup, and says Vite (8, the one tested) needs none', () => {
  const readme = readFileSync(join(repoRoot, 'npm', 'README.md'), 'utf8');
  assert.deepEqual(recipes.map((r) => `${r.bundler} ${r.file}`).sort(),
    ['esbuild build.mjs', 'rollup rollup.config.mjs', 'webpack webpack.config.mjs']);
  assert.match(readme, /\*\*Vite\*\* 8 \(the version the tests run\): nothing to configure/);
});

for (const bundler of BUNDLERS) {
  describe(`${bundler.name}: the README recipe, bundled and run in Chromium`, () => {
    test('init() on a 404 rejects with a CryptoPayError naming the URL; retried, it loads; a delivery verifies and a tampered one is refused', async (t) => {
      const dist = build(bundler);
      const { origin, served, server } = await serve(dist, bundler.prefix);
      const context = await browser.newContext();
      const problems = [];
      try {
        await context.route('**/*', (route) => (route.request().url().startsWith(`${origin}/`)
          ? route.continue()
          : (problems.push(`blocked ${route.request().url()}`), route.abort())));
        const tab = await context.newPage();
        tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        tab.on('console', (message) => {
          // The 404 of step 1 is logged by the browser itself.
          if (message.type() === 'error' && !/status of 404/.test(message.text())) problems.push(`console: ${message.text()}`);
        });
        await tab.goto(`${origin}${bundler.prefix}`, { timeout: 15_000 });
        await tab.waitForFunction(() => window.cryptopayTest !== undefined, null, { timeout: 15_000 });

        // 1. Every .wasm request answers 404.
        const asked = [];
        const notFound = (route) => {
          asked.push(route.request().url());
          return route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' });
        };
        await tab.route('**/*.wasm', notFound);
        const failed = await tab.evaluate(() => window.cryptopayTest.init());
        await tab.unroute('**/*.wasm', notFound);
        assert.equal(asked.length, 1, `the .wasm requests while answering 404: ${asked.join(', ')}`);
        const wasmUrl = asked[0];
        assert.ok(wasmUrl.startsWith(`${origin}/`), `the bundle asked for ${wasmUrl}`);
        assert.equal(failed.ok, false, 'init() resolved although the .wasm answered 404');
        assert.equal(failed.isCryptoPayError, true, `not a CryptoPayError: ${JSON.stringify(failed)}`);
        assert.equal(failed.code, 'invalid_argument');
        assert.ok(failed.message.includes(wasmUrl), `the message does not name ${wasmUrl}: ${failed.message}`);
        assert.match(failed.message, /HTTP 404/);
        assert.match(failed.message, /next to your bundle, or pass its URL to init\(url\)/);
        t.diagnostic(`404: ${failed.message}`);

        // 2. Retried with the file served: it loads, from the bundle's own output.
        assert.deepEqual(await tab.evaluate(() => window.cryptopayTest.init()), { ok: true });
        const wasmPath = new URL(wasmUrl).pathname;
        assert.ok(served.some((s) => s.path === wasmPath && s.status === 200),
          `${wasmPath} was not served from the bundle: ${served.map((s) => `${s.status} ${s.path}`).join(', ')}`);

        // 3. A delivery verifies; one byte changed is refused.
        const verified = await tab.evaluate((d) => window.cryptopayTest.verify(d), DELIVERY);
        assert.deepEqual(verified, {
          ok: true, eventId: 'evt_bundler_1', statusVersion: '18446744073709551617', matchedSecret: 'active', timestamp: 1700000000,
        });
        const tampered = await tab.evaluate((d) => window.cryptopayTest.verify(d), TAMPERED);
        assert.equal(tampered.ok, false, 'a tampered delivery verified');
        assert.equal(tampered.isCryptoPayError, true, JSON.stringify(tampered));
        assert.equal(tampered.code, 'signature_mismatch');
        assert.deepEqual(problems, []);
        t.diagnostic(`${bundler.name}: ${wasmPath} (${statSync(join(dist, wasmPath.slice(bundler.prefix.length))).size} B) beside ${served.filter((s) => s.status === 200).length - 1} other files`);
      } finally {
        await context.close().catch(() => {});
        server.closeAllConnections?.();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
}

// `vite` (the dev server) serves dependencies from node_modules as they are, under the project:
// the package is copied into the project's own node_modules, as `npm install` puts it there (the
// consumer folder's node_modules would sit outside Vite's allowed folders).
describe('vite dev server: the same page, served by `vite`', () => {
  test('init() loads the .wasm through the dev server, and a delivery verifies', async () => {
    const dir = join(work, 'vite-dev');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'src'), { recursive: true });
    mkdirSync(join(dir, 'node_modules'));
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'bundle-vite-dev', private: true, type: 'module' })}\n`);
    copyFileSync(join(page, 'main.js'), join(dir, 'src', 'main.js'));
    copyFileSync(join(page, 'index.html'), join(dir, 'index.html'));
    cpSync(realpathSync(join(consumer, 'node_modules', 'cryptopay-verify')), join(dir, 'node_modules', 'cryptopay-verify'), { recursive: true });
    // --port 0: vite binds a free port itself and prints it (a port found free beforehand could
    // be taken by another process before vite binds it).
    let port = null;
    const vite = spawn(process.execPath, [bin('vite', 'bin', 'vite.js'), '--host', '127.0.0.1', '--port', '0', '--strictPort'], {
      cwd: dir, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    const context = await browser.newContext();
    try {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`vite did not start in 30 s:\n${log}`)), 30_000);
        const read = (chunk) => {
          log += chunk;
          const match = /http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
          if (match) {
            port = Number(match[1]);
            clearTimeout(timer);
            resolve();
          }
        };
        vite.stdout.on('data', read);
        vite.stderr.on('data', read);
        vite.once('exit', (code) => reject(new Error(`vite exited (${code}):\n${log}`)));
      });
      const origin = `http://127.0.0.1:${port}`;
      await context.route('**/*', (route) => (route.request().url().startsWith(`${origin}/`) ? route.continue() : route.abort()));
      const tab = await context.newPage();
      const wasm = [];
      tab.on('response', (response) => { if (response.url().includes('.wasm')) wasm.push(`${response.status()} ${new URL(response.url()).pathname}`); });
      await tab.goto(`${origin}/`, { timeout: 20_000 });
      await tab.waitForFunction(() => window.cryptopayTest !== undefined, null, { timeout: 20_000 });
      assert.deepEqual(await tab.evaluate(() => window.cryptopayTest.init()), { ok: true }, log);
      assert.deepEqual(wasm, ['200 /node_modules/cryptopay-verify/dist/cryptopay_verify_bg.wasm']);
      const verified = await tab.evaluate((d) => window.cryptopayTest.verify(d), DELIVERY);
      assert.equal(verified.eventId, 'evt_bundler_1', JSON.stringify(verified));
    } finally {
      await context.close().catch(() => {});
      vite.kill('SIGTERM');
    }
  });
});

// The browser entry unbundled (an import map to the installed package's browser entry), one
// fresh page per case since init() loads once per page: each input init() takes, and each way
// a load fails.
describe('the browser entry: what init() takes and how it fails', () => {
  const modules = realpathSync(join(consumer, 'node_modules'));
  const manifest = JSON.parse(readFileSync(join(modules, 'cryptopay-verify', 'package.json'), 'utf8'));
  const entry = manifest.exports['.'].browser.default.replace(/^\.\//, '');
  const wasmPath = '/node_modules/cryptopay-verify/dist/cryptopay_verify_bg.wasm';
  const html = `<!doctype html><meta charset="utf-8"><title>init</title>
<script type="importmap">${JSON.stringify({ imports: { 'cryptopay-verify': `/node_modules/cryptopay-verify/${entry}` } })}</script>
<script type="module">
import * as cv from 'cryptopay-verify';
window.cv = cv;
window.report = (error) => ({ ok: false, isCryptoPayError: error instanceof cv.CryptoPayError, code: error?.code, message: String(error?.message ?? error) });
document.title = 'ready';
</script>`;
  let site = null;
  before(async () => {
    const served = [];
    const server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
      served.push(path);
      if (path === '/csp') {
        // A page whose Content-Security-Policy lets its own scripts run but compiles no WebAssembly.
        const policy = '<meta http-equiv="Content-Security-Policy" content="script-src \'self\' \'unsafe-inline\'">';
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html.replace('<title>', `${policy}<title>`));
        return;
      }
      if (path === '/' || path === '/spa-fallback.wasm' || path.startsWith('/node_modules/.vite/deps/')) {
        // '/spa-fallback.wasm' answers 200 with HTML, as a single-page app's catch-all route does
        // (and Vite 5 to 7's dev server for a .wasm its pre-bundling moved the module away from).
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
        return;
      }
      let file = null;
      try {
        file = path.startsWith('/node_modules/') ? realpathSync(join(modules, path.slice('/node_modules/'.length))) : null;
      } catch {
        file = null;
      }
      if (file === null || !file.startsWith(modules + sep) || !statSync(file).isFile()) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      createReadStream(file).pipe(res);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    site = { origin: `http://127.0.0.1:${server.address().port}`, served, server };
  });
  after(async () => {
    site?.server.closeAllConnections?.();
    await new Promise((resolve) => (site ? site.server.close(resolve) : resolve()));
  });

  // Runs `body` (the source of an async function of (cv, report, wasmUrl)) in a fresh page.
  async function inPage(body, page = '/') {
    const context = await browser.newContext();
    try {
      const tab = await context.newPage();
      await tab.goto(`${site.origin}${page}`, { timeout: 15_000 });
      await tab.waitForFunction(() => document.title === 'ready', null, { timeout: 15_000 });
      site.served.length = 0;
      return await tab.evaluate(`(async (cv, report, wasmUrl) => { ${body} })(window.cv, window.report, ${JSON.stringify(`${site.origin}${wasmPath}`)})`);
    } finally {
      await context.close().catch(() => {});
    }
  }
  const verifies = `return cv.verifyWebhook({ body: new TextEncoder().encode(${JSON.stringify(BODY)}), timestamp: '${TIMESTAMP}',
    signature: '${SIGNATURE}', secrets: '${SECRET}', nowSecs: ${DELIVERY.nowSecs}, maxSkewSecs: 300 }).event.eventId;`;

  for (const [name, call] of [
    ['a URL string', 'await cv.init(wasmUrl);'],
    ['a URL object', 'await cv.init(new URL(wasmUrl));'],
    ['a Response', 'await cv.init(await fetch(wasmUrl));'],
    ['a Promise of a Response', 'await cv.init(fetch(wasmUrl));'],
    ['an ArrayBuffer', 'await cv.init(await (await fetch(wasmUrl)).arrayBuffer());'],
    ['a Uint8Array', 'await cv.init(new Uint8Array(await (await fetch(wasmUrl)).arrayBuffer()));'],
    ['a compiled WebAssembly.Module', 'await cv.init(await WebAssembly.compileStreaming(fetch(wasmUrl)));'],
  ]) {
    test(`init(${name}) loads the module`, async () => {
      assert.equal(await inPage(`${call} ${verifies}`), 'evt_bundler_1');
    });
  }

  test('concurrent init() calls share one load (one request, one promise); later ones change nothing', async () => {
    const outcome = await inPage(`
      const first = cv.init();
      const second = cv.init('/ignored-while-loading.wasm');
      await Promise.all([first, second]);
      await cv.init('/never-fetched.wasm');
      return { same: first === second, eventId: (() => { ${verifies} })() };`);
    assert.deepEqual(outcome, { same: true, eventId: 'evt_bundler_1' });
    assert.deepEqual(site.served.filter((p) => p.endsWith('.wasm')), [wasmPath], 'the .wasm requests');
  });

  test('a call before init() is a CryptoPayError telling to await init()', async () => {
    const outcome = await inPage(`try { ${verifies} } catch (error) { return report(error); }`);
    assert.equal(outcome.isCryptoPayError, true, JSON.stringify(outcome));
    assert.equal(outcome.code, 'invalid_argument');
    assert.match(outcome.message, /await init\(\)/);
  });

  for (const [name, call, expected] of [
    ['a 200 answer that is HTML (a single-page-app fallback)', "await cv.init('/spa-fallback.wasm');",
      /^invalid_argument: http:\/\/127\.0\.0\.1:\d+\/spa-fallback\.wasm is not the WebAssembly module of cryptopay-verify \(content-type text\/html.*\): pass init\(\) the URL where cryptopay_verify_bg\.wasm is served/],
    ['the URL a Vite 5-7 dev server gives after pre-bundling', "await cv.init('/node_modules/.vite/deps/cryptopay_verify_bg.wasm');",
      /\): Vite 5 to 7 pre-bundled the package into node_modules\/\.vite\/deps\/, away from its \.wasm: add optimizeDeps: \{ exclude: \['cryptopay-verify'\] \} to vite\.config$/],
    ['a Response that is not ok', "await cv.init(new Response('gone', { status: 410 }));", /got HTTP 410/],
    ['a value of no accepted kind', 'await cv.init(42);', /^invalid_argument: init\(\) takes a URL .*; it was given number$/],
    ['bytes that are not this module', 'await cv.init(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));', /is a WebAssembly module, but not the one of this version of cryptopay-verify/],
    ['a rejected promise', "await cv.init(Promise.reject(new TypeError('Failed to fetch http://user:pw@x.example/?token=t')));", /promise given to init\(\) rejected \(TypeError/],
  ]) {
    test(`init() given ${name} rejects with a CryptoPayError naming the fix`, async () => {
      const outcome = await inPage(`try { ${call} return { ok: true }; } catch (error) { return report(error); }`);
      assert.equal(outcome.isCryptoPayError, true, JSON.stringify(outcome));
      assert.equal(outcome.code, 'invalid_argument');
      assert.match(outcome.message, expected);
      assert.doesNotMatch(outcome.message, /pw|token/);
    });
  }

  test('a page whose Content-Security-Policy compiles no WebAssembly: the error names \'wasm-unsafe-eval\', by URL and by bytes', async () => {
    for (const call of ['await cv.init(wasmUrl);', 'await cv.init(await (await fetch(wasmUrl)).arrayBuffer());']) {
      const outcome = await inPage(`try { ${call} return { ok: true }; } catch (error) { return report(error); }`, '/csp');
      assert.equal(outcome.isCryptoPayError, true, JSON.stringify(outcome));
      assert.match(outcome.message, /^invalid_argument: init\(\) could not compile .*Content-Security-Policy forbids compiling WebAssembly: add 'wasm-unsafe-eval' to its script-src$/);
    }
  });

  test('a data: URL is named by its scheme, never quoted', async () => {
    const outcome = await inPage("try { await cv.init('data:application/wasm;base64,AGFzbQEAAAA='); return { ok: true }; } catch (error) { return report(error); }");
    assert.equal(outcome.isCryptoPayError, true, JSON.stringify(outcome));
    assert.match(outcome.message, /a data: URL/);
    assert.doesNotMatch(outcome.message, /AGFz|null/);
  });

  // fetch refuses a URL with credentials, whatever the network: the message says so (shown
  // without them, the URL would look fine).
  test('a URL with credentials and a query is named without them, and a failed load can be retried', async () => {
    const outcome = await inPage(`
      const url = new URL('/missing.wasm?token=s3cr3t#frag', location.href);
      url.username = 'cdnlogin'; url.password = 'hunter2';
      let first;
      try { await cv.init(url.href); first = { ok: true }; } catch (error) { first = report(error); }
      await cv.init(wasmUrl);
      return { first, eventId: (() => { ${verifies} })() };`);
    assert.equal(outcome.first.isCryptoPayError, true, JSON.stringify(outcome.first));
    assert.match(outcome.first.message, /^invalid_argument: init\(\) could not fetch http:\/\/127\.0\.0\.1:\d+\/missing\.wasm: its URL holds a user name or password, which fetch refuses/);
    assert.doesNotMatch(outcome.first.message, /cdnlogin|hunter2|s3cr3t|frag/);
    assert.equal(outcome.eventId, 'evt_bundler_1');
  });
});
