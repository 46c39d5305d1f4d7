// Every HTTP answer of the receiver, in one place. A body is a short JSON object naming a
// decision or a code: never a message, a secret or a byte of the delivery.

const HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

const answer = (status, value, extra) => ({
  status,
  body: JSON.stringify(value),
  headers: extra ? { ...HEADERS, ...extra } : { ...HEADERS },
});

export const answers = {
  /** 200 once the commit returned: apply, duplicate or stale. */
  received: (decision) => answer(200, { received: true, decision }),
  /** 200 for an authentic delivery that is not a readable event, kept in quarantine. */
  quarantined: (code) => answer(200, { received: true, quarantined: code }),
  /** 400 for a delivery that failed verification. */
  rejected: (code) => answer(400, { error: code }),
  /** 413 for a body over maxBodyBytes. */
  tooLarge: () => answer(413, { error: 'body_too_large' }),
  /** 405 for any method but POST. */
  methodNotAllowed: () => answer(405, { error: 'method_not_allowed' }, { allow: 'POST' }),
  /** 500 for a configuration error (a parsed body, a bad argument): the service retries. */
  misconfigured: (code) => answer(500, { error: code }),
  /** 500 for anything unexpected. */
  internal: () => answer(500, { error: 'internal' }),
  /**
   * 503 when the bodies being read already hold maxBufferedBytes: this one was not read, the
   * service retries it.
   */
  busy: () => answer(503, { error: 'busy' }, { 'retry-after': '5' }),
  /** 408 when the body did not arrive within bodyTimeoutMs: it was not read, the service retries. */
  bodyTimeout: () => answer(408, { error: 'body_timeout' }),
  /** 503 when the store failed: nothing was acknowledged, the service retries. */
  storeUnavailable: () => answer(503, { error: 'store_unavailable' }),
};
