// Integrations: one receiver for several accounts (each its store, API key and webhook signing
// secret), `secrets: { <name>: secretsOfIt }`. A delivery is verified against each
// integration's secrets (never picked by reading the unverified body, spec rule 3); the one
// whose secret verified it is recorded beside the event, and fulfilment links only an order
// created under that same integration.

import { CryptoPayError, Verifier, readDeliveryHeaders } from 'cryptopay-verify';
import { bindingHint, unquoted } from '../api/hints.mjs';
import { undoings } from '../api/picked-up.mjs';
import { MILLISECONDS, PAST } from './limits.mjs';
import { headerNames, nearMisses } from './observe.mjs';
import { invalid } from './stores/common.mjs';

// An integration's name: what the merchant calls it (`shop-eu`), stored beside events and
// orders. Printable, no control characters, short enough for an index.
const NAME = /^[^\u0000-\u001f\u007f]{1,100}$/u;
// Keys of a single secret entry: an object with these is a mistake, not a map of integrations.
const ENTRY_KEYS = ['secret', 'kind', 'acceptUntilSecs'];
// The kinds of a rotation: `{ active, pending }` is a rotation set written as an object, which
// would make two integrations (the new Secret's deliveries then refused as another's).
const KINDS = ['active', 'pending', 'retiring'];

/** Whether `secrets` names integrations ({ name: secrets }) rather than being one set. */
export const isNamed = (secrets) => secrets !== null && typeof secrets === 'object' && !Array.isArray(secrets);

/**
 * The integrations of a receiver's `secrets`: [{ name, secrets }], name null for a receiver
 * with one (a string or an array of entries).
 */
export function integrationsOf(secrets) {
  const binding = bindingHint(secrets);
  if (binding !== '') throw invalid(`secrets is not a secret${binding}`);
  if (!isNamed(secrets)) return [{ name: null, secrets }];
  const names = Object.keys(secrets);
  if (names.some((key) => ENTRY_KEYS.includes(key))) {
    throw invalid('secrets is one secret entry, not a list: give a string, an array of { secret, kind, acceptUntilSecs? } '
      + '(a rotation set), or { <integration>: secrets } for several integrations');
  }
  if (names.some((key) => KINDS.includes(key.toLowerCase()))) {
    throw invalid('secrets names an integration "active", "pending" or "retiring": a rotation set is an array, '
      + '[{ secret, kind: \'active\' }, { secret, kind: \'pending\' }]; { <integration>: secrets } names integrations (accounts)');
  }
  if (names.length === 0) throw invalid('secrets names no integration: give { <integration>: secrets } with at least one');
  for (const name of names) {
    if (!NAME.test(name)) throw invalid('an integration name is 1 to 100 characters, no control characters');
    const value = secrets[name];
    const hint = bindingHint(value);
    if (hint !== '') throw invalid(`the secrets of integration "${name}" are not a secret${hint}`);
    if (isNamed(value)) {
      throw invalid('each integration\'s secrets is a string or an array of { secret, kind, acceptUntilSecs? }, not an object');
    }
  }
  return names.map((name) => ({ name, secrets: secrets[name] }));
}

const describeIntegration = (name) => (name === null ? '' : ` of integration "${name}"`);

/** Every secret string of a receiver's `secrets` (one set, or integrations), whatever their shape. */
export function secretStrings(secrets) {
  const sets = isNamed(secrets) ? Object.values(secrets) : [secrets];
  return sets.flatMap((set) => entries(set).map((entry) => entry.secret));
}

/** The secret strings of a set, with their kinds (for the start-up checks). */
function entries(secrets) {
  if (typeof secrets === 'string') return [{ secret: secrets, kind: 'active' }];
  if (!Array.isArray(secrets)) return [];
  return secrets.filter((e) => e !== null && typeof e === 'object' && typeof e.secret === 'string')
    .map((e) => ({ secret: e.secret, kind: typeof e.kind === 'string' ? e.kind : 'active', until: e.acceptUntilSecs }));
}

