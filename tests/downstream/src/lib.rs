//! A stand-in for a user's crate: its tests are in `tests/`.
