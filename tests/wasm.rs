//! Every case of `tests/vectors/*.json` against the wasm32 build, run in Node by
//! wasm-bindgen-test (`make wasm-test`): the core gives the same answers on both targets.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::string_slice
)]

mod common;

use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn every_vector_holds_in_wasm32() {
    common::assert_every_vector_holds();
}

#[wasm_bindgen_test]
fn json_test_suite_holds_in_wasm32() {
    common::assert_json_suite_holds();
}