/**
 * Refuses, at start, a retiring secret whose end is in milliseconds (13 digits or more): it
 * would keep an old, maybe leaked, secret verifying for thousands of years. The core refuses
 * the same in every secret set; this says it with the integration's name and the fix in
 * JavaScript. receiverOptionsFromEnv refuses the same for its variable.
 */
export function checkRotationEnds(integrations) {
  for (const { name, secrets } of integrations) {
    for (const { kind, until } of entries(secrets)) {
      // A safe integer on a retiring entry (anything else is the Verifier's to refuse).
      if (kind === 'retiring' && Number.isSafeInteger(until) && until >= MILLISECONDS) {
        throw invalid(`the ${kind} secret${describeIntegration(name)} has an acceptUntilSecs of 13 digits or more, milliseconds: `
          + 'it would keep the secret verifying for thousands of years: give the end of the overlap in Unix seconds, Math.floor(ms / 1000)');
      }
    }
  }
}

/** An overlap longer than this is reported at start: it covers the deliveries in flight, hours. */
const LONG_OVERLAP_SECS = 30 * 86_400;

/**
 * A start-up warning for each retiring secret whose overlap had already ended at `now` (a
 * duration given where a Unix time goes, an old variable left set): it verifies nothing; and
 * for each whose overlap ends more than 30 days after `now` (a digit too many): the old, maybe
 * leaked, secret keeps verifying that long.
 */
export function endedRotations(integrations, now) {
  // Before PAST the clock is no Unix time (a Worker's global scope reads 0): nothing to judge.
  if (!Number.isSafeInteger(now) || now < PAST || now >= MILLISECONDS) return [];
  const retiring = integrations.flatMap(({ name, secrets }) => entries(secrets)
    .filter(({ kind, until }) => kind === 'retiring' && Number.isSafeInteger(until))
    .map(({ until }) => ({ name, until })));
  return [
    ...retiring.filter(({ until }) => until < now)
      .map(({ name, until }) => `the retiring secret${describeIntegration(name)} stopped verifying ${now - until} s ago: acceptUntilSecs is `
        + 'the Unix second the overlap ends, not a duration; deliveries signed with it are refused. Remove it, or give the end as '
        + 'Math.floor(Date.now() / 1000) + seconds'),
    ...retiring.filter(({ until }) => until - now > LONG_OVERLAP_SECS && until < MILLISECONDS)
      .map(({ name, until }) => `the retiring secret${describeIntegration(name)} keeps verifying for ${Math.floor((until - now) / 86_400)} `
        + 'days: an overlap covers the deliveries in flight at the activation (a few hours); the old Secret stays a key to this '
        + 'receiver until then. Is a digit too many? Give the end a few hours ahead, Math.floor(Date.now() / 1000) + seconds'),
  ];
}

/**
 * Start-up warnings, never naming a secret's value: a secret with white space around it
 * (secrets are used exactly as saved: a pasted newline makes every delivery fail), the same
 * secret twice in one set (after an activation, the active one left at the old Secret), and
 * the same secret under two integrations (a delivery could not be told apart: the first wins).
 */
