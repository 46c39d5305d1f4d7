// The playground's logic: four forms over the package's browser entry. Nothing is sent or
// stored: no fetch but the package's own .wasm (init), no storage, no cookies.

import {
  CryptoPayError,
  buildSourceAmount,
  fromAmountRaw,
  hostedCheckoutUrl,
  init,
  parseEvent,
  signWebhook,
  toAmountRaw,
  validateSourceAmount,
  verifyWebhook,
} from 'cryptopay-verify';

const $ = (id) => document.getElementById(id);
const nowSecs = () => Math.floor(Date.now() / 1000);

// Codes reported after the signature verified: the delivery is authentic, its event is not usable.
const EVENT_CODES = new Set(['event_not_json', 'event_malformed', 'event_duplicate_key', 'event_type_unknown', 'status_version_invalid']);

/** Builds an element: h('p', { class: 'x' }, 'text', child, ...). */
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children.filter((c) => c !== null && c !== undefined));
  return element;
}
const code = (text) => h('code', {}, text);

/**
 * Replaces a result region's content, and announces its paragraphs (the verdict and the hints)
 * through the region's live announcer: not its facts, nor the parsed event, which a screen
 * reader user reads in the region itself.
 */
function show(region, kind, ...children) {
  region.dataset.state = kind;
  region.replaceChildren(...children);
  const said = children.filter((child) => child?.tagName === 'P').map((child) => child.textContent.trim());
  $(region.id.replace(/-result$/, '-announce')).textContent = said.join(' ');
}

/** A package error as the page shows it: the stable code, then the message as the hint. */
function showError(region, error, lead = 'Rejected', found = null) {
  if (!(error instanceof CryptoPayError)) throw error;
  const hint = error.message.startsWith(`${error.code}: `) ? error.message.slice(error.code.length + 2) : error.message;
  show(region, 'error',
    h('p', { class: 'verdict' }, h('strong', {}, `${lead}: `), h('code', { class: 'error-code' }, error.code)),
    ...(found === null ? [] : [h('p', { class: 'error-found' }, found)]),
    h('p', { class: 'error-hint' }, hint));
}

/** A problem found by the page itself (not JSON, a missing field), before calling the package. */
function showInputProblem(region, what, detail) {
  show(region, 'error', h('p', { class: 'verdict' }, h('strong', {}, `${what}`)), h('p', { class: 'error-hint' }, detail));
}

function definitionList(rows) {
  return h('dl', { class: 'facts' }, ...rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));
}

/** Digits as a number (what the package then checks); empty stays empty. */
function integerField(input) {
  const text = input.value.trim();
  return text === '' ? undefined : (/^\d+$/.test(text) ? Number(text) : Number.NaN);
}

function parseJson(text, what, region) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    showInputProblem(region, `The ${what} is not JSON`, String(error.message));
    return null;
  }
  if (repeatsKey(text)) {
    showInputProblem(region, `The ${what} repeats a JSON key`,
      'Parsers read a repeated key differently (JSON.parse keeps the last, another the first, the service refuses ' +
      'the body): write each key once.');
    return null;
  }
  return { value };
}

/**
 * Whether JSON text repeats a key in one of its objects, read by the package's strict scanner
 * (JSON.parse keeps the last value without a word). parseEvent scans the whole text for
 * repeated keys before it looks for an event's fields, which any other JSON lacks.
 */
function repeatsKey(text) {
  try {
    parseEvent(text);
    return false;
  } catch (error) {
    return error instanceof CryptoPayError && error.code === 'event_duplicate_key';
  }
}

// 1. Verify a delivery ---------------------------------------------------------------------

function secretsFromForm() {
  const active = $('v-secret').value;
  const pending = $('v-pending').value;
  const retiring = $('v-retiring').value;
  if (!pending && !retiring) return active;
  const secrets = [{ secret: active, kind: 'active' }];
  if (pending) secrets.push({ secret: pending, kind: 'pending' });
  if (retiring) secrets.push({ secret: retiring, kind: 'retiring', acceptUntilSecs: integerField($('v-retiring-until')) });
  return secrets;
}

/**
 * The rotation's summary says which of its secrets are in use: they count whether its details
 * are open or not, and a closed one would hide a secret typed there earlier.
 */
function rotationInUse() {
  const used = [['v-pending', 'pending'], ['v-retiring', 'retiring']].filter(([id]) => $(id).value !== '').map(([, name]) => name);
  $('v-rotation-in-use').textContent = used.length === 0 ? '' : ` (in use: ${used.join(' and ')})`;
}

