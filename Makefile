# cryptopay-verify: `make demo` shows the merchant loop on the sandbox, `make test` runs every check.
SHELL := /bin/bash
CARGO ?= cargo
# The wasm-bindgen CLI must be the version the crate pins (read from Cargo.lock).
WASM_BINDGEN_VERSION := $(shell sed -n '/^name = "wasm-bindgen"$$/{n;s/^version = "\(.*\)"/\1/p;q}' Cargo.lock)
# The oldest Rust the crate says it builds with (Cargo.toml's rust-version), checked by `make msrv`.
MSRV := $(shell sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
# The suites' test files run one at a time on any machine, as they are measured here (Node's
# default is one fewer than the cores): the engines they start (PostgreSQL, workerd's D1 proxy,
# Chromium) share the machine with the file's own concurrent tests, and D1's proxy was seen
# failing with two loaded files at once.
NODE_TEST = node --test --test-concurrency=1
export PATH := $(HOME)/.cargo/bin:$(CURDIR)/node_modules/.bin:$(PATH)
# The targets rely on running in the order they are listed (`test` builds the package before
# the suites install it; two npm installs must not share node_modules): never in parallel.
.NOTPARALLEL:

.PHONY: setup setup-build setup-rust setup-node setup-node-versions setup-browser setup-postgres test lint doc unit \
	wasm-test pkg consumer js-test runtimes package-lint cli-test recipes-test www-test www differential memory-test loop-test \
	fuzz fuzz-smoke mutants bench demo setup-demo demo-rust vectors receiver-test bench-receiver types-test bundlers-test check \
	downstream axum-test crate-package sandbox-test setup-msrv msrv fresh

# Two tiers, each installing only what it needs (nothing installed twice; each does nothing
# when all is present):
#   setup-build  what `make pkg` and `make check` need: the Rust toolchain's rustfmt, clippy and
#                wasm32 target, wasm-bindgen-cli pinned to the crate's version, the build tools
#                of package.json (esbuild, binaryen). No root, no apt, no browser.
#   setup        all that `make test` needs besides: the npm workspaces (tests/, the framework
#                recipes, bench/), better-sqlite3 built, Node 18/22/26, Chromium, PostgreSQL,
#                the Rust toolchain of the crate's rust-version (minimal profile).
setup-build: setup-rust npm-build
setup: setup-build setup-node setup-node-versions setup-browser setup-postgres setup-msrv

setup-rust:
	@command -v $(CARGO) >/dev/null || { echo "cargo is required (https://rustup.rs)"; exit 1; }
	@rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
	@rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
	@rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$$' || rustup target add wasm32-unknown-unknown
	@[[ "$$(wasm-bindgen --version 2>/dev/null)" == "wasm-bindgen $(WASM_BINDGEN_VERSION)" ]] || \
		{ echo "installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION) (about 5 minutes)"; \
		  $(CARGO) install --quiet --locked wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION) || \
		  { echo "the locked install failed (its lock file may name a crate version this registry does not serve): resolving again"; \
		    $(CARGO) install --quiet wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION); }; }

setup-msrv:
	@rustup toolchain list 2>/dev/null | grep -q '^$(MSRV)-' || rustup toolchain install $(MSRV) --profile minimal

# npm install, not npm ci: this registry serves only this platform's optional packages, so the
# lock file lacks the others and npm ci refuses it; npm install still follows the lock.
# package.json's overrides (nitro: vite 8.3.8): nitro 3.0.0 names vite ^7 as an optional peer,
# and npm refuses the vite 8 the bundler tests use beside it; the Nitro 3 recipe test builds
# with Nitro's default builder, rollup, which never loads vite.
# better-sqlite3 (the receiver's SQLite tests) cannot download its prebuilt binary here (its
# install falls back at once to node-gyp): npm builds it from source against the headers of
# the Node that runs (its install prefix holds include/node), about a minute, once; a later
# Node upgrade rebuilds it. (Not npm_config_build_from_source: sharp, under next, would then
# try to build itself from source too, and fail.)
NODE_PREFIX = $(shell dirname "$$(dirname "$$(command -v node)")")
NPM_NATIVE = npm_config_nodedir=$(NODE_PREFIX)
NPM_INSTALL = $(CURDIR)/scripts/npm-install.sh
WORKSPACES = tests/package.json examples/recipes/package.json bench/package.json
BUILD_STAMP = node_modules/.cryptopay-build
ALL_STAMP = node_modules/.cryptopay-all