export function secretWarnings(integrations) {
  const lines = [];
  const seen = new Map();
  for (const { name, secrets } of integrations) {
    const inSet = new Map();
    const activated = entries(secrets).some((e) => e.kind === 'retiring');
    for (const { secret, kind } of entries(secrets)) {
      const twin = inSet.get(secret);
      if (activated && [kind, twin].includes('pending') && [kind, twin].includes('active')) {
        // The steps after an activation, with the pending secret left set: nothing is refused.
        lines.push(`the pending secret${describeIntegration(name)} equals the active one, after an activation (a retiring `
          + 'secret is set): the new Secret is the active one now; remove the pending secret (CRYPTOPAY_WEBHOOK_SECRET_PENDING '
          + 'with receiverOptionsFromEnv)');
      } else if (twin !== undefined) {
        const why = [kind, twin].includes('retiring')
          ? 'after an activation the active secret is the new Secret and the retiring one the old'
          : 'during a rotation the pending secret is the new one the dashboard gave, the active one the old';
        lines.push(`the ${kind} secret${describeIntegration(name)} equals the ${twin} one: ${why}; as it is, deliveries `
          + 'signed with the other Secret will not verify');
      }
      inSet.set(secret, kind);
      if (secret !== secret.trim()) {
        lines.push(`the ${kind} secret${describeIntegration(name)} starts or ends with white space: secrets are used exactly `
          + 'as saved, so unless the saved secret has it too, no delivery will verify: remove it where the secret is configured');
      }
      if (unquoted(secret.trim()) !== secret.trim()) {
        lines.push(`the ${kind} secret${describeIntegration(name)} is wrapped in quotes: secrets are used exactly as saved, `
          + 'quotes included, so no delivery will verify: remove them where the secret is configured (an env file, a YAML '
          + 'value or a shell script may have kept them)');
      }
      const other = seen.get(secret);
      if (other !== undefined && other !== name) {
        lines.push(`integrations "${other}" and "${name}" share a signing secret: their deliveries cannot be told apart, `
          + `and each is recorded as "${other}"'s: give each integration its own webhook secret`);
      }
      if (other === undefined) seen.set(secret, name);
    }
  }
  return lines;
}

/** A secret as it was most likely saved: the white space and quotes a configuration added, removed. */
const cleaned = (secret) => unquoted(secret.trim()).trim();

/**
 * For the integrations holding a secret with white space or quotes around it, `(call) => {
 * name } | null`: which one's set, with them removed, verifies the signature of a delivery
 * that failed. Never to accept a delivery, only to tell that one verifies with a secret
 * cleaned (a pasted newline or space, an env file's quotes), so that it is answered as the
 * configuration error it is, and retried. The cleaned sets are keyed (`keys(secrets)`) at the
 * first call that needs them; null at once when no secret has white space or quotes around it.
 */
export function trimmedMatcher(integrations, keys) {
  const trim = (set) => (typeof set === 'string' ? cleaned(set)
    : set.map((e) => (e !== null && typeof e === 'object' && typeof e.secret === 'string' ? { ...e, secret: cleaned(e.secret) } : e)));
  const padded = integrations.filter(({ secrets }) => entries(secrets).some(({ secret }) => secret !== cleaned(secret)));
  let trimmed = null;
  return (call) => {
    if (padded.length === 0) return null;
    trimmed ??= padded.flatMap(({ name, secrets }) => {
      try {
        return [{ name, verifier: keys(trim(secrets)) }];
      } catch {
        return []; // trimmed, the set is no valid one (two secrets now equal): it tells nothing
      }
    });
    const match = trimmed.find(({ verifier }) => verifies(verifier, call));
    return match === undefined ? null : { name: match.name };
  };
}

/**
 * For a delivery no secret verifies: what its body picked up on the way (api/picked-up.mjs: a
 * final newline, CRLF line endings, a byte order mark) when it verifies once that is undone,
 * as the phrases saying it, else null. A proxy, gateway or middleware that adds them does so to
 * every delivery: a 400 would lose each, a 500 is retried once it is fixed. Never to accept a
 * delivery; a sender without the secret cannot make it one. At most 4 undoings are hashed: each
 * change alone, and all of them together.
 */
export function alteredMatch(keys, call) {
  if (!(call.body instanceof Uint8Array)) return null;
  const all = undoings(call.body);
  const most = all.at(-1)?.changes.length;
  for (const { changes, undone } of all.filter(({ changes }) => changes.length === 1 || changes.length === most)) {
    const body = undone();
    if (keys.some(({ verifier }) => verifies(verifier, { ...call, body }))) return changes.map(({ said }) => said);
  }
  return null;
}

/** Whether `verifier` verifies the signature of `call` (a refusal is false; anything else throws). */
function verifies(verifier, call) {
  try {
    verifier.verifySignature(call);
    return true;
  } catch (failure) {
    if (!(failure instanceof CryptoPayError)) throw failure;
    return false;
  }
}

