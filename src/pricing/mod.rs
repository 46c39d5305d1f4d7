//! Pricing (spec: SourceAmount, Store, Endpoints 1 and 5): `source_amount` is built from and
//! checked against the store's configured `primary_source` (from `GET /v1/store`), never
//! inferred from the display currency or the asset the customer pays with.
//!
//! The types mirror the service's JSON with serde (`Serialize` / `Deserialize`, the wire's
//! snake_case names), so they can be sent and stored as they are. Each also reads its JSON
//! text with the crate's stable codes (`from_json`), for bodies held as text.

mod create_payment;
mod pricing_ref;
mod primary_source;
mod source_amount;

pub use create_payment::{CreatePayment, validate_create_payment, validate_create_payment_json};
pub use primary_source::{PrimarySource, SourceKind};
pub(crate) use source_amount::SOURCE_AMOUNT;
pub use source_amount::{SourceAmount, build_source_amount, validate_source_amount};

use serde::{Deserialize, Deserializer};

/// An optional field that, when present, must be a string (`null` is refused, as a present
/// value of the wrong type is by the `from_json` readers).
fn present_string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    String::deserialize(deserializer).map(Some)
}
