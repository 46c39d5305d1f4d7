// The merchant loop on the receiver's store, after recordCreated (orders.mjs): passes that
// claim the payments whose applied facts changed since they were last handled, and the
// orders with no news for recoverAfterSecs (a delivery may be lost), under a lease; for each,
// the authoritative view (confirm), the link to the order checked exactly by the core, the
// merchant's policy, and the handler, called at least once for each (payment,
// status_version) a pass reads, with that pair as its idempotency key. The version handled
// is stored only once the handler resolved, and never lowered: a crash repeats a handler
// call, never skips one. A payment is fulfilled at one version only: once `fulfil` was
// handled, the stored outcome stays `fulfil`, and a later version the policy would fulfil
// again is recorded without a call.

import { compareStatusVersions, defaultPolicy, linkEvent, parsePaymentView } from 'cryptopay-verify';
import {
  ACTIONS, BLOCKED, DIGITS, FAILED_DELAY_SECS, FULFIL_OPTIONS, LINES_PER_CAUSE, SETTLED, delaySecs, failedDelaySecs, fulfilOptions,
  handleCall, ownerId, staleView, tookPastLease, viewText,
} from './fulfil-terms.mjs';
import { keepLease, renewed, storeAnswer } from './lease.mjs';
import { needs, notFoundHint, orderBook } from './orders.mjs';
import { quarantineList } from './quarantine.mjs';
import { scheduler } from './schedule.mjs';
import { checkKeys, describeError, integer } from './stores/common.mjs';

/**
 * The loop's functions for a receiver: `ready()` prepares its store; `integrations` lists the
 * names of a receiver with several (null for one); `emit` and `pass` are its observer's.
 */
// A store failure met after `handle` ran (writing its outcome): what handle was called with,
// and the attempts counted before.
const ranBefore = new WeakMap();

