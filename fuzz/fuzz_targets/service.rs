//! The payment service's rules: `PaymentState::new`, `PaymentState::from_parts`,
//! `PaymentState::apply` over a sequence of actions, `PaymentAction::parse`,
//! `check_idempotency`, `validate_retry_delays` and `next_delivery_step`, against an
//! independent model written from their documentation (amounts and versions as base 10^9
//! limbs, `cryptopay_verify_fuzz::Nat`, not the crate's digit strings).
//!
//! No panic; only documented codes; a start state is refused exactly when the documented
//! rules refuse it. For each action: a refused action is the model's refusal, with its code
//! and HTTP status, and changes nothing; an accepted one is the model's result, its `events`
//! each raise `status_version` by exactly 1 in order and the last is `state` (or there is no
//! event and status and version are unchanged); `amount_received_raw` never decreases and is
//! the exact sum of the start and the accepted payments (checked with `u128` as well when it
//! fits). `next_delivery_step` never panics, answers as the documented table says, and a
//! delivery loop retries at most `delays.len()` times (exactly that many when every answer is
//! retryable).
//!
//! Input, one field per line (a field `*N:UNIT` is UNIT repeated N times, for numbers of
//! thousands of digits):
//! - the start: a status name (then `from_parts` with the status version, `amount_raw`,
//!   `amount_received_raw` and the consumer access, `0` or `false` for off, on the next four
//!   lines), `new` (then `new` with the `amount_raw` on the next line), or anything else
//!   (its first byte picks one of those nine);
//! - then one action per line, `NAME` or `NAME AMOUNT` (`pay 500`); a line that is not an
//!   action by `PaymentAction::parse` is read as one anyway, its first byte picking the
//!   action and the rest of the line being the amount;
//! - after a line `--`: the delivery attempt, the answers (`,`-separated HTTP statuses, `net`
//!   for a network failure), then one retry delay (milliseconds) per line.
#![no_main]

use std::cmp::Ordering;

use cryptopay_verify::{
    ApiError, Applied, DeliveryAnswer, DeliveryStep, ErrorKind, IdempotencyCheck,
    MAX_RETRY_DELAY_MS, MAX_RETRY_DELAYS, PaymentAction, PaymentState, PaymentStatus,
    StatusVersion, check_idempotency, next_delivery_step, validate_retry_delays,
};
use cryptopay_verify_fuzz::{
    Fields, Nat, amount_raw_ok, check_error, checked, expand, number, unsigned_digits,
};
use libfuzzer_sys::fuzz_target;

/// The most actions applied from one input.
const MAX_ACTIONS: usize = 64;

const NAMES: [&str; 8] = [
    "pay",
    "pay_held",
    "settle",
    "review",
    "expire",
    "cancel",
    "disable_consumer_access",
    "open_checkout",
];

/// A payment state as the model holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Model {
    status: PaymentStatus,
    version: Nat,
    amount: Nat,
    received: Nat,
    access: bool,
}

impl Model {
    /// The model of a state, after checking that its texts are exact canonical numbers.
    fn of(state: &PaymentState) -> Model {
        let version = state.status_version().as_str();
        assert!(
            unsigned_digits(version) && version != "0",
            "status_version {version:?} is not digits from 1"
        );
        assert!(amount_raw_ok(state.amount_raw()), "amount_raw not valid");
        let received = state.amount_received_raw();
        assert!(
            unsigned_digits(received),
            "amount_received_raw {received:?}"
        );
        Model {
            status: state.status(),
            version: Nat::parse(version).expect("digits"),
            amount: Nat::parse(state.amount_raw()).expect("digits"),
            received: Nat::parse(received).expect("digits"),
            access: state.consumer_access(),
        }
    }

    /// This state with another status and the next version.
    fn changed(&self, status: PaymentStatus) -> Model {
        Model {
            status,
            version: self.version.add(&Nat::from_u64(1)),
            ..self.clone()
        }
    }
}

