// createPayment's `record`: the receiver that keeps each created payment's order (its
// recordCreated). Checked before anything is sent, so that a call the receiver will refuse
// creates no payment at the service; then given the payment created.

import { RECORDABLE } from '../api/brand.mjs';
import { MESSAGE_CHARS, maskCredentials, maskedCopy } from '../api/redact.mjs';
import { invalid } from './inputs.mjs';
import { CryptoPayApiError } from './transport.mjs';

/**
 * Refuses a `record` that is no receiver, or one whose integrations the client's
 * `integration` (a name, or null) does not fit: before the service is asked.
 */
export function checkRecord(record, integration) {
  if (record === undefined) return;
  if (record === null || typeof record.recordCreated !== 'function') {
    // lazyReceiver's receiver answers deliveries only: the order needs the store's.
    const lazy = record !== null && typeof record === 'object' && typeof record.ready === 'function' && typeof record.fetch === 'function';
    throw invalid(lazy
      ? 'record is a receiver that answers deliveries only (lazyReceiver\'s): give the receiver createReceiver made (in a Worker, one per env, as the guide\'s receiverOf(env))'
      : 'record is the receiver that records the order (receiver.recordCreated)');
  }
  if (typeof record[RECORDABLE] !== 'function') return; // a recorder of the merchant's own
  try {
    record[RECORDABLE](integration === null ? undefined : integration);
  } catch (failure) {
    const said = String(failure?.message ?? failure).replace(/^invalid_argument: /, '');
    throw invalid(`createPayment's record: ${said} (createClient's integration option); nothing was sent`);
  }
}

/**
 * Records `created` through `record`. A failure is `record_failed`, saying the payment exists
 * and how to go on; its message and cause pass through `masked` (the API key) and lose any
 * credentials a store's error named.
 */
export async function recordCreated({ record, created, integration, extra, masked }) {
  try {
    await record.recordCreated(created, integration === null ? undefined : { integration });
  } catch (failure) {
    const said = maskCredentials(masked(failure?.message ?? failure)).slice(0, MESSAGE_CHARS);
    // A wrong argument (the receiver's integrations, another order for the payment) fails
    // the same way again: the fix is in the call, not in a retry.
    const retryable = failure?.code !== 'invalid_argument';
    const fix = retryable
      ? 'call createPayment again with the same idempotencyKey (the service answers the same payment, which is then recorded)'
      : 'a retry fails the same way: fix what the message names (an idempotencyKey reused for another order answers that order\'s payment)';
    throw new CryptoPayApiError({
      status: 200,
      code: 'record_failed',
      retryable,
      message: `record_failed: payment ${created.payment_id} was created but its order was not recorded (${said}): ${fix}`,
      paymentId: created.payment_id,
      cause: maskedCopy(failure, said),
      ...extra,
    });
  }
}
