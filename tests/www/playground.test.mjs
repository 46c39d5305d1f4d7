// The playground (www/) in headless Chromium, driven by playwright-core: the page loads the
// INSTALLED package's browser entry through its import map, and each of its four forms shows
// what it should, errors included. No request may leave loopback, no page error may occur and
// nothing may be stored. Screenshots (desktop and phone) go to target/www/.
//
// Env: CONSUMER_DIR (default target/consumer, `make consumer`), CHROMIUM (default /usr/bin/chromium).

import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { installedPackage, startPlayground } from '../../www/serve.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CONSUMER_DIR = resolve(ROOT, process.env.CONSUMER_DIR ?? join('target', 'consumer'));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const OUT = join(ROOT, 'target', 'www');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

// The target an exports map gives a browser: the first of browser/import/default that matches.
function browserEntry(target) {
  if (typeof target === 'string') return target;
  if (target === null || typeof target !== 'object') return undefined;
  for (const [key, value] of Object.entries(target)) {
    if (!['browser', 'import', 'default'].includes(key)) continue;
    const found = browserEntry(value);
    if (found !== undefined) return found;
  }
  return undefined;
}

const hmacHex = (secret, timestamp, body) => createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
const nowSecs = () => Math.floor(Date.now() / 1000);

describe('the playground page (www/) in Chromium', { timeout: 120_000 }, () => {
  let playground;
  let context;
  let page;
  let origin;
  let profile;
  const requests = []; // every request the browser made, as URLs
  const problems = []; // page errors, console errors, requests that were not ours

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `no ${CHROMIUM}: run make setup-browser`);
    installedPackage(CONSUMER_DIR); // throws with the fix when the package is not installed
    playground = await startPlayground({ consumerDir: CONSUMER_DIR, record: true });
    origin = new URL(playground.url).origin;
    mkdirSync(OUT, { recursive: true });
    profile = mkdtempSync(join(OUT, 'chromium-profile-')); // a fresh user-data-dir
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      timeout: 20_000,
      viewport: DESKTOP,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
        '--proxy-server=127.0.0.1:9'], // anything not on loopback meets a closed port
    });
    context.setDefaultTimeout(10_000);
    context.on('request', (request) => requests.push(request.url()));
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`)) return route.continue();
      problems.push(`outside request: ${url}`);
      return route.abort();
    });
    page = context.pages()[0] ?? await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
    await page.goto(playground.url);
    await page.waitForSelector('html[data-ready="true"]');
  });

  after(async () => {
    await context?.close().catch(() => {});
    await playground?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const resultText = (id) => page.locator(`#${id}`).innerText();

  test('loads the installed package\'s browser entry through the import map, and init() fetches the .wasm', async () => {
    const html = readFileSync(join(ROOT, 'www', 'index.html'), 'utf8');
    const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html)[1];
    const manifest = JSON.parse(readFileSync(join(installedPackage(CONSUMER_DIR), 'package.json'), 'utf8'));
    const entry = browserEntry(manifest.exports['.']);
    assert.equal(JSON.parse(importMap).imports['cryptopay-verify'], `./node_modules/cryptopay-verify/${entry.replace(/^\.\//, '')}`);
    // The page's CSP lets exactly that inline import map run.
    const hash = createHash('sha256').update(importMap).digest('base64');
    assert.ok(html.includes(`'sha256-${hash}'`), 'the CSP meta tag carries the import map\'s hash');
    const served = playground.requests.filter((r) => r.status === 200).map((r) => r.path);
    assert.ok(served.includes(`/node_modules/cryptopay-verify/${entry.replace(/^\.\//, '')}`), served.join(', '));
    assert.ok(served.includes('/node_modules/cryptopay-verify/dist/cryptopay_verify_bg.wasm'), served.join(', '));
    assert.match(await page.locator('#status').innerText(), /^Ready/);
    assert.equal(await page.locator('button:disabled').count(), 0, 'every button is enabled once ready');
  });

  test('verify: the signed example verifies and shows the matched secret and the parsed event', async () => {
    await page.click('#v-example');
    await page.click('#verify-form button[type=submit]');
    const region = page.locator('#verify-result');
    assert.equal(await region.getAttribute('data-state'), 'ok');
    const text = await region.innerText();
    assert.match(text, /^Verified\./);
    assert.equal(await region.locator('[data-field=matchedSecret]').innerText(), 'active');
    assert.match(text, /evt_playground_1/);
    assert.match(text, /pay_playground_1/);
    const event = JSON.parse(await region.locator('pre').innerText());
    assert.equal(event.statusVersion, '7');
    assert.equal(event.eventType, 'payment.updated');
    // Announced: the verdict and the hint, not the facts nor the parsed event read aloud.
    const announced = await page.locator('#verify-announce').textContent();
    assert.match(announced, /^Verified\. Signed with the active secret, at \S+ \((now|\d+ s before now)\)\. A verified event is facts to record/);
    assert.doesNotMatch(announced, /evt_playground_1|pay_playground_1|"eventId"/);
    assert.equal(await region.getAttribute('aria-live'), null, 'the region itself is not live');
  });

  test('verify: one changed byte of the body is signature_mismatch, with its hint', async () => {
    const body = await page.inputValue('#v-body');
    await page.fill('#v-body', body.replace('"open"', '"paid"'));
    await page.click('#verify-form button[type=submit]');
    const region = page.locator('#verify-result');
    assert.equal(await region.getAttribute('data-state'), 'error');
    assert.equal(await region.locator('.error-code').innerText(), 'signature_mismatch');
    assert.match(await region.locator('.error-hint').innerText(), /raw request bytes/);
    // Another body: nothing found to say beyond the hint.
    assert.equal(await region.locator('.error-found').count(), 0);
    await page.fill('#v-body', body);
  });

  test('verify: a body that gained or lost its final newline on the way here is named, the secret said to be right', async () => {
    await page.click('#v-example');
    const body = await page.inputValue('#v-body');
    assert.ok(body.endsWith('\n'), 'the example is signed with a final newline');
    const region = page.locator('#verify-result');
    for (const [pasted, says] of [
      [body.slice(0, -1), /^The signature matches this body with a newline at its end, which this body lacks: the secret is right/],
      [`${body}\n`, /^The signature matches this body without the newline this body ends with: the secret is right/],
      [`\uFEFF${body}`, /^The signature matches this body without the byte order mark this body starts with/],
    ]) {
      await page.fill('#v-body', pasted);
      await page.click('#verify-form button[type=submit]');
      assert.equal(await region.locator('.error-code').innerText(), 'signature_mismatch');
      assert.match(await region.locator('.error-found').innerText(), says);
      assert.match(await page.locator('#verify-announce').textContent(), /Rejected: signature_mismatch ?The signature matches this body/);
    }
    // With another secret, the same bodies say nothing more: the secret may be what is wrong.
    const secret = await page.inputValue('#v-secret');
    await page.fill('#v-secret', 'whsec_some_other_secret');
    await page.fill('#v-body', body.slice(0, -1));
    await page.click('#verify-form button[type=submit]');
    assert.equal(await region.locator('.error-found').count(), 0);
    await page.fill('#v-secret', secret);
    await page.fill('#v-body', body);
  });

  test('verify: a pending secret during a rotation is reported as the one that matched', async () => {
    const timestamp = String(nowSecs());
    const body = '{"schema_version":"1","event_id":"evt_rot","event_type":"payment.updated","occurred_at":1795341601,"data":{"payment_id":"pay_rot","status_version":"18446744073709551617"}}';
    await page.fill('#v-timestamp', timestamp);
    await page.fill('#v-body', body);
    await page.fill('#v-signature', `v1=${hmacHex('whsec_new_test', timestamp, body)}`);
    await page.fill('#v-secret', 'whsec_old_test');
    await page.click('#verify details summary');
    await page.fill('#v-pending', 'whsec_new_test');
    await page.click('#verify details summary');
    // Closed, its summary says a secret there is in use.
    assert.equal(await page.locator('#verify details summary').innerText(), 'During a rotation: pending and retiring secrets (in use: pending)');
    await page.click('#verify-form button[type=submit]');
    const region = page.locator('#verify-result');
    assert.equal(await region.locator('[data-field=matchedSecret]').innerText(), 'pending');
    assert.equal(JSON.parse(await region.locator('pre').innerText()).statusVersion, '18446744073709551617');
  });

  test('verify: each secret, the pending and retiring ones too, has a button that shows it and hides it again', async () => {
    await page.click('#verify details summary');
    for (const [id, name] of [['v-secret', 'the active secret'], ['v-pending', 'the pending secret'], ['v-retiring', 'the retiring secret']]) {
      const input = page.locator(`#${id}`);
      const button = page.locator(`button[data-reveal="${id}"]`);
      assert.equal(await input.getAttribute('type'), 'password', id);
      assert.equal(await button.getAttribute('aria-label'), `Show ${name}`);
      await button.click();
      assert.deepEqual([await input.getAttribute('type'), await button.innerText(), await button.getAttribute('aria-label')], ['text', 'Hide', `Hide ${name}`]);
      await button.click();
      assert.equal(await input.getAttribute('type'), 'password', id);
    }
    await page.click('#verify details summary');
  });

  test('verify: "now" an hour after the timestamp is timestamp_too_old', async () => {
    const timestamp = Number(await page.inputValue('#v-timestamp'));
    await page.fill('#v-now', String(timestamp + 3600));
    await page.click('#verify-form button[type=submit]');
    assert.equal(await page.locator('#verify-result .error-code').innerText(), 'timestamp_too_old');
    // How far, and the field that sets "now" for a delivery captured earlier.
    assert.match(await page.locator('#verify-result .error-found').innerText(),
      /^The signature matches; it was signed 3600 s before the Now given, over the max skew of 300 s\. To check a delivery captured earlier, set Now/);
    // A field of the form is named by its label, not answered as a rejected delivery.
    for (const [field, value, says] of [
      ['#v-now', '1e3', /^Now \(Unix seconds\) is not a whole number/],
      ['#v-skew', '', /^Max skew \(seconds\) is empty/],
      // Digits past 2^53 - 1, which the package would refuse as a wrong argument to its call.
      ['#v-skew', '99999999999999999999', /^Max skew \(seconds\) is too large: at most 9007199254740991/],
      ['#v-now', '9007199254740993', /^Now \(Unix seconds\) is too large/],
    ]) {
      const before = await page.inputValue(field);
      await page.fill(field, value);
      await page.click('#verify-form button[type=submit]');
      assert.match(await page.locator('#verify-result .verdict').innerText(), /^Not verified: a field of the form$/);
      assert.match(await page.locator('#verify-result .error-hint').innerText(), says);
      await page.fill(field, before);
    }
    await page.fill('#v-now', '');
    await page.click('#verify details summary'); // closed by the test before
    await page.fill('#v-pending', '');
    assert.equal(await page.locator('#v-rotation-in-use').textContent(), '');
  });

  test('amounts: decimal to amount_raw and back, exactly', async () => {
    await page.fill('#a-decimals', '2');
    await page.fill('#a-decimal', '128.00');
    await page.click('#amounts-form button[value=to-raw]');
    assert.equal(await page.inputValue('#a-raw'), '12800');
    assert.match(await resultText('amounts-result'), /amount_raw 12800/);
    await page.fill('#a-decimals', '18');
    await page.fill('#a-raw', '123456789012345678901234567890');
    await page.click('#amounts-form button[value=to-decimal]');
    assert.equal(await page.inputValue('#a-decimal'), '123456789012.345678901234567890');
  });

  test('amounts: too many decimals is amount_too_precise (never rounded)', async () => {
    await page.fill('#a-decimals', '2');
    await page.fill('#a-decimal', '1.005');
    await page.click('#amounts-form button[value=to-raw]');
    assert.equal(await page.locator('#amounts-result').getAttribute('data-state'), 'error');
    assert.equal(await page.locator('#amounts-result .error-code').innerText(), 'amount_too_precise');
    assert.match(await page.locator('#amounts-result .error-hint').innerText(), /never rounded/);
    assert.equal(await page.inputValue('#a-raw'), '', 'no earlier amount_raw left beside the error');
  });

  test('source: a SourceAmount matching primary_source, and one built from a decimal', async () => {
    await page.click('#s-example');
    await page.click('#source-form button[value=check]');
    assert.equal(await page.locator('#source-result').getAttribute('data-state'), 'ok');
    assert.match(await resultText('source-result'), /128\.00 EUR/);
    await page.fill('#s-store', JSON.stringify({ primary_source: { kind: 'crypto', ref: 'usdc', decimals: 6 }, website: 'https://shop.example' }));
    await page.fill('#s-decimal', '12.5');
    await page.press('#s-decimal', 'Enter'); // Enter in that field builds
    assert.deepEqual(JSON.parse(await page.inputValue('#s-amount')), { kind: 'crypto', pricing_ref: 'usdc', amount_raw: '12500000' });
    assert.match(await resultText('source-result'), /Built, and it matches/);
    // An amount that cannot be built: said so (nothing was compared), the earlier one cleared.
    await page.fill('#s-decimal', '12.0000001');
    await page.click('#source-form button[value=build]');
    assert.match(await page.locator('#source-result .verdict').innerText(), /^Not built: amount_too_precise$/);
    assert.equal(await page.inputValue('#s-amount'), '', 'no earlier SourceAmount left beside the error');
  });

  test('source: a token address as pricing_ref is pricing_ref_is_address; broken JSON is named', async () => {
    await page.fill('#s-amount', JSON.stringify({ kind: 'crypto', pricing_ref: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', amount_raw: '1' }));
    await page.click('#source-form button[value=check]');
    assert.equal(await page.locator('#source-result .error-code').innerText(), 'pricing_ref_is_address');
    await page.fill('#s-store', '{ "primary_source": ');
    await page.click('#source-form button[value=check]');
    assert.match(await resultText('source-result'), /store response is not JSON/);
    // A repeated key: JSON.parse keeps the last (1), which would match; the page refuses it.
    await page.click('#s-example');
    await page.fill('#s-amount', '{ "kind": "fiat", "currency": "EUR", "amount_raw": "12800", "amount_raw": "1" }');
    await page.click('#source-form button[value=check]');
    assert.equal(await page.locator('#source-result').getAttribute('data-state'), 'error');
    assert.match(await resultText('source-result'), /The SourceAmount repeats a JSON key/);
    await page.fill('#s-store', '{ "primary_source": { "kind": "fiat", "ref": "EUR", "decimals": 2, "decimals": 0 } }');
    await page.click('#source-form button[value=check]');
    assert.match(await resultText('source-result'), /The store response repeats a JSON key/);
  });

  test('the page agrees with the library: a primary_source of null is refused (no earlier verdict left standing), white space around an amount too', async () => {
    await page.click('#s-example');
    await page.click('#source-form button[value=check]');
    assert.match(await resultText('source-result'), /It matches/);
    await page.fill('#s-store', JSON.stringify({ primary_source: null }));
    await page.click('#source-form button[value=check]');
    assert.equal(await page.locator('#source-result').getAttribute('data-state'), 'error');
    assert.equal(await page.locator('#source-result .error-code').innerText(), 'store_source_invalid');
    await page.fill('#a-decimals', '2');
    await page.fill('#a-decimal', ' 128.00 ');
    await page.click('#amounts-form button[value=to-raw]');
    assert.equal(await page.locator('#amounts-result .error-code').innerText(), 'amount_decimal_invalid');
  });

  test('checkout: the hosted checkout URL carries the encoded payment id in its fragment', async () => {
    await page.fill('#c-origin', 'https://checkout.example.com');
    await page.fill('#c-payment', 'pay_123 /#?');
    await page.click('#checkout-form button[type=submit]');
    assert.equal(await page.locator('#checkout-result [data-field=url]').innerText(),
      'https://checkout.example.com/#payment_id=pay_123%20%2F%23%3F');
  });

  test('checkout: an http origin is origin_not_https', async () => {
    await page.fill('#c-origin', 'http://checkout.example.com');
    await page.press('#c-payment', 'Enter'); // submits from the keyboard
    assert.equal(await page.locator('#checkout-result .error-code').innerText(), 'origin_not_https');
    // Taken as typed, as the library takes it (a url box would trim the space away and agree).
    await page.fill('#c-origin', ' https://checkout.example.com');
    await page.press('#c-payment', 'Enter');
    assert.equal(await page.locator('#checkout-result .error-code').innerText(), 'origin_invalid');
  });

  // The page's status line when the URLs matching `pattern` answer 404, in a page of its own.
  async function statusWhenMissing(pattern) {
    const other = await context.newPage();
    try {
      await other.route(pattern, (route) => route.fulfill({ status: 404, body: 'not found' }));
      await other.goto(playground.url);
      await other.waitForFunction(() => document.getElementById('status').dataset.state === 'error');
      return await other.locator('#status').innerText();
    } finally {
      await other.close();
    }
  }

  test('a package that cannot be loaded is said on the page, not "Loading" for ever', async () => {
    assert.match(await statusWhenMissing('**/node_modules/cryptopay-verify/**'),
      /^The verifier could not be loaded \(.+\): serve node_modules\/cryptopay-verify\/ beside this page/);
  });

  test('a .wasm that cannot be fetched is said with this page\'s fix, not a bundler\'s', async () => {
    assert.match(await statusWhenMissing('**/*.wasm'),
      /^The verifier could not be loaded: .+ \(this page: serve node_modules\/cryptopay-verify\/dist\/ beside it\)$/);
  });

  test('accessible markup: labelled controls, legends, live results, a visible keyboard focus', async () => {
    const report = await page.evaluate(() => ({
      lang: document.documentElement.lang,
      unlabelled: [...document.querySelectorAll('input, textarea, select')]
        .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.id),
      fieldsetsWithoutLegend: [...document.querySelectorAll('fieldset')].filter((f) => !f.querySelector(':scope > legend')).length,
      forms: document.querySelectorAll('form').length,
      // Each result region's announcer: a polite live region beside it.
      liveRegions: [...document.querySelectorAll('.result')]
        .filter((r) => document.getElementById(r.id.replace(/-result$/, '-announce'))?.getAttribute('aria-live') === 'polite').length,
      buttonsWithoutName: [...document.querySelectorAll('button')].filter((b) => !b.textContent.trim()).length,
      h1: document.querySelectorAll('h1').length,
    }));
    assert.deepEqual(report, { lang: 'en', unlabelled: [], fieldsetsWithoutLegend: 0, forms: 4, liveRegions: 4, buttonsWithoutName: 0, h1: 1 });
    // From the top of the page, Tab reaches the skip link, then the tools, each with an outline.
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    const seen = [];
    for (let i = 0; i < 8; i += 1) {
      await page.keyboard.press('Tab');
      seen.push(await page.evaluate(() => {
        const el = document.activeElement;
        const style = getComputedStyle(el);
        return { id: el.id || el.textContent.trim().slice(0, 30), outline: style.outlineStyle, width: parseFloat(style.outlineWidth) };
      }));
    }
    assert.equal(seen[0].id, 'Skip to the tools');
    assert.ok(seen.some((s) => s.id === 'v-timestamp'), JSON.stringify(seen));
    for (const s of seen) assert.ok(s.outline !== 'none' && s.width >= 2, `no visible focus on ${s.id}: ${JSON.stringify(s)}`);
  });

  test('screenshots: desktop and phone, no horizontal scrolling on a phone', async () => {
    // A representative state: a verified delivery, a conversion, an error, a URL.
    await page.click('#v-example');
    await page.click('#verify-form button[type=submit]');
    await page.fill('#a-decimal', '128.00');
    await page.click('#amounts-form button[value=to-raw]');
    await page.click('#s-example');
    await page.fill('#s-amount', JSON.stringify({ kind: 'fiat', currency: 'USD', amount_raw: '12800' }, null, 2));
    await page.click('#source-form button[value=check]');
    await page.fill('#c-origin', 'https://checkout.example.com');
    await page.fill('#c-payment', 'pay_123');
    await page.click('#checkout-form button[type=submit]');
    await page.evaluate(() => document.activeElement?.blur());
    await page.screenshot({ path: join(OUT, 'playground-desktop.png'), fullPage: true });
    await page.setViewportSize(PHONE);
    const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, viewport: window.innerWidth }));
    assert.ok(widths.scroll <= widths.viewport, `wider than the phone: ${JSON.stringify(widths)}`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(OUT, 'playground-phone.png'), fullPage: true });
    await page.screenshot({ path: join(OUT, 'playground-phone-top.png') });
    await page.setViewportSize(DESKTOP);
    for (const name of ['playground-desktop.png', 'playground-phone.png', 'playground-phone-top.png']) {
      assert.ok(existsSync(join(OUT, name)), name);
    }
  });

  test('privacy: no request left loopback, nothing stored, no page errors', async () => {
    const outside = requests.filter((url) => !url.startsWith(`${origin}/`));
    assert.deepEqual(outside, [], 'requests not to the playground server');
    assert.deepEqual(playground.requests.filter((r) => r.method !== 'GET' || r.search !== ''), [],
      'only plain GETs of files: no form was ever submitted');
    assert.ok(!requests.some((url) => url.includes('whsec_')), 'no secret in a URL');
    const stored = await page.evaluate(async () => ({
      localStorage: localStorage.length,
      sessionStorage: sessionStorage.length,
      cookie: document.cookie,
      indexedDB: (await indexedDB.databases()).length,
      caches: 'caches' in window ? (await caches.keys()).length : 0,
    }));
    assert.deepEqual(stored, { localStorage: 0, sessionStorage: 0, cookie: '', indexedDB: 0, caches: 0 });
    assert.deepEqual(problems, []);
  });
});
