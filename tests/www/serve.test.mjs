// The playground's server (www/serve.mjs) on a copy of www/ with a page file missing, and one
// whose page lost its CSP meta tag: a 404 and a server still answering; a refusal at start.

import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CONSUMER_DIR = resolve(ROOT, process.env.CONSUMER_DIR ?? join('target', 'consumer'));

function copyOfWww() {
  const dir = mkdtempSync(join(tmpdir(), 'cpv-www-'));
  cpSync(join(ROOT, 'www'), dir, { recursive: true });
  return dir;
}

test('a page file missing: 404, and the server goes on answering', async () => {
  const dir = copyOfWww();
  rmSync(join(dir, 'favicon.svg'));
  const { startPlayground } = await import(pathToFileURL(join(dir, 'serve.mjs')).href);
  const playground = await startPlayground({ consumerDir: CONSUMER_DIR, record: true });
  try {
    assert.equal((await fetch(`${playground.url}favicon.svg`)).status, 404);
    const page = await fetch(playground.url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy'), /script-src 'self' 'wasm-unsafe-eval'.*; frame-ancestors 'none'$/);
    // A query string is recorded as sent (what the page test looks for: a form submitted).
    assert.equal((await fetch(`${playground.url}?signature=abc`)).status, 200);
    assert.deepEqual(playground.requests.map((r) => [r.path, r.search, r.status]),
      [['/favicon.svg', '', 404], ['/', '', 200], ['/', '?signature=abc', 200]]);
  } finally {
    await playground.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a page without its CSP meta tag is refused at start, not served under a weaker header', async () => {
  const dir = copyOfWww();
  const html = join(dir, 'index.html');
  writeFileSync(html, readFileSync(html, 'utf8').replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, ''));
  try {
    const { startPlayground } = await import(pathToFileURL(join(dir, 'serve.mjs')).href);
    await assert.rejects(startPlayground({ consumerDir: CONSUMER_DIR }), /www\/index\.html has no Content-Security-Policy meta tag/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
