// The crash test's authoritative views, the same in every process: payment `pay_crash_<n>` is
// order `o-<n>`, 128.00 USD; paid at version 3, and overpaid at version 4 for n divisible by 5.

export const amount = { kind: 'fiat', currency: 'USD', amount_raw: '12800' };

export function viewOf(paymentId) {
  const n = Number(paymentId.split('_').at(-1));
  const over = n % 5 === 0;
  return JSON.stringify({
    payment_id: paymentId,
    order_ref: `o-${n}`,
    source_amount: amount,
    status: over ? 'overpaid' : 'paid',
    status_version: over ? 4 : 3,
    amount_received_raw: over ? '13000' : '12800',
  });
}