.PHONY: npm-build
npm-build: $(BUILD_STAMP)
$(BUILD_STAMP): package.json package-lock.json
	@command -v node >/dev/null || { echo "node (20 or later: the build, the demo and the tests) is required"; exit 1; }
	@# The root's build tools only: none of the workspaces.
	$(NPM_INSTALL) --workspaces=false
	@touch $@

$(ALL_STAMP): package.json package-lock.json $(WORKSPACES)
	@# better-sqlite3 builds from source against these: said here, not as three failed installs.
	@$(NODE_HEADERS)
	$(NPM_NATIVE) $(NPM_INSTALL)
	@touch $@ $(BUILD_STAMP)

SQLITE_LOADS = node -e "new (require('better-sqlite3'))(':memory:').close()" 2>/dev/null
NODE_HEADERS = [[ -f "$(NODE_PREFIX)/include/node/node_api.h" ]] || \
	{ echo "$@: the Node headers are missing in $(NODE_PREFIX)/include/node (Debian: apt-get install libnode-dev)" >&2; exit 1; }
setup-node: $(ALL_STAMP)
	@# better-sqlite3 loads in this Node, else it is built again (from source)
	@$(SQLITE_LOADS) || { $(NODE_HEADERS); \
		echo "setup-node: building better-sqlite3 from source against $(NODE_PREFIX)/include/node (about a minute)"; \
		$(NPM_NATIVE) npm rebuild better-sqlite3 --loglevel=error && $(SQLITE_LOADS) || \
		{ echo "setup-node: better-sqlite3 does not load in this Node after its build (is it installed? rm $(ALL_STAMP) and run make setup again)" >&2; exit 1; }; }

# What `make demo` needs beyond `make pkg`: better-sqlite3, for the example receiver's SQLite
# file, at the version tests/package.json pins (built from source, about a minute, once). Not
# the workspaces (frameworks, runtimes, browsers): `make setup` installs those, this too.
SQLITE_VERSION = $(shell sed -n 's/^ *"better-sqlite3": "\(.*\)",*$$/\1/p' tests/package.json)
setup-demo: setup-build
	@$(SQLITE_LOADS) || { $(NODE_HEADERS); \
		echo "setup-demo: building better-sqlite3 $(SQLITE_VERSION) from source (about a minute)"; \
		if [[ -d node_modules/better-sqlite3 ]]; then $(NPM_NATIVE) npm rebuild better-sqlite3 --loglevel=error; \
		else $(NPM_NATIVE) $(NPM_INSTALL) --workspaces=false --no-save better-sqlite3@$(SQLITE_VERSION); fi && $(SQLITE_LOADS) || \
		{ echo "setup-demo: better-sqlite3 does not load in this Node after its build" >&2; exit 1; }; }

# Node 18 (the oldest the package's engines allows) and the oldest and newest LTS (22, 26), as
# npm's binaries, so that `make runtimes` and `make receiver-test` run the installed package on
# them too (the repository's own scripts run on the machine's Node). Pinned in
# tests/runtimes/node-versions/package-lock.json. Installed from inside that folder, not with
# --prefix: --prefix moves npm's global config too (to <prefix>/etc/npmrc), and with it a
# cafile the machine's global npmrc sets.
NODE_VERSIONS_DIR = tests/runtimes/node-versions
setup-node-versions:
	@[[ -f $(NODE_VERSIONS_DIR)/node_modules/.package-lock.json && ! $(NODE_VERSIONS_DIR)/package-lock.json -nt $(NODE_VERSIONS_DIR)/node_modules/.package-lock.json \
		&& ! $(NODE_VERSIONS_DIR)/package.json -nt $(NODE_VERSIONS_DIR)/node_modules/.package-lock.json ]] || \
		(cd $(NODE_VERSIONS_DIR) && $(NPM_INSTALL))

