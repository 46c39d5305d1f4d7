//! Strict JSON, read with `serde_json` in one pass: syntax as `serde_json` reads it (UTF-8,
//! no BOM, nesting at most 128 levels), repeated keys noted at any depth, every number
//! kept as its exact text and checked against what a double can hold, and the few fields a
//! caller names captured on the way, with no tree built for the rest.

use core::cell::{Cell, RefCell};
use core::fmt;
use std::borrow::Cow;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// How `serde_json` (feature `arbitrary_precision`) hands a number to a visitor: as a map
/// with this single key and the number's text as value. A test pins it.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// 2^53 - 1: every integer up to it is exact in a double.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// What one pass noticed about the whole document.
#[derive(Debug, Default)]
pub(crate) struct Flags {
    /// Some object repeats a key.
    pub(crate) duplicate: Cell<bool>,
    /// Some number would change as a JavaScript `number` (see [`text_survives_f64`]).
    pub(crate) inexact: Cell<bool>,
}

/// The fields to capture in an object, each with the fields to capture inside it.
#[derive(Debug)]
pub(crate) struct Spec(pub(crate) &'static [(&'static str, &'static Spec)]);

/// Capture a field's own value only.
pub(crate) const LEAF: Spec = Spec(&[]);

/// A captured value: strings and numbers with their text, objects with their captured fields.
#[derive(Debug, PartialEq)]
pub(crate) enum Shape<'de> {
    Str(Cow<'de, str>),
    /// A number's exact text.
    Num(String),
    Object(Vec<(&'static str, Shape<'de>)>),
    Other,
}

impl<'de> Shape<'de> {
    /// The captured field `name` of an object.
    pub(crate) fn field(&self, name: &str) -> Option<&Shape<'de>> {
        match self {
            Shape::Object(fields) => fields.iter().find(|(n, _)| *n == name).map(|(_, s)| s),
            _ => None,
        }
    }
}

/// Why a document was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not JSON at all.
    Syntax,
    /// Some object repeats a key.
    DuplicateKey,
}

/// Reads `body` in one pass, capturing the fields `spec` names at the top level.
///
/// Syntax errors anywhere win over repeated keys.
pub(crate) fn scan<'de>(
    body: &'de [u8],
    spec: &'static Spec,
    flags: &Flags,
) -> Result<Shape<'de>, Refusal> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let keys = RefCell::new(Vec::new());
    let shape = Walk {
        flags,
        keys: &keys,
        capture: Some(spec),
    }
    .deserialize(&mut de)
    .and_then(|shape| de.end().map(|()| shape))
    .map_err(|_| Refusal::Syntax)?;
    if flags.duplicate.get() {
        return Err(Refusal::DuplicateKey);
    }
    Ok(shape)
}

