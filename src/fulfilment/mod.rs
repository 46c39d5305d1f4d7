//! Fulfilment (spec: receiver rule 7 and the fulfilment rules): "only the authoritative
//! status (with the merchant's own exception policy) justifies fulfilling an order; partial
//! payments, overpayments and review-required payments must be handled explicitly."
//!
//! A verified event says only that a payment changed. The receiver then fetches the
//! authoritative view ([`PaymentView`], `GET /v1/payments/{payment_id}`), links it to the
//! order it stored at creation ([`Order`], [`link_event`]: any [`LinkMismatch`] is a case
//! for review), and decides with the view's status ([`default_policy`], a
//! [`FulfilmentAction`]). Pure: the host does the fetching and the storing.

mod link;
mod policy;
mod view;

pub use link::{LinkMismatch, Order, link_event};
pub use policy::{FulfilmentAction, default_policy};
pub use view::PaymentView;

#[cfg(test)]
mod tests;
