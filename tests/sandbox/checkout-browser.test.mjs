// The sandbox's checkout page in headless Chromium (playwright-core, Debian's chromium): its
// buttons are the customer, so a click must change the payment as the API would. Pay the
// rest, pay part, and a payment whose confirmations are held (pay with hold), whose page
// offers to complete them. No page error may occur and no request may leave the sandbox.
//
// Env: CHROMIUM (default /usr/bin/chromium).

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { ROOT, api, createPayment, startSandbox } from './lib.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

describe('the sandbox checkout page in Chromium', { timeout: 120_000 }, () => {
  let sandbox;
  let context;
  let page;
  let profile;
  const problems = [];

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `no ${CHROMIUM}: run make setup-browser`);
    sandbox = await startSandbox({ port: 0, log: false });
    const out = join(ROOT, 'target', 'www');
    mkdirSync(out, { recursive: true });
    profile = mkdtempSync(join(out, 'chromium-checkout-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      timeout: 20_000,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--proxy-server=127.0.0.1:9'],
    });
    context.setDefaultTimeout(10_000);
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${sandbox.baseUrl}/`)) return route.continue();
      problems.push(`outside request: ${url}`);
      return route.abort();
    });
    page = context.pages()[0] ?? await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  });

  after(async () => {
    await context?.close();
    await sandbox?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const status = async (id) => (await api(sandbox, 'GET', `/v1/payments/${id}`)).json;
  // Clicks a button and waits for the page's reload after the sandbox answered.
  const click = async (selector) => {
    await Promise.all([page.waitForEvent('load'), page.click(selector)]);
  };

  test('pay part, then pay the rest: partially_paid, then paid, as the API says', async () => {
    const p = await createPayment(sandbox, '1000');
    await page.goto(`${sandbox.baseUrl}/checkout/${p.payment_id}`);
    assert.equal(await page.textContent('.status'), 'open');
    await click('button[data-amount="500"]');
    assert.deepEqual([(await status(p.payment_id)).status, await page.textContent('.status')], ['partially_paid', 'partially_paid']);
    await click('button[data-amount="500"]'); // the rest is now 500
    assert.deepEqual([(await status(p.payment_id)).status, await page.textContent('.status')], ['paid', 'paid']);
    assert.match(await page.textContent('body'), /takes no payment in its status/);
  });

  test('a double click pays once; a refusal is said in the page; one unit left offers no part', async () => {
    const p = await createPayment(sandbox, '1000');
    await page.goto(`${sandbox.baseUrl}/checkout/${p.payment_id}`);
    await Promise.all([page.waitForEvent('load'), page.dblclick('button[data-amount="500"]')]);
    const view = await status(p.payment_id);
    assert.deepEqual([view.status, view.amount_received_raw], ['partially_paid', '500'], 'paid once');
    // A refused amount: said in the page's status region, the buttons usable again.
    await page.fill('#raw', '0');
    await page.click('#other');
    await page.waitForFunction(() => /^[a-z_]+: /.test(document.getElementById('answer').textContent));
    assert.equal(await page.getAttribute('#answer', 'role'), 'status');
    assert.equal(await page.isDisabled('#other'), false);
    // 999 of 1000 paid: the rest is one unit, and no "Pay part" of the same unit.
    const last = await createPayment(sandbox, '1000');
    await sandbox.pay(last.payment_id, '999');
    await page.goto(`${sandbox.baseUrl}/checkout/${last.payment_id}`);
    assert.deepEqual(await page.locator('button[data-amount]').allTextContents(), ['Pay the rest (0.01)', 'Pay too much (0.02)']);
  });

  test('the hosted entry page opens the checkout of a payment_id pasted into a tab already there', async () => {
    const p = await createPayment(sandbox, '1000');
    await page.goto(`${sandbox.baseUrl}/`);
    await Promise.all([page.waitForURL(`**/checkout/${p.payment_id}`), page.evaluate((id) => { location.hash = `payment_id=${id}`; }, p.payment_id)]);
    assert.equal(await page.textContent('.status'), 'open');
  });

  test('a payment whose confirmations are held: its page offers no payment, and its button completes them', async () => {
    const p = await createPayment(sandbox, '1000');
    await sandbox.pay(p.payment_id, '1000', { hold: true });
    await page.goto(`${sandbox.baseUrl}/checkout/${p.payment_id}`);
    assert.equal(await page.textContent('.status'), 'confirming');
    assert.equal(await page.locator('button[data-amount]').count(), 0);
    await click('#settle');
    const view = await status(p.payment_id);
    assert.deepEqual([view.status, view.status_version, await page.textContent('.status')], ['paid', 3, 'paid']);
    assert.deepEqual(problems, []);
  });
});
