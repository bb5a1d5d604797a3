#!/usr/bin/env bash
# Packs .device/gate-power-pack.tar.xz: this machine's node binary and the gates' power benchmark bundled as one ES
# module (build-gate-power-bundle.ts: gate-power.mjs with the toy target's corpus, Qwen3's tokenizer files and the dev
# pool beside it) and gate-power-all.sh, for a many-core host with neither Node nor a registry, where the strengths
# run side by side, a process each:
#   bash lib/gates/bench/pack-device-gate-power.sh
#   (there) mkdir -p /tmp/gp && tar -C /tmp/gp -xJf .device/gate-power-pack.tar.xz &&
#           bash /tmp/gp/gate-power-all.sh /tmp/gp/out --profile full
#     (or one process: /tmp/gp/bin/node /tmp/gp/gate-power.mjs --families top-k --top-k 10 --out top-k-10.json)
#   (here, with the out/*.json back) npx tsx lib/gates/bench/gate-power.ts --from "$(ls out/*.json | paste -sd,)" \
#           --into lib/protocol/calibration/v1/qwen3-8b.json
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
npx tsx lib/gates/bench/build-gate-power-bundle.ts "$stage" >/dev/null
mkdir -p "$stage/bin"
cp "$(readlink -f "$(command -v node)")" "$stage/bin/node"
cp lib/gates/bench/gate-power-all.sh "$stage/gate-power-all.sh"
mkdir -p .device
tar -C "$stage" -cf - . | xz -T0 -6 >.device/gate-power-pack.tar.xz
du -h .device/gate-power-pack.tar.xz
