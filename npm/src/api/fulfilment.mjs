// Fulfilment: the authoritative view of a payment (the exact text of GET
// /v1/payments/{payment_id}'s answer) read by the core, linked to the merchant's order, and
// the core's default policy. The view crosses as its text, never re-serialized: a number
// JavaScript would round (a status_version past 2^53) is read exactly by the core.

import { assertReady, fail, notDelivery } from './errors.mjs';
import { glue } from './instance.mjs';
import { isPlainObject, jsonArgs, options, wellFormed } from './inputs.mjs';

const VIEW_TEXT = 'responseText';

/**
 * The view's exact text: a string as given, or the `responseText` of a view that
 * parsePaymentView (or the client's getPayment) returned. Anything else is refused: a view
 * rebuilt with JSON.stringify could differ from what the service said.
 */
export function viewTextOf(view, what) {
  if (typeof view === 'string') return wellFormedText(view, 'the view');
  // Read once: a getter may answer otherwise the second time.
  const text = view !== null && typeof view === 'object' ? view[VIEW_TEXT] : undefined;
  if (typeof text === 'string') return text;
  throw fail('invalid_argument', `${what} takes the exact text of GET /v1/payments/{payment_id}'s answer (or the view getPayment returned, which keeps it as responseText), never an object rebuilt with JSON.stringify or copied with { ...view }, which leave responseText out`);
}

// A string as JavaScript holds it, refused when it is not well-formed UTF-16: crossing into
// WebAssembly would turn a lone surrogate into U+FFFD, another text than the one given.
function wellFormedText(value, name) {
  if (!wellFormed(value)) throw fail('invalid_argument', `${name} holds a lone UTF-16 surrogate`);
  return value;
}

function optionalText(value, name) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw fail('invalid_argument', `${name} must be a string when present`);
  return wellFormedText(value, name);
}

/**
 * Reads a payment view: checks it with the core and returns every field as the service sent
 * it, `status_version` as an exact string, numbers a double cannot hold as their exact
 * digits, and the exact text as the non-enumerable `responseText`.
 */
export function parsePaymentView(viewText) {
  assertReady();
  return notDelivery(() => readView(viewText));
}

function readView(viewText) {
  if (typeof viewText !== 'string') {
    throw fail('invalid_argument', 'parsePaymentView takes the exact text of GET /v1/payments/{payment_id}\'s answer');
  }
  const view = JSON.parse(glue.rawPaymentViewText(wellFormedText(viewText, 'the view')));
  view.status_version = String(view.status_version);
  Object.defineProperty(view, VIEW_TEXT, { value: viewText, enumerable: false, writable: false, configurable: false });
  return view;
}

/** fulfil, review, wait or closed: what the view justifies by the core's default policy. */
export function defaultPolicy(view) {
  assertReady();
  return notDelivery(() => glue.rawDefaultPolicy(viewTextOf(view, 'defaultPolicy')));
}

/**
 * Links a payment's authoritative view to the merchant's order (spec: receiver rule 7).
 * `{ linked: true }`, or `{ linked: false, code, message }` for the first mismatch.
 */
export function linkEvent(order, view, opts) {
  assertReady();
  return notDelivery(() => link(order, view, opts));
}

function link(order, view, opts) {
  const text = viewTextOf(view, 'linkEvent');
  let integration;
  if (opts !== undefined) {
    options(opts, ['integration'], 'linkEvent');
    integration = optionalText(opts.integration, 'integration');
  }
  const hasOrder = order !== undefined && order !== null;
  if (hasOrder && !isPlainObject(order)) {
    throw fail('invalid_argument', 'linkEvent takes the order { paymentId, orderRef?, sourceAmount, integration? } (or null when none is stored)');
  }
  // Read once: a getter may answer otherwise the second time.
  const orderPaymentId = hasOrder ? order.paymentId : undefined;
  if (hasOrder && (typeof orderPaymentId !== 'string' || orderPaymentId === '')) {
    throw fail('invalid_argument', 'order.paymentId must be a non-empty string');
  }
  const json = jsonArgs();
  const sourceAmount = hasOrder ? json.text(order.sourceAmount, 'source_amount_invalid', 'order.sourceAmount') : '';
  const said = json.run(() => glue.rawLinkEvent(
    text,
    hasOrder,
    hasOrder ? wellFormedText(orderPaymentId, 'order.paymentId') : '',
    hasOrder ? optionalText(order.orderRef, 'order.orderRef') : undefined,
    sourceAmount,
    hasOrder ? optionalText(order.integration, 'order.integration') : undefined,
    integration,
  ));
  if (said === '') return { linked: true };
  const at = said.indexOf(': ');
  return { linked: false, code: said.slice(0, at), message: said };
}
