use super::*;

#[test]
fn every_answer_at_every_attempt() {
    let delays = [0, 1_000, MAX_RETRY_DELAY_MS];
    for attempt in 1..=5_u32 {
        let retry = match attempt {
            1 => DeliveryStep::Retry { delay_ms: 0 },
            2 => DeliveryStep::Retry { delay_ms: 1_000 },
            3 => DeliveryStep::Retry {
                delay_ms: MAX_RETRY_DELAY_MS,
            },
            _ => DeliveryStep::Exhausted,
        };
        assert_eq!(
            next_delivery_step(attempt, DeliveryAnswer::NetworkFailure, &delays),
            Ok(retry)
        );
        for status in 0..=1000_u16 {
            let want = match status {
                200..=299 => DeliveryStep::Acknowledged,
                408 | 425 | 429 | 500..=599 => retry,
                100..=599 => DeliveryStep::FailedPermanently,
                _ => retry,
            };
            assert_eq!(
                next_delivery_step(attempt, DeliveryAnswer::Status(status), &delays),
                Ok(want),
                "{attempt} {status}"
            );
        }
    }
    assert_eq!(
        next_delivery_step(u32::MAX, DeliveryAnswer::Status(503), &delays),
        Ok(DeliveryStep::Exhausted)
    );
    assert_eq!(
        next_delivery_step(1, DeliveryAnswer::Status(503), &[]),
        Ok(DeliveryStep::Exhausted)
    );
    assert_eq!(
        next_delivery_step(1, DeliveryAnswer::Status(200), &[]),
        Ok(DeliveryStep::Acknowledged)
    );
}

#[test]
fn schedules_are_checked() {
    let code = |attempt, delays: &[u64]| {
        next_delivery_step(attempt, DeliveryAnswer::Status(200), delays).map_err(|e| e.code())
    };
    assert_eq!(code(0, &[]), Err("invalid_argument"));
    assert_eq!(
        code(1, &[0; MAX_RETRY_DELAYS]),
        Ok(DeliveryStep::Acknowledged)
    );
    assert_eq!(code(1, &[0; MAX_RETRY_DELAYS + 1]), Err("invalid_argument"));
    assert_eq!(code(1, &[MAX_RETRY_DELAY_MS + 1]), Err("invalid_argument"));
    assert_eq!(code(1, &[u64::MAX]), Err("invalid_argument"));
    assert_eq!(
        validate_retry_delays(&[MAX_RETRY_DELAY_MS; MAX_RETRY_DELAYS]),
        Ok(())
    );
    let names: Vec<&str> = [
        DeliveryStep::Acknowledged,
        DeliveryStep::Retry { delay_ms: 1 },
        DeliveryStep::Exhausted,
        DeliveryStep::FailedPermanently,
    ]
    .iter()
    .map(|s| s.as_str())
    .collect();
    assert_eq!(
        names,
        [
            "acknowledged",
            "retrying",
            "exhausted",
            "failed_permanently"
        ]
    );
}
