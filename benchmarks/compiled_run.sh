#!/usr/bin/env bash
# Kernels compiled on demand (docs/codegen.md, "Compiled on demand"): the cold compile time of
# each model's kernels into an empty cache, the load time from the cache, and whole runs with
# and without --compiled (real-time factor, as `articula run` prints it, the median of 7 runs of
# 2 s simulated, the two kinds alternating: shorter runs moved by ±25 % here).
# Cases: the rx130 e-stop (ABA until the brakes lock, then the constrained kernel with the locks
# switched on: every evaluation on the kernels), TALOS standing on welded feet (the
# compiled constrained dynamics; talos_wall without its hand contact), talos_wall itself (the
# welded feet and an elastic hand contact: constrained_dynamics_fext) and solo12 on four
# elastic feet (aba_fext).
# usage: bash benchmarks/compiled_run.sh BUILD_DIR [OUT_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: compiled_run.sh BUILD_DIR [OUT_DIR]}" && pwd)"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
cli="$build/cli/articula"
# talos on welded feet: the wall scenario without its contacts section.
sed -e "s|urdf: ../models/|urdf: $root/models/|" -e '/^contacts:/,/^[a-z_]*:/{/^contacts:/d;/^  /d}' -e '/target: hand}/d' \
  "$root/scenarios/talos_wall.yaml" > "$out/talos_feet.yaml"
sed -e "s|urdf: ../models/|urdf: $root/models/|" "$root/scenarios/talos_wall.yaml" > "$out/talos_wall.yaml"
sed -e "s|urdf: ../models/|urdf: $root/models/|" "$root/scenarios/estop_consistent.yaml" > "$out/estop.yaml"
sed -e "s|urdf: ../models/|urdf: $root/models/|" "$root/scenarios/solo12_stand_lift.yaml" > "$out/solo12.yaml"

# The page cache of a cache folder's libraries dropped (posix_fadvise DONTNEED), so that the next
# run loads them into newly allocated pages: on this VM the same library runs its kernels up to
# 1.5x slower from some physical pages than from others (about one load in six; a library stays
# in the page cache between runs, so without this every run of a case gets the same draw).
evict() { /usr/bin/python3 -c 'import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$1"/*.so; }

rtf() {  # scenario, cache: "runtime compiled" real-time factors, medians of 7 alternating runs
  for _ in 1 2 3 4 5 6 7; do
    "$cli" run -q "$1" --duration 2 -o "$out/logs" | sed -n 's/.*real-time factor \([0-9.e+]*\).*/runtime \1/p'
    evict "$2"
    "$cli" run -q "$1" --duration 2 -o "$out/logs" --compiled --cache-dir "$2" |
      sed -n 's/.*real-time factor \([0-9.e+]*\).*/compiled \1/p'
  done | sort -k1,1 -k2g | awk '{n[$1]++; v[$1, n[$1]] = $2} END {print v["runtime", 4], v["compiled", 4]}'
}

printf '| case | compile (cold) | load (cached) | RTF runtime | RTF --compiled | ratio |\n|---|---:|---:|---:|---:|---:|\n'
for name in estop talos_feet talos_wall solo12; do
  cache="$out/cache_$name"
  rm -rf "$cache"
  cold="$("$cli" run -q "$out/$name.yaml" --duration 0.001 -o "$out/logs" --compiled --cache-dir "$cache" |
    sed -n 's/.*kernels compiled in \([0-9.]*\) s (\([0-9]*\) units.*/\1 s (\2 units)/p')"
  warm="$("$cli" run -q "$out/$name.yaml" --duration 0.001 -o "$out/logs" --compiled --cache-dir "$cache" |
    sed -n 's/.*loaded from the cache in \([0-9]*\) ms.*/\1 ms/p')"
  read -r a b < <(rtf "$out/$name.yaml" "$cache")
  printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$cold" "$warm" "$a" "$b" "$(echo "scale=2; $b / $a" | bc)"
done

# The talos kernels whole (--max-statements 0; the default is parts of 800, docs/codegen.md
# "Kernels in parts"): the cold compile and the real-time factor of --compiled with them
# (median of 7 runs).
printf '\n| case, whole kernels | compile (cold) | RTF `--compiled` |\n|---|---:|---:|\n'
for name in talos_feet talos_wall; do
  cache="$out/cache_whole_$name"
  rm -rf "$cache"
  cold="$("$cli" run -q "$out/$name.yaml" --duration 0.001 -o "$out/logs" --compiled --max-statements 0 \
    --cache-dir "$cache" | sed -n 's/.*kernels compiled in \([0-9.]*\) s (\([0-9]*\) units.*/\1 s (\2 units)/p')"
  rtf_parts="$(for _ in 1 2 3 4 5 6 7; do
    evict "$cache"
    "$cli" run -q "$out/$name.yaml" --duration 2 -o "$out/logs" --compiled --max-statements 0 --cache-dir "$cache" |
      sed -n 's/.*real-time factor \([0-9.e+]*\).*/\1/p'
  done | sort -g | sed -n 4p)"
  printf '| %s | %s | %s |\n' "$name" "$cold" "$rtf_parts"
done
