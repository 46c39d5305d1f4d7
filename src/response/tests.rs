//! The unit tests of `response`.

use super::*;

#[test]
fn every_status() {
    for status in 0..=1000u16 {
        let got = classify_delivery_response(status).ok();
        let want = match status {
            200..=299 => Some(DeliveryOutcome::Acknowledged),
            408 | 425 | 429 | 500..=599 => Some(DeliveryOutcome::Retry),
            100..=599 => Some(DeliveryOutcome::PermanentFailure),
            _ => None,
        };
        assert_eq!(got, want, "{status}");
    }
}
