//! The SourceAmount of a CreatePayment: the price in exact integer units of the store's
//! pricing source.

use serde::{Deserialize, Serialize};

use super::PrimarySource;
use super::present_string;
use super::pricing_ref::explain_pricing_ref;
use super::primary_source::SourceKind;
use crate::amount::{to_amount_raw, validate_amount_raw};
use crate::error::{Error, ErrorKind, err};
use crate::json::{LEAF, Shape, Spec, scan};

/// A SourceAmount as the service takes it: `{"kind": "fiat", "currency": "USD",
/// "amount_raw": "12800"}` or `{"kind": "crypto", "pricing_ref": "usdc-eth", "amount_raw":
/// "1500000"}`.
///
/// Build it with [`build_source_amount`] from the store's [`PrimarySource`]; check one you
/// received or assembled with [`validate_source_amount`]. Serde reads and writes the wire
/// form: unknown keys are refused (a typo such as `pricingRef` never reaches the service),
/// and `currency` / `pricing_ref` are left out when `None`. That strictness is for the amount
/// you send and record as sent; a payment view's `source_amount` is read by
/// [`PaymentView::from_json`](crate::PaymentView::from_json), which passes unknown fields
/// through. A key the service adds to the amount it echoes at creation is refused here on
/// purpose: what it would mean for the amount is not known, so the order is not recorded
/// until a person looks (the npm package's `recordCreated` does the same).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::SourceAmount;
/// let amount = SourceAmount::fiat("USD", "12800");
/// assert_eq!(
///     serde_json::to_string(&amount).unwrap(),
///     r#"{"kind":"fiat","currency":"USD","amount_raw":"12800"}"#
/// );
/// assert!(serde_json::from_str::<SourceAmount>(r#"{"kind":"fiat","amount_raw":"1","memo":"x"}"#).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SourceAmount {
    /// `fiat` or `crypto`: must equal the store's `primary_source.kind`.
    pub kind: SourceKind,
    /// For `fiat`: the currency, equal to `primary_source.ref`. Absent for `crypto`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_string"
    )]
    pub currency: Option<String>,
    /// For `crypto`: the pricing reference, equal to `primary_source.ref`. Absent for `fiat`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_string"
    )]
    pub pricing_ref: Option<String>,
    /// The amount in the smallest unit, as digits (`^[1-9][0-9]*$`, at most 2^256 - 1).
    pub amount_raw: String,
}

/// The keys of a SourceAmount.
pub(crate) static SOURCE_AMOUNT: Spec = Spec(&[
    ("kind", &LEAF),
    ("currency", &LEAF),
    ("pricing_ref", &LEAF),
    ("amount_raw", &LEAF),
]);

impl SourceAmount {
    /// A fiat SourceAmount.
    ///
    /// # Examples
    ///
    /// ```
    /// let amount = cryptopay_verify::SourceAmount::fiat("EUR", "12800");
    /// assert_eq!(amount.currency.as_deref(), Some("EUR"));
    /// ```
    #[must_use]
    pub fn fiat(currency: impl Into<String>, amount_raw: impl Into<String>) -> Self {
        SourceAmount {
            kind: SourceKind::Fiat,
            currency: Some(currency.into()),
            pricing_ref: None,
            amount_raw: amount_raw.into(),
        }
    }

    /// A crypto SourceAmount.
    ///
    /// # Examples
    ///
    /// ```
    /// let amount = cryptopay_verify::SourceAmount::crypto("usdc-eth", "1500000");
    /// assert_eq!(amount.pricing_ref.as_deref(), Some("usdc-eth"));
    /// ```
    #[must_use]
    pub fn crypto(pricing_ref: impl Into<String>, amount_raw: impl Into<String>) -> Self {
        SourceAmount {
            kind: SourceKind::Crypto,
            currency: None,
            pricing_ref: Some(pricing_ref.into()),
            amount_raw: amount_raw.into(),
        }
    }

