#!/usr/bin/env bash
# Configures and builds articula with its tests (Release, in build/) and runs them with CTest.
#
# Usage: bash scripts/test.sh [-DVAR=VALUE ...]   (extra options are passed to CMake)
# Environment: JOBS (default: nproc), ARTICULA_WERROR=ON for -Werror (default OFF, CI sets ON),
#              BUILD_DIR (default build), BUILD_TYPE (default Release).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

for arg in "$@"; do
  case "$arg" in
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    -D*) ;;
    *) echo "test.sh: unknown argument '$arg' (only -DVAR=VALUE options; try --help)" >&2; exit 2 ;;
  esac
done

dir="${BUILD_DIR:-build}"
configure "$dir" "${BUILD_TYPE:-Release}" -DARTICULA_BUILD_TESTS=ON "$@"
build "$dir"

log "Running the tests (ctest -j$ARTICULA_JOBS)"
ctest --test-dir "$ARTICULA_ROOT/$dir" --output-on-failure --no-tests=error -j "$ARTICULA_JOBS"
