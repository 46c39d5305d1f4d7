//! Whether the bytes of a string (between its quotes, escapes and all) are UTF-8, for a key or
//! a string nothing captures that has a byte outside ASCII (a captured one needs its `&str`,
//! from `core::str::from_utf8`).
//!
//! In the npm package's `.wasm` (wasm32 with `simd128` on): `simd`, sixteen bytes at a time.
//! Measured in V8, `core::str::from_utf8` checked text outside ASCII at about 1.1 bytes per ns,
//! the scan's own pass over it ran at about 10, so an event with an 18 KB note outside ASCII
//! spent nine tenths of its scan in the check (18.2 us; 5.8 with `simd`); strings of 20 to 256
//! bytes outside ASCII scan 1.1 to 2.3 times as fast. Everywhere else, and for fewer than
//! sixteen bytes, `core::str::from_utf8`, which `tests/wasm.rs` (`make wasm-test`) holds
//! `simd` to.

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) mod simd;

/// Whether `bytes` are UTF-8.
#[inline(always)]
pub(super) fn valid(bytes: &[u8]) -> bool {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return simd::valid(bytes);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    return core::str::from_utf8(bytes).is_ok();
}
