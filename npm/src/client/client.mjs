// createClient: the payment service's API for a merchant server, on fetch (Node 18+, Bun, Deno,
// Workers). It sits on the package's public API as a user's code would (buildSourceAmount,
// validateCreatePayment, parsePaymentView, ...) and adds only I/O. The API key goes in the
// Authorization header and nowhere else: never in a URL, an error or a message (a service that
// echoes it back has it masked).

import {
  CryptoPayError, buildSourceAmount, parsePaymentView, validateCreatePayment, validateIdempotencyKey, validateWebhookUrl,
} from 'cryptopay-verify';

import { isLocalHost, localWebhookUrlProbe, nearMiss, unknownOption } from '../api/hints.mjs';
import {
  SOURCE_KEYS, apiKeyOf, baseUrlOf, inOrder, integerOption, invalid, isJson, isOrigin, newKey,
} from './inputs.mjs';
import { checkRecord, recordCreated } from './record.mjs';
import { CryptoPayApiError, isPlainObject, transport } from './transport.mjs';

export { CryptoPayApiError };

const OPTIONS = ['baseUrl', 'apiKey', 'fetch', 'timeoutMs', 'retries', 'integration'];
const CREATE_KEYS = ['order_ref', 'amount', 'currency', 'pricing_ref', 'source_amount', 'checkout_origin'];
const CREATE_OPTIONS = ['idempotencyKey', 'record'];
// How long GET /v1/store is kept: a pricing source changed in the dashboard is read again
// within this time, and at once when a creation is refused for it.
const STORE_TTL_MS = 5 * 60 * 1000;
// What the store's configuration decides: a creation refused with one of these reads the
// store again.
const STORE_CODES = new Set(['store_source_invalid', 'source_kind_mismatch', 'source_currency_missing', 'source_currency_mismatch',
  'source_pricing_ref_missing', 'source_pricing_ref_mismatch', 'amount_too_precise', 'origin_not_permitted']);

/**
 * The amount priced in the store's source; a decimal more precise than the source allows is
 * said with the decimals it allows (the core's message cannot know them), the code kept.
 */
function priced(primarySource, amount) {
  try {
    return buildSourceAmount({ primarySource, amount });
  } catch (error) {
    if (!(error instanceof CryptoPayError) || error.code !== 'amount_too_precise') throw error;
    const { kind, ref, decimals } = primarySource;
    throw new CryptoPayError(error.code, `amount_too_precise: ${String(amount).slice(0, 40)} has more fractional digits than the `
      + `store's primary source, ${kind} ${String(ref).slice(0, 40)}, allows (${decimals}): round it in your own pricing first, `
      + 'it is never rounded here; nothing was sent');
  }
}

// What to do when a webhook's signing secret (given once) was not saved.
const ROTATE = 'rotate the secret in the dashboard (Integrations > Webhooks > the webhook > Rotate Secret), save the new one, '
  + 'then activate it, before using the endpoint';

