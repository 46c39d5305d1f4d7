//! `DeliveryHeaders::from_header_map` (feature `http`) against `tests/vectors/read_headers.json`:
//! an `http::HeaderMap` built from each row's headers (every pair appended, so a repeated
//! header keeps its copies apart) gives the row's answer, as `read_delivery_headers` does.
#![cfg(feature = "http")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use cryptopay_verify::{DeliveryHeaders, read_delivery_headers};
use http::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

#[test]
fn every_read_headers_vector_holds_for_a_header_map() {
    let file: Value =
        serde_json::from_str(include_str!("vectors/read_headers.json")).expect("json");
    let mut run = 0;
    for case in file["tests"].as_array().expect("tests") {
        let mut map = HeaderMap::new();
        let mut pairs = Vec::new();
        for pair in case["headers"].as_array().expect("headers") {
            let (name, value) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
            // Every row's names and values are valid HTTP: none is skipped.
            map.append(
                HeaderName::from_bytes(name.as_bytes()).expect("a header name"),
                HeaderValue::from_str(value).expect("a header value"),
            );
            pairs.push((name.as_bytes(), value.as_bytes()));
        }
        let (ts, sig) = (
            case["timestampHeader"].as_str().unwrap(),
            case["signatureHeader"].as_str().unwrap(),
        );
        let got = DeliveryHeaders::from_header_map(&map, ts, sig)
            .map(|h| (h.timestamp.to_vec(), h.signature.to_vec()))
            .map_err(|e| e.code());
        let expected = &case["expected"];
        let want = match expected.get("error") {
            Some(code) => Err(code.as_str().unwrap()),
            None => Ok((
                expected["timestamp"].as_str().unwrap().as_bytes().to_vec(),
                expected["signature"].as_str().unwrap().as_bytes().to_vec(),
            )),
        };
        assert_eq!(
            got, want,
            "read_headers.json #{}: {}",
            case["id"], case["comment"]
        );
        // And the pair-list reader agrees.
        let listed = read_delivery_headers(pairs.iter().copied(), ts, sig)
            .map(|h| (h.timestamp.to_vec(), h.signature.to_vec()))
            .map_err(|e| e.code());
        assert_eq!(listed, got);
        run += 1;
    }
    assert_eq!(run, 15);
}

#[test]
fn header_map_argument_errors() {
    let map = HeaderMap::new();
    for (ts, sig) in [("", "x-s"), ("x-t", ""), ("X-Same", "x-same")] {
        let err = DeliveryHeaders::from_header_map(&map, ts, sig).unwrap_err();
        assert_eq!(err.code(), "invalid_argument");
    }
    // A configured name that no HTTP header can have is refused: found never, it would make
    // every delivery timestamp_missing.
    assert_eq!(
        DeliveryHeaders::from_header_map(&map, "x t", "x-s")
            .unwrap_err()
            .code(),
        "invalid_argument"
    );
}
