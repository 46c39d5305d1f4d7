// The merchant's side of each payment: recordCreated keeps what was sent at creation (the
// payment_id, the order_ref, the exact source_amount, the integration) in the orders table,
// the other half of the link the fulfilment pass checks against the authoritative view.

import { isValidAmountRaw } from 'cryptopay-verify';
import { MAX_ID_BYTES } from './limits.mjs';
import { checkKeys, describeError, invalid, isPlainObject, stuckFix, transientHint } from './stores/common.mjs';

const SOURCE_KEYS = ['kind', 'currency', 'pricing_ref', 'amount_raw'];
const encoder = new TextEncoder();

/** Refuses a store without the merchant loop's methods, naming the stores that hold them. */
export function needs(store, methods, what) {
  const missing = methods.filter((m) => typeof store[m] !== 'function');
  if (missing.length > 0) {
    throw invalid(`${what} needs a store that holds the merchant loop's tables (postgresStore, sqliteStore, d1Store, `
      + `libsqlStore, memoryStore); this store has no ${missing.join(', ')}`);
  }
}

/**
 * The source_amount of a creation as the JSON text stored with its order, its keys in one
 * order: what was sent, checked as a SourceAmount (strictly: an unknown key is refused).
 */
function sourceAmountText(value) {
  if (!isPlainObject(value)) throw invalid('created.source_amount must be the SourceAmount object sent at creation');
  if (Object.keys(value).some((key) => !SOURCE_KEYS.includes(key))) {
    throw invalid('created.source_amount has a key a SourceAmount does not (kind, currency, pricing_ref, amount_raw)');
  }
  const { kind, currency, pricing_ref: pricingRef, amount_raw: amountRaw } = value;
  if (!isValidAmountRaw(amountRaw)) throw invalid('created.source_amount.amount_raw is not a valid amount_raw');
  if (kind === 'fiat' && typeof currency === 'string' && currency !== '' && pricingRef === undefined) {
    return JSON.stringify({ kind, currency, amount_raw: amountRaw });
  }
  if (kind === 'crypto' && typeof pricingRef === 'string' && pricingRef !== '' && currency === undefined) {
    return JSON.stringify({ kind, pricing_ref: pricingRef, amount_raw: amountRaw });
  }
  throw invalid('created.source_amount is { kind: "fiat", currency, amount_raw } or { kind: "crypto", pricing_ref, amount_raw }');
}

const sameSourceAmount = (storedText, text) => {
  try {
    return sourceAmountText(JSON.parse(storedText)) === text;
  } catch {
    return false;
  }
};

function checkIntegration(names, integration) {
  if (names.length === 0) {
    if (integration !== undefined && integration !== null) {
      throw invalid('recordCreated was given an integration, but this receiver has one set of secrets (no names): leave it out, '
        + 'or name the integrations in secrets ({ <integration>: secrets })');
    }
    return null;
  }
  if (typeof integration !== 'string' || !names.includes(integration)) {
    throw invalid(`recordCreated needs the integration the payment was created under, one of the receiver's: ${names.map((n) => `"${n}"`).join(', ')}`);
  }
  return integration;
}

/**
 * A confirm that failed because the service does not know the payment (404), with what that
 * means for the account confirm was called through: the order's integration (recorded wrong,
 * the usual cause), the event's, or the one API key of a receiver without names. Any other
 * failure as it is.
 */
export function notFoundHint(failure, integration, byOrder) {
  // The service's own answer only: a 404 without its ErrorResponse (a baseUrl missing a path, a
  // proxy's page) is the client's http_404, whose message names that fix.
  if (failure?.code !== 'payment_not_found') return failure;
  const through = integration === null
    ? 'confirm\'s API key does not see this payment: it must be the key of the account that created it (not another account\'s, nor a test key against live)'
    : byOrder
      ? `confirm was called with integration "${integration}", the order's: if another integration's API key created the payment, `
        + 'the order was recorded under the wrong one; mend the integration column of its row in the orders table'
      : `confirm was called with integration "${integration}", whose secret verified the event: confirm must use that integration's API key; `
        + 'if it does, the payment was recorded under the wrong integration (two integrations\' secrets swapped in secrets when its first '
        + 'event came): set the integration column of its rows in the payments and events tables to the account that created it';
  return new Error(`${describeError(failure)}; ${through}`);
}

/**
 * recordCreated for a receiver's store: `integrations` lists the names of a receiver with
 * several (null for one); `ready()` prepares the store.
 */
export function orderBook({ store, ready, integrations }) {
  const names = integrations.filter((name) => name !== null);

  async function recordCreated(created, options) {
    needs(store, ['recordOrder'], 'recordCreated');
    if (!isPlainObject(created)) throw invalid('recordCreated takes the created payment { payment_id, order_ref?, source_amount }');
    const paymentId = created.payment_id;
    if (typeof paymentId !== 'string' || paymentId === '' || paymentId.includes('\u0000') || encoder.encode(paymentId).byteLength > MAX_ID_BYTES) {
      throw invalid(`created.payment_id must be a non-empty string of at most ${MAX_ID_BYTES} UTF-8 bytes, without U+0000`);
    }
    const orderRef = created.order_ref ?? null;
    if (orderRef !== null && typeof orderRef !== 'string') throw invalid('created.order_ref must be a string when present');
    const sourceAmount = sourceAmountText(created.source_amount);
    let integration = null;
    if (options !== undefined) {
      checkKeys(options, ['integration'], 'recordCreated');
      integration = options.integration;
    }
    integration = checkIntegration(names, integration);
    await ready();
    let stored;
    try {
      ({ stored } = await store.recordOrder({ paymentId, orderRef, sourceAmount, integration }));
    } catch (failure) {
      // A store state no retry gets past (a grant missing, a read-only database): the fix
      // named, where a caller would otherwise retry for as long as it lasts.
      const fix = stuckFix(failure);
      if (fix !== null) {
        throw Object.assign(new Error(`recordCreated: the store refused the order (${describeError(failure)}), and every retry `
          + `will fail the same way until: ${fix}`, { cause: failure }), { code: failure?.code });
      }
      // One a retry may get past (a lock held, a timeout): where to look meanwhile.
      const look = transientHint(failure);
      if (look === null) throw failure;
      throw Object.assign(new Error(`recordCreated: the store did not record the order in time (${describeError(failure)}): ${look}`,
        { cause: failure }), { code: failure?.code });
    }
    if (stored !== null && stored !== undefined) {
      const differs = [
        (stored.orderRef ?? null) !== orderRef && 'order_ref',
        !sameSourceAmount(stored.sourceAmount, sourceAmount) && 'source_amount',
        (stored.integration ?? null) !== integration && 'integration',
      ].filter(Boolean);
      if (differs.length > 0) {
        throw invalid(`recordCreated: the payment ${paymentId} is recorded already, with another ${differs.join(' and ')}: `
          + 'the stored order is kept (a payment_id is the service\'s, one per creation); hold it for review');
      }
    }
    return { paymentId, orderRef, sourceAmount: JSON.parse(sourceAmount), integration };
  }

  /** Throws what recordCreated would for `integration`, before the payment is created. */
  const checkRecordable = (integration) => {
    checkIntegration(names, integration);
  };

  return { recordCreated, checkRecordable };
}
