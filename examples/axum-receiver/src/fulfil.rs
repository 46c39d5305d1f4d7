//! The merchant loop, as the npm receiver's `fulfil` runs it, with the same statements
//! (`sql/*.sql`) and the same core functions: a pass leases the payments whose applied facts
//! changed since they were last handled and the orders with no news for `RECOVER_AFTER_SECS`
//! (a delivery may be lost); for each, the authoritative view (`GET /v1/payments/{id}`, read
//! with `PaymentView::from_json`), the link to the order (`link_event`: a mismatch is held for
//! review, never fulfilled), the policy (`default_policy`), then the handler, here a line on
//! stdout saying what a shop would do. The version handled is stored only once the handler
//! returned, never lowered: a crash repeats a handler call, never skips one. A payment is
//! fulfilled at one version only (the stored outcome stays `fulfil`), and a payment whose own
//! step fails is set aside for a minute while the pass goes on, as in the npm receiver.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use cryptopay_verify::{
    FulfilmentAction, Order, PaymentView, SourceAmount, StatusVersion, default_policy, link_event,
};

use crate::service::Service;
use crate::store::{Completion, Lease, Leased, Retry, Store, Unavailable};

/// How long a lease holds (another instance takes a crashed one's work over after it).
const LEASE_SECS: i32 = 300;
const BATCH: i32 = 20;
/// Passes every `interval`, at once again after a full batch; a failed pass is logged. Ends
/// once `stop` turns true: after the payment under way, the rest of the batch given back (its
/// leases released, so that another instance takes them up at once).
pub async fn run(
    store: Arc<Store>,
    service: Service,
    interval: Duration,
    recover_after_secs: i32,
    mut stop: watch::Receiver<bool>,
) {
    // A lease's owner names this process among all instances: replicas in containers often
    // share a pid (1), so the start time (nanoseconds) goes with it.
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let mut passes: u64 = 0;
    // The owners of passes whose batch the store could not take back when they failed: given
    // back at the next pass, not held until their leases run out.
    let mut owed: Vec<String> = Vec::new();
    while !*stop.borrow() {
        passes = passes.wrapping_add(1);
        let owner = format!("axum-{}-{started:x}-{passes}", std::process::id());
        match pass(
            &store,
            &service,
            &owner,
            recover_after_secs,
            &stop,
            &mut owed,
        )
        .await
        {
            Ok(claimed) if claimed >= usize::try_from(BATCH).unwrap_or(usize::MAX) => continue,
            Ok(_) => {}
            Err(Unavailable(why)) => eprintln!(
                "fulfilment: a pass failed ({why}); the next one in {} ms",
                interval.as_millis()
            ),
        }
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            _ = stop.changed() => {}
        }
    }
}

/// One pass; returns how many payments it claimed.
async fn pass(
    store: &Store,
    service: &Service,
    owner: &str,
    recover_after_secs: i32,
    stop: &watch::Receiver<bool>,
    owed: &mut Vec<String>,
) -> Result<usize, Unavailable> {
    while let Some(earlier) = owed.last() {
        store.release(earlier).await?;
        owed.pop();
    }
    let ids = store
        .claim(Lease {
            owner: owner.to_owned(),
            lease_secs: LEASE_SECS,
            batch: BATCH,
            recover_after_secs,
        })
        .await?;
    for id in &ids {
        if *stop.borrow() {
            // Stopping: what this pass still holds is given back.
            store.release(owner).await?;
            break;
        }
        if let Err(failure) = take_up(store, service, owner, id, recover_after_secs).await {
            // The store failed mid-pass: what this pass still holds is given back, so that the
            // next pass takes it up at once, not once the leases run out (by the next pass,
            // when the store is still down now).
            if store.release(owner).await.is_err() {
                owed.push(owner.to_owned());
            }
            return Err(failure);
        }
    }
    if !ids.is_empty() {
        // A lease an order or a quarantine marked while this pass held it (the payment's
        // outcome was not written) is given back, so that the next pass takes the payment up,
        // not one once the lease runs out; a store down now is asked at the next pass.
        if store.release(owner).await.is_err() {
            owed.push(owner.to_owned());
        }
    }
    Ok(ids.len())
}

