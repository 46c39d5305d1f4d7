// cryptopay-verify/client: the payment service's API for a merchant server (create payments,
// query them, set up the webhook), on fetch. A subpath of the package: the main entry never
// imports it; it loads the package's own entry for the runtime (one WebAssembly instance).
export { CryptoPayApiError, createClient } from './client.mjs';
