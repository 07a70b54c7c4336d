#!/usr/bin/env bash
# Installs the Debian packages articula needs, builds it (Release, in build/) and
# runs the main job: `articula estop`, the emergency-stop study on the RX130 stand-in
# (brakes lock joints one by one; consistent vs naive velocity jumps; CSV logs in
# articula_out/). `articula info` / `articula bench` are documented in README.md.
#
# Usage: bash scripts/setup.sh [--deps-only]
#   --deps-only   only install the missing Debian packages (used by .ci/run)
# Environment: JOBS (default: nproc), ARTICULA_NATIVE=ON for -march=native (default OFF),
#              ARTICULA_WERROR=ON for -Werror (default OFF).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

deps_only=0
for arg in "$@"; do
  case "$arg" in
    --deps-only) deps_only=1 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "setup.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

install_deps
[[ $deps_only -eq 1 ]] && exit 0

cd "$ARTICULA_ROOT"
configure build Release
build build

log "articula estop (emergency stop of the RX130 stand-in)"
./build/cli/articula estop --plot articula_out/estop.png
