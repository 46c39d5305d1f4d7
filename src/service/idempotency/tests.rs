use super::*;
use crate::request_fingerprint;

#[test]
fn idempotency_compares_fingerprints_exactly() {
    let a = request_fingerprint(b"{\"a\":1}");
    let b = request_fingerprint(b"{\"a\": 1}");
    assert_eq!(check_idempotency(None, &a), IdempotencyCheck::New);
    assert_eq!(check_idempotency(Some(&a), &a), IdempotencyCheck::Replay);
    assert_eq!(check_idempotency(Some(&a), &b), IdempotencyCheck::Reused);
    assert_eq!(
        check_idempotency(Some(&a.to_uppercase()), &a),
        IdempotencyCheck::Reused
    );
    let names: Vec<&str> = [
        IdempotencyCheck::New,
        IdempotencyCheck::Replay,
        IdempotencyCheck::Reused,
    ]
    .iter()
    .map(|c| c.as_str())
    .collect();
    assert_eq!(names, ["new", "replay", "reused"]);
    assert_eq!(
        IdempotencyCheck::Reused.api_error().map(ApiError::status),
        Some(409)
    );
    assert_eq!(IdempotencyCheck::Replay.api_error(), None);
}
