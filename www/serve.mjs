// Serves the playground on 127.0.0.1: this folder's page files at /, and the INSTALLED
// package's files at /node_modules/cryptopay-verify/ (where the page's import map points).
//
// Usage: node www/serve.mjs            (make www)
// Env:   CONSUMER_DIR  the folder the packed package is installed in (default target/consumer)
//        PORT          default 8765; 0 picks a free port.   HOST  default 127.0.0.1
//
// Also imported by tests/www: startPlayground({ consumerDir, port }).

import { createReadStream, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const PAGE_FILES = new Set(['index.html', 'style.css', 'boot.mjs', 'app.mjs', 'favicon.svg']);
const PACKAGE_PREFIX = '/node_modules/cryptopay-verify/';
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8',
  '.cts': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};

/** The installed package's folder in consumerDir, or an Error saying how to get it. */
export function installedPackage(consumerDir) {
  const dir = join(consumerDir, 'node_modules', 'cryptopay-verify');
  if (!existsSync(join(dir, 'package.json'))) {
    throw new Error(`cryptopay-verify is not installed in ${consumerDir}: run make consumer (after make pkg), or set CONSUMER_DIR to a folder whose node_modules/ holds it`);
  }
  return realpathSync(dir);
}

// The page's own policy (its CSP meta tag), sent as a header too, with what only a header can say.
function contentSecurityPolicy() {
  const html = readFileSync(join(here, 'index.html'), 'utf8');
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
  // A weaker header beside the page's own policy would be enforced with it, and block what the
  // meta tag allows (the import map, the WebAssembly compile): refused at start instead.
  if (!meta) throw new Error('www/index.html has no Content-Security-Policy meta tag in the form serve.mjs reads');
  return `${meta[1]}; frame-ancestors 'none'`;
}

/**
 * Starts the server. Resolves { url, server, requests, close() }; with `record`, `requests`
 * lists every request served ({ method, path, search, status }: `search` the raw query
 * string, '' when none), for the tests (`make www` keeps none: the list would only grow).
 */
export async function startPlayground({ consumerDir, host = '127.0.0.1', port = 0, record = false } = {}) {
  const pkgDir = installedPackage(consumerDir);
  const csp = contentSecurityPolicy();
  const requests = [];
  const server = createServer((req, res) => {
    let path;
    let search = '';
    try {
      const url = new URL(req.url, 'http://playground.invalid');
      search = url.search;
      path = decodeURIComponent(url.pathname);
    } catch {
      path = null;
    }
    let file = null;
    if (path === '/') file = join(here, 'index.html');
    else if (path && PAGE_FILES.has(path.slice(1))) file = existsSync(join(here, path.slice(1))) ? join(here, path.slice(1)) : null;
    else if (path?.startsWith(PACKAGE_PREFIX)) {
      const candidate = join(pkgDir, path.slice(PACKAGE_PREFIX.length));
      try {
        const real = realpathSync(candidate);
        if (real.startsWith(pkgDir + sep) && statSync(real).isFile()) file = real;
      } catch {
        // missing
      }
    }
    const methodOk = req.method === 'GET' || req.method === 'HEAD';
    const status = !methodOk ? 405 : file ? 200 : 404;
    if (record) requests.push({ method: req.method, path: path ?? req.url, search, status });
    const common = {
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
    };
    if (status !== 200) {
      res.writeHead(status, { ...common, 'content-type': 'text/plain; charset=utf-8', ...(status === 405 ? { allow: 'GET, HEAD' } : {}) });
      res.end(status === 405 ? 'method not allowed\n' : 'not found\n');
      return;
    }
    const headers = { ...common, 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' };
    if (extname(file) === '.html') headers['content-security-policy'] = csp;
    res.writeHead(200, headers);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    // A file that cannot be read after all (removed, unreadable) ends this answer, never the
    // server: an 'error' with no listener would be thrown.
    createReadStream(file).on('error', () => res.destroy()).pipe(res);
  });
  await new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolvePromise);
  });
  const address = server.address();
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/`,
    server,
    requests,
    close() {
      server.closeAllConnections?.();
      return new Promise((resolvePromise) => server.close(resolvePromise));
    },
  };
}

async function main() {
  const consumerDir = resolve(root, process.env.CONSUMER_DIR ?? join('target', 'consumer'));
  const port = Number(process.env.PORT ?? 8765);
  const host = process.env.HOST ?? '127.0.0.1';
  let playground;
  try {
    playground = await startPlayground({ consumerDir, host, port });
  } catch (error) {
    const busy = error.code === 'EADDRINUSE' ? ` (port ${port} is taken: PORT=0 picks a free one)` : '';
    console.error(`www: ${error.message}${busy}`);
    process.exit(1);
  }
  console.log(`www: the playground is at ${playground.url}`);
  console.log(`www: serving ${here} and ${installedPackage(consumerDir)}; Ctrl-C stops`);
  const stop = () => playground.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

// Run as a script (by a path that may go through a symbolic link), not imported.
const argv1 = process.argv[1] ? pathToFileURL(existsSync(process.argv[1]) ? realpathSync(process.argv[1]) : process.argv[1]).href : '';
if (import.meta.url === argv1) main();