/// One claimed payment: loaded and worked; one whose loading or work fails is set aside, so
/// that it holds up no other (as the npm receiver's pass does). Fails when the store cannot
/// record even that.
async fn take_up(
    store: &Store,
    service: &Service,
    owner: &str,
    id: &str,
    recover_after_secs: i32,
) -> Result<(), Unavailable> {
    let worked = match store.load(id, owner, recover_after_secs, LEASE_SECS).await {
        Ok(Some(state)) if state.leased => work(store, service, owner, id, state).await,
        Ok(_) => Ok(()),
        Err(failure) => Err(failure),
    };
    if let Err(failure) = worked {
        let retry = Retry {
            payment_id: id,
            owner,
            delay_secs: FAILED_DELAY_SECS,
            code: "pass_failed",
            loaded: None,
        };
        store.retry(retry).await.map_err(|_| failure)?;
        eprintln!(
            "fulfilment: pass_failed for payment {id} (tried again in {FAILED_DELAY_SECS} s)"
        );
    }
    Ok(())
}

/// How long a payment whose own step failed is set aside.
const FAILED_DELAY_SECS: i64 = 60;

/// 1, 2, 4 ... seconds, at most an hour, after each failed attempt.
fn delay_secs(attempts: i64) -> i64 {
    let exponent = u32::try_from(attempts.saturating_sub(1).clamp(0, 12)).unwrap_or(12);
    2_i64.saturating_pow(exponent).min(3600)
}

const SETTLED: [&str; 3] = ["fulfil", "closed", "needs_review"];

