#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz (clang, -fsanitize=fuzzer,address,undefined, in
# build-fuzz/) and runs each for a bounded time on a seed corpus made of the bundled files
# (models/*.urdf, scenarios/*.yaml, tests/fuzz/corpus/cli) plus the regression inputs
# (tests/fuzz/regressions/<target>). A crash, a sanitizer finding, a leak or an input slower
# than FUZZ_TIMEOUT fails the script; the input that did it is left in build-fuzz/findings/.
#
# Usage: bash scripts/fuzz.sh [TARGET ...]   (urdf, scenario, cli; default: all three)
# Environment: FUZZ_SECONDS (per target, default 60), FUZZ_TIMEOUT (per input, default 20 s),
#              JOBS, BUILD_DIR (default build-fuzz), CC / CXX (default clang-14 or clang).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(urdf scenario cli)
for t in "${targets[@]}"; do
  case "$t" in
    urdf|scenario|cli) ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "fuzz.sh: unknown target '$t' (urdf, scenario or cli; try --help)" >&2; exit 2 ;;
  esac
done
pick() { for c in "$@"; do command -v "$c" >/dev/null 2>&1 && { echo "$c"; return; }; done; echo "$1"; }
export CC="${CC:-$(pick clang-14 clang)}" CXX="${CXX:-$(pick clang++-14 clang++)}"
dir="${BUILD_DIR:-build-fuzz}"
seconds="${FUZZ_SECONDS:-60}"

# The library, the harnesses and the CLI code they call all carry ASan + UBSan (ARTICULA_SANITIZE)
# and libFuzzer's coverage (ARTICULA_FUZZ); optimised with assertions, as libFuzzer advises.
configure "$dir" RelWithDebInfo -DARTICULA_SANITIZE=ON -DARTICULA_FUZZ=ON -DARTICULA_BUILD_TESTS=OFF \
  -DARTICULA_BUILD_BENCHMARKS=OFF -DARTICULA_BUILD_PYTHON=OFF
build "$dir" --target "${targets[@]/#/fuzz_}"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# urdfdom's own leak on a failed parse is suppressed, as in CI's sanitizer step (.ci/lsan.supp).
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$ARTICULA_ROOT/.ci/lsan.supp}"
work="$ARTICULA_ROOT/$dir/work"
findings="$ARTICULA_ROOT/$dir/findings"
mkdir -p "$findings"
failed=0
for t in "${targets[@]}"; do
  corpus="$work/$t"
  rm -rf "$corpus" && mkdir -p "$corpus"
  case "$t" in
    urdf) cp "$ARTICULA_ROOT"/models/*.urdf "$corpus/" ;;
    scenario) cp "$ARTICULA_ROOT"/scenarios/*.yaml "$corpus/" ;;
    cli) cp "$ARTICULA_ROOT"/tests/fuzz/corpus/cli/* "$corpus/" ;;
  esac
  log "Fuzzing $t for ${seconds} s (seeds: $(ls "$corpus" | wc -l), regressions: tests/fuzz/regressions/$t)"
  # The scenario harness resolves relative model paths against scenarios/ (run from there).
  (cd "$ARTICULA_ROOT" && "$ARTICULA_ROOT/$dir/tests/fuzz/fuzz_$t" -max_total_time="$seconds" \
    -timeout="${FUZZ_TIMEOUT:-20}" -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$findings/$t-" "$corpus" "$ARTICULA_ROOT/tests/fuzz/regressions/$t") \
    >"$work/$t.log" 2>&1 && status=0 || status=$?
  grep -E '^#[0-9]+ +DONE|^stat::number_of_executed_units|^stat::peak_rss_mb|cov: ' "$work/$t.log" | tail -n 3 || true
  if [[ $status -ne 0 ]]; then
    echo "error: fuzz_$t failed (exit $status); input(s) in $findings, log $work/$t.log:" >&2
    grep -v '^articula\|^Run with --help\|^INFO:\|^#' "$work/$t.log" | tail -n 40 >&2 || true
    failed=1
  fi
done
exit "$failed"