/**
 * `(call) => { name, until } | null`: for a delivery that matched only a retiring secret whose
 * overlap had ended, the integration of that secret and its acceptUntilSecs when the delivery
 * was signed inside the overlap (its timestamp at or before acceptUntilSecs, and within
 * maxSkewSecs of now): the service signed it before the overlap ended (it signs only with the
 * active secret after), and it arrived late. The service's retry is signed with the active
 * secret, so it is answered as a configuration matter, 500, rather than a 400 the service
 * never retries. Never to accept a delivery; the window is maxSkewSecs past the overlap's end.
 * Each such secret is keyed alone at the first call that needs it.
 */
export function lateInOverlapMatcher(integrations, keys) {
  const ended = integrations.flatMap(({ name, secrets }) => entries(secrets)
    .filter(({ kind, until }) => kind === 'retiring' && Number.isSafeInteger(until))
    .map(({ secret, until }) => ({ name, secret, until, verifier: null })));
  return (call) => {
    const signedAt = typeof call.timestamp === 'string' && /^[0-9]{1,12}$/.test(call.timestamp) ? Number(call.timestamp) : NaN;
    for (const candidate of ended) {
      if (!(candidate.until < call.nowSecs && signedAt <= candidate.until)) continue;
      try {
        candidate.verifier ??= keys([{ secret: candidate.secret, kind: 'active' }]);
      } catch (failure) {
        if (!(failure instanceof CryptoPayError)) throw failure;
        continue;
      }
      if (verifies(candidate.verifier, call)) return { name: candidate.name, until: candidate.until };
    }
    return null;
  };
}

/**
 * The log line of an event not recorded because it is another integration's than
 * `integration`'s (null: a receiver with one unnamed set): its payment's stored facts or its
 * order, or its event_id already stored, came through another integration.
 */
export function mismatchMessage(paymentId, integration) {
  const payment = `payment ${JSON.stringify(paymentId)}`;
  return integration === null
    ? `integration_mismatch: ${payment} (its stored facts or its order, or this event) came through a named integration, `
      + 'and this receiver has one set of secrets, with no names: not recorded (answered 500, so the service retries). '
      + 'Name the integrations in secrets ({ <integration>: secrets }) as the receiver that recorded it did'
    : `integration_mismatch: ${payment} (its stored facts or its order, or this event) came through another integration `
      + `than "${integration}", whose secret verified this delivery: not recorded (answered 500, so the service retries). `
      + `Either two integrations' secrets are swapped in secrets (each webhook's Secret under the other's name: every `
      + `delivery of both is refused so), or the holder of "${integration}"'s secret is sending another integration's payments, or the order was recorded `
      + `under the wrong integration, or an integration was renamed in secrets (keep its old name, or update the integration `
      + 'column of the events, payments and orders tables to the new one)';
}

/** One Verifier per integration, keyed now (a wrong set throws here, at start). */
export function makeVerifiers(integrations, keys) {
  const made = [];
  try {
    for (const { name, secrets } of integrations) {
      try {
        made.push({ name, verifier: keys(secrets) });
      } catch (error) {
        if (name !== null && error instanceof CryptoPayError) {
          error.message = `${error.message} (the secrets${describeIntegration(name)})`;
        }
        throw error;
      }
    }
  } catch (error) {
    for (const { verifier } of made) verifier.free();
    throw error;
  }
  return made;
}

/**
 * Verifies a delivery against each integration in turn: the first whose secrets verify it.
 * Resolves { verified, integration }, or throws { failure, integration } with the failure of
 * the integration whose secret matched (skew, a body that is no event: authentic), else the
 * most specific signature_mismatch (when no secret matched).
 */
export function verifyAny(verifiers, call) {
  let first = null;
  for (const { name, verifier } of verifiers) {
    try {
      return { verified: verifier.verifyWebhook(call), integration: name };
    } catch (failure) {
      if (!(failure instanceof CryptoPayError)) throw failure;
      if (failure.code !== 'signature_mismatch' || verifiers.length === 1) {
        throw new Refusal(failure, authentic(failure) ? name : null);
      }
      // The most telling mismatch, whichever integration it came from: a retiring secret that
      // matched after its overlap ended, then a secret with white space around it, then the
      // plain "no signature matches" (the core's details, read by what they say).
      if (first === null || telling(failure) > telling(first)) first = failure;
    }
  }
  throw new Refusal(first, null);
}