/**
 * The form's own fields, before the package is asked: one left empty or not a whole number is
 * named by its label, not shown as a rejected delivery in the API's words.
 */
function formProblem() {
  const skew = integerField($('v-skew'));
  if (skew === undefined) return 'Max skew (seconds) is empty: give a whole number of seconds, such as 300.';
  if (Number.isNaN(skew)) return 'Max skew (seconds) is not a whole number of seconds.';
  if (!Number.isSafeInteger(skew)) return tooLarge('Max skew (seconds)');
  const now = integerField($('v-now'));
  if (Number.isNaN(now)) return 'Now (Unix seconds) is not a whole number: leave it empty for this device\'s clock.';
  if (now !== undefined && !Number.isSafeInteger(now)) return tooLarge('Now (Unix seconds)');
  if ($('v-retiring').value !== '') {
    const until = integerField($('v-retiring-until'));
    if (until === undefined) return 'Retiring secret accepted until is empty: give the end of the overlap, in Unix seconds.';
    if (Number.isNaN(until)) return 'Retiring secret accepted until is not a whole number of Unix seconds.';
    if (!Number.isSafeInteger(until)) return tooLarge('Retiring secret accepted until');
  }
  return null;
}

/** A whole number past what the package takes (2^53 - 1, as every time and skew it reads). */
const tooLarge = (label) => `${label} is too large: at most ${Number.MAX_SAFE_INTEGER} (seconds).`;

function verify() {
  const region = $('verify-result');
  const problem = formProblem();
  if (problem !== null) {
    showInputProblem(region, 'Not verified: a field of the form', problem);
    return;
  }
  const now = integerField($('v-now')) ?? nowSecs();
  const call = {
    body: $('v-body').value,
    timestamp: $('v-timestamp').value,
    signature: $('v-signature').value,
    secrets: secretsFromForm(),
    nowSecs: now,
    maxSkewSecs: integerField($('v-skew')) ?? Number.NaN,
  };
  try {
    const { event, matchedSecret, timestamp } = verifyWebhook(call);
    show(region, 'ok',
      h('p', { class: 'verdict' }, h('strong', {}, 'Verified.'), ' Signed with the ', h('strong', { class: 'matched' }, matchedSecret),
        ' secret, at ', new Date(timestamp * 1000).toISOString(), ` (${age(now - timestamp)}).`),
      definitionList([
        ['Matched secret', h('span', { 'data-field': 'matchedSecret' }, matchedSecret)],
        ['event_id', code(event.eventId)],
        ['event_type', code(event.eventType)],
        ['payment_id', code(event.paymentId)],
        ['status_version', code(event.statusVersion)],
        ['occurred_at', code(String(event.occurredAt))],
      ]),
      h('details', { open: '' }, h('summary', {}, 'Parsed event'), h('pre', { tabindex: '0' }, JSON.stringify(event, null, 2))),
      h('p', { class: 'hint' }, 'A verified event is facts to record, never a payment receipt: fulfil from GET /v1/payments/{payment_id}.'));
  } catch (error) {
    const found = error?.code === 'signature_mismatch' ? copiedBody(call) : SKEW_CODES.has(error?.code) ? skewed(call) : null;
    showError(region, error, EVENT_CODES.has(error?.code) ? 'Authentic, but the event is not usable' : 'Rejected', found);
  }
}

const SKEW_CODES = new Set(['timestamp_too_old', 'timestamp_in_future']);

// What a body copied from a log or a file picks up, or loses, on the way here.
const COPIES = [
  { applies: (body) => body.endsWith('\n'), other: (body) => body.replace(/\n$/, ''), said: 'without the newline this body ends with' },
  { applies: (body) => !body.endsWith('\n'), other: (body) => `${body}\n`, said: 'with a newline at its end, which this body lacks' },
  { applies: (body) => body.startsWith('\uFEFF'), other: (body) => body.slice(1), said: 'without the byte order mark this body starts with' },
];

/**
 * For a signature_mismatch: whether the signature matches the body as it most likely was before
 * it was copied here (a final newline added or lost, a byte order mark added), said as the
 * finding it is; null when none does (then the secret or the body's content differ).
 */
function copiedBody(call) {
  for (const { applies, other, said } of COPIES) {
    if (!applies(call.body)) continue;
    try {
      verifyWebhook({ ...call, body: other(call.body) });
    } catch (error) {
      if (error?.code === 'signature_mismatch') continue;
    }
    return `The signature matches this body ${said}: the secret is right, and the body here is not the bytes `
      + 'the receiver got. Copy the raw body again (a text editor, echo or a log viewer adds or drops a final newline).';
  }
  return null;
}

