// The event object, built in one place from bytes the core has checked as an envelope.

import { assertReady } from './errors.mjs';
import { glue, limits } from './instance.mjs';
import { bodyBytes } from './inputs.mjs';

// ignoreBOM keeps the text byte for byte (the core already refuses an event that starts with a BOM).
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

// A body the core found all ASCII: the same text read one byte per character where the Node
// entry installs that (installLatin1Text), TextDecoder elsewhere.
let asciiText = (bytes) => decoder.decode(bytes);

/**
 * Node, Bun and Deno: a body of ASCII is read by Buffer's Latin-1 decoding, faster there than
 * TextDecoder's UTF-8 for the same text (measured: Node 20 0.14 against 0.25 us at 1 KiB and
 * 0.13 against 0.91 ms at 1 MiB; Deno 0.14 against 1.03 us at 1 KiB; Bun 0.21 against 0.23 us).
 */
export function installLatin1Text() {
  const latin1Slice = globalThis.Buffer?.prototype?.latin1Slice;
  if (typeof latin1Slice === 'function') asciiText = (bytes) => latin1Slice.call(bytes, 0, bytes.length);
}

/**
 * A verified event: the envelope's fields as own, enumerable properties (what JSON.stringify
 * and spreading see) and `dataText` on the prototype.
 *
 * `dataText`: the `data` object's exact text as received (`128.10` stays `128.10`), cut out by
 * the core when first read, then kept. The event holds what the verified bytes decoded to (the
 * text JSON.parse read, which exists anyway), never the caller's buffer: a buffer the caller
 * reuses or detaches after verifying must not change, or break, what `dataText` answers. A
 * body holding a number a double cannot keep was parsed from the core's text with those
 * numbers as strings, so the event keeps a copy of its bytes instead (a rare path). A class
 * rather than a getter added per object: `Object.defineProperty` on each event cost about
 * 0.7 us, a sixth of a 256 B verifyWebhook.
 */
class WebhookEvent {
  // The verified body: its text (re-encoded to the same bytes when dataText is first read), or
  // a copy of its bytes.
  #source;
  #dataText;

  constructor(envelope, source) {
    const data = envelope.data;
    this.schemaVersion = String(envelope.schema_version);
    this.eventId = envelope.event_id;
    this.eventType = envelope.event_type;
    this.occurredAt = envelope.occurred_at;
    this.paymentId = data.payment_id;
    this.statusVersion = String(data.status_version);
    this.data = data;
    this.envelope = envelope;
    this.#source = source;
  }

  get dataText() {
    if (this.#dataText === undefined) {
      const source = this.#source;
      this.#dataText = glue.rawDataText(typeof source === 'string' ? encoder.encode(source) : source);
    }
    return this.#dataText;
  }
}

/**
 * The event of a checked envelope, given the core's flags for it (`limits.outcomeInexact`: the
 * body holds a number a double cannot keep, so the text comes from the core with those numbers
 * as strings of their exact digits; `limits.outcomeAscii`: every byte is ASCII).
 */
export function buildEvent(bytes, flags) {
  if (flags & limits.outcomeInexact) return new WebhookEvent(JSON.parse(glue.eventText(bytes)), bytes.slice());
  const text = flags & limits.outcomeAscii ? asciiText(bytes) : decoder.decode(bytes);
  return new WebhookEvent(JSON.parse(text), text);
}

/** Parses a body that already verified. */
export function parseEvent(verifiedBody) {
  assertReady();
  const bytes = bodyBytes(verifiedBody);
  return buildEvent(bytes, glue.checkEvent(bytes));
}
