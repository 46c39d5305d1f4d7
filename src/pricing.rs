//! Pricing (spec: SourceAmount, Store, Endpoints 1 and 5): `source_amount` is built from and
//! checked against the store's configured `primary_source` (from `GET /v1/store`), never
//! inferred from the display currency or the asset the customer pays with.
//!
//! The checks take JSON values ([`serde_json::Value`]) exactly as they are sent to or
//! received from the service, so one implementation serves Rust and JavaScript.

use serde_json::{Map, Value};

use crate::amount::{to_amount_raw, validate_amount_raw, validate_decimals};
use crate::error::{Error, ErrorKind, err};
use crate::origin::validate_checkout_origin;

/// The kind of a pricing source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SourceKind {
    /// Priced in a fiat currency; the SourceAmount carries `currency`.
    Fiat,
    /// Priced in a crypto asset; the SourceAmount carries `pricing_ref`.
    Crypto,
}

impl SourceKind {
    /// The wire name: `fiat` or `crypto`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(cryptopay_verify::SourceKind::Fiat.as_str(), "fiat");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            SourceKind::Fiat => "fiat",
            SourceKind::Crypto => "crypto",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        match name {
            "fiat" => Some(SourceKind::Fiat),
            "crypto" => Some(SourceKind::Crypto),
            _ => None,
        }
    }

    /// The SourceAmount key that must carry the store's `ref`, and the one that must be absent.
    const fn keys(self) -> (&'static str, &'static str) {
        match self {
            SourceKind::Fiat => ("currency", "pricing_ref"),
            SourceKind::Crypto => ("pricing_ref", "currency"),
        }
    }
}

/// The store's configured pricing source: `primary_source` of `GET /v1/store`.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::PrimarySource;
/// let json = serde_json::json!({"kind": "fiat", "ref": "USD", "decimals": 2});
/// let source = PrimarySource::from_json(&json)?;
/// assert_eq!(source.reference(), "USD");
/// let bad = serde_json::json!({"kind": "fiat", "ref": "USD"});
/// assert_eq!(PrimarySource::from_json(&bad).unwrap_err().code(), "store_source_invalid");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrimarySource {
    kind: SourceKind,
    reference: String,
    decimals: u32,
}

impl PrimarySource {
    /// A source from its parts.
    ///
    /// # Errors
    ///
    /// `store_source_invalid` for an empty `reference` or `decimals` over 77.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{PrimarySource, SourceKind};
    /// assert!(PrimarySource::new(SourceKind::Crypto, "usdc-eth", 6).is_ok());
    /// assert_eq!(PrimarySource::new(SourceKind::Fiat, "", 2).unwrap_err().code(), "store_source_invalid");
    /// ```
    pub fn new(kind: SourceKind, reference: &str, decimals: u32) -> Result<Self, Error> {
        if reference.is_empty() || validate_decimals(decimals).is_err() {
            return Err(Error::new(ErrorKind::StoreSourceInvalid));
        }
        Ok(PrimarySource {
            kind,
            reference: reference.to_owned(),
            decimals,
        })
    }

    /// Reads `primary_source` as the service sends it; unknown fields are tolerated.
    ///
    /// # Errors
    ///
    /// `store_source_invalid` unless an object with `kind` (`fiat` or `crypto`), `ref` (a
    /// non-empty string) and `decimals` (an integer from 0 to 77).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{PrimarySource, SourceKind};
    /// let store = serde_json::json!({"kind": "crypto", "ref": "usdc-eth", "decimals": 6, "label": "USDC"});
    /// assert_eq!(PrimarySource::from_json(&store)?.kind(), SourceKind::Crypto);
    /// let decimals_as_text = serde_json::json!({"kind": "crypto", "ref": "usdc-eth", "decimals": "6"});
    /// assert_eq!(PrimarySource::from_json(&decimals_as_text).unwrap_err().code(), "store_source_invalid");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    pub fn from_json(value: &Value) -> Result<Self, Error> {
        let invalid = || Error::new(ErrorKind::StoreSourceInvalid);
        let obj = value.as_object().ok_or_else(invalid)?;
        let kind = obj
            .get("kind")
            .and_then(Value::as_str)
            .and_then(SourceKind::parse)
            .ok_or_else(invalid)?;
        let reference = obj.get("ref").and_then(Value::as_str).ok_or_else(invalid)?;
        let decimals = obj
            .get("decimals")
            .and_then(Value::as_u64)
            .and_then(|d| u32::try_from(d).ok())
            .ok_or_else(invalid)?;
        PrimarySource::new(kind, reference, decimals)
    }

    /// `kind`.
    #[must_use]
    pub fn kind(&self) -> SourceKind {
        self.kind
    }

    /// `ref`: the currency code (fiat) or pricing reference (crypto).
    #[must_use]
    pub fn reference(&self) -> &str {
        &self.reference
    }

    /// `decimals`: the fractional digits of `amount_raw`.
    #[must_use]
    pub fn decimals(&self) -> u32 {
        self.decimals
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
/// use cryptopay_verify::{build_source_amount, PrimarySource, SourceKind};
/// let store = PrimarySource::new(SourceKind::Fiat, "USD", 2)?;
/// let amount = build_source_amount(&store, "128.00")?;
/// assert_eq!(amount, serde_json::json!({"kind": "fiat", "currency": "USD", "amount_raw": "12800"}));
/// assert_eq!(build_source_amount(&store, "1.005").unwrap_err().code(), "amount_too_precise");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn build_source_amount(primary: &PrimarySource, amount: &str) -> Result<Value, Error> {
    let amount_raw = to_amount_raw(amount, primary.decimals)?;
    let mut obj = Map::new();
    obj.insert("kind".into(), primary.kind.as_str().into());
    obj.insert(
        primary.kind.keys().0.into(),
        primary.reference.clone().into(),
    );
    obj.insert("amount_raw".into(), amount_raw.into());
    Ok(Value::Object(obj))
}

