// The sandbox's checkout, for a person: the page GET /checkout/{id} serves to a browser
// (the customer's first activation), with buttons that pay the payment in full, partly or
// too much through POST /sandbox/payments/{id}/pay, and the hosted checkout's entry point
// ({checkout_origin}/#payment_id=<id>), which sends the browser on to that page.

import { randomBytes } from 'node:crypto';
import { fromAmountRaw } from 'cryptopay-verify';

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.3rem}code{font-size:.9em}.amount{font-size:2rem;font-weight:600}.status{display:inline-block;padding:.1rem .6rem;
border-radius:1rem;background:#eef}button{font:inherit;margin:.2rem .4rem .2rem 0;padding:.4rem .9rem;cursor:pointer}
input{font:inherit;width:10rem}.note{color:#666;font-size:.85rem}#answer{white-space:pre-wrap;font-family:monospace;font-size:.85rem}`;

/**
 * A page: `{ html, headers }`, its inline style and script allowed by a nonce of this answer
 * and nothing else (no other script, no form, no plugin), fetches to the sandbox only, framed
 * by the sandbox itself and `frameOrigins` only (a payment's checkout_origin: the merchant's
 * website that embeds it, as Embedded Checkout does), never by another site (a clickjacked Pay).
 */
function page(title, body, script = '', frameOrigins = []) {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(title)}</title><style nonce="${nonce}">${STYLE}</style></head><body>${body}${script === '' ? '' : `
<script nonce="${nonce}">${script}</script>`}</body></html>`;
  const csp = [`default-src 'none'`, `script-src 'nonce-${nonce}'`, `style-src 'nonce-${nonce}'`, `connect-src 'self'`,
    `form-action 'none'`, `base-uri 'none'`, `frame-ancestors ${['\'self\'', ...frameOrigins].join(' ')}`].join('; ');
  return { html, headers: { 'content-security-policy': csp } };
}

/** A decimal for people, from amount_raw and the store's decimals (the raw value if that fails). */
function decimal(amountRaw, decimals) {
  if (amountRaw === '0') return decimals === 0 ? '0' : `0.${'0'.repeat(decimals)}`;
  try {
    return fromAmountRaw(amountRaw, decimals);
  } catch {
    return amountRaw;
  }
}

/**
 * The checkout page of a payment (its customer view), for the store's primary source;
 * `checkoutOrigin`: the payment's checkout_origin, which may frame it.
 */
export function checkoutPage(view, primarySource, checkoutOrigin) {
  const { decimals } = primarySource;
  const unit = view.source_amount.currency ?? view.source_amount.pricing_ref ?? '';
  const raw = BigInt(view.source_amount.amount_raw);
  const received = BigInt(view.amount_received_raw);
  const rest = raw > received ? raw - received : 1n;
  const half = rest / 2n > 0n ? rest / 2n : 1n;
  const payable = view.status === 'open' || view.status === 'partially_paid';
  const id = JSON.stringify(view.payment_id).replace(/</g, '\\u003c');
  // "Pay part" only while a part is less than the rest (one unit left: the rest is the part).
  const part = rest > 1n ? `
<button data-amount="${half}">Pay part (${escape(decimal(String(half), decimals))})</button>` : '';
  const buttons = payable
    ? `<p><button data-amount="${rest}">Pay the rest (${escape(decimal(String(rest), decimals))})</button>${part}
<button data-amount="${rest + rest / 10n + 1n}">Pay too much (${escape(decimal(String(rest + rest / 10n + 1n), decimals))})</button></p>
<p><label>Another amount_raw: <input id="raw" inputmode="numeric" pattern="[1-9][0-9]*"></label> <button id="other">Pay</button></p>`
    : view.status === 'confirming'
      ? '<p>Its funds are confirming: the confirmations are held (a payment made with hold) until they complete. '
        + '<button id="settle">Complete the confirmations</button></p>'
      : '<p>This payment takes no payment in its status.</p>';
  return page(`Checkout ${view.payment_id}`, `<h1>Sandbox checkout</h1>
<p class="amount">${escape(decimal(view.source_amount.amount_raw, decimals))} ${escape(unit)}</p>
<p>Payment <code>${escape(view.payment_id)}</code> <span class="status">${escape(view.status)}</span></p>
<p>Received so far: ${escape(decimal(view.amount_received_raw, decimals))} ${escape(unit)}. Expires at ${escape(view.expires_at)}.</p>
${buttons}
<p id="answer" role="status"></p>
<p class="note">A local sandbox of the payment service: no money moves. Each payment here emits payment.updated events
(confirming, then paid, partially_paid or overpaid), delivered to the configured webhook.</p>`, `
const id = ${id};
const said = document.getElementById('answer');
const buttons = [...document.querySelectorAll('button')];
// One action at a time: a double click or a held key must not pay twice.
async function post(action, body) {
  for (const b of buttons) b.disabled = true;
  said.textContent = 'Sending...';
  try {
    const res = await fetch('/sandbox/payments/' + encodeURIComponent(id) + '/' + action, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answer = await res.json().catch(() => null);
    if (res.ok) return location.reload();
    said.textContent = answer?.error ? answer.error.code + ': ' + answer.error.message : 'The sandbox answered ' + res.status + '.';
  } catch {
    said.textContent = 'The sandbox could not be reached: is it still running?';
  }
  for (const b of buttons) b.disabled = false;
}
const pay = (amount) => post('pay', { amount_raw: amount });
for (const b of document.querySelectorAll('button[data-amount]')) b.onclick = () => pay(b.dataset.amount);
const other = document.getElementById('other');
if (other) other.onclick = () => pay(document.getElementById('raw').value);
const settle = document.getElementById('settle');
if (settle) settle.onclick = () => post('settle', {});`, checkoutOrigin === undefined || checkoutOrigin === null ? [] : [checkoutOrigin]);
}

/** A refusal at checkout (unknown payment, checkout disabled by the merchant). */
export function checkoutRefusal(error) {
  return page('Checkout unavailable', `<h1>Checkout unavailable</h1><p><code>${escape(error.code)}</code>: ${escape(error.message)}</p>`);
}

/**
 * The hosted checkout's address, {checkout_origin}/#payment_id=<id>: the fragment never
 * reaches a server, so this page reads it and opens the payment's checkout.
 */
export function hostedEntryPage(baseUrl) {
  return page('Sandbox', `<h1>cryptopay-verify sandbox</h1>
<p id="where">A local sandbox of the payment service at <code>${escape(baseUrl)}</code>.</p>
<p class="note">API: <code>/v1/*</code> with <code>Authorization: Bearer &lt;key&gt;</code>. Hosted checkout:
<code>${escape(baseUrl)}/#payment_id=&lt;payment_id&gt;</code>. Webhook log: <a href="/sandbox/deliveries">/sandbox/deliveries</a>.</p>`, `
// On load, and when a checkout_url is pasted into a tab already here (only its fragment changes).
const open = () => {
  const id = new URLSearchParams(location.hash.slice(1)).get('payment_id');
  if (id) location.replace('/checkout/' + encodeURIComponent(id));
};
open();
addEventListener('hashchange', open);`);
}