/// Whether a JSON number's text keeps its value as an IEEE 754 double.
///
/// Integers must lie within ±(2^53 - 1). A number with a fraction or an exponent must be
/// zero or have a magnitude from 1e-307 up to (not including) 1e308. No float is parsed.
pub(crate) fn text_survives_f64(text: &str) -> bool {
    let magnitude = text.strip_prefix('-').unwrap_or(text);
    if !magnitude.is_empty() && magnitude.bytes().all(|b| b.is_ascii_digit()) {
        return magnitude
            .parse::<u64>()
            .is_ok_and(|n| n <= MAX_SAFE_INTEGER);
    }
    let (mantissa, exponent) = match magnitude.find(['e', 'E']) {
        Some(at) => magnitude.split_at(at),
        None => (magnitude, ""),
    };
    // An exponent too long for i64 is far outside the range either way.
    let exponent = exponent
        .get(1..)
        .unwrap_or_default()
        .trim_start_matches('+');
    let exponent: i64 = if exponent.is_empty() {
        0
    } else {
        exponent.parse().unwrap_or(if exponent.starts_with('-') {
            i64::MIN
        } else {
            i64::MAX
        })
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let int = int.trim_start_matches('0');
    // The position of the leading significant digit: the value lies in [10^(m-1), 10^m).
    let leading = if int.is_empty() {
        match frac.find(|c: char| c != '0') {
            None => return true, // zero
            Some(zeros) => i64::try_from(zeros).map_or(i64::MIN, i64::saturating_neg),
        }
    } else {
        i64::try_from(int.len()).unwrap_or(i64::MAX)
    };
    (-306..=308).contains(&leading.saturating_add(exponent))
}

/// Walks any value; captures it when `capture` is set (with the fields its spec names).
struct Walk<'f, 'de> {
    flags: &'f Flags,
    /// The keys of the objects being read, innermost last: one buffer for the whole
    /// document, so reading an object allocates nothing for its keys.
    keys: &'f RefCell<Vec<Cow<'de, str>>>,
    capture: Option<&'static Spec>,
}

/// Up to this many keys, an object's keys are compared pairwise; above, sorted.
const PAIRWISE_KEYS: usize = 16;

/// Whether some key appears twice (reorders `keys`).
fn repeats(keys: &mut [Cow<'_, str>]) -> bool {
    if keys.len() <= PAIRWISE_KEYS {
        let mut rest = &*keys;
        while let Some((first, tail)) = rest.split_first() {
            if tail.contains(first) {
                return true;
            }
            rest = tail;
        }
        false
    } else {
        keys.sort_unstable();
        keys.windows(2).any(|pair| pair.first() == pair.get(1))
    }
}

impl<'de> Walk<'_, 'de> {
    /// A walker for a value inside this one.
    fn inner(&self, capture: Option<&'static Spec>) -> Self {
        Walk {
            flags: self.flags,
            keys: self.keys,
            capture,
        }
    }

    /// Notes a number that would change as a double; captures its text if asked to.
    fn number(&self, survives: bool, text: impl FnOnce() -> String) -> Shape<'de> {
        if !survives {
            self.flags.inexact.set(true);
        }
        self.capture.map_or(Shape::Other, |_| Shape::Num(text()))
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_, 'de> {
    type Value = Shape<'de>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Shape<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_, 'de> {
    type Value = Shape<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Shape<'de>, E> {
        Ok(Shape::Other)
    }
    // serde_json hands integers that fit 64 bits over as such, every other number as text.
    fn visit_i64<E>(self, v: i64) -> Result<Shape<'de>, E> {
        Ok(self.number(v.unsigned_abs() <= MAX_SAFE_INTEGER, || v.to_string()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Shape<'de>, E> {
        Ok(self.number(v <= MAX_SAFE_INTEGER, || v.to_string()))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Shape<'de>, E> {
        Ok(Shape::Other)
    }
    fn visit_unit<E>(self) -> Result<Shape<'de>, E> {
        Ok(Shape::Other)
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Shape<'de>, E> {
        Ok(match self.capture {
            Some(_) => Shape::Str(Cow::Borrowed(v)),
            None => Shape::Other,
        })
    }
    fn visit_str<E>(self, v: &str) -> Result<Shape<'de>, E> {
        Ok(match self.capture {
            Some(_) => Shape::Str(Cow::Owned(v.to_owned())),
            None => Shape::Other,
        })
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape<'de>, A::Error> {
        while seq.next_element_seed(self.inner(None))?.is_some() {}
        Ok(Shape::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape<'de>, A::Error> {
        let Some(Key(first)) = map.next_key::<Key<'de>>()? else {
            return Ok(self
                .capture
                .map_or(Shape::Other, |_| Shape::Object(Vec::new())));
        };
        if first == NUMBER_TOKEN {
            let text: String = map.next_value()?;
            return Ok(self.number(text_survives_f64(&text), || text));
        }
        // This object's keys are the stack's entries from `start` on.
        let start = self.keys.borrow().len();
        let mut captured: Vec<(&'static str, Shape<'de>)> = Vec::new();
        let mut key = Some(first);
        while let Some(name) = key {
            let field = self
                .capture
                .and_then(|spec| spec.0.iter().find(|(n, _)| *n == name.as_ref()));
            let value = map.next_value_seed(self.inner(field.map(|(_, nested)| *nested)))?;
            if let Some((n, _)) = field {
                // A repeated field's first value is the one `Shape::field` finds; the document
                // is refused anyway.
                captured.push((*n, value));
            }
            self.keys.borrow_mut().push(name);
            key = map.next_key::<Key<'de>>()?.map(|Key(k)| k);
        }
        let mut keys = self.keys.borrow_mut();
        if keys.get_mut(start..).is_some_and(|own| repeats(own)) {
            self.flags.duplicate.set(true);
        }
        keys.truncate(start);
        drop(keys);
        Ok(self
            .capture
            .map_or(Shape::Other, |_| Shape::Object(captured)))
    }
}

