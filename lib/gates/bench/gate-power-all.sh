#!/usr/bin/env bash
# Runs the gates' power benchmark one process a strength, side by side (a process is about one core's work: its
# engines run in it), then merges their files and prints the table. From the repository it runs the sources through
# tsx; from an unpacked pack-device-gate-power.sh tarball, the bundle beside it (bin/node gate-power.mjs).
#   bash lib/gates/bench/gate-power-all.sh OUT_DIR [flags every process takes, e.g. --profile full --resamples 1000]
# OUT_DIR gets honest.json and <family>-<strength>.json, each with its .log. The sweeps are the benchmark's defaults
# unless TEMPERATURE, TOP_K or QUANTIZATION (comma-separated) say otherwise. Then, in the repository:
#   npx tsx lib/gates/bench/gate-power.ts --from "$(ls OUT_DIR/*.json | paste -sd,)" --into lib/protocol/calibration/v1/qwen3-8b.json
set -euo pipefail
out=${1:?usage: gate-power-all.sh OUT_DIR [flags every process takes]}
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -f "$here/gate-power.mjs" ]; then cmd=("$here/bin/node" "$here/gate-power.mjs"); else cmd=(npx tsx "$here/gate-power.ts"); fi
mkdir -p "$out"
pids=()
launch() { # name, then the process's own flags
  local name=$1
  shift
  "${cmd[@]}" "$@" --out "$out/$name.json" >"$out/$name.log" 2>&1 &
  pids+=($!)
}
IFS=, read -r -a temperature <<<"${TEMPERATURE:-0.8,0.9,0.95,1.05,1.1}"
IFS=, read -r -a topk <<<"${TOP_K:-5,10,15}"
IFS=, read -r -a quantization <<<"${QUANTIZATION:-0.01,0.02,0.05,0.25,0.5,1}"
launch honest --families honest "$@"
for s in "${temperature[@]}"; do launch "temperature-$s" --families temperature --temperature "$s" "$@"; done
for k in "${topk[@]}"; do launch "top-k-$k" --families top-k --top-k "$k" "$@"; done
for s in "${quantization[@]}"; do launch "quantization-$s" --families quantization --quantization "$s" "$@"; done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
[ "$failed" -eq 0 ] || { echo "$failed process(es) failed: see $out/*.log" >&2; exit 1; }
"${cmd[@]}" --from "$(ls "$out"/*.json | paste -sd,)"
