//! The store's pricing source: `primary_source` of `GET /v1/store`.

use serde::{Deserialize, Serialize};

use crate::amount::validate_decimals;
use crate::error::{Error, ErrorKind, err};
use crate::json::{LEAF, Shape, Spec, scan};

/// The kind of a pricing source (wire names `fiat` and `crypto`).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{PrimarySource, SourceKind};
/// let store = PrimarySource::from_json(r#"{"kind": "fiat", "ref": "USD", "decimals": 2}"#)?;
/// // A fiat store prices in `currency`, a crypto one in `pricing_ref`.
/// assert_eq!(store.kind(), SourceKind::Fiat);
/// assert_eq!(serde_json::to_string(&SourceKind::Crypto).unwrap(), r#""crypto""#);
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
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

    pub(crate) fn parse(name: &str) -> Option<Self> {
        match name {
            "fiat" => Some(SourceKind::Fiat),
            "crypto" => Some(SourceKind::Crypto),
            _ => None,
        }
    }
}

/// The store's configured pricing source: `primary_source` of `GET /v1/store`
/// (`{"kind": "fiat", "ref": "USD", "decimals": 2}`).
///
/// Always valid: `ref` is non-empty and `decimals` from 0 to 77, whether it was built with
/// [`new`](Self::new), read with [`from_json`](Self::from_json) or deserialized with serde
/// (unknown fields are tolerated: the service's view may grow).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{PrimarySource, SourceKind};
/// #[derive(serde::Deserialize)]
/// struct Store { primary_source: PrimarySource }
/// let store: Store = serde_json::from_str(
///     r#"{"primary_source": {"kind": "crypto", "ref": "usdc-eth", "decimals": 6, "label": "USDC"}}"#,
/// ).unwrap();
/// assert_eq!(store.primary_source.kind(), SourceKind::Crypto);
/// assert!(serde_json::from_str::<PrimarySource>(r#"{"kind": "fiat", "ref": "", "decimals": 2}"#).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "Wire")]
pub struct PrimarySource {
    kind: SourceKind,
    #[serde(rename = "ref")]
    reference: String,
    decimals: u32,
}

/// `primary_source` as it is on the wire, before its checks.
#[derive(Deserialize)]
struct Wire {
    kind: SourceKind,
    #[serde(rename = "ref")]
    reference: String,
    decimals: u32,
}

impl TryFrom<Wire> for PrimarySource {
    type Error = Error;
    fn try_from(wire: Wire) -> Result<Self, Error> {
        PrimarySource::new(wire.kind, &wire.reference, wire.decimals)
    }
}

// `primary_source` is read only to say that the whole store view was given.
static PRIMARY_SOURCE: Spec = Spec(&[
    ("kind", &LEAF),
    ("ref", &LEAF),
    ("decimals", &LEAF),
    ("primary_source", &LEAF),
]);

/// The detail of `store_source_invalid` for the whole `GET /v1/store` answer given where its
/// `primary_source` belongs (the field's name read as "the store's source").
pub(crate) const WHOLE_STORE_VIEW: &str =
    "this is the whole GET /v1/store answer: pass the primary_source object inside it";

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

    /// Reads `primary_source` from its JSON text, as the service sends it.
    ///
    /// # Errors
    ///
    /// `store_source_invalid` unless JSON text of an object with `kind` (`fiat` or
    /// `crypto`), `ref` (a non-empty string) and `decimals` (an integer from 0 to 77), each
    /// key once.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{PrimarySource, SourceKind};
    /// let store = PrimarySource::from_json(r#"{"kind": "crypto", "ref": "usdc-eth", "decimals": 6, "label": "USDC"}"#)?;
    /// assert_eq!(store.kind(), SourceKind::Crypto);
    /// let decimals_as_text = PrimarySource::from_json(r#"{"kind": "crypto", "ref": "usdc-eth", "decimals": "6"}"#);
    /// assert_eq!(decimals_as_text.unwrap_err().code(), "store_source_invalid");
    /// // The whole GET /v1/store answer: its primary_source is what to pass (or read the
    /// // answer with serde, as in the example of `PrimarySource`).
    /// let view = r#"{"primary_source": {"kind": "fiat", "ref": "USD", "decimals": 2}, "website_origin": null}"#;
    /// let whole = PrimarySource::from_json(view).unwrap_err();
    /// assert!(whole.to_string().contains("pass the primary_source object inside it"));
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    pub fn from_json(json: &str) -> Result<Self, Error> {
        let invalid = || Error::new(ErrorKind::StoreSourceInvalid);
        let top = scan(json.as_bytes(), &PRIMARY_SOURCE)
            .map_err(|_| invalid())?
            .top;
        let kind = match top.field("kind") {
            Some(Shape::Str(kind)) => SourceKind::parse(kind),
            _ => None,
        };
        let reference = match top.field("ref") {
            Some(Shape::Str(reference)) => Some(reference),
            _ => None,
        };
        // An integer without sign, fraction or exponent (`6.0` and `6e0` are refused).
        let decimals = match top.field("decimals") {
            Some(Shape::Num(text)) if text.bytes().all(|b| b.is_ascii_digit()) => {
                text.parse::<u32>().ok()
            }
            _ => None,
        };
        match (kind, reference, decimals) {
            (Some(kind), Some(reference), Some(decimals)) => {
                PrimarySource::new(kind, reference, decimals)
            }
            (None, None, None)
                if matches!(top.field("primary_source"), Some(Shape::Object { .. })) =>
            {
                Err(err(ErrorKind::StoreSourceInvalid, WHOLE_STORE_VIEW))
            }
            _ => Err(invalid()),
        }
    }

    /// `kind`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{PrimarySource, SourceKind};
    /// let store = PrimarySource::from_json(r#"{"kind": "crypto", "ref": "usdc-eth", "decimals": 6}"#)?;
    /// let field = if store.kind() == SourceKind::Fiat { "currency" } else { "pricing_ref" };
    /// assert_eq!(field, "pricing_ref");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn kind(&self) -> SourceKind {
        self.kind
    }

    /// `ref`: the currency code (fiat) or pricing reference (crypto).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{to_amount_raw, validate_source_amount, PrimarySource, SourceAmount};
    /// let store = PrimarySource::from_json(r#"{"kind": "fiat", "ref": "EUR", "decimals": 2}"#)?;
    /// let amount = SourceAmount::fiat(store.reference(), to_amount_raw("128.00", store.decimals())?);
    /// assert!(validate_source_amount(&amount, &store).is_ok());
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn reference(&self) -> &str {
        &self.reference
    }

    /// `decimals`: the fractional digits of `amount_raw`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{from_amount_raw, to_amount_raw, PrimarySource};
    /// let store = PrimarySource::from_json(r#"{"kind": "crypto", "ref": "usdc-eth", "decimals": 6}"#)?;
    /// assert_eq!(to_amount_raw("1.5", store.decimals())?, "1500000");
    /// assert_eq!(from_amount_raw("1500000", store.decimals())?, "1.500000");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn decimals(&self) -> u32 {
        self.decimals
    }
}

#[cfg(test)]
mod tests;
