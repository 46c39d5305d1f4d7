//! The authoritative view of a payment (`GET /v1/payments/{payment_id}`, the service's
//! MerchantPaymentView): the fields the fulfilment checks read.

use crate::amount::{is_unsigned_digits, validate_amount_raw};
use crate::error::{Error, ErrorKind, err};
use crate::json::{LEAF, Shape, Spec, scan};
use crate::pricing::{SOURCE_AMOUNT, SourceAmount};
use crate::status::StatusVersion;

/// The fields of the service's view of a payment (`GET /v1/payments/{payment_id}`) that the
/// fulfilment checks need: what the service, not an event, says the payment is now.
///
/// `status` is kept as the service wrote it (a status this crate does not know must still
/// be read, and is never fulfilled); `status_version` is exact at any size.
///
/// Read it from the response body with [`from_json`](Self::from_json). There is no serde
/// `Deserialize`, as for [`Event`](crate::Event): without serde_json's
/// `arbitrary_precision`, serde cannot hold a `status_version` past 2^64 exactly, and this
/// crate's answers never depend on that feature.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{PaymentView, SourceAmount};
/// let view = PaymentView::from_json(r#"{"payment_id":"pay_1","order_ref":"order-42",
///   "source_amount":{"kind":"fiat","currency":"USD","amount_raw":"12800"},
///   "status":"paid","status_version":18446744073709551617,"amount_received_raw":"12800",
///   "checkout_url":"https://pay.example/c/1"}"#)?;
/// assert_eq!(view.status_version.as_str(), "18446744073709551617");
/// assert_eq!(view.source_amount, SourceAmount::fiat("USD", "12800"));
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct PaymentView {
    /// `payment_id`.
    pub payment_id: String,
    /// `order_ref`, the merchant's reference given at creation, if any.
    pub order_ref: Option<String>,
    /// `source_amount`, as the payment was created with it.
    pub source_amount: SourceAmount,
    /// `status`, exactly as the service wrote it (known or not).
    pub status: String,
    /// `status_version`, exact.
    pub status_version: StatusVersion,
    /// `amount_received_raw`, the total received so far, when the view carries it.
    pub amount_received_raw: Option<String>,
}

/// The detail of a payment view refused for its shape: what is wrong, and that the text must be
/// the service's answer as received (a view is not a value the caller writes).
macro_rules! view {
    ($what:literal) => {
        concat!(
            "the payment view: ",
            $what,
            " (pass the body of GET /v1/payments/{payment_id} as received)"
        )
    };
}

static VIEW: Spec = Spec(&[
    ("payment_id", &LEAF),
    ("order_ref", &LEAF),
    ("source_amount", &SOURCE_AMOUNT),
    ("status", &LEAF),
    ("status_version", &LEAF),
    ("amount_received_raw", &LEAF),
]);

impl PaymentView {
    /// A view from its required fields, with no `order_ref` and no `amount_received_raw`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{default_policy, FulfilmentAction, PaymentView, SourceAmount, StatusVersion};
    /// let view = PaymentView::new("pay_1", SourceAmount::fiat("USD", "12800"), "paid", StatusVersion::from(3_u64));
    /// assert_eq!(default_policy(&view), FulfilmentAction::Fulfil);
    /// ```
    #[must_use]
    pub fn new(
        payment_id: impl Into<String>,
        source_amount: SourceAmount,
        status: impl Into<String>,
        status_version: StatusVersion,
    ) -> Self {
        PaymentView {
            payment_id: payment_id.into(),
            order_ref: None,
            source_amount,
            status: status.into(),
            status_version,
            amount_received_raw: None,
        }
    }

    /// The same view with an `order_ref`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{PaymentView, SourceAmount, StatusVersion};
    /// let view = PaymentView::new("pay_1", SourceAmount::fiat("USD", "1"), "open", StatusVersion::from(1_u64))
    ///     .with_order_ref("order-42");
    /// assert_eq!(view.order_ref.as_deref(), Some("order-42"));
    /// ```
    #[must_use]
    pub fn with_order_ref(mut self, order_ref: impl Into<String>) -> Self {
        self.order_ref = Some(order_ref.into());
        self
    }

    /// The same view with an `amount_received_raw`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{default_policy, FulfilmentAction, PaymentView, SourceAmount, StatusVersion};
    /// let view = PaymentView::new("pay_1", SourceAmount::fiat("USD", "12800"), "paid", StatusVersion::from(3_u64))
    ///     .with_amount_received_raw("12799");
    /// assert_eq!(default_policy(&view), FulfilmentAction::Review); // "paid", but not the amount
    /// ```
    #[must_use]
    pub fn with_amount_received_raw(mut self, amount_received_raw: impl Into<String>) -> Self {
        self.amount_received_raw = Some(amount_received_raw.into());
        self
    }

