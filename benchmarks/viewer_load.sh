#!/usr/bin/env bash
# The viewer's speed (issue 21): a 60 s log of talos_wall at 1 kHz (60 001 rows, under the
# decimation limit of 100 000), its page, then the browser check's load time, time to the first
# frame and frame rate while playing, in headless Chromium with software WebGL (SwiftShader).
# usage: bash benchmarks/viewer_load.sh BUILD_DIR [OUT_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: viewer_load.sh BUILD_DIR [OUT_DIR]}" && pwd)"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
sed -e "s|urdf: ../models/|urdf: $root/models/|" -e 's|period: 0.002|period: 0.001|' \
  "$root/scenarios/talos_wall.yaml" > "$out/talos_wall_1khz.yaml"
start=$(date +%s.%N)
"$build/cli/articula" run -q "$out/talos_wall_1khz.yaml" --duration 60 -o "$out/run" --html "$out/page.html"
echo "run + page: $(echo "$(date +%s.%N) - $start" | bc) s; page $(du -h "$out/page.html" | cut -f1)"
node "$root/tests/viewer/check.cjs" "$out/page.html" --chromium "$(command -v chromium)" \
  --node-modules "$build/viewer/npm/node_modules" --report "$out/report.json" | grep -E "loaded|frames per second|FAIL" || true
node -e "const r=require('$out/report.json'); console.log(JSON.stringify({load_ms:r.load_ms, first_frame_ms:Math.round(r.first_frame_ms), play_fps:+r.play_fps.toFixed(1)}))"