/// Checks a SourceAmount against the store's primary source.
///
/// # Errors
///
/// In this order: `source_amount_invalid` (not an object, `kind` or `amount_raw` missing
/// or not a string, an unknown `kind` or key), `source_kind_mismatch`, then for fiat
/// `source_amount_invalid` (a `pricing_ref`), `source_currency_missing`,
/// `source_currency_mismatch`, for crypto `source_amount_invalid` (a `currency`),
/// `source_pricing_ref_missing`, `pricing_ref_is_address`, `pricing_ref_is_network_id`,
/// `source_pricing_ref_mismatch`; last `amount_raw_invalid`.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{validate_source_amount, PrimarySource, SourceKind};
/// let store = PrimarySource::new(SourceKind::Crypto, "usdc", 6)?;
/// let ok = serde_json::json!({"kind": "crypto", "pricing_ref": "usdc", "amount_raw": "1000000"});
/// assert!(validate_source_amount(&ok, &store).is_ok());
/// let chain = serde_json::json!({"kind": "crypto", "pricing_ref": "eip155:1", "amount_raw": "1"});
/// assert_eq!(validate_source_amount(&chain, &store).unwrap_err().code(), "pricing_ref_is_network_id");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn validate_source_amount(source_amount: &Value, primary: &PrimarySource) -> Result<(), Error> {
    let invalid = |detail| err(ErrorKind::SourceAmountInvalid, detail);
    let obj = source_amount
        .as_object()
        .ok_or(invalid("source_amount is not an object"))?;
    let kind = obj
        .get("kind")
        .and_then(Value::as_str)
        .ok_or(invalid("source_amount.kind is missing or not a string"))?;
    let kind =
        SourceKind::parse(kind).ok_or(invalid("source_amount.kind is neither fiat nor crypto"))?;
    let amount_raw = obj
        .get("amount_raw")
        .and_then(Value::as_str)
        .ok_or(invalid(
            "source_amount.amount_raw is missing or not a string (never a number)",
        ))?;
    if obj.keys().any(|k| {
        !matches!(
            k.as_str(),
            "kind" | "currency" | "pricing_ref" | "amount_raw"
        )
    }) {
        return Err(invalid(
            "source_amount has a key other than kind, currency, pricing_ref and amount_raw",
        ));
    }
    if kind != primary.kind {
        return Err(Error::new(ErrorKind::SourceKindMismatch));
    }
    let (required, forbidden) = kind.keys();
    if obj.contains_key(forbidden) {
        return Err(match kind {
            SourceKind::Fiat => invalid("a fiat source_amount has no pricing_ref"),
            SourceKind::Crypto => invalid("a crypto source_amount has no currency"),
        });
    }
    let (missing, mismatch) = match kind {
        SourceKind::Fiat => (
            ErrorKind::SourceCurrencyMissing,
            ErrorKind::SourceCurrencyMismatch,
        ),
        SourceKind::Crypto => (
            ErrorKind::SourcePricingRefMissing,
            ErrorKind::SourcePricingRefMismatch,
        ),
    };
    let value = obj
        .get(required)
        .and_then(Value::as_str)
        .ok_or(Error::new(missing))?;
    if value != primary.reference {
        return Err(match kind {
            SourceKind::Crypto => Error::new(explain_pricing_ref(value)),
            SourceKind::Fiat => Error::new(mismatch),
        });
    }
    validate_amount_raw(amount_raw)
}

