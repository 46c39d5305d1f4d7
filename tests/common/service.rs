//! The runners of the service's rules (`tests/vectors/service.json`): the payment state
//! machine, creation idempotency, the delivery schedule and the service's API errors.

use cryptopay_verify::*;
use serde_json::{Value, json};

use super::Answer;

fn invalid() -> Error {
    Error::new(ErrorKind::InvalidArgument)
}

/// A state as the vectors spell it (camelCase, big numbers as strings).
fn state_json(state: &PaymentState) -> Value {
    json!({
        "status": state.status().as_str(),
        "statusVersion": state.status_version().as_str(),
        "amountRaw": state.amount_raw(),
        "amountReceivedRaw": state.amount_received_raw(),
        "consumerAccess": state.consumer_access(),
    })
}

/// A stored state, read in the order `status`, `statusVersion`, `amountRaw`,
/// `amountReceivedRaw`, `consumerAccess`.
fn read_state(value: &Value) -> Result<PaymentState, Error> {
    let status = value["status"]
        .as_str()
        .and_then(PaymentStatus::parse)
        .ok_or_else(invalid)?;
    let version = value["statusVersion"]
        .as_str()
        .ok_or(Error::new(ErrorKind::StatusVersionInvalid))?;
    let version = StatusVersion::parse(version)?;
    let amount = |key: &str| {
        value[key]
            .as_str()
            .ok_or(Error::new(ErrorKind::AmountRawInvalid))
    };
    let (amount_raw, received) = (amount("amountRaw")?, amount("amountReceivedRaw")?);
    let access = value["consumerAccess"].as_bool().ok_or_else(invalid)?;
    PaymentState::from_parts(status, version, amount_raw, received, access)
}

/// A list of retry delays: integers from 0 up (the range is the function's to check).
fn delays(value: &Value) -> Result<Vec<u64>, Error> {
    value
        .as_array()
        .ok_or_else(invalid)?
        .iter()
        .map(|delay| delay.as_u64().ok_or_else(invalid))
        .collect()
}

/// `"network_failure"`, or an integer: an HTTP status (any integer outside 100 to 599,
/// however large or negative, is no HTTP status: a protocol failure, as a network one).
fn answer(value: &Value) -> Result<DeliveryAnswer, Error> {
    match value {
        Value::String(s) if s == "network_failure" => Ok(DeliveryAnswer::NetworkFailure),
        Value::Number(n) => Ok(n
            .as_i64()
            .and_then(|n| u16::try_from(n).ok())
            .map_or(DeliveryAnswer::NetworkFailure, DeliveryAnswer::Status)),
        _ => Err(invalid()),
    }
}

fn new_payment_state(case: &Value) -> Answer {
    let amount_raw = case["amountRaw"]
        .as_str()
        .ok_or(Error::new(ErrorKind::AmountRawInvalid))?;
    let state = PaymentState::new(amount_raw)?;
    Ok(json!({ "state": state_json(&state) }))
}

fn apply_payment_action(case: &Value) -> Answer {
    let state = read_state(&case["state"])?;
    let action = &case["action"];
    let name = action["action"].as_str().ok_or_else(invalid)?;
    // A non-string amount is never an amount_raw: it is refused at its place in pay's
    // order of checks (after the consumer access), as a bad string would be.
    let amount_raw = action
        .get("amountRaw")
        .map(|amount| amount.as_str().unwrap_or("\0"));
    let action = PaymentAction::parse(name, amount_raw).ok_or_else(invalid)?;
    let applied = state.apply(action)?;
    let events: Vec<Value> = applied.events.iter().map(state_json).collect();
    Ok(json!({ "state": state_json(&applied.state), "events": events }))
}

fn next_step(case: &Value) -> Answer {
    let attempt = case["attempt"]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(invalid)?;
    let answer = answer(&case["answer"])?;
    let step = next_delivery_step(attempt, answer, &delays(&case["retryDelaysMs"])?)?;
    Ok(match step {
        DeliveryStep::Retry { delay_ms } => json!({ "step": step.as_str(), "delayMs": delay_ms }),
        _ => json!({ "step": step.as_str() }),
    })
}

/// Runs one case of the service's functions; `None` for another function.
pub(crate) fn run(function: &str, case: &Value) -> Option<Answer> {
    Some(match function {
        "newPaymentState" => new_payment_state(case),
        "applyPaymentAction" => apply_payment_action(case),
        "checkIdempotency" => {
            let stored = case
                .get("storedFingerprint")
                .map(|s| s.as_str().expect("storedFingerprint"));
            let fingerprint = case["fingerprint"].as_str().expect("fingerprint");
            Ok(json!({ "check": check_idempotency(stored, fingerprint).as_str() }))
        }
        "nextDeliveryStep" => next_step(case),
        "validateRetryDelays" => delays(&case["retryDelaysMs"])
            .and_then(|d| validate_retry_delays(&d))
            .map(|()| json!({}))
            .map_err(Into::into),
        "apiErrorStatus" => {
            let code = case["code"].as_str().expect("code");
            ApiError::from_code(code)
                .map(|e| json!({ "status": e.status() }))
                .ok_or_else(|| invalid().into())
        }
        _ => return None,
    })
}