# Debian's Chromium, for the browser tests (playwright-core drives it; no browser download).
# Silent when it is there; apt's output is shown only if the install fails.
setup-browser:
	@[[ -x /usr/bin/chromium ]] || { \
		[[ $$(id -u) == 0 ]] || { echo "setup-browser: run as root, or: sudo apt-get install -y chromium" >&2; exit 1; }; \
		echo "setup-browser: installing Debian's chromium"; \
		log=$$(mktemp); \
		if { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$$log" 2>&1; \
		then rm -f "$$log"; else cat "$$log" >&2; rm -f "$$log"; exit 1; fi; }

# Debian's PostgreSQL, for the receiver's tests (each run starts a throwaway server on a
# temporary folder and a unix socket, as the postgres user), and Debian's PgBouncer (one test
# puts it in front of that server in transaction mode). Silent when they are there.
setup-postgres:
	@{ ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null; } && \
		[[ -x /usr/sbin/pgbouncer || -x /usr/bin/pgbouncer ]] || { \
		[[ $$(id -u) == 0 ]] || { echo "setup-postgres: run as root, or: sudo apt-get install -y postgresql pgbouncer" >&2; exit 1; }; \
		echo "setup-postgres: installing Debian's postgresql and pgbouncer"; \
		log=$$(mktemp); \
		if { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql pgbouncer; } >"$$log" 2>&1; \
		then rm -f "$$log"; else cat "$$log" >&2; rm -f "$$log"; exit 1; fi; }

## test: formatting, lints, docs, Rust unit/doc/vector tests, the same vectors in wasm32,
## the npm package built, packed and installed, and the JavaScript tests against it
test: setup lint doc unit wasm-test pkg js-test runtimes package-lint cli-test recipes-test www-test \
	differential memory-test fuzz-smoke types-test bundlers-test downstream axum-test crate-package \
	msrv receiver-test sandbox-test loop-test

# Clippy for wasm32 as scripts/build-pkg.mjs builds the package (simd128 on), so that the code
# only that build compiles (the scanner's SIMD blocks) is linted too; the core's lib first.
WASM_CLIPPY = RUSTFLAGS='-C target-feature=+simd128' $(CARGO) clippy --target wasm32-unknown-unknown

## fresh: rustfmt, and the vectors and fuzz seeds as their generators write them
fresh:
	$(CARGO) fmt --all --check
	python3 tests/vectors/generate.py --check
	python3 fuzz/seeds.py --check

lint: fresh
	$(CARGO) clippy --locked --all-targets -- -D warnings
	$(CARGO) clippy --locked --all-targets --features http -- -D warnings
	$(WASM_CLIPPY) --locked -p cryptopay-verify --lib -- -D warnings
	$(WASM_CLIPPY) --locked -p cryptopay-verify-wasm -- -D warnings
	$(WASM_CLIPPY) --locked -p cryptopay-verify-service-wasm -- -D warnings

doc:
	RUSTDOCFLAGS=-Dwarnings $(CARGO) doc --locked --no-deps --quiet --features http

# With the `http` feature: its doctests and the read_headers vectors through a HeaderMap.
unit:
	$(CARGO) test --locked --features http

## check: the fast loop (no root, no browser, no database): rustfmt, clippy (the core, the
## bindings for wasm32), the docs (links resolved), the native tests, the npm package built and
## installed, its JavaScript tests
check: setup-build fresh
	$(CARGO) clippy --all-targets --features http -- -D warnings
	@$(MAKE) --no-print-directory doc
	$(WASM_CLIPPY) -p cryptopay-verify --lib -- -D warnings
	$(WASM_CLIPPY) -p cryptopay-verify-wasm -- -D warnings
	$(WASM_CLIPPY) -p cryptopay-verify-service-wasm -- -D warnings
	$(CARGO) test --quiet --features http
	node scripts/build-pkg.mjs
	@$(MAKE) --no-print-directory js-test

## downstream: a user's crate beside this one (tests/downstream): its serde code behaves as
## without cryptopay-verify, and every vector holds with the user's own arbitrary_precision
downstream:
	$(CARGO) test --quiet --locked --manifest-path tests/downstream/Cargo.toml --target-dir target/downstream
	$(CARGO) test --quiet --locked --manifest-path tests/downstream/Cargo.toml --target-dir target/downstream \
		--features user-arbitrary-precision

## axum-test: examples/axum-receiver built (its own crate), started, and driven by the
## conformance kit of the installed package, on SQLite and on PostgreSQL (a throwaway server);
## its store across restarts; two instances on one PostgreSQL at once; its merchant loop
## (link_event, default_policy) against a scripted stand-in of the service
axum-test: consumer
	$(CARGO) build --quiet --release --locked --manifest-path examples/axum-receiver/Cargo.toml \
		--target-dir target/axum-receiver
	$(CARGO) test --quiet --release --locked --manifest-path examples/axum-receiver/Cargo.toml \
		--target-dir target/axum-receiver
	$(NODE_TEST) --test-timeout=180000 examples/axum-receiver/test/*.test.mjs

## msrv: the crate (with its `http` feature) builds with the Rust its rust-version names, as a
## user's older toolchain builds it
msrv: setup-msrv
	$(CARGO) +$(MSRV) check --quiet --locked --lib --features http --target-dir target/msrv

## crate-package: `cargo package` builds the crate as crates.io would get it (--allow-dirty: the
## check is that the packaged files build, whatever is uncommitted in a working tree)
crate-package:
	$(CARGO) package --quiet --locked --allow-dirty

## wasm-test: the shared vectors through the wasm32 build, in Node (wasm-bindgen-test), with
## simd128 on as scripts/build-pkg.mjs builds the package (sha2's and the JSON scanner's wasm
## SIMD); `--cfg wasm_test` lets the test hold the scanner's SIMD blocks to their SWAR reference
wasm-test:
	CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
	RUSTFLAGS='-C target-feature=+simd128 --cfg wasm_test' \
		$(CARGO) test --locked --target wasm32-unknown-unknown --test wasm

## pkg: build the npm package into pkg/
pkg: setup-build
	node scripts/build-pkg.mjs

## consumer: pack pkg/ and install the tarball into target/consumer, as a user would
consumer:
	scripts/consumer.sh >/dev/null

js-test: consumer
	$(NODE_TEST) --test-timeout=300000 tests/js/*.test.mjs tests/hostile/*.test.mjs

## types-test: every code block of the package README that imports it, type-checked against the
## installed package under strict TypeScript (7 and 5.9; nodenext ESM and CommonJS, bundler; no
## skipLibCheck); the typings alone with lib es2022 and types []; JSDoc coverage of the shipped
## typings (every export, method, option and ErrorCode member: 100 %); the JavaScript and
## TypeScript blocks of README.md, docs/ and the examples' READMEs parse, and name only exports
## the package has
types-test: consumer
	$(NODE_TEST) --test-timeout=300000 tests/types/*.test.mjs

## bundlers-test: the package README's recipes for Vite, webpack, esbuild and Rollup, each bundle
## of a small page loaded in headless Chromium: init() on a 404 rejects naming the URL, then a
## delivery verifies and a tampered one is refused; the same page under `vite` (dev); every input
## and failure of init() in the unbundled browser entry
bundlers-test: consumer
	$(NODE_TEST) --test-timeout=300000 tests/bundlers/*.test.mjs
## receiver-test: cryptopay-verify/receiver against real engines (a throwaway PostgreSQL, SQLite
## and libsql files, D1 in workerd): answers, a property test against decideEvent, 4 instances on one
## PostgreSQL with one SIGKILLed, faults (server stopped, disk full, lock timeout), the example
## receiver, bun:sqlite and node:sqlite
receiver-test: consumer
	$(NODE_TEST) --test-timeout=300000 tests/receiver/*.test.mjs

## sandbox-test: cryptopay-verify/sandbox of the installed package, through HTTP: every endpoint and
## refusal; deliveries against a scripted endpoint (what is retried, redirects never followed, a
## finite schedule, signatures per attempt, bytes kept, rotation, order, seeded duplicates and
## shuffling); restarts on a data file; the example receiver, the Express and Hono recipes and the
## axum receiver driven under duplicates and shuffling; a seeded property test; the command line
sandbox-test: consumer
	$(CARGO) build --quiet --release --locked --manifest-path examples/axum-receiver/Cargo.toml \
		--target-dir target/axum-receiver
	$(NODE_TEST) --test-timeout=120000 tests/sandbox/*.test.mjs
## loop-test: the merchant loop (tests/loop): the API client against a scripted stand-in of the
## service (retries with the same key and bytes, errors, no key anywhere), fulfilment on a SQLite
## file, a throwaway PostgreSQL, D1 in workerd and memoryStore (only exactly paid orders fulfilled,
## each (payment, status_version) handled once, recovery, retries), two fulfilment processes on one
## PostgreSQL with one SIGKILLed, the migration from the first schema with its rows kept; and end
## to end through the sandbox: the client against it (a lost answer retried, its refusals, the
## webhook's rotation), the loop on each engine with duplicated and shuffled deliveries, a
## receiver down and restarted, the same scenarios with the sandbox as their world, the node and
## axum examples' loops, and docs/merchant-loop.md's sandbox section run as written; then
## `make demo`'s script on the installed package (it exits 1 on any wrong result)
loop-test: consumer
	$(CARGO) build --quiet --release --locked --manifest-path examples/axum-receiver/Cargo.toml \
		--target-dir target/axum-receiver
	$(NODE_TEST) --test-timeout=300000 tests/loop/*.test.mjs
	@node scripts/demo.mjs > target/demo.log 2>&1 || { cat target/demo.log; echo "loop-test: make demo's script failed" >&2; exit 1; }
	@echo "loop-test: make demo's script: $$(tail -1 target/demo.log)"

## runtimes: the installed package loaded and exercised in every runtime
runtimes: consumer
	node tests/runtimes/run.mjs

## package-lint: publint and are-the-types-wrong on the built package (run make pkg first)
# attw: the main entry and the ./receiver, ./sandbox and ./client subpaths green for node10,
# node16 (CJS and ESM) and bundler (every entrypoint but the .wasm is checked: a new subpath is
# too); the .wasm subpath serves hosts that import .wasm as ESM (wrangler, bundlers), so only
# its ESM resolutions count.
package-lint:
	@[[ -f pkg/package.json ]] || { echo "package-lint: no pkg/: run make pkg first" >&2; exit 1; }
	@out=$$(publint --strict pkg 2>&1); rc=$$?; echo "$$out"; \
		[[ $$rc == 0 ]] && grep -q 'All good!' <<<"$$out" || { echo "package-lint: publint is not all good" >&2; exit 1; }
	attw --pack pkg --no-color --no-emoji --profile strict --exclude-entrypoints ./cryptopay_verify_bg.wasm ./schema/postgres-schema.sql ./schema/sqlite-schema.sql
	attw --pack pkg --no-color --no-emoji --profile esm-only --entrypoints ./cryptopay_verify_bg.wasm

## cli-test: the command line and the conformance kit against good and careless receivers
cli-test: consumer
	$(NODE_TEST) --test-timeout=60000 tests/cli/*.test.mjs

## recipes-test: each framework recipe (examples/recipes: Express, Fastify, hapi, Hono (on Node, Bun and Deno), Koa, Elysia on Bun, NestJS, Next.js,
## Nitro and Nitro 3 built for Node and for Bun, a Worker in workerd on D1 and on PostgreSQL, an AWS Lambda behind a stand-in for API Gateway, a
## Google Cloud Run function in the Functions Framework, a Supabase Edge Function in Deno) run against the installed
## package and sent signed deliveries
recipes-test: consumer
	$(NODE_TEST) --test-timeout=180000 examples/recipes/tests/*.test.mjs

## www-test: the playground (www/) in headless Chromium; screenshots in target/www/
www-test: consumer
	$(NODE_TEST) --test-timeout=120000 tests/www/*.test.mjs

## www: serve the playground on 127.0.0.1 (prints the URL; PORT=0 picks a free port)
www: consumer
	@node www/serve.mjs

## differential: 1e5 random cases (HMAC by Python's hmac) through node:crypto and the installed
## package, bit flips rejected; 1e4 cases where stripe-node is an oracle; the 1e5 cases again
## through both HMAC paths of the node entry (node:crypto's, WebAssembly's): the same answers
## (DIFF_SEED repeats a run)
# A fixed seed keeps `make test` reproducible; `make differential DIFF_SEED=<n>` tries others
# (the run prints its seed).
DIFF_SEED ?= 20261122
differential: consumer
	python3 tests/differential/generate.py target/differential $(if $(DIFF_SEED),--seed $(DIFF_SEED))
	node tests/differential/run.mjs target/differential
	bun tests/differential/run.mjs target/differential c

## memory-test: wasm memory and rss flat over 1e6 verifications and 1e5 Verifier cycles;
## verifiers whose free() is forgotten are reclaimed by the FinalizationRegistry
memory-test: consumer
	node --expose-gc --max-semi-space-size=8 tests/memory/memory.mjs

## demo: builds and installs the package, then the merchant loop in one screen: the sandbox
## (duplicating and reordering deliveries) and the example receiver, payments created through it
## and paid in full, partly and too much and one cancelled, what the receiver stored next to
## GET /v1/payments/{id}, what its merchant loop decided for each order; then the conformance kit
## against the example receiver and a careless one; exit 0 when all agree
demo: setup-demo pkg
	@$(MAKE) --no-print-directory consumer
	@node scripts/demo.mjs

## demo-rust: sign a delivery in Rust, verify it, show tampering, replay and rotation fail
demo-rust:
	@$(CARGO) run --quiet --example demo

## bench: the installed package against node:crypto, WebCrypto, stripe, svix, standardwebhooks and
## @noble/hashes, cold start, .wasm size, memory and a native Rust bench; writes bench/RESULTS.md
## (then bench/receiver.mjs adds the receiver's deliveries/s and latency, its own section)
## (about 5 to 7 minutes after make pkg, then the receiver's 1.5; BENCH_QUICK=1 for about a minute; BENCH_NATIVE=0 skips the Rust bench)
bench: setup-node setup-postgres pkg
	@scripts/consumer.sh $(CURDIR)/target/bench-consumer >/dev/null
	node bench/run.mjs
	node bench/receiver.mjs

## bench-receiver: only the receiver's section of bench/RESULTS.md (old JSON-lines log, SQLite,
## PostgreSQL with 1 and 4 instances; about 1-2 minutes, BENCH_QUICK=1 for less)
bench-receiver: setup-node setup-postgres pkg
	@scripts/consumer.sh $(CURDIR)/target/bench-consumer >/dev/null
	node bench/receiver.mjs

## fuzz: every fuzz target (fuzz/, cargo-fuzz on nightly, both installed when missing) for
## FUZZ_SECS seconds each (default 60), -rss_limit_mb=2048 -timeout=1; prints the executions
## per target and fails on any crash (saved in fuzz/artifacts/). FUZZ_TARGETS picks some;
## FUZZ_SANITIZER=address adds AddressSanitizer (slower; see fuzz/run.sh).
FUZZ_SECS ?= 60
FUZZ_SMOKE_SECS ?= 4
FUZZ_TARGETS ?=
FUZZ_SANITIZER ?= none
fuzz:
	@FUZZ_SANITIZER=$(FUZZ_SANITIZER) fuzz/run.sh $(FUZZ_SECS) $(FUZZ_TARGETS)

## fuzz-smoke: every fuzz target for FUZZ_SMOKE_SECS seconds (default 4; part of make test)
fuzz-smoke:
	@FUZZ_SANITIZER=$(FUZZ_SANITIZER) fuzz/run.sh $(FUZZ_SMOKE_SECS)

## mutants: cargo-mutants (installed when missing) over the core crate (not the binding; the
## fuzz targets' hooks, __fuzzing, the wasm tests' hooks, __wasm_test, and the SIMD128 blocks,
## compiled for the .wasm only, excluded), in a copy of the tree, each mutant against the unit
## tests, vectors, properties and the http feature's tests (no doctests); results in
## target/mutants.out/ (missed.txt: the surviving mutants)
CARGO_MUTANTS_VERSION ?= 27.1.0
mutants:
	@[[ "$$($(CARGO) mutants --version 2>/dev/null)" == "cargo-mutants $(CARGO_MUTANTS_VERSION)" ]] || \
		{ echo "installing cargo-mutants $(CARGO_MUTANTS_VERSION) (about 3 minutes)"; \
		  $(CARGO) install --quiet --locked cargo-mutants --version $(CARGO_MUTANTS_VERSION); }
	$(CARGO) mutants -j 2 --timeout 60 --package cryptopay-verify --exclude-re '__fuzzing::|__wasm_test::' \
		--exclude src/json/scan/block/simd.rs --features http \
		--gitignore true --output target -- --lib --test vectors --test properties --test http_headers

## vectors: rebuild tests/vectors/*.json (HMACs computed by Python's hmac, independently)
vectors:
	python3 tests/vectors/generate.py