/// Checks a CreatePayment body (`POST /v1/payments`) before it is sent.
///
/// # Errors
///
/// `create_payment_invalid` (not an object, an unknown key, no `source_amount`, an
/// `order_ref` that is not a string); the codes of [`validate_source_amount`]; those of
/// [`validate_checkout_origin`](crate::validate_checkout_origin).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{validate_create_payment, PrimarySource, SourceKind};
/// let store = PrimarySource::new(SourceKind::Fiat, "EUR", 2)?;
/// let body = serde_json::json!({
///     "order_ref": "order-42",
///     "source_amount": {"kind": "fiat", "currency": "EUR", "amount_raw": "12800"}
/// });
/// assert!(validate_create_payment(&body, &store, None).is_ok());
/// let no_amount = serde_json::json!({"order_ref": "order-42"});
/// assert_eq!(validate_create_payment(&no_amount, &store, None).unwrap_err().code(), "create_payment_invalid");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn validate_create_payment(
    body: &Value,
    primary: &PrimarySource,
    website_origin: Option<&str>,
) -> Result<(), Error> {
    let invalid = |detail| err(ErrorKind::CreatePaymentInvalid, detail);
    let obj = body
        .as_object()
        .ok_or(invalid("the body is not a JSON object"))?;
    if obj.keys().any(|k| {
        !matches!(
            k.as_str(),
            "source_amount" | "order_ref" | "checkout_origin"
        )
    }) {
        return Err(invalid(
            "the body has a key other than source_amount, order_ref and checkout_origin",
        ));
    }
    let source_amount = obj
        .get("source_amount")
        .ok_or(invalid("source_amount is required"))?;
    validate_source_amount(source_amount, primary)?;
    if obj.get("order_ref").is_some_and(|v| !v.is_string()) {
        return Err(invalid("order_ref must be a string"));
    }
    match obj.get("checkout_origin") {
        None => Ok(()),
        Some(Value::String(origin)) => validate_checkout_origin(origin, website_origin),
        Some(_) => Err(err(
            ErrorKind::OriginInvalid,
            "checkout_origin must be a string",
        )),
    }
}

/// Why a `pricing_ref` that differs from the store's `ref` is wrong.
fn explain_pricing_ref(value: &str) -> ErrorKind {
    if looks_like_address(value) {
        ErrorKind::PricingRefIsAddress
    } else if looks_like_network_id(value) {
        ErrorKind::PricingRefIsNetworkId
    } else {
        ErrorKind::SourcePricingRefMismatch
    }
}

const BASE58: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const BECH32: &[u8] = b"qpzry9x8gf2tvdw0s3jn54khce6mua7l";

fn looks_like_address(value: &str) -> bool {
    let evm = value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
        .is_some_and(|hex| hex.len() == 40 && hex.bytes().all(|b| b.is_ascii_hexdigit()));
    let base58 = (25..=44).contains(&value.len()) && value.bytes().all(|b| BASE58.contains(&b));
    evm || base58 || looks_like_bech32(value)
}

