// One route per integration: `receiver.integration(name)` gives the faces of one integration
// (a platform's `/webhooks/:merchant`), whose deliveries are verified against that
// integration's secrets alone, so a delivery costs one integration's HMACs, not every one's,
// and a refusal is said and recorded with the integration it came for. The route only picks
// the secret to try: it is request data, so it never vouches for anything, and a delivery is
// recorded under the integration whose secret verified it, as without routes.

import { answers } from './answers.mjs';
import { fetchHandler, misplacedNodeRequest, nodeHandler } from './http.mjs';
import { Refusal, verifyAny } from './integrations.mjs';
import { sizeOf } from './refusals.mjs';
import { lineThrottle } from './throttle.mjs';
import { invalid } from './stores/common.mjs';

// A delivery to one integration's route that no secret of it verifies is tried against the
// others' (a webhook registered with another merchant's URL, two secrets swapped) at most this
// many times a second: forged requests to any route must not each cost every integration's HMAC.
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

const quoted = (name) => JSON.stringify(name.length > QUOTED_CHARS ? `${name.slice(0, QUOTED_CHARS)}...` : name);

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
  // the integration (a merchant connected since), and stops once its webhook is deleted.
  function unknown(route, delivery) {
    say('unknown', error, `integration_unknown: a delivery came to the route of integration ${quoted(route)}, which secrets does not name `
      + `(it names ${names.size}): not verified; answered 500 so the service retries it. A merchant connected since this receiver was `
      + 'created: create it again with that merchant\'s secrets (docs/merchant-loop.md, "One route per integration"); one removed: delete '
      + 'its webhook at the service, which retries until its retries run out; otherwise the route\'s parameter is not the name '
      + 'secrets gives the integration');
    emit({ kind: 'delivery', integration: null, bodyBytes: sizeOf(delivery.body), status: 500, reason: 'misconfigured', code: 'integration_unknown' });
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
   * `{ verified, integration }` when another integration's secret verifies it (recorded as that
   * one's, said once a minute at most), else null. Throws a Refusal when another integration's
   * secret matched but the delivery is refused (its timestamp past maxSkewSecs: authentic).
   */
  function elsewhere(keys, route, call, failure) {
    if (!(failure instanceof Refusal) || failure.failure.code !== 'signature_mismatch' || keys.length < 2) return null;
    if (!Number.isSafeInteger(call.nowSecs) || !take(call.nowSecs)) return null;
    let found;
    try {
      found = verifyAny(keys.filter(({ name }) => name !== route), call);
    } catch (other) {
      if (other instanceof Refusal && other.integration === null) return null;
      throw other;
    }
    say('elsewhere', warn, `a delivery to the route of integration ${quoted(route)} verified with the secret of integration `
      + `${quoted(found.integration)}, and is recorded as that one's: the webhook of "${found.integration}" at the service points at `
      + `"${route}"'s route (the URL registered for it), or the two integrations' secrets are swapped in secrets. Put the URL or the `
      + `secrets right: such deliveries are tried against the other integrations at most ${CROSS_CHECKS_PER_SEC} times a second, and `
      + 'past that refused 400 (final) as forgeries');
    return found;
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
    const routed = { ...http, handle: (delivery, arrived) => handle(delivery, arrived, name) };
    face = Object.freeze({
      name,
      handle: async (delivery, res) => misplacedNodeRequest('handle', delivery, res, http) ?? handle(delivery, undefined, name),
      fetch: fetchHandler(routed),
      node: nodeHandler(routed),
    });
    if (known) faces.set(name, face);
    return face;
  };
}
