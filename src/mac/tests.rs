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
    // And the outer state kept to finish a host's inner hash.
    wiped_on_drop::<Sha256Core>();
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

/// SHA-256 over `key`'s inner pad block (RFC 2104) and `parts`: what a host computes for
/// [`KeyedMac::finish`], written here from the RFC, apart from the crate's outer state.
pub(crate) fn inner_hash(key: &[u8], parts: &[&[u8]]) -> Tag {
    let hashed: Vec<u8> = if key.len() > 64 {
        Sha256::digest(key).to_vec()
    } else {
        key.to_vec()
    };
    let mut pad = [0x36_u8; 64];
    for (p, k) in pad.iter_mut().zip(&hashed) {
        *p ^= k;
    }
    let mut hash = Sha256::new_with_prefix(pad);
    for part in parts {
        hash.update(part);
    }
    hash.finalize().into()
}

#[test]
fn an_inner_hash_is_finished_into_the_tag() {
    // Keys of every length around the block (64) and the hashed-key boundary, in ASCII and
    // multi-byte UTF-8, over messages of a few sizes: the finished tag is hmac's.
    let long = "é".repeat(100);
    for len in (0..=140).chain([199, 200]) {
        for key in [&"k".repeat(len).into_bytes()[..], &long.as_bytes()[..len]] {
            let mac = KeyedMac::new(key).unwrap();
            for size in [0, 1, 55, 56, 64, 1000] {
                let body = vec![b'{'; size];
                let inner = inner_hash(key, &[TS, b".", &body]);
                assert_eq!(
                    mac.finish(&inner),
                    mac.delivery_tag(TS, &body),
                    "key of {len} bytes, body of {size}"
                );
            }
        }
    }
    // Another key's inner hash, or the tag itself, finishes into something else.
    let mac = KeyedMac::new(b"k").unwrap();
    let tag = mac.delivery_tag(TS, b"{}");
    assert_ne!(mac.finish(&inner_hash(b"j", &[TS, b".", b"{}"])), tag);
    assert_ne!(mac.finish(&tag), tag);
}

#[test]
fn rfc4231_vectors_through_an_inner_hash() {
    let file: serde_json::Value =
        serde_json::from_str(include_str!("../../tests/vectors/hmac_sha256_rfc4231.json")).unwrap();
    for case in file["tests"].as_array().unwrap() {
        let hex = |k: &str| base16ct::mixed::decode_vec(case[k].as_str().unwrap()).unwrap();
        let key = hex("keyHex");
        let tag = KeyedMac::new(&key)
            .unwrap()
            .finish(&inner_hash(&key, &[&hex("dataHex")]));
        let expected = hex("tagHex");
        assert_eq!(&tag[..expected.len()], &expected[..], "case {}", case["id"]);
    }
}