fn looks_like_bech32(value: &str) -> bool {
    if !(14..=90).contains(&value.len()) {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    if value != lower && value != value.to_ascii_uppercase() {
        return false;
    }
    match lower.rsplit_once('1') {
        Some((hrp, data)) => {
            !hrp.is_empty()
                && hrp.bytes().all(|b| b.is_ascii_lowercase())
                && data.len() >= 6
                && data.bytes().all(|b| BECH32.contains(&b))
        }
        None => false,
    }
}

const CHAIN_NAMES: &[&str] = &[
    "algorand",
    "arbitrum",
    "avalanche",
    "avax",
    "base",
    "bitcoin",
    "bnb",
    "bsc",
    "btc",
    "cardano",
    "celo",
    "cosmos",
    "eth",
    "ethereum",
    "fantom",
    "gnosis",
    "linea",
    "litecoin",
    "mainnet",
    "matic",
    "near",
    "optimism",
    "polkadot",
    "polygon",
    "scroll",
    "sepolia",
    "sol",
    "solana",
    "stellar",
    "ton",
    "tron",
    "xrp",
    "zksync",
];

fn looks_like_network_id(value: &str) -> bool {
    let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
    let caip2 = value.split_once(':').is_some_and(|(ns, reference)| {
        (3..=8).contains(&ns.len())
            && ns
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && (1..=32).contains(&reference.len())
            && reference
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    });
    let lower = value.to_ascii_lowercase();
    digits || caip2 || CHAIN_NAMES.contains(&lower.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crypto() -> PrimarySource {
        PrimarySource::new(SourceKind::Crypto, "usdc-eth", 6).unwrap()
    }

    fn code(sa: Value, p: &PrimarySource) -> Option<&'static str> {
        validate_source_amount(&sa, p).err().map(Error::code)
    }

    #[test]
    fn explanations() {
        let p = crypto();
        let with = |r: &str| json!({"kind": "crypto", "pricing_ref": r, "amount_raw": "1"});
        assert_eq!(code(with("usdc-eth"), &p), None);
        assert_eq!(
            code(with("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"), &p),
            Some("pricing_ref_is_address")
        );
        assert_eq!(
            code(with("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"), &p),
            Some("pricing_ref_is_address")
        );
        assert_eq!(
            code(with("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"), &p),
            Some("pricing_ref_is_address")
        );
        assert_eq!(
            code(with("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"), &p),
            Some("pricing_ref_is_address")
        );
        assert_eq!(code(with("137"), &p), Some("pricing_ref_is_network_id"));
        assert_eq!(
            code(with("eip155:1"), &p),
            Some("pricing_ref_is_network_id")
        );
        assert_eq!(code(with("Polygon"), &p), Some("pricing_ref_is_network_id"));
        assert_eq!(
            code(with("usdc-sol"), &p),
            Some("source_pricing_ref_mismatch")
        );
    }

    #[test]
    fn shapes_that_are_not_addresses_or_networks() {
        let p = crypto();
        assert_eq!(
            (p.reference(), p.decimals(), p.kind()),
            ("usdc-eth", 6, SourceKind::Crypto)
        );
        let with = |r: &str| json!({"kind": "crypto", "pricing_ref": r, "amount_raw": "1"});
        for not_address_or_network in [
            "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB4", // 39 hex digits
            "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB4g", // not hex
            "bc1QAR0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", // mixed case
            "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdqb", // b is not in bech32's alphabet
            "b2c1qqqqqq",
            "11qqqqqqqqqqqqqqq", // short; no letters before the 1
            "eip155:",
            "ab:1",
            "EIP155:1",
            "eip155:1.5",
            "abcdefghi:1",
            "usdc-ethereum",
            "tokens:usdc/eth",
        ] {
            assert_eq!(
                code(with(not_address_or_network), &p),
                Some("source_pricing_ref_mismatch"),
                "{not_address_or_network}"
            );
        }
        for network in [
            "eip155:1",
            "cosmos:cosmoshub-4",
            "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
            "ton",
            "BSC",
        ] {
            assert_eq!(
                code(with(network), &p),
                Some("pricing_ref_is_network_id"),
                "{network}"
            );
        }
        assert_eq!(
            code(with("BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ"), &p),
            Some("pricing_ref_is_address")
        );
    }

    #[test]
    fn shapes_and_order() {
        let p = crypto();
        assert_eq!(code(json!("x"), &p), Some("source_amount_invalid"));
        assert_eq!(
            code(json!({"kind": "crypto", "amount_raw": 1}), &p),
            Some("source_amount_invalid")
        );
        assert_eq!(
            code(
                json!({"kind": "fiat", "currency": "USD", "amount_raw": "1"}),
                &p
            ),
            Some("source_kind_mismatch")
        );
        assert_eq!(
            code(json!({"kind": "crypto", "amount_raw": "1"}), &p),
            Some("source_pricing_ref_missing")
        );
        assert_eq!(
            code(
                json!({"kind": "crypto", "currency": "USD", "pricing_ref": "usdc-eth", "amount_raw": "1"}),
                &p
            ),
            Some("source_amount_invalid")
        );
        assert_eq!(
            code(
                json!({"kind": "crypto", "pricing_ref": "usdc-eth", "amount_raw": "01"}),
                &p
            ),
            Some("amount_raw_invalid")
        );
        assert_eq!(
            code(
                json!({"kind": "crypto", "pricingRef": "usdc-eth", "amount_raw": "1"}),
                &p
            ),
            Some("source_amount_invalid")
        );
    }

    #[test]
    fn store_sources() {
        for bad in [
            json!(null),
            json!({"kind": "gold", "ref": "x", "decimals": 2}),
            json!({"kind": "fiat", "ref": "", "decimals": 2}),
            json!({"kind": "fiat", "ref": "USD", "decimals": 78}),
            json!({"kind": "fiat", "ref": "USD", "decimals": 2.5}),
            json!({"kind": "fiat", "ref": "USD", "decimals": -1}),
        ] {
            assert_eq!(
                PrimarySource::from_json(&bad).unwrap_err().code(),
                "store_source_invalid",
                "{bad}"
            );
        }
        let extra = json!({"kind": "fiat", "ref": "USD", "decimals": 2, "label": "US dollar"});
        assert!(PrimarySource::from_json(&extra).is_ok());
    }
}