/**
 * Whether a delivery whose timestamp header was unreadable verifies, fresh, with its two
 * headers read the other way round (the timestamp header holding the signature, the signature
 * header Unix seconds): then the configuration swapped the two names. Never to accept a
 * delivery; and a stale one does not count (an old delivery replayed with its headers swapped
 * must not tell the operator to swap names that are right).
 */
export function readsSwapped(keys, body, { timestamp, signature, now }) {
  if (typeof timestamp !== 'string' || typeof signature !== 'string' || !/^[0-9]{1,12}$/.test(signature)) return false;
  return keys.some(({ verifier }) => verifies(verifier, { body, timestamp: signature, signature: timestamp, nowSecs: now }));
}

/**
 * A delivery missing a configured header that carried one whose name says it is that one (a
 * typo in timestampHeader or signatureHeader, `names`): the options to set, `{ timestampHeader?,
 * signatureHeader? }` (each the name it carried), when it verifies, fresh at `now`, with that
 * header read instead (the `timestamp` header's when true, else the signature's), or with both
 * read instead when neither configured name came (a pair copied from another provider's
 * guide), else null. Never to accept a delivery: a 400 would be final for the service, a 500 is
 * retried once the names are put right; a sender without the secret cannot make it one. At
 * most 4 readings are hashed: with both configured names absent, a reading of the timestamp
 * alone lacks a signature and is refused before any hash, so only the 2 by 2 pairs are.
 */
export function readsMisnamed(keys, delivery, names, now, timestamp) {
  if (typeof now !== 'number' || !Number.isSafeInteger(now) || now >= MILLISECONDS || now < PAST) return null;
  const carried = headerNames(delivery.headers);
  const readings = nearMisses(carried, names, timestamp).slice(0, 4)
    .map((name) => ({ [timestamp ? 'timestampHeader' : 'signatureHeader']: name }));
  // Reported as timestamp_missing (the timestamp is read first) with the signature absent too.
  if (timestamp && !carried.includes(names.signatureHeader.toLowerCase())) {
    for (const timestampHeader of nearMisses(carried, names, true).slice(0, 2)) {
      for (const signatureHeader of nearMisses(carried, names, false).slice(0, 2)) readings.push({ timestampHeader, signatureHeader });
    }
  }
  for (const renamed of readings) {
    let read;
    try {
      read = readDeliveryHeaders(delivery.headers, { ...names, ...renamed });
    } catch (failure) {
      if (!(failure instanceof CryptoPayError)) throw failure;
      continue;
    }
    const call = { body: delivery.body, timestamp: read.timestamp, signature: read.signature, nowSecs: now };
    if (keys.some(({ verifier }) => verifies(verifier, call))) return renamed;
  }
  return null;
}

// How much a signature_mismatch says beyond "no signature matches": 2 when a retiring secret
// matched after its overlap ended, 1 when a secret has white space or quotes around it, else 0.
const telling = (failure) => (overlapEnded(failure) ? 2 : /whitespace|wrapped in quotes/.test(failure.message) ? 1 : 0);

/** Whether a signature_mismatch says a retiring secret matched after its overlap ended. */
export const overlapEnded = (failure) => /overlap ended/.test(failure.message);

// Failures reported only once a secret matched (the order of checks): the delivery is authentic.
const SKEW = new Set(['timestamp_too_old', 'timestamp_in_future']);
export const authentic = (failure) => failure.authentic === true || SKEW.has(failure.code);

/** A verification failure, with the integration whose secret verified the delivery (if any). */
export class Refusal {
  constructor(failure, integration) {
    this.failure = failure;
    this.integration = integration;
  }
}

export { Verifier };
