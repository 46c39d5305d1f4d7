//! The unit tests of `signature` (kept beside it so that `src/signature.rs` stays readable).

use super::*;

const TS: &[u8] = b"1700000000";
const HEX: &str = "0900a08773f24e66b315e3d5c951f0b713a3559f282fd89bdc9ae5216a2b13b6";
const B64: &str = "CQCgh3PyTmazFePVyVHwtxOjVZ8oL9ib3JrlIWorE7Y=";

#[test]
fn the_usual_spellings_read_in_one_step_as_the_grammar_reads_them() {
    let upper = HEX.to_uppercase();
    let mixed: String = HEX
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if i % 2 == 0 {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect();
    let mut values = vec![];
    for hex in [HEX.to_owned(), upper, mixed] {
        for prefix in [
            "",
            "v1=",
            "V1=",
            "v1,",
            "sha256=",
            " v1=",
            "v1= ",
            "t=1700000000,v1=",
        ] {
            values.push(format!("{prefix}{hex}"));
        }
        values.push(format!("v1={}", hex.get(1..).unwrap()));
        values.push(format!("v1={hex}0"));
        values.push(format!("v1={}g", hex.get(1..).unwrap()));
        values.push(format!("v1={} ", hex.get(1..).unwrap()));
        values.push(format!("v1={},", hex.get(1..).unwrap()));
        values.push(format!("{}=", hex.get(1..).unwrap()));
    }
    values.push(format!("v1={B64}"));
    let mut fast = 0;
    for value in &values {
        let quick = parse_signature_header(value.as_bytes(), TS);
        let full = parse_grammar(value.as_bytes(), TS);
        assert_eq!(
            quick.as_ref().map(Candidates::as_slice),
            full.as_ref().map(Candidates::as_slice),
            "{value}"
        );
        fast += usize::from(canonical(value.as_bytes()).is_some());
    }
    // The plain and `v1=` spellings in three letter cases took the one-step path.
    assert_eq!(fast, 6);
}

fn parse(value: &str) -> Result<usize, &'static str> {
    parse_signature_header(value.as_bytes(), TS)
        .map(|c| c.as_slice().len())
        .map_err(Error::code)
}

#[test]
fn shapes() {
    assert_eq!(parse(HEX), Ok(1));
    assert_eq!(parse(&HEX.to_uppercase()), Ok(1));
    assert_eq!(parse(B64), Ok(1));
    assert_eq!(parse(B64.trim_end_matches('=')), Ok(1));
    assert_eq!(parse(&format!("v1={HEX}")), Ok(1));
    assert_eq!(parse(&format!("sha256={HEX}")), Ok(1));
    assert_eq!(parse(&format!("v1,{B64}")), Ok(1));
    assert_eq!(parse(&format!("t=1700000000,v1={HEX},v1={HEX}")), Ok(2));
    assert_eq!(parse(&format!("  {HEX}\t{B64} ,")), Ok(2));
    assert_eq!(parse(&format!("{B64},{B64}")), Ok(2));
}

#[test]
fn rejections() {
    assert_eq!(parse(""), Err("signature_missing"));
    assert_eq!(parse(" \t "), Err("signature_missing"));
    assert_eq!(parse("v1="), Err("signature_malformed"));
    assert_eq!(parse("t=1700000000"), Err("signature_malformed"));
    assert_eq!(parse(","), Err("signature_malformed"));
    assert_eq!(
        parse(&format!("t=01700000000,v1={HEX}")),
        Err("signature_malformed")
    );
    assert_eq!(parse(&format!("v0={HEX}")), Err("signature_malformed"));
    assert_eq!(parse(&format!("V1={HEX}")), Err("signature_malformed"));
    assert_eq!(parse(&HEX[..62]), Err("signature_malformed"));
    assert_eq!(parse(&format!("{HEX}0")), Err("signature_malformed"));
    assert_eq!(parse(&format!("v1,{B64},junk")), Err("signature_malformed"));
    assert_eq!(
        parse(&format!("{}é", &HEX[..63])),
        Err("signature_malformed")
    );
    let nine = [HEX; 9].join(" ");
    assert_eq!(parse(&nine), Err("signature_malformed"));
    assert_eq!(parse(&[HEX; 8].join(" ")), Ok(8));
    assert_eq!(parse(&"a".repeat(1025)), Err("signature_malformed"));
    // Non-canonical base64: the last character carries non-zero unused bits.
    assert_eq!(
        parse("CQCgh3PyTmazFePVyVHwtxOjVZ8oL9ib3JrlIWorE7Z="),
        Err("signature_malformed")
    );
}

#[test]
fn an_unknown_item_is_named_as_such() {
    // A padded base64 value is the one item with `=` that is not a marker.
    let detail = |v: &str| {
        parse_signature_header(v.as_bytes(), TS)
            .unwrap_err()
            .detail()
            .unwrap_or_default()
    };
    assert!(detail(&format!("v0={HEX}")).contains("unknown item"));
    assert!(detail("abc=").contains("unknown item"));
    assert!(detail(&format!("{}==", &B64[..42])).contains("unknown item"));
    assert!(!detail("CQCgh3PyTmazFePVyVHwtxOjVZ8oL9ib3JrlIWorE7Z=").contains("unknown item"));
}

#[test]
fn every_prefix_of_a_value_is_rejected() {
    for len in 0..HEX.len() {
        let code = parse(&format!("v1={}", &HEX[..len])).unwrap_err();
        assert!(code == "signature_malformed", "prefix {len}: {code}");
    }
}

#[test]
fn debug_shows_how_many_never_the_signatures() {
    let hex = "5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd";
    let candidates = parse_signature_header(format!("v1={hex}").as_bytes(), TS).unwrap();
    let shown = format!("{candidates:?}");
    assert_eq!(shown, "Candidates { len: 1, .. }");
    assert!(!shown.contains("5257") && !shown.contains("82"), "{shown}");
}