/** For an authentic delivery outside the skew: how far, and the field that sets "now". */
function skewed(call) {
  const gap = call.nowSecs - Number(call.timestamp);
  const when = gap > 0 ? `${gap} s before` : `${-gap} s after`;
  return `The signature matches; it was signed ${when} ${$('v-now').value.trim() === '' ? 'this device\'s clock' : 'the Now given'}, `
    + `over the max skew of ${call.maxSkewSecs} s. To check a delivery captured earlier, set Now (Unix seconds) to when it was received.`;
}

function age(seconds) {
  if (seconds === 0) return 'now';
  return seconds > 0 ? `${seconds} s before now` : `${-seconds} s after now`;
}

const EXAMPLE_SECRET = 'whsec_playground_test_only';

function fillVerifyExample() {
  const timestamp = String(nowSecs());
  const body = `${JSON.stringify({
    schema_version: '1',
    event_id: 'evt_playground_1',
    event_type: 'payment.updated',
    occurred_at: new Date(Number(timestamp) * 1000).toISOString(),
    data: { payment_id: 'pay_playground_1', status_version: 7, status: 'open' },
  }, null, 2)}\n`;
  $('v-timestamp').value = timestamp;
  $('v-body').value = body;
  $('v-secret').value = EXAMPLE_SECRET;
  $('v-signature').value = signWebhook({ secret: EXAMPLE_SECRET, timestamp, body });
  // The example is the active secret alone, checked now with the default skew.
  for (const id of ['v-pending', 'v-retiring', 'v-retiring-until', 'v-now']) if ($(id)) $(id).value = '';
  rotationInUse();
  $('v-skew').value = '300';
  show($('verify-result'), 'info', h('p', {}, 'A delivery signed now with the test secret ', code(EXAMPLE_SECRET),
    '. Verify it, then change one character of the body or the secret.'));
}

// 2. Amounts ---------------------------------------------------------------------------------

function convert(direction) {
  const region = $('amounts-result');
  const decimals = integerField($('a-decimals')) ?? Number.NaN;
  try {
    if (direction === 'to-raw') {
      // As typed: the library refuses white space around an amount, and so does the page.
      const raw = toAmountRaw($('a-decimal').value, decimals);
      $('a-raw').value = raw;
      show(region, 'ok', h('p', { class: 'verdict' }, code($('a-decimal').value), ' at ', String(decimals),
        ' decimals is amount_raw ', h('strong', { class: 'value' }, raw), '.'));
    } else {
      const decimal = fromAmountRaw($('a-raw').value, decimals);
      $('a-decimal').value = decimal;
      show(region, 'ok', h('p', { class: 'verdict' }, 'amount_raw ', code($('a-raw').value), ' at ', String(decimals),
        ' decimals is ', h('strong', { class: 'value' }, decimal), '.'));
    }
  } catch (error) {
    // The other field is cleared, so that it never stands beside the error as the answer.
    $(direction === 'to-raw' ? 'a-raw' : 'a-decimal').value = '';
    showError(region, error, 'Not converted');
  }
}

// 3. SourceAmount ----------------------------------------------------------------------------

// The store response's primary_source, whatever it holds (the library judges it), or
// undefined once a problem with the pasted text was shown.
function storeSource(region) {
  const store = parseJson($('s-store').value, 'store response', region);
  if (!store) return undefined;
  const source = store.value?.primary_source;
  if (source === undefined) {
    showInputProblem(region, 'No primary_source in the store response',
      'Paste the whole JSON body of GET /v1/store: it has a primary_source object with kind, ref and decimals.');
  }
  return source;
}

