//! The payment service's own rules, as a local sandbox of it applies them (spec: payment
//! statuses, Endpoints, idempotency rules, webhook delivery): the payment state machine,
//! the service's API errors, the creation-idempotency check and the delivery schedule.
//!
//! Pure, as the rest of the crate: the host keeps the payments, the keys, the clock and
//! the network; these functions only decide. A payment's state goes in, the next state and
//! the `payment.updated` events to send come out.

mod action;
mod api_error;
mod idempotency;
mod payment;
mod schedule;
mod status;

pub use action::PaymentAction;
pub use api_error::ApiError;
pub use idempotency::{IdempotencyCheck, check_idempotency};
pub use payment::{Applied, PaymentState};
pub use schedule::{
    DeliveryAnswer, DeliveryStep, MAX_RETRY_DELAY_MS, MAX_RETRY_DELAYS, next_delivery_step,
    validate_retry_delays,
};
pub use status::PaymentStatus;

#[cfg(test)]
mod tests;
