// One route per integration: `receiver.integration(name)` gives the faces of one integration
// (a platform's `/webhooks/:merchant`), whose deliveries are verified against that
// integration's secrets alone, so a delivery costs one integration's HMACs, not every one's,
// and a refusal is said and recorded with the integration it came for. The route says whose
// delivery it is: one that only another integration's secret verifies (its webhook registered
// with this route's URL, or two secrets swapped in the configuration) is recorded under
// neither, answered 500 so that the service retries it once the URL or the secrets are right.

import { answers } from './answers.mjs';
import { fetchHandler, misplacedNodeRequest, nodeHandler } from './http.mjs';
import { Refusal, verifyAny } from './integrations.mjs';
import { routeOf } from './observe.mjs';
import { sizeOf } from './refusals.mjs';
import { lineThrottle } from './throttle.mjs';
import { invalid } from './stores/common.mjs';

// A delivery to one integration's route that no secret of it verifies is tried against the
// others' (a webhook registered with another merchant's URL, two secrets swapped) at most this
// many times a second: forged requests to any route must not each cost every integration's
// HMAC. Past that, it is answered 503 (retried), never a final 400 that an unchecked
// delivery of another integration's would be lost to.
export const CROSS_CHECKS_PER_SEC = 20;

// The most of a route's name a line quotes (it is request data).
const QUOTED_CHARS = 100;

/** Throws unless `name`, given to integration(name), is a string (the route's parameter). */
export function checkName(name) {
  if (typeof name !== 'string') {
    throw invalid(`integration(name) takes an integration's name, a string (it was given ${name === null ? 'null' : typeof name}): `
      + 'the route\'s parameter, such as req.params.merchant');
  }
}

/** A route's name as records and lines show it: request data, cut to QUOTED_CHARS. */
export const shownRoute = (name) => (name.length > QUOTED_CHARS ? `${name.slice(0, QUOTED_CHARS)}...` : name);
const quoted = (name) => JSON.stringify(shownRoute(name));

/**
 * The routing of a receiver over `integrations` ([{ name, secrets }]): `check(name)` for
 * `receiver.integration(name)`, `keysOf(keys, route)` (the verifiers a delivery to `route` is
 * tried against, null for a name `secrets` does not hold), `unknown(route, delivery)` (its
 * answer), and `elsewhere(keys, route, call, failure)` (a delivery to `route` that verifies with
 * another integration's secret).
 */
