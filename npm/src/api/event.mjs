// The event object, built in one place from bytes the core has checked as an envelope.

import { assertReady } from './errors.mjs';
import { glue } from './instance.mjs';
import { bodyBytes } from './inputs.mjs';

// ignoreBOM keeps the text byte for byte (the core already refuses an event that starts with a BOM).
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The event of a checked envelope. `inexact`: the body holds a number a double cannot keep,
 * so the text comes from the core with those numbers as strings of their exact digits.
 */
export function buildEvent(bytes, inexact) {
  const envelope = JSON.parse(inexact ? glue.eventText(bytes) : decoder.decode(bytes));
  const data = envelope.data;
  const event = {
    schemaVersion: String(envelope.schema_version),
    eventId: envelope.event_id,
    eventType: envelope.event_type,
    occurredAt: envelope.occurred_at,
    paymentId: data.payment_id,
    statusVersion: String(data.status_version),
    data,
    envelope,
  };
  // dataText: the `data` object's exact text as received (`128.10` stays `128.10`), cut out of
  // the verified bytes by the core when first read (then a string of its own). Not enumerable:
  // JSON.stringify(event) and deep comparisons see the fields above only. It holds the body's
  // bytes, which the caller holds anyway, rather than a decoded copy: measured, keeping a
  // decoded 16 KiB text alive with each event cost verifyWebhook about a fifth of its time.
  let dataText;
  Object.defineProperty(event, 'dataText', {
    get: () => (dataText ??= glue.rawDataText(bytes)),
    enumerable: false,
    configurable: false,
  });
  return event;
}

/** Parses a body that already verified. */
export function parseEvent(verifiedBody) {
  assertReady();
  const bytes = bodyBytes(verifiedBody);
  return buildEvent(bytes, glue.checkEvent(bytes) === 1);
}