    /// Reads a SourceAmount from its JSON text, with the crate's codes. It reads what serde's
    /// derive reads from an object with each key once, to the same value (serde also takes the
    /// fields as an array, which this refuses); check the result against the store with
    /// [`validate_source_amount`].
    ///
    /// # Errors
    ///
    /// In this order: `source_amount_invalid` (not JSON text of an object with each key
    /// once; `kind` missing, not a string, or neither `fiat` nor `crypto`; `amount_raw`
    /// missing); `amount_raw_invalid` (`amount_raw` not a string, such as a number);
    /// `source_amount_invalid` (a key other than `kind`, `currency`, `pricing_ref` and
    /// `amount_raw`; `currency` or `pricing_ref` present but not a string).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::SourceAmount;
    /// let amount = SourceAmount::from_json(r#"{"kind":"fiat","currency":"USD","amount_raw":"12800"}"#)?;
    /// assert_eq!(amount, SourceAmount::fiat("USD", "12800"));
    /// let number = SourceAmount::from_json(r#"{"kind":"fiat","currency":"USD","amount_raw":12800}"#);
    /// assert_eq!(number.unwrap_err().code(), "amount_raw_invalid");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    pub fn from_json(json: &str) -> Result<Self, Error> {
        let scanned = scan(json.as_bytes(), &SOURCE_AMOUNT).map_err(|_| {
            err(
                ErrorKind::SourceAmountInvalid,
                "source_amount is not JSON (or repeats a key)",
            )
        })?;
        SourceAmount::from_shape(&scanned.top)
    }

    /// A SourceAmount from its captured JSON (see [`from_json`](Self::from_json)).
    pub(super) fn from_shape(shape: &Shape<'_>) -> Result<Self, Error> {
        SourceAmount::read_shape(shape, false)
    }

    /// A SourceAmount as a view of the service holds it: as [`from_shape`](Self::from_shape)
    /// reads it, except that a key it does not know is tolerated (a view may grow) and a
    /// `currency` or `pricing_ref` of `null` reads as absent (a service may write `null` for
    /// the field a kind does not use), where a body sent to the service refuses both (a typo
    /// must never reach the service). Refusing them would leave the payment never fulfilled.
    pub(crate) fn from_view_shape(shape: &Shape<'_>) -> Result<Self, Error> {
        SourceAmount::read_shape(shape, true)
    }

    fn read_shape(shape: &Shape<'_>, as_view: bool) -> Result<Self, Error> {
        let invalid = |detail| err(ErrorKind::SourceAmountInvalid, detail);
        if !matches!(shape, Shape::Object { .. }) {
            return Err(invalid("source_amount is not an object"));
        }
        let Some(Shape::Str(kind)) = shape.field("kind") else {
            return Err(invalid("source_amount.kind is missing or not a string"));
        };
        let kind = SourceKind::parse(kind)
            .ok_or(invalid("source_amount.kind is neither fiat nor crypto"))?;
        let amount_raw = match shape.field("amount_raw") {
            None => return Err(invalid("source_amount.amount_raw is missing")),
            Some(Shape::Str(raw)) => raw.to_string(),
            Some(_) => {
                return Err(err(
                    ErrorKind::AmountRawInvalid,
                    "source_amount.amount_raw must be a string of digits, never a number",
                ));
            }
        };
        if shape.has_unknown_key() && !as_view {
            return Err(invalid(
                "source_amount has a key other than kind, currency, pricing_ref and amount_raw",
            ));
        }
        let text = |name: &str| match shape.field(name) {
            None => Ok(None),
            Some(Shape::Null) if as_view => Ok(None),
            Some(Shape::Str(value)) => Ok(Some(value.to_string())),
            Some(_) => Err(invalid(
                "source_amount.currency and source_amount.pricing_ref must be strings when present",
            )),
        };
        Ok(SourceAmount {
            kind,
            currency: text("currency")?,
            pricing_ref: text("pricing_ref")?,
            amount_raw,
        })
    }
}

/// Builds a SourceAmount from a decimal amount and the store's primary source.
///
/// # Errors
///
/// Those of [`to_amount_raw`](crate::to_amount_raw).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{build_source_amount, PrimarySource, SourceAmount, SourceKind};
/// let store = PrimarySource::new(SourceKind::Fiat, "USD", 2)?;
/// let amount = build_source_amount(&store, "128.00")?;
/// assert_eq!(amount, SourceAmount::fiat("USD", "12800"));
/// assert_eq!(build_source_amount(&store, "1.005").unwrap_err().code(), "amount_too_precise");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn build_source_amount(primary: &PrimarySource, amount: &str) -> Result<SourceAmount, Error> {
    let amount_raw = to_amount_raw(amount, primary.decimals())?;
    Ok(match primary.kind() {
        SourceKind::Fiat => SourceAmount::fiat(primary.reference(), amount_raw),
        SourceKind::Crypto => SourceAmount::crypto(primary.reference(), amount_raw),
    })
}

/// Checks a SourceAmount against the store's primary source.
///
/// # Errors
///
/// In this order: `source_kind_mismatch`; then for fiat `source_amount_invalid` (a
/// `pricing_ref`), `source_currency_missing`, `source_currency_mismatch` (exact, case
/// included); for crypto `source_amount_invalid` (a `currency`),
/// `source_pricing_ref_missing`, then, for a `pricing_ref` that differs from the store's
/// `ref`, `pricing_ref_is_address`, `pricing_ref_is_network_id` or
/// `source_pricing_ref_mismatch`; last `amount_raw_invalid`.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{validate_source_amount, PrimarySource, SourceAmount, SourceKind};
/// let store = PrimarySource::new(SourceKind::Crypto, "usdc", 6)?;
/// assert!(validate_source_amount(&SourceAmount::crypto("usdc", "1000000"), &store).is_ok());
/// let chain = SourceAmount::crypto("eip155:1", "1");
/// assert_eq!(validate_source_amount(&chain, &store).unwrap_err().code(), "pricing_ref_is_network_id");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn validate_source_amount(
    source_amount: &SourceAmount,
    primary: &PrimarySource,
) -> Result<(), Error> {
    if source_amount.kind != primary.kind() {
        return Err(Error::new(ErrorKind::SourceKindMismatch));
    }
    let (required, forbidden) = match source_amount.kind {
        SourceKind::Fiat => (&source_amount.currency, &source_amount.pricing_ref),
        SourceKind::Crypto => (&source_amount.pricing_ref, &source_amount.currency),
    };
    if forbidden.is_some() {
        return Err(err(
            ErrorKind::SourceAmountInvalid,
            match source_amount.kind {
                SourceKind::Fiat => "a fiat source_amount has no pricing_ref",
                SourceKind::Crypto => "a crypto source_amount has no currency",
            },
        ));
    }
    let (missing, mismatch) = match source_amount.kind {
        SourceKind::Fiat => (
            ErrorKind::SourceCurrencyMissing,
            ErrorKind::SourceCurrencyMismatch,
        ),
        SourceKind::Crypto => (
            ErrorKind::SourcePricingRefMissing,
            ErrorKind::SourcePricingRefMismatch,
        ),
    };
    let value = required.as_deref().ok_or(Error::new(missing))?;
    if value != primary.reference() {
        return Err(Error::new(match source_amount.kind {
            SourceKind::Crypto => explain_pricing_ref(value),
            SourceKind::Fiat => mismatch,
        }));
    }
    validate_amount_raw(&source_amount.amount_raw)
}

#[cfg(test)]
mod tests;
