// The package's public names, re-exported by every runtime entry.
export { CryptoPayError } from './api/errors.mjs';
export { Verifier, verifySignature, verifyWebhook } from './api/verify.mjs';
export { readDeliveryHeaders, signWebhook } from './api/headers.mjs';
export { parseEvent } from './api/event.mjs';
export {
  decideEvent,
  compareStatusVersions,
  validateAmountRaw,
  isValidAmountRaw,
  toAmountRaw,
  fromAmountRaw,
  buildSourceAmount,
  validateSourceAmount,
  validateCreatePayment,
  validateCheckoutOrigin,
  validateWebhookUrl,
  hostedCheckoutUrl,
  requestFingerprint,
  validateIdempotencyKey,
  classifyDeliveryResponse,
  errorCodes,
} from './api/validators.mjs';
export { defaultPolicy, linkEvent, parsePaymentView } from './api/fulfilment.mjs';