/** Creates a client of the payment service's API. See client.d.ts. */
export function createClient(options) {
  if (typeof globalThis.document !== 'undefined') {
    throw invalid('createClient refuses to run where `document` exists (a browser): an API key must never be in browser code; call the service from your server');
  }
  if (!isPlainObject(options)) throw invalid('createClient takes { baseUrl, apiKey, fetch?, timeoutMs?, retries? }');
  for (const key of Object.keys(options)) {
    // Never echoed: an unknown key could be a pasted secret.
    if (!OPTIONS.includes(key)) throw invalid(unknownOption(key, OPTIONS, 'createClient'));
  }
  const { base, loopback } = baseUrlOf(options.baseUrl);
  const apiKey = apiKeyOf(options.apiKey);
  const fetchFn = options.fetch ?? globalThis.fetch;
  if (typeof fetchFn !== 'function') throw invalid('fetch is a function (the global fetch is the default; this runtime has none)');
  const timeoutMs = integerOption(options.timeoutMs, 'timeoutMs', 10_000, 1, 600_000);
  const retries = integerOption(options.retries, 'retries', 3, 0, 10);
  const integration = options.integration ?? null;
  if (integration !== null && (typeof integration !== 'string' || integration === '')) {
    throw invalid('integration is the name this client\'s account has in the receiver\'s secrets');
  }

  const { request, masked } = transport({ base, apiKey, fetchFn, timeoutMs, retries });

  // An answer's JSON (null for none). `extra` (the creation's idempotencyKey) goes with the
  // error, and `retryable` says whether sending the same request again is safe and may help.
  // `viewFailure`: what parsePaymentView threw for this text, when the caller tried it first.
  function json(text, what, extra = {}, retryable = false, viewFailure = undefined) {
    if (text.trim() === '') return null;
    let answer;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new CryptoPayApiError({ status: 200, code: 'invalid_response', retryable, message: `invalid_response: ${what} is not JSON`, ...extra });
    }
    // JSON.parse takes the last of a repeated key silently (a secret, an amount): the core's
    // strict reader, which parsePaymentView runs first on any text, refuses it.
    if (strictlyRefused(text, viewFailure)) {
      throw new CryptoPayApiError({
        status: 200, code: 'invalid_response', retryable,
        message: `invalid_response: ${what} repeats a key (or nests over 127 levels, or holds a lone surrogate escape): which value the service meant is unknown`,
        ...extra,
      });
    }
    return answer;
  }

  // Whether the core's strict JSON reader refuses `text` (JSON that JSON.parse took), from
  // what parsePaymentView threw for it (`viewFailure`, else asked now): the core's detail for
  // text its strict reader refuses (src/fulfilment/view.rs; tests/loop/client.test.mjs).
  function strictlyRefused(text, viewFailure) {
    let failure = viewFailure;
    if (failure === undefined) {
      try {
        parsePaymentView(text);
        return false;
      } catch (thrown) {
        failure = thrown;
      }
    }
    return failure?.code === 'invalid_argument' && /the payment view: it is not JSON, or repeats a key/.test(failure.message);
  }

  // An id as one path segment: a non-empty string, not . or .. (a URL parser drops or climbs
  // them), with no lone surrogate (encodeURIComponent throws a URIError on one).
  const segment = (id, message) => {
    if (typeof id !== 'string' || id === '' || id === '.' || id === '..' || /\p{Cs}/u.test(id)) throw invalid(message);
    return encodeURIComponent(id);
  };
  const idPath = (id, what) => segment(id, `${what} takes a payment_id, a non-empty string (not . or .., no lone surrogate)`);

  let store = null;
  let storeRead = 0;
  async function getStore() {
    // A GET is safe to send again: an answer that is not JSON (a proxy's page) may pass.
    const text = await request('GET', '/v1/store');
    let view;
    try {
      view = json(text, 'GET /v1/store');
    } catch (failure) {
      // Read again only on this path: the text parsed as JSON once when it is JSON.
      if (!isJson(text)) failure.retryable = true;
      throw failure;
    }
    if (!isPlainObject(view) || !isPlainObject(view.primary_source)) {
      throw new CryptoPayApiError({ status: 200, code: 'invalid_response', retryable: text.trim() === '', message: 'invalid_response: GET /v1/store has no primary_source' });
    }
    // The client prices from its own copy: a change the caller makes to the view it is given
    // (decimals set for display, say) must never reach the amount of a later createPayment.
    store = structuredClone(view);
    storeRead = Date.now();
    return view;
  }

  async function createPayment(given, opts) {
    if (!isPlainObject(given)) throw invalid('createPayment takes { order_ref?, amount, currency? } or { order_ref?, source_amount }');
    // Each field read once: a getter may answer otherwise the second time.
    const input = { ...given };
    for (const key of Object.keys(input)) {
      if (CREATE_KEYS.includes(key)) continue;
      // The options in the fields (one object where the call takes two) would create a payment
      // under a new key at every retry, and record nothing.
      const option = CREATE_OPTIONS.find((name) => nearMiss(key, name));
      if (option !== undefined) {
        throw invalid(`createPayment's ${option} is an option, not a field: give it in the second argument, createPayment({ order_ref, amount }, { ${option} })`);
      }
      throw invalid(unknownOption(key, CREATE_KEYS, 'createPayment', 'field'));
    }
    if ((input.amount === undefined) === (input.source_amount === undefined)) {
      throw invalid('createPayment takes either amount (a decimal string such as "128.00", priced from the store\'s primary source) or source_amount, not both');
    }
    // What `amount` is in, when named: the store's primary source must be it (a source changed
    // in the dashboard would otherwise price '128.00' dollars as 128 yen).
    let pin = null;
    for (const [member, kind] of [['currency', 'fiat'], ['pricing_ref', 'crypto']]) {
      if (input[member] === undefined) continue;
      if (input.amount === undefined || pin !== null) throw invalid('currency (fiat) or pricing_ref (crypto) names what amount is in: one of them, with amount');
      if (typeof input[member] !== 'string' || input[member] === '') throw invalid(`${member} is a non-empty string, as the store's primary source names it`);
      pin = { member, kind, value: input[member] };
    }
    let idempotencyKey;
    let record;
    if (opts !== undefined) {
      if (!isPlainObject(opts)) throw invalid('createPayment\'s options are { idempotencyKey?, record? }');
      for (const key of Object.keys(opts)) {
        if (CREATE_OPTIONS.includes(key)) continue;
        const field = CREATE_KEYS.find((name) => nearMiss(key, name));
        if (field !== undefined) throw invalid(`createPayment's ${field} is a field of the payment: give it in the first argument, createPayment({ ${field}, ... }, options)`);
        throw invalid(unknownOption(key, CREATE_OPTIONS, 'createPayment\'s options'));
      }
      ({ idempotencyKey, record } = opts);
    }
    if (idempotencyKey !== undefined) validateIdempotencyKey(idempotencyKey);
    checkRecord(record, integration);
    // The body, priced and checked against the store's configuration: the kept one, read
    // again when older than STORE_TTL_MS or when it refuses the creation (changed since).
    const prepare = (view) => {
      const primarySource = view.primary_source;
      const sourceAmount = input.amount !== undefined
        ? priced(primarySource, input.amount)
        : inOrder(input.source_amount);
      if (pin !== null && (sourceAmount.kind !== pin.kind || sourceAmount[pin.member] !== pin.value)) {
        const code = sourceAmount.kind !== pin.kind ? 'source_kind_mismatch' : `source_${pin.member}_mismatch`;
        const storeRef = String(sourceAmount[sourceAmount.kind === 'fiat' ? 'currency' : 'pricing_ref']).slice(0, 40);
        // 'usd' for USD: the same source, written in another case (compared exactly, as the
        // service compares it).
        if (sourceAmount.kind === pin.kind && storeRef.toLowerCase() === pin.value.toLowerCase()) {
          throw new CryptoPayError(code, `${code}: ${pin.member} is compared exactly, letter case included: write it as the store's `
            + `primary source names it, ${storeRef}; nothing was sent`);
        }
        throw new CryptoPayError(code, `${code}: the store's primary pricing source is ${sourceAmount.kind} ${storeRef}, not the ${pin.value.slice(0, 40)} `
          + 'this amount is in (changed in the dashboard?): nothing was sent; price the order in the store\'s source, or set the source back');
      }
      const prepared = {};
      if (input.order_ref !== undefined) prepared.order_ref = input.order_ref;
      prepared.source_amount = sourceAmount;
      if (input.checkout_origin !== undefined) prepared.checkout_origin = input.checkout_origin;
      // Written once: what is checked, sent, compared with the answer and recorded is this
      // text (an order_ref with toJSON, a database's ObjectId say, is its JSON string in all).
      let text;
      try {
        text = JSON.stringify(prepared);
      } catch {
        throw invalid('createPayment\'s fields must be JSON values: order_ref and checkout_origin strings, an amount a decimal string (never a BigInt)');
      }
      const body = JSON.parse(text);
      // A field whose JSON is nothing (a toJSON answering undefined) would be left out: the
      // payment created without the order_ref the merchant gave.
      for (const key of ['order_ref', 'checkout_origin']) {
        if (input[key] !== undefined && body[key] === undefined) throw invalid(`createPayment's ${key} writes as no JSON value (its toJSON answered undefined?): give a string`);
      }
      // The store's website origin, when the store gives one that is an origin: one in another
      // form (a bare domain) is left to the service to check, not taken as the caller's error.
      const website = typeof view.website_origin === 'string' && isOrigin(view.website_origin) ? view.website_origin : undefined;
      validateCreatePayment(body, website === undefined ? { primarySource } : { primarySource, websiteOrigin: website });
      return { body, text, sourceAmount: body.source_amount };
    };
    const kept = store !== null && Date.now() - storeRead < STORE_TTL_MS;
    let prepared;
    try {
      try {
        prepared = prepare(kept ? store : await getStore());
      } catch (failure) {
        if (!(kept && failure instanceof CryptoPayError && STORE_CODES.has(failure.code))) throw failure;
        prepared = prepare(await getStore());
      }
    } catch (failure) {
      // The primary source is the service's answer, not the caller's argument.
      if (failure instanceof CryptoPayError && failure.code === 'store_source_invalid') {
        throw new CryptoPayApiError({
          status: 200, code: 'invalid_response', retryable: false,
          message: `invalid_response: GET /v1/store's primary_source cannot price an amount (${failure.message}): nothing was sent; check the store's pricing source in the dashboard`,
        });
      }
      throw failure;
    }
    const { body, text, sourceAmount } = prepared;
    // One key and one body text for this intent: every retry sends the same bytes.
    const key = idempotencyKey ?? newKey();
    const extra = { idempotencyKey: key };
    let answer;
    try {
      answer = await request('POST', '/v1/payments', { body: text, idempotencyKey: key, extra });
    } catch (failure) {
      // The service refused the creation for the store's configuration: read it again next time.
      if (failure instanceof CryptoPayApiError && STORE_CODES.has(failure.code)) store = null;
      // The same key, another body: an order whose amount changed since its first attempt. The
      // payment that attempt created is still open; a second one would let the customer pay twice.
      if (failure instanceof CryptoPayApiError && failure.code === 'idempotency_key_reused') {
        failure.message += '; the key was sent before with another body (the order\'s amount or fields changed?): '
          + 'cancel the payment created under it (cancelPayment) before creating the order\'s payment under a new key, '
          + 'so that the customer cannot pay twice';
      }
      throw failure;
    }
    // A 2xx that cannot be read (a proxy's page, say) may stand for a payment created: the same
    // intent sent again under its key reads it; never under a new key.
    const again = 'send the same intent again with the same idempotencyKey (the service answers the payment it created, if it did)';
    // Read as a payment view when it is one (status_version and large numbers exact), else as JSON.
    answer = viewOrJson(answer, `the creation's answer (${again})`, extra, true);
    if (!isPlainObject(answer) || typeof answer.payment_id !== 'string' || answer.payment_id === '') {
      throw new CryptoPayApiError({ status: 200, code: 'invalid_response', retryable: true, message: `invalid_response: the creation's answer has no payment_id: ${again}`, ...extra });
    }
    // The service's answer, with what was sent where it leaves it out; an answer that says
    // otherwise is refused (a payment for another amount must never be shown or recorded).
    const differs = [
      'order_ref' in answer && answer.order_ref !== body.order_ref && !(body.order_ref === undefined && answer.order_ref === null) && 'order_ref',
      // null, as absent: a service may write it for the member a kind does not use.
      isPlainObject(answer.source_amount) && SOURCE_KEYS.some((k) => (answer.source_amount[k] ?? undefined) !== sourceAmount[k]) && 'source_amount',
    ].filter(Boolean);
    if (differs.length > 0) {
      throw new CryptoPayApiError({
        status: 200,
        code: 'created_payment_mismatch',
        retryable: false,
        message: `created_payment_mismatch: the service created payment ${answer.payment_id} with another ${differs.join(' and ')} than was sent: do not show it; cancel it (cancelPayment) and look into it`,
        paymentId: answer.payment_id,
        ...extra,
      });
    }
    const created = { ...answer, source_amount: sourceAmount };
    if (body.order_ref !== undefined) created.order_ref = body.order_ref;
    if (record !== undefined) await recordCreated({ record, created, integration, extra, masked });
    return created;
  }

  async function getPayment(paymentId) {
    const text = await request('GET', `/v1/payments/${idPath(paymentId, 'getPayment')}`);
    try {
      return parsePaymentView(text);
    } catch (failure) {
      // Text that is not JSON (a proxy's page, an empty answer) may read otherwise on a second
      // GET; a view the core refuses is what the service says.
      throw new CryptoPayApiError({
        status: 200, code: 'invalid_response', retryable: !isJson(text), cause: failure,
        message: `invalid_response: the payment view is not what fulfilment can read (${failure.code})`,
      });
    }
  }

  // An answer that is a payment view when it reads as one, else its JSON (or null for none);
  // json's `extra` and `retryable` for an answer that is neither. Read as JSON, a
  // status_version is a string as in a view, and one a double cannot hold has no exact
  // value: left out, never rounded.
  function viewOrJson(text, what, extra, retryable) {
    try {
      return parsePaymentView(text);
    } catch (failure) {
      const answer = json(text, what, extra, retryable === true, failure);
      if (isPlainObject(answer) && 'status_version' in answer) {
        const version = answer.status_version;
        if (Number.isSafeInteger(version) && version >= 0) answer.status_version = String(version);
        else if (typeof version !== 'string' || !/^(0|[1-9][0-9]*)$/.test(version)) delete answer.status_version;
      }
      return answer;
    }
  }

  async function cancelPayment(paymentId) {
    return viewOrJson(await request('POST', `/v1/payments/${idPath(paymentId, 'cancelPayment')}/cancel`), 'the cancel\'s answer');
  }

  async function disableConsumerAccess(paymentId) {
    return viewOrJson(await request('DELETE', `/v1/payments/${idPath(paymentId, 'disableConsumerAccess')}/consumer-access`), 'the answer');
  }

  async function bootstrapWebhook(url, opts) {
    if (typeof url !== 'string') throw invalid('bootstrapWebhook takes the receiver\'s URL');
    let idempotencyKey;
    if (opts !== undefined) {
      if (!isPlainObject(opts) || Object.keys(opts).some((k) => k !== 'idempotencyKey')) throw invalid('bootstrapWebhook\'s options are { idempotencyKey? }');
      ({ idempotencyKey } = opts);
    }
    // The service delivers only to what validateWebhookUrl accepts; a local sandbox (a
    // loopback base URL) also to a loopback URL or a local development name, http included.
    let local = false;
    try {
      const target = new URL(url);
      local = loopback && ['http:', 'https:'].includes(target.protocol)
        && isLocalHost(target.hostname);
      // Refused as the sandbox refuses them, before the URL (and a password in it) is sent.
      const probe = local ? localWebhookUrlProbe(target, url) : null;
      if (probe !== null) validateWebhookUrl(probe); // the core's webhook_url_credentials, _query or _fragment
    } catch (failure) {
      if (failure instanceof CryptoPayError) throw failure;
      // not a URL: validateWebhookUrl words it
    }
    if (!local) validateWebhookUrl(url);
    if (idempotencyKey !== undefined) validateIdempotencyKey(idempotencyKey);
    const key = idempotencyKey ?? newKey();
    const extra = { idempotencyKey: key };
    // A 2xx that cannot be read may stand for a webhook set up, its secret lost with the answer.
    const lost = 'the webhook may have been set up and its signing secret, given only once, lost with this answer: '
      + `send the same setup again with the same idempotencyKey to read its resource_id; ${ROTATE}`;
    const seen = { retried: false };
    const answer = json(await request('POST', '/v1/webhook-endpoints', { body: JSON.stringify({ url }), idempotencyKey: key, extra, seen }), `the setup's answer (${lost})`, extra);
    if (!isPlainObject(answer) || typeof answer.resource_id !== 'string' || answer.resource_id === '') {
      throw new CryptoPayApiError({ status: 200, code: 'invalid_response', retryable: false, message: `invalid_response: the webhook setup's answer has no resource_id (${lost})`, ...extra });
    }
    if (typeof answer.secret !== 'string' || answer.secret === '') {
      // Sent again after an attempt that failed, this very call may have set it up: its secret
      // went with that attempt's lost answer.
      const when = seen.retried
        ? `was set up, by an earlier call or by this call's first attempt, whose answer (with the signing secret, given only once) was lost. `
          + 'If an earlier call saved it, use it (verifyWebhookBinding checks it). If not'
        : 'was set up before, and the service gives its signing secret only once. If you saved it then, use it (verifyWebhookBinding checks it). If you did not';
      throw new CryptoPayApiError({
        status: 200,
        code: 'webhook_secret_not_returned',
        retryable: false,
        resourceId: answer.resource_id,
        message: `webhook_secret_not_returned: the webhook ${answer.resource_id} ${when}, ${ROTATE}`,
        ...extra,
      });
    }
    return answer;
  }

  async function verifyWebhookBinding(resourceId, secret) {
    const resource = segment(resourceId, 'verifyWebhookBinding takes the webhook\'s resource_id, a non-empty string');
    if (typeof secret !== 'string' || secret === '') throw invalid('verifyWebhookBinding takes the saved signing secret, exactly as saved');
    const text = await request('POST', `/v1/webhook-endpoints/${resource}/verify`, { body: JSON.stringify({ secret }), secrets: [secret] });
    const view = json(text, 'the binding\'s answer');
    if (!isPlainObject(view)) {
      throw new CryptoPayApiError({ status: 200, code: 'invalid_response', retryable: false, message: 'invalid_response: the binding\'s answer is not a JSON object' });
    }
    return view;
  }

  return {
    getStore, createPayment, getPayment, cancelPayment, disableConsumerAccess, bootstrapWebhook, verifyWebhookBinding,
  };
}
