//! The CreatePayment body (`POST /v1/payments`), checked before it is sent.

use serde::{Deserialize, Serialize};

use super::source_amount::SOURCE_AMOUNT;
use super::{PrimarySource, SourceAmount, present_string, validate_source_amount};
use crate::error::{Error, ErrorKind, err};
use crate::json::{LEAF, Shape, Spec, scan};
use crate::origin::validate_checkout_origin;

/// A CreatePayment body: `{"source_amount": {...}, "order_ref": "...", "checkout_origin":
/// "https://..."}`; serde reads and writes the wire form (unknown keys are refused).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{build_source_amount, validate_create_payment, CreatePayment, PrimarySource, SourceKind};
/// let store = PrimarySource::new(SourceKind::Fiat, "EUR", 2)?;
/// let payment = CreatePayment::new(build_source_amount(&store, "128.00")?).with_order_ref("order-42");
/// validate_create_payment(&payment, &store, None)?;
/// assert_eq!(
///     serde_json::to_string(&payment).unwrap(),
///     r#"{"source_amount":{"kind":"fiat","currency":"EUR","amount_raw":"12800"},"order_ref":"order-42"}"#
/// );
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct CreatePayment {
    /// The price, built from the store's `primary_source` (required).
    pub source_amount: SourceAmount,
    /// The merchant's own reference for the order.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_string"
    )]
    pub order_ref: Option<String>,
    /// The HTTPS origin the customer pays from (`https://host[:port]`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_string"
    )]
    pub checkout_origin: Option<String>,
}

impl CreatePayment {
    /// A body with this SourceAmount and nothing else.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{CreatePayment, SourceAmount};
    /// let payment = CreatePayment::new(SourceAmount::fiat("USD", "500"));
    /// assert_eq!(payment.order_ref, None);
    /// ```
    #[must_use]
    pub fn new(source_amount: SourceAmount) -> Self {
        CreatePayment {
            source_amount,
            order_ref: None,
            checkout_origin: None,
        }
    }

    /// The same body with an `order_ref`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{CreatePayment, SourceAmount};
    /// let payment = CreatePayment::new(SourceAmount::fiat("USD", "500")).with_order_ref("order-7");
    /// assert_eq!(payment.order_ref.as_deref(), Some("order-7"));
    /// ```
    #[must_use]
    pub fn with_order_ref(mut self, order_ref: impl Into<String>) -> Self {
        self.order_ref = Some(order_ref.into());
        self
    }

    /// The same body with a `checkout_origin`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{CreatePayment, SourceAmount};
    /// let payment = CreatePayment::new(SourceAmount::fiat("USD", "500"))
    ///     .with_checkout_origin("https://shop.example");
    /// assert_eq!(payment.checkout_origin.as_deref(), Some("https://shop.example"));
    /// ```
    #[must_use]
    pub fn with_checkout_origin(mut self, checkout_origin: impl Into<String>) -> Self {
        self.checkout_origin = Some(checkout_origin.into());
        self
    }
}

/// Checks a CreatePayment body against the store before it is sent.
///
/// # Errors
///
/// The codes of [`validate_source_amount`](crate::validate_source_amount); then those of
/// [`validate_checkout_origin`](crate::validate_checkout_origin) for a `checkout_origin`.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{validate_create_payment, CreatePayment, PrimarySource, SourceAmount, SourceKind};
/// let store = PrimarySource::new(SourceKind::Fiat, "EUR", 2)?;
/// let payment = CreatePayment::new(SourceAmount::fiat("EUR", "12800"))
///     .with_checkout_origin("http://shop.example");
/// assert_eq!(validate_create_payment(&payment, &store, None).unwrap_err().code(), "origin_not_https");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn validate_create_payment(
    payment: &CreatePayment,
    primary: &PrimarySource,
    website_origin: Option<&str>,
) -> Result<(), Error> {
    validate_source_amount(&payment.source_amount, primary)?;
    match &payment.checkout_origin {
        None => Ok(()),
        Some(origin) => validate_checkout_origin(origin, website_origin),
    }
}

static CREATE_PAYMENT: Spec = Spec(&[
    ("source_amount", &SOURCE_AMOUNT),
    ("order_ref", &LEAF),
    ("checkout_origin", &LEAF),
]);

/// Reads a CreatePayment body from its JSON text and checks it against the store, in the
/// contract's order; returns it typed.
///
/// # Errors
///
/// In this order: `create_payment_invalid` (not JSON text of an object with each key once,
/// `source_amount`'s keys included; a key other than `source_amount`, `order_ref` and `checkout_origin`, no
/// `source_amount`); the codes of [`SourceAmount::from_json`] and
/// [`validate_source_amount`](crate::validate_source_amount) for `source_amount`;
/// `create_payment_invalid` (an `order_ref` that is not a string); `origin_invalid` (a
/// `checkout_origin` that is not a string), then the codes of
/// [`validate_checkout_origin`](crate::validate_checkout_origin).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{validate_create_payment_json, PrimarySource, SourceKind};
/// let store = PrimarySource::new(SourceKind::Fiat, "EUR", 2)?;
/// let body = r#"{"order_ref":"order-42","source_amount":{"kind":"fiat","currency":"EUR","amount_raw":"12800"}}"#;
/// let payment = validate_create_payment_json(body, &store, None)?;
/// assert_eq!(payment.order_ref.as_deref(), Some("order-42"));
/// let no_amount = validate_create_payment_json(r#"{"order_ref":"order-42"}"#, &store, None);
/// assert_eq!(no_amount.unwrap_err().code(), "create_payment_invalid");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn validate_create_payment_json(
    json: &str,
    primary: &PrimarySource,
    website_origin: Option<&str>,
) -> Result<CreatePayment, Error> {
    let invalid = |detail| err(ErrorKind::CreatePaymentInvalid, detail);
    let top = scan(json.as_bytes(), &CREATE_PAYMENT)
        .map_err(|_| invalid("the body is not JSON (or repeats a key)"))?
        .top;
    if !matches!(top, Shape::Object { .. }) {
        return Err(invalid("the body is not a JSON object"));
    }
    if top.has_unknown_key() {
        return Err(invalid(
            "the body has a key other than source_amount, order_ref and checkout_origin",
        ));
    }
    let source_amount = top
        .field("source_amount")
        .ok_or(invalid("source_amount is required"))?;
    let source_amount = SourceAmount::from_shape(source_amount)?;
    validate_source_amount(&source_amount, primary)?;
    let order_ref = match top.field("order_ref") {
        None => None,
        Some(Shape::Str(order_ref)) => Some(order_ref.to_string()),
        Some(_) => return Err(invalid("order_ref must be a string")),
    };
    let checkout_origin = match top.field("checkout_origin") {
        None => None,
        Some(Shape::Str(origin)) => {
            validate_checkout_origin(origin, website_origin)?;
            Some(origin.to_string())
        }
        Some(_) => {
            return Err(err(
                ErrorKind::OriginInvalid,
                "checkout_origin must be a string",
            ));
        }
    };
    Ok(CreatePayment {
        source_amount,
        order_ref,
        checkout_origin,
    })
}

#[cfg(test)]
mod tests;
