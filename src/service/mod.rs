//! The payment service's own rules, as a local sandbox of it applies them (spec: payment
//! statuses, Endpoints): the payment state machine and the service's API errors.
//!
//! Pure, as the rest of the crate: the host keeps the payments, the keys, the clock and
//! the network; these functions only decide. A payment's state goes in, the next state and
//! the `payment.updated` events to send come out.

mod action;
mod api_error;
mod payment;
mod status;

pub use action::PaymentAction;
pub use api_error::ApiError;
pub use payment::{Applied, PaymentState};
pub use status::PaymentStatus;

#[cfg(test)]
mod tests;
