// Driver: the package in headless Chromium, loaded natively (no bundler).
// Usage: node tests/runtimes/browser.mjs CONSUMER_DIR SCRATCH_DIR
//
// A tiny node:http server on 127.0.0.1 serves the consumer's node_modules and a page whose
// import map sends 'cryptopay-verify' to the entry the package's exports give the browser
// condition. The page awaits init() (which fetches the .wasm next to the entry) and runs
// the smoke. Chromium is Debian's (make setup-browser), driven by playwright-core.
// Env CHROMIUM overrides /usr/bin/chromium.

import { createReadStream, existsSync, mkdtempSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, sep } from 'node:path';
import { chromium } from 'playwright-core';
import { report } from './lib.mjs';

const [consumer, scratch] = process.argv.slice(2);
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const modulesDir = realpathSync(join(consumer, 'node_modules'));
const pkgDir = join(modulesDir, 'cryptopay-verify');
const EXPECTED_ENTRY = './dist/browser.mjs';
const WASM_PATH = '/node_modules/cryptopay-verify/dist/cryptopay_verify_bg.wasm';
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};
const results = [];
let version = 'chromium';

// The target an exports map gives a browser: the first of browser/import/default that matches.
function resolveExport(target, conditions) {
  if (typeof target === 'string') return target;
  if (target === null || typeof target !== 'object') return undefined;
  for (const [key, value] of Object.entries(target)) {
    if (!conditions.includes(key)) continue;
    const found = resolveExport(value, conditions);
    if (found !== undefined) return found;
  }
  return undefined;
}

function page(entryUrl) {
  return `<!doctype html>
<meta charset="utf-8">
<title>cryptopay-verify smoke</title>
<script type="importmap">${JSON.stringify({ imports: { 'cryptopay-verify': entryUrl } })}</script>
<script type="module">
try {
  const cv = await import('cryptopay-verify');
  const { smoke } = await import('/smoke.mjs');
  window.__smokeResults = await smoke(cv);
} catch (error) {
  window.__smokeResults = [{ name: 'page load', pass: false, detail: String(error && (error.stack || error)) }];
}
</script>
`;
}

function serve(html) {
  const served = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    let file = null;
    if (path === '/') {
      res.writeHead(200, { 'content-type': TYPES['.html'], 'cache-control': 'no-store' });
      res.end(html);
      served.push({ path, status: 200 });
      return;
    }
    if (path === '/favicon.ico') {
      res.writeHead(204);
      res.end();
      return;
    }
    if (path === '/smoke.mjs') file = join(scratch, 'smoke.mjs');
    else if (path.startsWith('/node_modules/')) file = join(modulesDir, path.slice('/node_modules/'.length));
    let real = null;
    try {
      real = file && realpathSync(file);
    } catch {
      // missing
    }
    const allowed = real && (real === realpathSync(join(scratch, 'smoke.mjs')) || real.startsWith(modulesDir + sep));
    if (req.method !== 'GET' || !allowed || !statSync(real).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      served.push({ path, status: 404 });
      return;
    }
    const type = TYPES[extname(real)] ?? 'application/octet-stream';
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
    createReadStream(real).pipe(res);
    served.push({ path, status: 200, type });
  });
  return { server, served };
}

async function main() {
  if (!existsSync(executablePath)) throw new Error(`no ${executablePath}: run make setup-browser`);
  const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const entry = resolveExport(manifest.exports?.['.'], ['browser', 'import', 'default']);
  results.push({
    name: 'exports give the browser dist/browser.mjs',
    pass: entry === EXPECTED_ENTRY,
    detail: String(entry),
  });
  if (typeof entry !== 'string') throw new Error('the exports map has no browser entry');

  const { server, served } = serve(page(`/node_modules/cryptopay-verify/${entry.replace(/^\.\//, '')}`));
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;
  const problems = [];
  let context = null;
  try {
    context = await chromium.launchPersistentContext(mkdtempSync(join(scratch, 'chromium-profile-')), {
      executablePath,
      headless: true,
      timeout: 20_000,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
        // Anything not on loopback goes to a closed local port instead of the network.
        '--proxy-server=127.0.0.1:9'],
    });
    version = `Chromium ${context.browser()?.version() ?? ''}`.trim();
    // The page may only reach our server.
    await context.route('**/*', (route) => (route.request().url().startsWith(`${origin}/`)
      ? route.continue()
      : (problems.push(`blocked ${route.request().url()}`), route.abort())));
    const tab = context.pages()[0] ?? await context.newPage();
    tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    tab.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
    await tab.goto(`${origin}/`, { timeout: 10_000 });
    await tab.waitForFunction(() => window.__smokeResults !== undefined, null, { timeout: 15_000 });
    const pageResults = await tab.evaluate(() => window.__smokeResults);
    if (version === 'Chromium') version = await tab.evaluate(() => navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? 'Chromium');
    results.push(...pageResults);
  } catch (error) {
    results.push({ name: 'browser run', pass: false, detail: String(error && error.message) });
  } finally {
    await context?.close().catch(() => {});
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
  }

  const wasm = served.find((s) => s.path === WASM_PATH);
  results.push({
    name: 'init() fetched the .wasm next to the entry (application/wasm)',
    pass: wasm?.status === 200 && wasm.type === 'application/wasm',
    detail: wasm ? `${wasm.status} ${wasm.type ?? ''}` : `not requested (${served.map((s) => `${s.status} ${s.path}`).join(', ')})`,
  });
  const missing = served.filter((s) => s.status !== 200);
  const trouble = [...problems, ...missing.map((s) => `${s.status} ${s.path}`)];
  results.push({
    name: 'no page errors, failed or outside requests',
    pass: trouble.length === 0,
    detail: trouble.length ? trouble.join('; ') : `${served.length} requests, all 200`,
  });
}

try {
  await main();
} catch (error) {
  results.push({ name: 'browser run', pass: false, detail: String(error && error.message) });
}
report({ version, results });
process.exit(0);
