# cryptopay-verify: `make demo` shows the verifier at work, `make test` runs every check.
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: setup test lint unit doc demo vectors

## setup: install what the tests need (idempotent: does nothing when all is present)
setup:
	@command -v $(CARGO) >/dev/null || { echo "cargo is required (https://rustup.rs)"; exit 1; }
	@rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
	@rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
	@rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$$' || rustup target add wasm32-unknown-unknown

## test: formatting, lints (warnings are errors), docs, unit tests, doctests and vectors
test: setup lint doc unit

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings

doc:
	RUSTDOCFLAGS=-Dwarnings $(CARGO) doc --no-deps --quiet

unit:
	$(CARGO) test

## demo: sign a delivery, verify it, and show what tampering, replay and rotation give
demo:
	@$(CARGO) run --quiet --example demo

## vectors: rebuild tests/vectors/*.json (HMACs computed by Python's hmac, independently)
vectors:
	python3 tests/vectors/generate.py
