#!/usr/bin/env bash
# Wall time of `articula stopping` on the bundled study (docs/stopping.md; results in
# benchmarks/README.md, "Stopping sweep"):
#   1. the nominal sweep, 162 cases (each run with the real brakes and with ideal locks: 324
#      simulator runs), with -j 1 and -j 2;
#   2. the sampled sweep, --samples 62: 162 x 62 = 10 044 sampled runs (+ the 324 nominal ones,
#      10 368 simulator runs in all), with -j 2;
#   3. the nominal sweep on MPI ranks: mpirun -n 1 vs -n 2, one thread per rank (skipped when
#      mpirun is missing or articula was built without MPI).
# Each command is run once to warm up, then RUNS times (default 5); the whole process is timed
# (start-up, study loading and the CSV / JSON writing included) and min / median / max of the
# wall seconds are printed. Quote the median. Run it on a quiet machine (check `uptime`).
#
# Usage: benchmarks/stopping_sweep.sh BUILD_DIR [RUNS]
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [RUNS]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
runs=${2:-5}
cli="$build/cli/articula"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
study="$here/../studies/rx130_stopping.yaml"
[[ -x "$cli" ]] || { echo "no $cli (build the articula_cli target)" >&2; exit 2; }
[[ -f "$study" ]] || { echo "no $study" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# time_it LABEL COMMAND...: warm-up, then $runs timed runs; prints min / median / max wall [s].
time_it() {
  local label=$1
  shift
  "$@" >"$out/log" 2>&1 || { echo "$label: the command failed:" >&2; cat "$out/log" >&2; exit 1; }
  local walls=()
  for ((i = 0; i < runs; ++i)); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >"$out/log" 2>&1
    t1=$(date +%s%N)
    walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')")
  done
  printf '%s\n' "${walls[@]}" | sort -g | awk -v label="$label" -v n="$runs" '
    { w[NR] = $1 }
    END { m = (n % 2) ? w[(n + 1) / 2] : (w[n / 2] + w[n / 2 + 1]) / 2
          printf "%-48s wall [s]  min %7.3f  median %7.3f  max %7.3f\n", label, w[1], m, w[n] }'
}

echo "articula stopping, bundled study: $("$cli" stopping "$study" -o "$out/cases" -q -j 2 | sed -E 's/.*\(([0-9]+ runs .*)\)$/\1/')"
echo "machine: $(nproc) cores, $(uptime | sed 's/.*load average/load average/')"
time_it "162 cases (324 runs), -j 1" "$cli" stopping "$study" -o "$out/a" -q -j 1
time_it "162 cases (324 runs), -j 2" "$cli" stopping "$study" -o "$out/b" -q -j 2
time_it "--samples 62 (10 044 sampled + 324 runs), -j 2" "$cli" stopping "$study" -o "$out/c" -q -j 2 --samples 62
if command -v mpirun >/dev/null 2>&1; then
  mpi=(mpirun --allow-run-as-root --oversubscribe)
  if "${mpi[@]}" -n 1 "$cli" stopping "$study" -o "$out/d" -q -j 1 2>&1 | grep -q "built without MPI"; then
    echo "mpirun: skipped (articula built without MPI)"
  else
    time_it "mpirun -n 1, 162 cases, -j 1" "${mpi[@]}" -n 1 "$cli" stopping "$study" -o "$out/d" -q -j 1
    time_it "mpirun -n 2, 162 cases, -j 1" "${mpi[@]}" -n 2 "$cli" stopping "$study" -o "$out/e" -q -j 1
  fi
else
  echo "mpirun: skipped (not found)"
fi
echo "machine afterwards: $(uptime | sed 's/.*load average/load average/')"
