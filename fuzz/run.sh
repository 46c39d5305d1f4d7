#!/usr/bin/env bash
# Runs the fuzz targets, one after the other, for SECONDS each, and prints the executions
# each reached. Usage: fuzz/run.sh SECONDS [TARGET...]   (no TARGET: every target)
#
# Installs what is missing (idempotent): the nightly toolchain, cargo-fuzz. The working
# corpus grows in fuzz/target/corpus/<target>/ (kept between runs, not committed) from the
# committed seeds in fuzz/corpus/<target>/; a crash is saved in fuzz/artifacts/<target>/
# and fails the run (after the other targets ran). libFuzzer logs: fuzz/target/logs/<run>/
# (fuzz/target/logs/latest: the last run's), so that runs at the same time do not mix.
#
# FUZZ_SANITIZER (default none): the crate forbids unsafe code, so what fuzzing finds here
# is panics, overflows (debug assertions are on), broken properties, slow inputs (-timeout)
# and memory blow-ups (-rss_limit_mb); without a sanitizer the build takes about half the
# time and runs about 4 times as many executions. FUZZ_SANITIZER=address also checks the
# dependencies' unsafe code (its own build directory, fuzz/target/address/).
set -euo pipefail

secs=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz/run.sh: SECONDS must be a positive integer" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"
CARGO_FUZZ_VERSION=${CARGO_FUZZ_VERSION:-0.13.2}
sanitizer=${FUZZ_SANITIZER:-none}
flags=(--sanitizer "$sanitizer")
[[ $sanitizer == none ]] || flags+=(--target-dir "fuzz/target/$sanitizer")

rustup toolchain list 2>/dev/null | grep -q '^nightly' ||
	{ echo "fuzz: installing the nightly toolchain"; rustup toolchain install nightly --profile minimal; }
[[ "$(cargo fuzz --version 2>/dev/null)" == "cargo-fuzz $CARGO_FUZZ_VERSION" ]] ||
	{ echo "fuzz: installing cargo-fuzz $CARGO_FUZZ_VERSION (about 30-100 s)";
	  cargo install --quiet --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"; }

mapfile -t all < <(cargo +nightly fuzz list)
(( ${#all[@]} )) || { echo "fuzz: cargo fuzz list found no targets" >&2; exit 1; }
targets=("$@")
(( ${#targets[@]} )) || targets=("${all[@]}")
for t in "${targets[@]}"; do
	[[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz: no target $t (targets: ${all[*]})" >&2; exit 2; }
done

start=$(date +%s)
logs=fuzz/target/logs/$(date -u +%Y%m%dT%H%M%S)-$$
mkdir -p "$logs"
ln -sfn "$(basename "$logs")" fuzz/target/logs/latest
# Keep the logs of the last 20 runs.
ls -1d fuzz/target/logs/*-* | head -n -20 | xargs -r rm -rf
cargo +nightly fuzz build "${flags[@]}" >"$logs/build.log" 2>&1 ||
	{ cat "$logs/build.log" >&2; echo "fuzz: the build failed" >&2; exit 1; }
echo "fuzz: built ${#all[@]} targets (sanitizer: $sanitizer) in $(( $(date +%s) - start )) s; ${secs} s per target"

failed=()
total=0
printf '%-18s %14s %10s %8s %8s\n' target executions exec/s corpus result
for t in "${targets[@]}"; do
	mkdir -p "fuzz/target/corpus/$t"
	log="$logs/$t.log"
	rc=0
	# The first corpus directory receives new inputs; the committed seeds are only read.
	cargo +nightly fuzz run "${flags[@]}" "$t" "fuzz/target/corpus/$t" "fuzz/corpus/$t" -- \
		-max_total_time="$secs" -rss_limit_mb=2048 -timeout=1 -print_final_stats=1 \
		>"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	corpus=$(find "fuzz/target/corpus/$t" -type f | wc -l)
	result=ok
	if (( rc != 0 )); then
		result=CRASH
		failed+=("$t")
	fi
	total=$(( total + ${execs:-0} ))
	printf '%-18s %14s %10s %8s %8s\n' "$t" "${execs:-?}" "${rate:-?}" "$corpus" "$result"
done
echo "fuzz: ${total} executions in all, $(( $(date +%s) - start )) s"
echo "fuzz: $(( ${#targets[@]} - ${#failed[@]} )) passed, ${#failed[@]} failed"

if (( ${#failed[@]} )); then
	for t in "${failed[@]}"; do
		echo "---- $t ($logs/$t.log):" >&2
		grep -E -A12 'panicked at|ERROR: libFuzzer|ERROR: AddressSanitizer' "$logs/$t.log" | head -40 >&2 || true
		ls -1 "fuzz/artifacts/$t/" 2>/dev/null | sed "s|^|  fuzz/artifacts/$t/|" >&2 || true
	done
	echo "fuzz: crashes in: ${failed[*]}. Reproduce: cargo +nightly fuzz run ${flags[*]} <target> <artifact>;" \
		"minimize: cargo +nightly fuzz tmin ${flags[*]} <target> <artifact>" >&2
	exit 1
fi
