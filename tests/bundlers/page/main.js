// The small page every bundler test bundles: it imports the package by name, as an app does,
// and exposes hooks the test drives (no top-level await, so the test decides when init()
// runs and can make its first load fail).
import { CryptoPayError, init, verifyWebhook } from 'cryptopay-verify';

const report = (error) => ({
  ok: false,
  isCryptoPayError: error instanceof CryptoPayError,
  name: error?.name,
  code: error?.code,
  message: String(error?.message ?? error),
});

window.cryptopayTest = {
  init: () => init().then(() => ({ ok: true }), report),
  verify(delivery) {
    try {
      const { event, matchedSecret, timestamp } = verifyWebhook({
        body: new TextEncoder().encode(delivery.body),
        timestamp: delivery.timestamp,
        signature: delivery.signature,
        secrets: delivery.secret,
        nowSecs: delivery.nowSecs,
        maxSkewSecs: 300,
      });
      return { ok: true, eventId: event.eventId, statusVersion: event.statusVersion, matchedSecret, timestamp };
    } catch (error) {
      return report(error);
    }
  },
};
document.title = 'ready';