export function merchantLoop({ store, ready, integrations, emit, pass, passFailed, warn, error }) {
  const { recordCreated, checkRecordable } = orderBook({ store, ready, integrations });
  const { quarantined } = quarantineList({ store, ready });


  // One leased payment, from its state to its outcome. Never throws for the merchant's
  // functions or the view; a store failure rejects, and the pass sets the payment aside
  // (setAside) or, when the store cannot record even that, fails (the lease then expires: a
  // repeat).
  async function work(paymentId, owner, opts, said) {
    const { recoverAfterSecs, leaseSecs, recheckClosedSecs } = opts;
    const loadedAt = Date.now();
    // The lease renewed from now: each payment of the batch gets it whole.
    const state = await store.load({ paymentId, owner, recoverAfterSecs, leaseSecs, recheckClosedSecs });
    if (state === null || !state.leased) {
      emit({ kind: 'fulfilment', paymentId, outcome: 'lease_lost' });
      return 'lease_lost';
    }
    const order = state.order === null ? null : {
      paymentId,
      orderRef: state.order.orderRef,
      sourceAmount: JSON.parse(state.order.sourceAmount),
      integration: state.order.integration,
      createdAt: state.order.createdAt,
    };
    // The event's integration (whose secret verified it); with no event (recovery), the order's.
    const integration = state.hasPayment ? state.eventIntegration : order?.integration ?? null;
    // The outcome written at `version` (settled or not by its kind), the lease released. A
    // version handled with no outcome is a payment recorded before the loop existed, which the
    // migration took as handled and settled: it stays settled (seen again after a quarantined
    // event of it made it due, it is not checked at every recoverAfterSecs from then on).
    const complete = (version, outcome, code) => store.complete({
      paymentId, owner, version, outcome, code, recheckClosedSecs,
      settled: outcome === null ? version !== null : SETTLED.has(outcome),
    });
    // A fulfil handled at an earlier version (the stored outcome stays `fulfil` from then on).
    const fulfilledBefore = state.outcome === 'fulfil';
    // The key of a fulfil `handle` was called with (stored before the call), noted or not: with
    // fulfilledBefore false, one that may have run (it threw, or its note was lost).
    const triedKey = state.fulfilVersion === null ? null : `${paymentId}:${state.fulfilVersion}`;

    // Already handled at (or past) what is known: the payment's index of what is due follows.
    const seen = async () => {
      await complete(state.handledVersion, state.outcome, state.code);
      emit({ kind: 'fulfilment', paymentId, statusVersion: state.handledVersion, outcome: 'seen', integration });
      return 'seen';
    };
    // `called`: for a handler that failed, the action and key it was called with.
    const retry = async (code, failure, statusVersion, called) => {
      const attempts = state.attempts + 1;
      const delay = delaySecs(attempts);
      const counted = await store.retry({ paymentId, owner, delaySecs: delay, code, loadedVersion: state.eventVersion });
      const why = failure === undefined ? '' : `: ${describeError(failure)}`;
      const call = called === undefined ? ''
        : ` (handle was called with action ${called.action}, key ${called.idempotencyKey}${called.orderRef === undefined ? '' : `, order_ref ${JSON.stringify(called.orderRef).slice(0, 120)}`})`;
      const about = called === undefined ? {} : { action: called.action, idempotencyKey: called.idempotencyKey };
      if (counted === null) {
        // The lease is no longer this pass's (another pass took it, or an order or a quarantine
        // marked it while this attempt ran): nothing was counted, and the payment is the other
        // pass's, or due at the next one (a marked lease is given back at this pass's end).
        sayLimited(said, `lost their lease after ${code}\u0000${why}`, `fulfilment: ${code} for payment ${paymentId}${call}, not `
          + `counted: its lease is no longer this pass's (another pass took it, or an order or a quarantine marked it), so the `
          + `payment is handled by the pass that holds it, or at the next pass${why}`);
        emit({ kind: 'fulfilment', paymentId, statusVersion, outcome: 'lease_lost', code, integration, ...about });
        return 'lease_lost';
      }
      // A long wait says how to end it once what failed is mended; failing that long (minutes:
      // an outage of what handle or confirm calls, not a blip), it is said at error level.
      const long = delay >= 60;
      const sooner = long ? '; once what failed is fixed, receiver.retryNow() makes it due at the next pass' : '';
      sayLimited(said, `retried with ${code}\u0000${why}`, `fulfilment: ${code} for payment ${paymentId}${call} (attempt ${attempts}; tried again in ${delay} s${sooner})${why}`,
        long ? error : warn);
      emit({ kind: 'fulfilment', paymentId, statusVersion, outcome: 'retry', code, integration, ...about, attempts, retryInSecs: delay });
      return 'retry';
    };

    if (!state.eventDue && !state.recoverDue) {
      if (state.handledVersion !== null) return seen();
      return retry('nothing_due'); // changed between the claim and now: looked at again later
    }

    let answer;
    // Confirmed through the order's account after the event's failed: the event's version
    // says nothing of that account's payment.
    let viaOrder = false;
    try {
      answer = await opts.confirm(paymentId, { order, integration, statusVersion: state.eventVersion });
    } catch (failure) {
      // The event came through another integration than the order's (an event of another
      // integration's secret recorded before the order was: once an order is, the receiver
      // refuses them): the order's account is asked too, and the link then holds the payment
      // for review, rather than a confirm that fails for ever.
      const own = order?.integration ?? null;
      if (!state.hasPayment || order === null || own === integration) {
        // An event verified through the order's integration proves the order's row right: then
        // confirm's key is what is wrong, as for an event with no order.
        return retry('confirm_failed', notFoundHint(failure, integration, order !== null && !state.hasPayment));
      }
      try {
        answer = await opts.confirm(paymentId, { order, integration: own, statusVersion: state.eventVersion });
        viaOrder = true;
      } catch (again) {
        return retry('confirm_failed', new Error(`through the event's integration: ${describeError(failure)}; `
          + `through the order's: ${describeError(again)}`));
      }
    }
    const text = viewText(answer);
    if (text === null) {
      return retry('confirm_invalid', new Error('confirm resolved neither the text of GET /v1/payments/{payment_id} nor a view with its responseText '
        + '(a copy such as { ...view } leaves responseText out: return the view getPayment resolved, as it is)'));
    }
    let view;
    try {
      view = parsePaymentView(text);
    } catch (failure) {
      return retry('view_invalid', failure);
    }
    if (view.payment_id !== paymentId) {
      // Another payment's view (a confirm keyed wrongly): its version must not become this
      // payment's handled one, which would settle it and hide its own later versions.
      return retry('view_invalid', new Error(`confirm answered the view of another payment (${String(view.payment_id).slice(0, 64)}) `
        + `for ${paymentId}: it must fetch GET /v1/payments/{payment_id} of the payment it is given`));
    }
    let version = view.status_version;
    if (state.eventVersion !== null && compareStatusVersions(version, state.eventVersion) < 0) {
      // A view older than the applied event: a stale read (a lagging replica), to fetch
      // again; through the order's account, the event's version (of another integration's
      // secret) is the one handled, so that the payment is not due again.
      if (!viaOrder) return retry('view_stale', staleView(version, state.eventVersion, state.attempts + 1), version);
      version = state.eventVersion;
    }
    if (state.handledVersion !== null && compareStatusVersions(version, state.handledVersion) <= 0) return seen();

    const link = linkEvent(order, text, { integration });
    let action;
    let outcome;
    let code = null;
    if (!link.linked) {
      action = 'review';
      outcome = 'needs_review';
      code = link.code;
    } else {
      try {
        action = opts.policy === undefined ? defaultPolicy(text) : await opts.policy(view, order, { fulfilledBefore, fulfilKey: triedKey });
      } catch (failure) {
        return retry('policy_failed', failure, version);
      }
      if (!ACTIONS.has(action)) {
        error(`fulfilment: the policy answered ${typeof action === 'string' ? `"${action.slice(0, 40)}"` : typeof action}, not 'fulfil', 'review', 'wait' or 'closed'`);
        return retry('policy_invalid', undefined, version);
      }
      outcome = action;
    }
    // The lease lost between the load and the handler: another pass took it (this pass's
    // confirm outlasted the lease), or an order or a quarantine marked it meanwhile. The handler
    // is not called on this pass's view, which may be older than what another pass handled
    // (reported as before a handler: no action); a lease that ran out is said, with its fix.
    const lost = () => {
      const took = (Date.now() - loadedAt) / 1000;
      if (took >= leaseSecs) {
        warn(`fulfilment: the lease on payment ${paymentId} ran out while confirm and the policy ran (${took.toFixed(1)} s, `
          + `leaseSecs ${leaseSecs}) and is no longer this pass's (another pass took it, or an order or a quarantine marked it): `
          + 'handle was not called. Give leaseSecs more than confirm can take (the client\'s timeoutMs times its attempts): '
          + 'while handle runs, the lease is renewed');
      }
      emit({ kind: 'fulfilment', paymentId, outcome: 'lease_lost' });
      return 'lease_lost';
    };
    let idempotencyKey = `${paymentId}:${version}`;
    if (fulfilledBefore && action === 'fulfil') {
      // Fulfilled at an earlier version (the rest of an underpayment the policy accepted came
      // in; paid again after a review): never twice.
      await complete(version, 'fulfil', null);
      emit({ kind: 'fulfilment', paymentId, statusVersion: version, paymentStatus: view.status, action, outcome: 'seen', code: 'fulfilled_before', integration });
      return 'seen';
    }
    if (action === 'fulfil') {
      // A payment's fulfil keeps the key of the version it was first decided at, stored before
      // the handler runs: one that may have run (the process died before its note, or its lease
      // ran out) is repeated under that key even once the payment has moved to a newer
      // version, so the handler's record of the key recognises it.
      const first = await store.intend({ paymentId, owner, version, leaseSecs });
      if (first === null) return lost();
      // The key every fulfil of the payment carries: never one made of what the store answered
      // by mistake (pay_1:undefined would be one key for every version).
      if (typeof first !== 'string' || !DIGITS.test(first)) throw storeAnswer('intend', first, 'a version\'s decimal digits or null');
      idempotencyKey = `${paymentId}:${first}`;
    } else if (!(await renewed(store, paymentId, owner, opts))) {
      // review, wait and closed: the lease checked and renewed as intend does for fulfil.
      return lost();
    }
    const handleFrom = Date.now();
    // Renewed while handle runs, marked or not: no other pass calls it meanwhile (lease.mjs).
    const stopKeeping = keepLease({
      renew: () => renewed(store, paymentId, owner, opts, true),
      leaseSecs,
      misanswered: (failure) => sayLimited(said, 'misanswered renew\u0000', `${handleCall(paymentId, action, idempotencyKey)}: ${failure.message}; `
        + 'its lease is not renewed while handle runs'),
      pastLease: (secs) => sayLimited(said, 'ran past their lease in handle\u0000', `${handleCall(paymentId, action, idempotencyKey)} `
        + `has run ${secs.toFixed(1)} s, past leaseSecs ${leaseSecs}: its lease is kept while `
        + 'it runs, so no other pass takes the payment, and a handle that never settles holds it until this process ends. Bound '
        + 'what handle awaits (an AbortSignal.timeout)'),
    });
    try {
      await opts.handle({
        action,
        view,
        order,
        idempotencyKey,
        paymentId,
        statusVersion: version,
        integration,
        mismatch: link.linked ? null : { code: link.code, message: link.message },
        fulfilledBefore,
        fulfilKey: action === 'fulfil' ? idempotencyKey : triedKey,
      });
    } catch (failure) {
      await stopKeeping();
      return retry('handle_failed', failure, version, { action, idempotencyKey, orderRef: order?.orderRef ?? undefined });
    }
    const kept = await stopKeeping();
    const stored = fulfilledBefore ? 'fulfil' : outcome;
    let handled;
    try {
      handled = await complete(version, stored, code);
    } catch (failure) {
      // handle ran and its outcome was not written: setAside says that it is handled again.
      if (failure !== null && typeof failure === 'object') ranBefore.set(failure, { action, idempotencyKey, attempts: state.attempts });
      throw failure;
    }
    const took = (Date.now() - handleFrom) / 1000;
    if (handled === null || compareStatusVersions(handled, version) < 0) {
      // The lease ended before the note (recordCreated marked it, or it ran out while the store
      // could not renew it) and no pass has handled this version since: the handler ran, its
      // outcome was not written, and the payment is handled again (a fulfil under the same
      // key). Said as such, never as the outcome. (When another pass handled it meanwhile, each
      // reports its own call.) A lease that may have run out has its line, naming leaseSecs (a
      // few a pass, as retries are); a marked one kept renewed does not.
      if (took >= leaseSecs && !kept) {
        sayLimited(said, 'lost their lease in handle\u0000', `${handleCall(paymentId, action, idempotencyKey)} ${tookPastLease(took, leaseSecs)}: its `
          + 'outcome was not written, and the payment is handled again, by another pass meanwhile if one runs: its lease was '
          + 'not renewed while handle ran (the store failed, its renew does not keep a lease an order or a quarantine marked, '
          + `or ${BLOCKED}). A longer leaseSecs rides out a store that fails for a while`);
      }
      emit({ kind: 'fulfilment', paymentId, statusVersion: version, action, outcome: 'lease_lost', code, integration, idempotencyKey });
      return 'lease_lost';
    }
    if (took >= leaseSecs && !kept) {
      // Handled at this version, but the lease may have run out while handle ran: another pass
      // may have taken the payment and called handle too, under the same key.
      sayLimited(said, 'may have run twice\u0000', `${handleCall(paymentId, action, idempotencyKey)} ${tookPastLease(took, leaseSecs)}, and its `
        + `lease was not renewed in time (the store failed, or ${BLOCKED}): another pass may have called handle for it too, under the same key. `
        + 'Keep the event loop free while handle runs (await its work), or give leaseSecs more than handle can take');
    }
    emit({ kind: 'fulfilment', paymentId, statusVersion: version, paymentStatus: view.status, action, outcome, code, integration, idempotencyKey });
    return outcome;
  }

  // A payment whose work threw (never for the merchant's functions or the view: for the loop's
  // own steps) is tried again later, so that one payment failing the same way at every pass
  // cannot hold up the others; when the store cannot even record that, the pass fails.
  async function setAside(paymentId, owner, failure) {
    const ran = failure !== null && typeof failure === 'object' ? ranBefore.get(failure) : undefined;
    const delay = Number.isSafeInteger(ran?.attempts) ? failedDelaySecs(ran.attempts + 1) : FAILED_DELAY_SECS;
    let counted;
    try {
      counted = await store.retry({ paymentId, owner, delaySecs: delay, code: 'pass_failed' });
    } catch {
      // The store down: the pass fails, and its line cannot say which effect runs again. The
      // handler ran: said here, by payment and key, for the operator checking what repeated.
      if (ran !== undefined) {
        error(`fulfilment: handle ran for payment ${paymentId} (action ${ran.action}, key ${ran.idempotencyKey}) and neither its `
          + 'outcome nor a retry could be written: the next pass that takes the payment calls handle again under the same key '
          + `(your record of the key keeps the effect once): ${describeError(failure)}`);
      }
      throw failure;
    }
    if (counted === null) {
      // Its lease taken or marked meanwhile, as in work's retry: the other pass's, or the next.
      error(`fulfilment: pass_failed for payment ${paymentId}, not counted: its lease is no longer this pass's: ${describeError(failure)}`);
      emit({ kind: 'fulfilment', paymentId, outcome: 'lease_lost', code: 'pass_failed' });
      return 'lease_lost';
    }
    if (ran === undefined) {
      error(`fulfilment: pass_failed for payment ${paymentId} (tried again in ${FAILED_DELAY_SECS} s): ${describeError(failure)}`);
      emit({ kind: 'fulfilment', paymentId, outcome: 'retry', code: 'pass_failed', retryInSecs: FAILED_DELAY_SECS });
      return 'retry';
    }
    // The handler ran: the next attempt calls it again, a fulfil under the same key (its
    // record of the key is what keeps the order from shipping twice).
    const again = ran.action === 'fulfil' ? `the fulfil is repeated under the same key, ${ran.idempotencyKey}`
      : `handle is called again (action ${ran.action}, key ${ran.idempotencyKey} while the payment stays at this version)`;
    error(`fulfilment: pass_failed for payment ${paymentId} after handle ran (action ${ran.action}): its outcome was not written; `
      + `in ${delay} s ${again}: ${describeError(failure)}`);
    emit({
      kind: 'fulfilment', paymentId, outcome: 'retry', code: 'pass_failed', retryInSecs: delay, action: ran.action, idempotencyKey: ran.idempotencyKey,
    });
    return 'retry';
  }

  // One pass; `stopping()` is asked between payments (startFulfilment's stop()): once it says
  // so, the payments not yet taken up are given back at once instead of worked.
  async function runPass(options, stopping) {
    needs(store, ['claim', 'load', 'intend', 'complete', 'retry', 'release'], 'fulfil');
    const opts = fulfilOptions(options, 'fulfil');
    try {
      return await claimAndWork(opts, stopping);
    } catch (failure) {
      passFailed();
      throw failure;
    }
  }

  // The owners of passes whose batch could not be given back (the store failed mid-pass and
  // again at the release): given back at the next pass, not held until their leases run out.
  const owed = new Set();
  async function giveBack() {
    for (const earlier of owed) {
      await store.release({ owner: earlier });
      owed.delete(earlier);
    }
  }

  async function claimAndWork(opts, stopping) {
    await ready();
    await giveBack();
    const owner = ownerId();
    const claimed = await store.claim({
      owner, leaseSecs: opts.leaseSecs, batch: opts.batch, recoverAfterSecs: opts.recoverAfterSecs, recheckClosedSecs: opts.recheckClosedSecs,
    });
    const outcomes = {};
    const said = new Map();
    try {
      if (!Array.isArray(claimed) || !claimed.every((id) => typeof id === 'string' && id !== '')) {
        throw storeAnswer('claim', claimed, 'an array of the payment ids it leased');
      }
      pass(claimed.length);
      for (const paymentId of claimed) {
        if (stopping()) {
          // Given back, so that another instance takes them up now, not once the leases run out.
          await store.release({ owner });
          break;
        }
        const outcome = await work(paymentId, owner, opts, said).catch((failure) => setAside(paymentId, owner, failure));
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
      // A lease an order or a quarantine marked while this pass held it (its outcome was not
      // written) is given back now, so that the next pass handles the payment, not a pass once
      // the marked lease runs out; a store that fails here is asked at the next pass.
      if (outcomes.lease_lost > 0) await store.release({ owner }).catch(() => owed.add(owner));
    } catch (failure) {
      // The store failed mid-pass: what this pass still holds is given back (else its leases
      // expire); a store still down is asked again at the next pass (giveBack).
      await store.release({ owner }).catch(() => owed.add(owner));
      throw failure;
    } finally {
      for (const [cause, lines] of said) {
        if (lines > LINES_PER_CAUSE) {
          warn(`fulfilment: ${lines - LINES_PER_CAUSE} more payments ${cause.split('\u0000')[0]} for the same cause in this `
            + `pass (the first ${LINES_PER_CAUSE} are logged above with it; onOutcome has each payment)`);
        }
      }
    }
    return { claimed: claimed.length, outcomes, more: claimed.length >= opts.batch };
  }

  // A warning for `cause` ("<what the payments met>\0<why>"), the first LINES_PER_CAUSE times
  // a pass meets it (the rest are counted in one line at the pass's end).
  function sayLimited(said, cause, line, log = warn) {
    const lines = (said.get(cause) ?? 0) + 1;
    said.set(cause, lines);
    if (lines <= LINES_PER_CAUSE) log(line);
  }

  const fulfil = (options) => runPass(options, () => false);

  const startFulfilment = scheduler({
    checkOptions: (options) => {
      // Unknown keys first: a mistyped intervalMs (intervalMS) is named as such, not as missing.
      checkKeys(options, ['intervalMs', ...FULFIL_OPTIONS], 'startFulfilment');
      const { intervalMs, ...rest } = options;
      integer(intervalMs, 'intervalMs', [1, 86_400_000]);
      fulfilOptions(rest, 'startFulfilment');
      needs(store, ['claim', 'load', 'intend', 'complete', 'retry', 'release'], 'startFulfilment');
    },
    runPass,
    // Once stopped: the leases a failed release owed, given back now rather than left to run
    // out (a store still down leaves them to).
    finish: () => giveBack().catch(() => {}),
    error,
  });

  return { recordCreated, checkRecordable, fulfil, startFulfilment, quarantined };
}