export function routing({ integrations, warn, error, emit }) {
  const names = new Set(integrations.map(({ name }) => name));
  const named = !names.has(null);
  const say = lineThrottle();
  // Built from the keyed verifiers at the first routed delivery (keying may wait for init()).
  let byName = null;
  let window = { second: null, used: 0 };

  /** Throws, at the call, for a receiver whose secrets name no integration or a name not a string. */
  function check(name) {
    if (!named) {
      throw invalid('integration(name) chooses one of the integrations secrets names, and this receiver\'s secrets is one set with no '
        + 'names: use receiver.fetch, node or handle, or give secrets as { <integration>: secrets }');
    }
    checkName(name);
    return names.has(name);
  }

  function keysOf(keys, route) {
    byName ??= new Map(keys.map((key) => [key.name, [key]]));
    return byName.get(route) ?? null;
  }

  // Nothing is verified: the service retries a 500 while the receiver is created again with
  // the integration (a merchant connected since), until its webhook is stopped.
  function unknown(route, delivery) {
    say('unknown', error, `integration_unknown: a delivery came to the route of integration ${quoted(route)}, which secrets does not name `
      + `(it names ${names.size}): not verified; answered 500 so the service retries it. A merchant connected since this receiver was `
      + 'created: create it again with that merchant\'s secrets (docs/merchant-loop.md, "One route per integration"); one removed: stop '
      + 'its webhook in the service\'s dashboard (Edit Webhook, its delivery state), or the service retries until its retries run '
      + 'out; otherwise the route\'s parameter is not the name secrets gives the integration');
    emit({ kind: 'delivery', integration: null, ...routeOf(delivery), bodyBytes: sizeOf(delivery.body), status: 500, reason: 'misconfigured', code: 'integration_unknown' });
    return answers.misconfigured('integration_unknown');
  }

  // Whether a cross-check may run now (CROSS_CHECKS_PER_SEC, by the receiver's clock).
  function take(now) {
    if (window.second !== now) window = { second: now, used: 0 };
    if (window.used >= CROSS_CHECKS_PER_SEC) return false;
    window.used += 1;
    return true;
  }

  /**
   * For a delivery to `route` that its secrets refused with `failure` (a signature_mismatch):
   * its answer when another integration's secret verifies it (500 integration_mismatch, said),
   * or when the others could not be tried (503 busy: past CROSS_CHECKS_PER_SEC), else null (a
   * forgery, or this integration's Secret changed: its refusal stands). Throws the Refusal of
   * another integration's secret that matched a delivery refused all the same (its timestamp
   * past maxSkewSecs: authentic).
   */
  function elsewhere(keys, route, call, failure, delivery) {
    if (!(failure instanceof Refusal) || failure.failure.code !== 'signature_mismatch' || keys.length < 2) return null;
    if (!Number.isSafeInteger(call.nowSecs)) return null;
    const seen = { kind: 'delivery', integration: route, ...routeOf(delivery), bodyBytes: sizeOf(delivery.body) };
    if (!take(call.nowSecs)) {
      say('unchecked', warn, `answered 503 busy a delivery to the route of integration ${quoted(route)} that its secrets do not verify: `
        + `the other integrations' were tried ${CROSS_CHECKS_PER_SEC} times this second already (forged requests, or the deliveries of `
        + 'an integration whose webhook points at this route); the service retries it');
      emit({ ...seen, status: 503, reason: 'busy', code: 'signature_mismatch' });
      return answers.busy();
    }
    let found;
    try {
      found = verifyAny(keys.filter(({ name }) => name !== route), call);
    } catch (other) {
      if (other instanceof Refusal && other.integration === null) return null;
      throw other;
    }
    const { integration, verified } = found;
    say('elsewhere', error, `integration_mismatch: a delivery to the route of integration ${quoted(route)} verified with the secret of `
      + `integration ${quoted(integration)} (payment ${JSON.stringify(verified.event.paymentId)}): not recorded; answered 500 so that the `
      + `service retries it. Either the webhook of "${integration}" at the service points at "${route}"'s route (the URL registered `
      + 'for it: set it to its own, in the service\'s dashboard, Edit Webhook), or the two integrations\' secrets are swapped in '
      + 'secrets (each merchant\'s Secret under the other\'s name: swap them back)');
    emit({ ...seen, integration, status: 500, reason: 'misconfigured', code: 'integration_mismatch' });
    return answers.misconfigured('integration_mismatch');
  }

  return { check, keysOf, unknown, elsewhere };
}

/**
 * `receiver.integration(name)`: the frozen faces `{ name, fetch, node, handle }` of one
 * integration, whose deliveries `handle(delivery, arrived, name)` verifies with that
 * integration's secrets alone; kept per name secrets holds (a name it does not hold gets faces
 * that answer `integration_unknown`, not kept: route parameters are request data).
 */
export function integrationFaces(routes, http, handle) {
  const faces = new Map();
  return function integration(name) {
    const known = routes.check(name);
    let face = faces.get(name);
    if (face !== undefined) return face;
    const shown = shownRoute(name);
    const routed = {
      ...http,
      handle: (delivery, arrived) => handle(delivery, arrived, name),
      // What the faces answer before handle (405, 413, busy, a body not raw) names the route too.
      answered: (status, reason, detail, read) => http.answered(status, reason, { ...detail, route: shown }, read),
    };
    face = Object.freeze({
      name,
      handle: async (delivery, res) => misplacedNodeRequest('handle', delivery, res, routed) ?? handle(delivery, undefined, name),
      fetch: fetchHandler(routed),
      node: nodeHandler(routed),
    });
    if (known) faces.set(name, face);
    return face;
  };
}