async fn work(
    store: &Store,
    service: &Service,
    owner: &str,
    payment_id: &str,
    state: Leased,
) -> Result<(), Unavailable> {
    // The applied version this attempt loaded ("" for none): see `Store::retry`.
    let loaded = state.event_version.clone().unwrap_or_default();
    let loaded = loaded.as_str();
    let retry = |code: &'static str, why: String| async move {
        let attempts = state.attempts.saturating_add(1);
        let delay = delay_secs(attempts);
        eprintln!(
            "fulfilment: {code} for payment {payment_id} (attempt {attempts}; tried again in {delay} s): {why}"
        );
        let loaded = Some(loaded);
        store
            .retry(Retry {
                payment_id,
                owner,
                delay_secs: delay,
                code,
                loaded,
            })
            .await
    };
    // The outcome written at `version`, settled or not by its kind. A version handled with no
    // outcome is a payment recorded before the loop existed, which the migration took as
    // handled and settled: it stays so (seen again after a quarantined event of it made it
    // due, it is not checked at every interval from then on).
    let complete = |version: String, outcome: Option<String>, code: Option<String>| Completion {
        payment_id: payment_id.to_owned(),
        owner: owner.to_owned(),
        settled: outcome
            .as_deref()
            .is_none_or(|outcome| SETTLED.contains(&outcome)),
        version,
        outcome,
        code,
    };
    // Already handled at (or past) what is known: the payment's index of what is due follows.
    let seen = |state: &Leased| {
        state
            .handled_version
            .clone()
            .map(|version| complete(version, state.outcome.clone(), state.code.clone()))
    };
    if !state.event_due && !state.recover_due {
        return match seen(&state) {
            Some(done) => store.complete(done).await,
            None => retry("nothing_due", "changed since the claim".to_owned()).await,
        };
    }
    let text = match service.payment(payment_id).await {
        Ok(text) => text,
        Err(why) => return retry("confirm_failed", why).await,
    };
    let view = match PaymentView::from_json(&text) {
        Ok(view) => view,
        Err(e) => return retry("view_invalid", e.code().to_owned()).await,
    };
    // A view of another payment (a proxy or a cache that answered the wrong one) never sets
    // this payment's version: its own later events would no longer be due.
    if view.payment_id != payment_id {
        return retry("view_invalid", "the view is of another payment".to_owned()).await;
    }
    let version_of =
        |text: &Option<String>| text.as_deref().and_then(|v| StatusVersion::parse(v).ok());
    // A view older than the applied event: a stale read, to fetch again.
    if version_of(&state.event_version).is_some_and(|event| view.status_version < event) {
        return retry("view_stale", "the view is older than the event".to_owned()).await;
    }
    if version_of(&state.handled_version).is_some_and(|handled| view.status_version <= handled) {
        return match seen(&state) {
            Some(done) => store.complete(done).await,
            None => Ok(()),
        };
    }
    // The integration of the event (none here: one set of secrets), else the order's.
    let integration = if state.has_payment {
        state.event_integration.clone()
    } else {
        state.order.as_ref().and_then(|o| o.integration.clone())
    };
    let order = match &state.order {
        None => None,
        Some(stored) => match SourceAmount::from_json(&stored.source_amount) {
            Ok(source_amount) => {
                let mut order = Order::new(payment_id, source_amount);
                order.order_ref = stored.order_ref.clone();
                order.integration = stored.integration.clone();
                Some(order)
            }
            Err(e) => return retry("order_invalid", e.code().to_owned()).await,
        },
    };
    // A fulfil handled at an earlier version: the stored outcome stays `fulfil` from then on.
    let fulfilled_before = state.outcome.as_deref() == Some("fulfil");
    let (action, outcome, code) = match link_event(order.as_ref(), &view, integration.as_deref()) {
        Ok(()) => {
            let action = default_policy(&view);
            (action, action.as_str().to_owned(), None)
        }
        Err(mismatch) => (
            FulfilmentAction::Review,
            "needs_review".to_owned(),
            Some(mismatch.code().to_owned()),
        ),
    };
    let version = view.status_version.as_str().to_owned();
    if fulfilled_before && action == FulfilmentAction::Fulfil {
        // Fulfilled at an earlier version: never twice.
        return store
            .complete(complete(version, Some("fulfil".to_owned()), None))
            .await;
    }
    let stored = if fulfilled_before {
        "fulfil".to_owned()
    } else {
        outcome
    };
    // A payment's fulfil keeps the key of the version it was first decided at, stored before
    // the handler runs: one that may have run (the process died before its note, or its lease
    // ran out) is repeated under that key once the payment has moved on. Any other action: the
    // lease checked and renewed as intend does, so that a pass whose lease another pass took
    // (its confirm slower than the lease) never acts on its older view.
    let keyed = if action == FulfilmentAction::Fulfil {
        store
            .intend(payment_id, owner, &version, LEASE_SECS)
            .await?
    } else if store.renew(payment_id, owner, LEASE_SECS).await? {
        Some(version.clone())
    } else {
        None
    };
    let Some(keyed) = keyed else {
        // The lease was lost (another pass took it, or an order or a quarantine marked it):
        // the pass that holds it handles the payment.
        println!(
            "fulfilment: payment {payment_id}: lease lost before the handler; another pass handles it"
        );
        return Ok(());
    };
    // The handler: what fulfilling means for a shop. Here, a line saying what it would do; a
    // real one passes the key to its own systems (a repeat after a crash is recognised there).
    let key = format!("{payment_id}:{keyed}");
    let what = match &order {
        Some(order) => format!(
            "order {}",
            order.order_ref.as_deref().unwrap_or("(no order_ref)")
        ),
        None => "a payment no order of ours holds".to_owned(),
    };
    let about = format!(
        "payment {payment_id}, {} at version {}; key {key}",
        view.status,
        view.status_version.as_str()
    );
    match action {
        FulfilmentAction::Fulfil => println!("fulfilment: would ship {what} ({about})"),
        FulfilmentAction::Review => println!(
            "fulfilment: would hold {what} for review ({}; {about})",
            code.as_deref().unwrap_or(&view.status)
        ),
        FulfilmentAction::Closed => {
            println!("fulfilment: would release {what}: not paid ({about})")
        }
        FulfilmentAction::Wait => println!("fulfilment: {what} waits ({about})"),
    }
    store.complete(complete(version, Some(stored), code)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_to_an_hour() {
        assert_eq!(
            (delay_secs(1), delay_secs(2), delay_secs(3), delay_secs(40)),
            (1, 2, 4, 3600)
        );
    }
}