function checkSource(action) {
  const region = $('source-result');
  const primarySource = storeSource(region);
  if (primarySource === undefined) return;
  if (action === 'build') {
    try {
      const sourceAmount = buildSourceAmount({ primarySource, amount: $('s-decimal').value });
      $('s-amount').value = JSON.stringify(sourceAmount, null, 2);
    } catch (error) {
      // Nothing was compared: the amount could not be built. An earlier SourceAmount is
      // cleared, so that it never stands beside the error as the answer.
      $('s-amount').value = '';
      showError(region, error, 'Not built');
      return;
    }
  }
  try {
    const parsed = parseJson($('s-amount').value, 'SourceAmount', region);
    if (!parsed) return;
    validateSourceAmount(parsed.value, primarySource);
    const { kind, amount_raw: raw } = parsed.value;
    const unit = kind === 'fiat' ? parsed.value.currency : parsed.value.pricing_ref;
    show(region, 'ok',
      h('p', { class: 'verdict' }, h('strong', {}, action === 'build' ? 'Built, and it matches' : 'It matches'),
        ' the store\'s primary source (', code(`${primarySource.kind} ${primarySource.ref}`), ', ', String(primarySource.decimals), ' decimals).'),
      definitionList([
        ['kind', code(kind)],
        [kind === 'fiat' ? 'currency' : 'pricing_ref', code(unit)],
        ['amount_raw', code(raw)],
        ['amount', h('strong', { class: 'value' }, `${fromAmountRaw(raw, primarySource.decimals)} ${unit}`)],
      ]));
  } catch (error) {
    showError(region, error, 'Does not match');
  }
}

function fillSourceExample() {
  $('s-store').value = JSON.stringify({ primary_source: { kind: 'fiat', ref: 'EUR', decimals: 2 } }, null, 2);
  $('s-amount').value = JSON.stringify({ kind: 'fiat', currency: 'EUR', amount_raw: '12800' }, null, 2);
  $('s-decimal').value = '128.00';
  show($('source-result'), 'info', h('p', {}, 'An example store priced in EUR. Check it, or try kind crypto, a pricing_ref that is a token address, or a different currency.'));
}

// 4. Checkout URL ----------------------------------------------------------------------------

function checkoutUrl() {
  const region = $('checkout-result');
  try {
    const url = hostedCheckoutUrl($('c-origin').value, $('c-payment').value);
    show(region, 'ok',
      h('p', { class: 'verdict' }, h('strong', {}, 'Hosted checkout URL:')),
      h('p', {}, h('code', { class: 'url', 'data-field': 'url' }, url)),
      h('p', { class: 'hint' }, 'Open it for the customer (a link or a redirect). It starts checkout; it is not a payment receipt.'));
  } catch (error) {
    showError(region, error, 'No URL');
  }
}

// Wiring -------------------------------------------------------------------------------------

function onSubmit(formId, handler) {
  $(formId).addEventListener('submit', (event) => {
    event.preventDefault(); // never a navigation: nothing typed here may end up in a URL
    handler(event.submitter);
  });
}

function wire() {
  onSubmit('verify-form', verify);
  onSubmit('amounts-form', (submitter) => convert(submitter?.value === 'to-decimal' ? 'to-decimal' : 'to-raw'));
  // Enter in the amount_raw field converts from it (the form's default button converts to it).
  $('a-raw').addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.isComposing) return;
    event.preventDefault();
    if (!$('amounts-form').querySelector('button[type=submit]').disabled) convert('to-decimal');
  });
  onSubmit('source-form', (submitter) => checkSource(submitter?.value === 'build' ? 'build' : 'check'));
  onSubmit('checkout-form', checkoutUrl);
  $('v-example').addEventListener('click', fillVerifyExample);
  for (const id of ['v-pending', 'v-retiring']) $(id).addEventListener('input', rotationInUse);
  $('s-example').addEventListener('click', fillSourceExample);
  $('v-now-button').addEventListener('click', () => { $('v-now').value = String(nowSecs()); });
  for (const button of document.querySelectorAll('[data-reveal]')) {
    button.addEventListener('click', () => {
      const input = $(button.dataset.reveal);
      const reveal = input.type === 'password';
      input.type = reveal ? 'text' : 'password';
      // Its name says what it does next (no aria-pressed beside it: "Hide, pressed" reads as a
      // contradiction).
      button.textContent = reveal ? 'Hide' : 'Show';
      button.setAttribute('aria-label', `${reveal ? 'Hide' : 'Show'} ${button.dataset.revealName}`);
    });
  }
}

async function start() {
  const status = $('status');
  wire();
  try {
    await init(); // fetches the .wasm next to the package's files
  } catch (error) {
    status.dataset.state = 'error';
    // The package's message speaks to a bundler's user; this page loads the .wasm by its URL.
    status.textContent = `The verifier could not be loaded: ${error.message} (this page: serve `
      + 'node_modules/cryptopay-verify/dist/ beside it)';
    return;
  }
  for (const button of document.querySelectorAll('button[disabled]')) button.disabled = false;
  status.dataset.state = 'ready';
  status.textContent = 'Ready: the verifier runs in this page.';
  document.documentElement.dataset.ready = 'true';
}

start();
