#!/usr/bin/env bash
# CPU seconds a simulated engine spends from its start to its first healthy /health, three ways side by side, each
# in a fresh TMPDIR as in a pod (tsx's cache cold): the repository's bundle (.build/sim-engine, `npm test` builds it),
# the sources through tsx, and the sources through tsx without the committed encoded corpus (encoding it at start).
#   bash lib/sim-engine/bench/start-cpu.sh [ROUNDS] [CPU]    (default 6 rounds, pinned to CPU 1 with taskset)
# On a host without Node, unpack lib/judge/bench/pack-device-modules.sh's pack first and put its bin/ on PATH.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
rounds="${1:-6}"
cpu="${2:-1}"
[ -f .build/sim-engine/sim-engine.mjs ] || { echo "no .build/sim-engine: npm test builds it (buildRepoSimEngineBundle)" >&2; exit 1; }
noids=$(mktemp -d)
trap 'rm -rf "$noids"' EXIT
cp -r lib tsconfig.json package.json "$noids/"
ln -s "$PWD/node_modules" "$noids/node_modules"
rm "$noids/lib/sim-engine/model/corpus-ids.json"
port=28111
one() { # label dir command...
  local label=$1 dir=$2
  shift 2
  (cd "$dir" && TMPDIR=$(mktemp -d) PORT=$port SERVED_NAME=m exec taskset -c "$cpu" "$@" serve >/dev/null 2>&1) &
  # the subshell execs taskset, which execs node: $! is the engine's own process
  local pid=$!
  until curl -sf "localhost:$port/health" >/dev/null; do sleep 0.02; done
  printf '%s %s\n' "$label" "$(awk '{print ($14+$15)/100}' "/proc/$pid/stat")"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  sleep 0.5
}
results="$noids/results"
for _ in $(seq "$rounds"); do
  one bundle "$PWD" node .build/sim-engine/sim-engine.mjs >>"$results"
  one tsx "$PWD" node --import tsx lib/sim-engine/cli.ts >>"$results"
  one tsx-encoding-corpus "$noids" node --import tsx lib/sim-engine/cli.ts >>"$results"
done
for label in bundle tsx tsx-encoding-corpus; do
  mapfile -t values < <(awk -v l="$label" '$1 == l {print $2}' "$results" | sort -n)
  n=${#values[@]}
  median=$(awk -v a="${values[$(((n - 1) / 2))]}" -v b="${values[$((n / 2))]}" 'BEGIN {printf "%.2f", (a + b) / 2}')
  printf '%-20s median %s s of CPU to healthy  (%s)\n' "$label" "$median" "${values[*]}"
done
