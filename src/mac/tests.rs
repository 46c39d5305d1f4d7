//! The unit tests of `mac`.

use super::*;
use hmac::block_api::HmacCore;
use hmac::digest::block_api::{Buffer, CoreProxy};

const TS: &[u8] = b"1700000000";
const HEX: &str = "0900a08773f24e66b315e3d5c951f0b713a3559f282fd89bdc9ae5216a2b13b6";
const B64: &str = "CQCgh3PyTmazFePVyVHwtxOjVZ8oL9ib3JrlIWorE7Y=";

#[test]
fn keyed_states_wipe_themselves_on_drop() {
    // What a KeyedMac holds: an HmacCore (two SHA-256 cores: the keyed inner and outer
    // states) and a block buffer. Each must clear itself when dropped; this compiles only
    // while the `zeroize` features are on.
    fn wiped_on_drop<T: zeroize::ZeroizeOnDrop>() {}
    wiped_on_drop::<<Sha256 as CoreProxy>::Core>();
    wiped_on_drop::<Buffer<HmacCore<Sha256>>>();
    assert_eq!(
        format!("{:?}", KeyedMac::new(b"k").unwrap()),
        "KeyedMac([REDACTED])"
    );
}

#[test]
fn signer_matches_known_answers() {
    let secret = Secret::new("whsec_test_secret");
    let body = br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated"}"#;
    assert_eq!(
        sign_webhook(&secret, TS, body, SignatureEncoding::Hex).unwrap(),
        HEX
    );
    assert_eq!(
        sign_webhook(&secret, TS, body, SignatureEncoding::Base64).unwrap(),
        B64
    );
}

#[test]
fn rfc4231_vectors() {
    let file: serde_json::Value =
        serde_json::from_str(include_str!("../../tests/vectors/hmac_sha256_rfc4231.json")).unwrap();
    let tests = file["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 7);
    for case in tests {
        let hex = |k: &str| base16ct::mixed::decode_vec(case[k].as_str().unwrap()).unwrap();
        let tag = KeyedMac::new(&hex("keyHex"))
            .unwrap()
            .tag(&[&hex("dataHex")]);
        let expected = hex("tagHex");
        assert_eq!(&tag[..expected.len()], &expected[..], "case {}", case["id"]);
    }
}
