//! The reference for the crate's strict JSON scanner: serde_json at every level, slower and
//! obviously right. Shared by the `event` fuzz target (fuzz/src/lib.rs includes this file)
//! and the JSONTestSuite test (tests/vectors.rs).
#![allow(
    unreachable_pub,
    dead_code,
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing
)]

/// A JSON value as the reference reader sees it.
#[derive(Debug, PartialEq)]
pub enum RefValue {
    /// An object: each key (decoded), its value and the value's exact text, in order.
    Object(Vec<(String, RefValue, String)>),
    /// An array.
    Array(Vec<RefValue>),
    /// A string, decoded.
    Str(String),
    /// A number's exact text.
    Num(String),
    /// `null`.
    Null,
    /// `true` or `false`.
    Literal,
}

/// Why the reference reader refused a document.
#[derive(Debug, PartialEq, Eq)]
pub enum RefRefusal {
    /// Not JSON as serde_json reads it (at most 127 nested containers).
    NotJson,
    /// Some object repeats a key (after the whole document read as JSON).
    DuplicateKey,
}

/// The reference for the crate's strict scan: serde_json's `RawValue` at every level (each
/// container's text read again, level by level: obviously right, quadratic in depth), keys
/// and strings decoded by serde_json, numbers kept as text, duplicates noted, 128 nested
/// containers refused as serde_json's recursion limit does.
///
/// # Errors
///
/// [`RefRefusal`]: syntax anywhere wins over a repeated key.
pub fn reference_json(body: &[u8]) -> Result<RefValue, RefRefusal> {
    match reference_envelope(body)? {
        (_, true) => Err(RefRefusal::DuplicateKey),
        (value, false) => Ok(value),
    }
}

/// As [`reference_json`], but a key repeated below the top level is answered as `true`
/// beside the tree rather than refused (an envelope's order of checks: an unknown
/// `event_type` first).
///
/// # Errors
///
/// [`RefRefusal`]: syntax anywhere wins over a key repeated in the top-level object.
pub fn reference_envelope(body: &[u8]) -> Result<(RefValue, bool), RefRefusal> {
    let text = std::str::from_utf8(body).map_err(|_| RefRefusal::NotJson)?;
    let raw: &serde_json::value::RawValue =
        serde_json::from_str(text).map_err(|_| RefRefusal::NotJson)?;
    let mut repeats = Repeats::default();
    let value = reference_value(raw.get(), 0, &mut repeats)?;
    if repeats.top {
        return Err(RefRefusal::DuplicateKey);
    }
    Ok((value, repeats.nested))
}

/// Where a repeated key was seen: in the top-level object, or below it.
#[derive(Default)]
struct Repeats {
    top: bool,
    nested: bool,
}

fn reference_value(
    text: &str,
    depth: usize,
    duplicate: &mut Repeats,
) -> Result<RefValue, RefRefusal> {
    use serde_json::value::RawValue;
    let not_json = |_| RefRefusal::NotJson;
    match text.as_bytes().first() {
        Some(b'{') | Some(b'[') if depth + 1 >= 128 => Err(RefRefusal::NotJson),
        Some(b'{') => {
            let pairs: Vec<(String, &RawValue)> = serde_json::from_str::<OrderedMap<'_>>(text)
                .map_err(not_json)?
                .0;
            let mut out = Vec::new();
            for (key, raw) in pairs {
                if out
                    .iter()
                    .any(|(k, _, _): &(String, RefValue, String)| *k == key)
                {
                    if depth == 0 {
                        duplicate.top = true;
                    } else {
                        duplicate.nested = true;
                    }
                }
                let value = reference_value(raw.get(), depth + 1, duplicate)?;
                out.push((key, value, raw.get().to_owned()));
            }
            Ok(RefValue::Object(out))
        }
        Some(b'[') => {
            let items: Vec<&RawValue> = serde_json::from_str(text).map_err(not_json)?;
            let values = items
                .into_iter()
                .map(|raw| reference_value(raw.get(), depth + 1, duplicate))
                .collect::<Result<_, _>>()?;
            Ok(RefValue::Array(values))
        }
        Some(b'"') => Ok(RefValue::Str(serde_json::from_str(text).map_err(not_json)?)),
        Some(b'n') => Ok(RefValue::Null),
        Some(b't' | b'f') => Ok(RefValue::Literal),
        _ => Ok(RefValue::Num(text.to_owned())),
    }
}

/// An object's pairs in document order, repeats kept.
struct OrderedMap<'a>(Vec<(String, &'a serde_json::value::RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for OrderedMap<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Pairs<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Pairs<'a> {
            type Value = OrderedMap<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut pairs = Vec::new();
                while let Some(pair) =
                    map.next_entry::<String, &'a serde_json::value::RawValue>()?
                {
                    pairs.push(pair);
                }
                Ok(OrderedMap(pairs))
            }
        }
        deserializer.deserialize_map(Pairs(std::marker::PhantomData))
    }
}

impl RefValue {
    /// The first value of `key` in an object, with its exact text.
    #[must_use]
    pub fn field(&self, key: &str) -> Option<(&RefValue, &str)> {
        match self {
            RefValue::Object(pairs) => pairs
                .iter()
                .find(|(k, _, _)| k == key)
                .map(|(_, v, text)| (v, text.as_str())),
            _ => None,
        }
    }
}