/// An object key, borrowed from the input when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static INNER: Spec = Spec(&[("b", &LEAF)]);
    static OUTER: Spec = Spec(&[("a", &INNER), ("n", &LEAF), ("s", &LEAF)]);

    fn run(text: &str) -> (Result<Shape<'_>, Refusal>, bool) {
        let flags = Flags::default();
        let shape = scan(text.as_bytes(), &OUTER, &flags);
        (shape, flags.inexact.get())
    }

    #[test]
    fn captures_named_fields_only() {
        let (shape, inexact) = run(r#"{"x":"skip","s":"yes","n":12.50,"a":{"b":"deep","c":1}}"#);
        let shape = shape.unwrap();
        assert_eq!(shape.field("s"), Some(&Shape::Str(Cow::Borrowed("yes"))));
        assert_eq!(shape.field("n"), Some(&Shape::Num("12.50".into())));
        assert_eq!(shape.field("x"), None);
        let a = shape.field("a").unwrap();
        assert_eq!(a.field("b"), Some(&Shape::Str(Cow::Borrowed("deep"))));
        assert_eq!(a.field("c"), None);
        assert!(!inexact);
    }

    #[test]
    fn numbers_arrive_as_exact_text() {
        // Pins serde_json's number token: if it changed, big numbers would go unnoticed.
        let (shape, inexact) = run(r#"{"n":1700000000,"s":-5}"#);
        let shape = shape.unwrap();
        assert_eq!(shape.field("n"), Some(&Shape::Num("1700000000".into())));
        assert_eq!(shape.field("s"), Some(&Shape::Num("-5".into())));
        assert!(!inexact);
        assert!(run(r#"{"x":9007199254740992}"#).1);
        assert!(run(r#"{"x":-9007199254740992}"#).1);
        let (shape, inexact) = run(r#"{"n":18446744073709551617}"#);
        assert_eq!(
            shape.unwrap().field("n"),
            Some(&Shape::Num("18446744073709551617".into()))
        );
        assert!(inexact);
        assert!(run(r#"{"x":[1,{"y":1e400}]}"#).1);
        assert!(!run(r#"{"x":[1,{"y":9007199254740991}]}"#).1);
    }

    #[test]
    fn refusals() {
        assert_eq!(run(r#"{"a":1,"a":2"#).0, Err(Refusal::Syntax));
        assert_eq!(run(r#"{"a":{"b":1,"b":2}}"#).0, Err(Refusal::DuplicateKey));
        assert_eq!(run(r#"[{"k":1,"\u006b":2}]"#).0, Err(Refusal::DuplicateKey));
        assert_eq!(run("{} x").0, Err(Refusal::Syntax));
        assert_eq!(run(&"[".repeat(200)).0, Err(Refusal::Syntax));
    }

    #[test]
    fn repeated_keys_in_large_and_nested_objects() {
        let object = |keys: &[String]| {
            let fields: Vec<String> = keys.iter().map(|k| format!("\"{k}\":1")).collect();
            format!("{{{}}}", fields.join(","))
        };
        // Above the pairwise limit the keys are sorted: both paths must agree.
        for n in [2, PAIRWISE_KEYS, PAIRWISE_KEYS + 1, 200] {
            let distinct: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
            assert_eq!(
                run(&object(&distinct)).0.map(|_| ()),
                Ok(()),
                "{n} distinct keys"
            );
            let mut repeated = distinct.clone();
            repeated.push(format!("k{}", n / 2));
            assert_eq!(
                run(&object(&repeated)).0,
                Err(Refusal::DuplicateKey),
                "{n} keys + 1 repeat"
            );
        }
        // The same key in a parent and its child, or in siblings, is no repeat.
        assert!(
            run(r#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}],"c":{"a":1}}"#)
                .0
                .is_ok()
        );
        // A repeat after a nested object that used the same keys is still seen.
        assert_eq!(
            run(r#"{"x":1,"y":{"x":1,"y":2},"x":3}"#).0,
            Err(Refusal::DuplicateKey)
        );
        // And one deep inside, after siblings.
        assert_eq!(
            run(r#"{"a":[{"p":1},{"q":{"r":1,"s":2,"r":3}}],"b":2}"#).0,
            Err(Refusal::DuplicateKey)
        );
    }

    #[test]
    fn numbers_a_double_keeps() {
        for keeps in [
            "0",
            "-0",
            "0.0",
            "1.5",
            "-9007199254740991",
            "1e307",
            "9.99e307",
            "1e-306",
            "0.001e-300",
            "123.456e2",
        ] {
            assert!(text_survives_f64(keeps), "{keeps}");
        }
        for changes in [
            "9007199254740992",
            "-9007199254740992",
            "1e308",
            "1e400",
            "1e-400",
            "0.0001e-305",
            "1e99999999999999999999",
        ] {
            assert!(!text_survives_f64(changes), "{changes}");
        }
    }
}