/// What an action must do, by `PaymentState::apply`'s documentation.
#[derive(Debug)]
enum Want {
    /// Refused with this code.
    Refused(&'static str),
    /// Accepted with no event: this state.
    Quiet(Model),
    /// Accepted with these changes, in order.
    Changes(Vec<Model>),
}

fn want(m: &Model, action: &PaymentAction<'_>) -> Want {
    use PaymentStatus::{Cancelled, Open, Overpaid, Paid, PartiallyPaid};
    let one = |status| Want::Changes(vec![m.changed(status)]);
    let settle = |confirming: &Model| {
        let settled = match confirming.received.cmp(&m.amount) {
            Ordering::Less => PartiallyPaid,
            Ordering::Equal => Paid,
            Ordering::Greater => Overpaid,
        };
        confirming.changed(settled)
    };
    match *action {
        PaymentAction::Pay { amount_raw } | PaymentAction::PayHeld { amount_raw } => {
            if !m.access {
                return Want::Refused("consumer_access_disabled");
            }
            if !amount_raw_ok(amount_raw) {
                return Want::Refused("amount_raw_invalid");
            }
            if !matches!(m.status, Open | PartiallyPaid) {
                return Want::Refused("payment_not_payable");
            }
            let paid = Nat::parse(amount_raw).expect("a valid amount is digits");
            let confirming = Model {
                received: m.received.add(&paid),
                ..m.changed(PaymentStatus::Confirming)
            };
            if matches!(action, PaymentAction::PayHeld { .. }) {
                return Want::Changes(vec![confirming]);
            }
            let last = settle(&confirming);
            Want::Changes(vec![confirming, last])
        }
        PaymentAction::Settle => match m.status {
            PaymentStatus::Confirming => Want::Changes(vec![settle(m)]),
            _ => Want::Refused("payment_not_confirming"),
        },
        PaymentAction::Review => match m.status {
            Open | Paid | PartiallyPaid | Overpaid => one(PaymentStatus::ReviewRequired),
            _ => Want::Refused("payment_not_reviewable"),
        },
        PaymentAction::Expire => match m.status {
            Open | PartiallyPaid => one(PaymentStatus::Expired),
            _ => Want::Refused("payment_not_expirable"),
        },
        PaymentAction::Cancel => match m.status {
            Cancelled => Want::Quiet(m.clone()),
            Open if m.received == Nat::zero() => one(Cancelled),
            _ => Want::Refused("payment_not_cancellable"),
        },
        PaymentAction::DisableConsumerAccess => Want::Quiet(Model {
            access: false,
            ..m.clone()
        }),
        PaymentAction::OpenCheckout if m.access => Want::Quiet(m.clone()),
        PaymentAction::OpenCheckout => Want::Refused("consumer_access_disabled"),
        _ => panic!("an action this target does not know: {action:?}"),
    }
}

/// An action's refusal: a documented code with its HTTP status, and the Display form.
fn check_refusal(error: &ApiError, code: &str) {
    assert_eq!(error.code(), code, "refused with another code");
    match error {
        ApiError::Invalid(e) => {
            check_error(e, &[ErrorKind::AmountRawInvalid]);
            assert_eq!(error.status(), 400);
        }
        other => {
            assert_eq!(ApiError::from_code(code), Some(*other));
            let status = if code == "consumer_access_disabled" {
                403
            } else {
                409
            };
            assert_eq!(error.status(), status);
        }
    }
    assert!(error.to_string().starts_with(code));
}

/// The start state from the first lines; `None` when the start is refused (checked).
fn start(fields: &mut Fields<'_>) -> Option<PaymentState> {
    let line = fields.line();
    let text = String::from_utf8_lossy(line);
    let status = match (PaymentStatus::parse(&text), text.as_ref()) {
        (Some(status), _) => Some(status),
        (None, "new") => None,
        _ => {
            let pick = usize::from(line.first().copied().unwrap_or(0)) % 9;
            PaymentStatus::ALL.get(pick).copied()
        }
    };
    let Some(status) = status else {
        let amount = expand(fields.line());
        let state = checked(PaymentState::new(&amount), &[ErrorKind::AmountRawInvalid]);
        assert_eq!(state.is_ok(), amount_raw_ok(&amount), "new({amount:?})");
        let state = state.ok()?;
        assert_eq!(
            Model::of(&state),
            Model {
                status: PaymentStatus::Open,
                version: Nat::from_u64(1),
                amount: Nat::parse(&amount).expect("digits"),
                received: Nat::zero(),
                access: true,
            }
        );
        assert_eq!(
            (state.amount_raw(), state.amount_received_raw()),
            (amount.as_str(), "0")
        );
        return Some(state);
    };
    let version = expand(fields.line());
    let amount = expand(fields.line());
    let received = expand(fields.line());
    let access = !matches!(fields.line(), b"0" | b"false");
    let parsed = checked(
        StatusVersion::parse(&version),
        &[ErrorKind::StatusVersionInvalid],
    );
    assert_eq!(
        parsed.is_ok(),
        unsigned_digits(&version),
        "parse({version:?})"
    );
    let parsed = parsed.ok()?;
    let state = checked(
        PaymentState::from_parts(status, parsed, &amount, &received, access),
        &[ErrorKind::StatusVersionInvalid, ErrorKind::AmountRawInvalid],
    );
    let expected = if version == "0" {
        Err(ErrorKind::StatusVersionInvalid)
    } else if !amount_raw_ok(&amount) || !unsigned_digits(&received) {
        Err(ErrorKind::AmountRawInvalid)
    } else {
        Ok(())
    };
    assert_eq!(
        state.as_ref().map(|_| ()).map_err(|e| e.kind()),
        expected,
        "from_parts({status}, {version:?}, {amount:?}, {received:?})"
    );
    let state = state.ok()?;
    assert_eq!(state.status(), status);
    assert_eq!(state.status_version().as_str(), version);
    assert_eq!(state.amount_raw(), amount);
    assert_eq!(state.amount_received_raw(), received);
    assert_eq!(state.consumer_access(), access);
    Some(state)
}

/// An action line: its name and amount as `PaymentAction::parse` reads them, or, when that
/// refuses them, an action picked by its first byte with the rest as the amount.
fn action_text(line: &[u8]) -> (String, Option<String>) {
    let text = String::from_utf8_lossy(line);
    let (name, amount) = match text.split_once(' ') {
        Some((name, amount)) => (name.to_owned(), Some(expand(amount.as_bytes()))),
        None => (text.into_owned(), None),
    };
    let parsed = PaymentAction::parse(&name, amount.as_deref());
    let paid = |name: &str| name == "pay" || name == "pay_held";
    let known = NAMES.contains(&name.as_str()) && paid(&name) == amount.is_some();
    assert_eq!(
        parsed.is_some(),
        known,
        "PaymentAction::parse({name:?}, {amount:?})"
    );
    if let Some(action) = parsed {
        assert_eq!(action.as_str(), name);
        return (name, amount);
    }
    let pick = usize::from(line.first().copied().unwrap_or(0)) % NAMES.len();
    let name = NAMES.get(pick).copied().unwrap_or("pay").to_owned();
    let rest = line.get(1..).unwrap_or_default();
    let amount = paid(&name).then(|| expand(rest));
    (name, amount)
}

/// Applies one action, checking it against the model and the invariants; the new state.
fn step(
    state: PaymentState,
    action: PaymentAction<'_>,
    total: &mut Nat,
    total_u128: &mut Option<u128>,
) -> PaymentState {
    let before = state.clone();
    let model = Model::of(&state);
    let want = want(&model, &action);
    let applied = state.apply(action);
    assert_eq!(state, before, "apply changed the state it was given");
    let applied: Applied = match (applied, want) {
        (Err(error), Want::Refused(code)) => {
            check_refusal(&error, code);
            return state;
        }
        (Ok(applied), Want::Quiet(expected)) => {
            assert!(
                applied.events.is_empty(),
                "{action:?}: events where none are sent"
            );
            assert_eq!(Model::of(&applied.state), expected, "{action:?}");
            applied
        }
        (Ok(applied), Want::Changes(expected)) => {
            let got: Vec<Model> = applied.events.iter().map(Model::of).collect();
            assert_eq!(got, expected, "{action:?}: other events");
            applied
        }
        (got, want) => panic!("{action:?} on {model:?}: {got:?}, the model says {want:?}"),
    };
    let (next, events) = (applied.state, applied.events);

    // The invariants, stated on the crate's own values.
    match events.last() {
        None => {
            assert_eq!(
                next.status(),
                state.status(),
                "a quiet action changed the status"
            );
            assert_eq!(next.status_version(), state.status_version());
            assert_eq!(next.amount_received_raw(), state.amount_received_raw());
        }
        Some(last) => assert_eq!(last, &next, "the last event is not the final state"),
    }
    let mut version = Nat::parse(state.status_version().as_str()).expect("digits");
    let mut received = Nat::parse(state.amount_received_raw()).expect("digits");
    for event in &events {
        version = version.add(&Nat::from_u64(1));
        assert_eq!(
            event.status_version().as_str(),
            version.to_string(),
            "an event does not raise status_version by exactly 1"
        );
        assert!(
            event.status_version() > state.status_version(),
            "StatusVersion's order disagrees"
        );
        let now = Nat::parse(event.amount_received_raw()).expect("digits");
        assert!(now >= received, "amount_received_raw decreased");
        received = now;
        assert_eq!(event.amount_raw(), state.amount_raw());
        assert_eq!(event.consumer_access(), state.consumer_access());
    }
    if let PaymentAction::Pay { amount_raw } | PaymentAction::PayHeld { amount_raw } = action {
        let paid = Nat::parse(amount_raw).expect("an accepted amount is digits");
        *total = total.add(&paid);
        *total_u128 = total_u128.and_then(|t| t.checked_add(paid.to_u128()?));
    }
    assert_eq!(
        next.amount_received_raw(),
        total.to_string(),
        "not the sum paid"
    );
    if let Some(t) = total_u128 {
        assert_eq!(
            next.amount_received_raw(),
            t.to_string(),
            "not the u128 sum"
        );
    }
    next
}

fn answer(token: &str) -> DeliveryAnswer {
    if token.is_empty() || token == "net" {
        DeliveryAnswer::NetworkFailure
    } else {
        DeliveryAnswer::Status(number(token.as_bytes()) as u16)
    }
}

/// What the documented table says of an answer: `Some(true)` retryable, `Some(false)`
/// acknowledged, `None` failed permanently.
fn retryable(answer: DeliveryAnswer) -> Option<bool> {
    match answer {
        DeliveryAnswer::NetworkFailure => Some(true),
        DeliveryAnswer::Status(s) if !(100..=599).contains(&s) => Some(true),
        DeliveryAnswer::Status(200..=299) => Some(false),
        DeliveryAnswer::Status(408 | 425 | 429 | 500..=599) => Some(true),
        DeliveryAnswer::Status(_) => None,
    }
}

fn expected_step(attempt: u32, answer: DeliveryAnswer, delays: &[u64]) -> DeliveryStep {
    match retryable(answer) {
        Some(false) => DeliveryStep::Acknowledged,
        None => DeliveryStep::FailedPermanently,
        Some(true) => match delays.get((attempt as usize).wrapping_sub(1)) {
            Some(&delay_ms) if attempt as usize <= delays.len() => DeliveryStep::Retry { delay_ms },
            _ => DeliveryStep::Exhausted,
        },
    }
}

fn delivery(fields: &mut Fields<'_>) {
    let attempt = number(fields.line()) as u32;
    let answers: Vec<DeliveryAnswer> = fields.text().split(',').map(answer).collect();
    let mut delays = Vec::new();
    while fields.has_more() && delays.len() <= MAX_RETRY_DELAYS + 2 {
        delays.push(number(fields.line()));
    }
    let valid = delays.len() <= MAX_RETRY_DELAYS && delays.iter().all(|&d| d <= MAX_RETRY_DELAY_MS);
    let checked_delays = checked(
        validate_retry_delays(&delays),
        &[ErrorKind::InvalidArgument],
    );
    assert_eq!(
        checked_delays.is_ok(),
        valid,
        "validate_retry_delays({delays:?})"
    );

    let first = answers
        .first()
        .copied()
        .unwrap_or(DeliveryAnswer::NetworkFailure);
    let got = checked(
        next_delivery_step(attempt, first, &delays),
        &[ErrorKind::InvalidArgument],
    );
    let want = (attempt != 0 && valid).then(|| expected_step(attempt, first, &delays));
    assert_eq!(
        got.ok(),
        want,
        "next_delivery_step({attempt}, {first:?}, {delays:?})"
    );

    // A delivery loop on a valid schedule, the answers taken in turn.
    let schedule: Vec<u64> = delays
        .iter()
        .take(MAX_RETRY_DELAYS)
        .map(|d| d % (MAX_RETRY_DELAY_MS + 1))
        .collect();
    let mut retries = 0;
    let mut attempt = 1u32;
    let last = loop {
        let answer = answers
            .get((attempt as usize - 1) % answers.len())
            .copied()
            .unwrap_or(DeliveryAnswer::NetworkFailure);
        let step = next_delivery_step(attempt, answer, &schedule).expect("a valid schedule");
        assert_eq!(step, expected_step(attempt, answer, &schedule));
        match step {
            DeliveryStep::Retry { .. } => {
                retries += 1;
                assert!(retries <= schedule.len(), "more retries than delays");
                attempt += 1;
            }
            other => break other,
        }
    };
    if answers.iter().all(|&a| retryable(a) == Some(true)) {
        assert_eq!(retries, schedule.len(), "a retryable answer not retried");
        assert_eq!(last, DeliveryStep::Exhausted);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut fields = Fields::new(data);
    let state = start(&mut fields);
    let mut lines = Vec::new();
    let mut texts = Vec::new();
    while fields.has_more() && lines.len() < MAX_ACTIONS {
        let line = fields.line();
        if line == b"--" {
            delivery(&mut fields);
            break;
        }
        lines.push(action_text(line));
        texts.push(String::from_utf8_lossy(line));
    }

    // The creation-idempotency rule on two of the input's texts (as fingerprints).
    let (a, b) = (
        texts.first().map_or("", |t| t.as_ref()),
        texts.get(1).map_or("", |t| t.as_ref()),
    );
    assert_eq!(check_idempotency(None, a), IdempotencyCheck::New);
    assert_eq!(check_idempotency(Some(a), a), IdempotencyCheck::Replay);
    let check = check_idempotency(Some(a), b);
    let reused = a != b;
    assert_eq!(check == IdempotencyCheck::Reused, reused);
    assert_eq!(check.api_error().is_some(), reused);

    let Some(mut state) = state.or_else(|| PaymentState::new("12800").ok()) else {
        return;
    };
    let mut total = Nat::parse(state.amount_received_raw()).expect("digits");
    let mut total_u128 = total.to_u128();
    for (name, amount) in &lines {
        let action = PaymentAction::parse(name, amount.as_deref()).expect("a readable action");
        state = step(state, action, &mut total, &mut total_u128);
    }
});