    /// Reads the view from the JSON text of `GET /v1/payments/{payment_id}`'s answer.
    ///
    /// Keys this crate does not know are tolerated, at the top and in `source_amount` (the
    /// service's view may grow); the fields read must have their documented types. Absent
    /// optional fields (`order_ref`, `amount_received_raw`) may be left out or `null`: both
    /// read as absent, so a view that writes `null` is never refused for it. `status_version` is a JSON integer (no sign, fraction
    /// or exponent) of any size, or a string of digits, without leading zeros; it never
    /// passes through a float.
    ///
    /// # Errors
    ///
    /// In this order: `invalid_argument` (not JSON text of an object with each key once;
    /// `payment_id` missing, empty or not a string; `order_ref` not a string;
    /// `source_amount` missing); the codes of [`SourceAmount::from_json`] for
    /// `source_amount` (unknown keys tolerated), then `amount_raw_invalid` for its
    /// `amount_raw`; `invalid_argument` (`status` missing or not a string;
    /// `status_version` missing); `status_version_invalid`; `amount_raw_invalid` for an
    /// `amount_received_raw` that is not a string of digits without a leading zero. A key
    /// repeated in any object, `source_amount`'s included, is `invalid_argument`. The view is
    /// the service's answer, not the delivery: its `status_version_invalid` is not an event
    /// error to acknowledge ([`ErrorKind::is_event_error`](crate::ErrorKind::is_event_error)
    /// says true for the code): a receiver that reads the view while answering a delivery
    /// answers 5xx for any error here, so that the service retries.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::PaymentView;
    /// let view = PaymentView::from_json(r#"{"payment_id":"pay_1","status":"open","status_version":"1",
    ///   "source_amount":{"kind":"crypto","pricing_ref":"usdc-eth","amount_raw":"1500000"}}"#)?;
    /// assert_eq!((view.status.as_str(), view.order_ref), ("open", None));
    /// let float = PaymentView::from_json(r#"{"payment_id":"pay_1","status":"open","status_version":1.0,
    ///   "source_amount":{"kind":"crypto","pricing_ref":"usdc-eth","amount_raw":"1500000"}}"#);
    /// assert_eq!(float.unwrap_err().code(), "status_version_invalid");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    pub fn from_json(json: &str) -> Result<Self, Error> {
        let invalid = |detail| err(ErrorKind::InvalidArgument, detail);
        let top = scan(json.as_bytes(), &VIEW)
            .map_err(|_| invalid(view!("it is not JSON, or repeats a key")))?
            .top;
        if !matches!(top, Shape::Object { .. }) {
            return Err(invalid(view!("it is not a JSON object")));
        }
        let payment_id = match top.field("payment_id") {
            Some(Shape::Str(id)) if !id.is_empty() => id.to_string(),
            _ => {
                return Err(invalid(view!(
                    "payment_id is missing, empty or not a string"
                )));
            }
        };
        let order_ref = match top.field("order_ref") {
            None | Some(Shape::Null) => None,
            Some(Shape::Str(order_ref)) => Some(order_ref.to_string()),
            Some(_) => return Err(invalid(view!("order_ref must be a string when present"))),
        };
        let source_amount = top
            .field("source_amount")
            .ok_or(invalid(view!("source_amount is missing")))?;
        let source_amount = SourceAmount::from_view_shape(source_amount)?;
        validate_amount_raw(&source_amount.amount_raw)?;
        let status = match top.field("status") {
            Some(Shape::Str(status)) => status.to_string(),
            _ => return Err(invalid(view!("status is missing or not a string"))),
        };
        let status_version = match top.field("status_version") {
            None => return Err(invalid(view!("status_version is missing"))),
            Some(Shape::Str(digits)) => StatusVersion::parse(digits)?,
            Some(Shape::Num(digits)) => StatusVersion::parse(digits)?,
            Some(_) => return Err(Error::new(ErrorKind::StatusVersionInvalid)),
        };
        let amount_received_raw = match top.field("amount_received_raw") {
            None | Some(Shape::Null) => None,
            Some(Shape::Str(raw)) if is_unsigned_digits(raw) => Some(raw.to_string()),
            Some(_) => {
                return Err(err(
                    ErrorKind::AmountRawInvalid,
                    "amount_received_raw must be a string of digits without a leading zero",
                ));
            }
        };
        Ok(PaymentView {
            payment_id,
            order_ref,
            source_amount,
            status,
            status_version,
            amount_received_raw,
        })
    }
}
