// A receiver's answer to one delivery, as the service reads it (classifyDeliveryResponse)
// and as the report prints it.

import { classifyDeliveryResponse } from '../entry/node.mjs';

// A status outside HTTP's 100-599 is no answer the service can read: retried as a network
// failure by its delivery rules (the core's next_delivery_step), never acknowledged.
const classify = (status) => (Number.isInteger(status) && status >= 100 && status <= 599 ? classifyDeliveryResponse(status) : 'retry');

export const answered = (d) => d.status !== undefined;
export const acknowledged = (d) => answered(d) && classify(d.status) === 'acknowledged';
export const refused = (d) => answered(d) && !acknowledged(d);
export const redirected = (d) => answered(d) && d.status >= 300 && d.status < 400;

export const secondsText = (ms) => `${Number((ms / 1000).toFixed(3))} s`;

/** One answer in full: "400 permanent_failure (signature_mismatch)", "no answer within 10 s". */
export function describe(d, timeoutMs) {
  if (!answered(d)) return d.timedOut ? `no answer within ${secondsText(timeoutMs)}` : `no answer: ${d.error}`;
  let text = `${d.status} ${classify(d.status)}`;
  if (redirected(d)) text += d.location ? ' redirect, not followed' : ' redirect';
  else if (d.code) text += ` (${d.code})`;
  return text;
}

/** One answer in a few characters: "400 (signature_mismatch)", "timeout", "ECONNRESET". */
export function brief(d) {
  if (!answered(d)) return d.timedOut ? 'timeout' : d.error;
  return d.code && !redirected(d) ? `${d.status} (${d.code})` : String(d.status);
}
