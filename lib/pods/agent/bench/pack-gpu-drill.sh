#!/usr/bin/env bash
# Packs .device/gpu-drill.tar.xz: this machine's Node, the pod agent bundle with the simulated engine, and the GPU
# memory drill (gpu-drill.ts), for a GPU host that has neither Node nor the repository's modules:
#   bash lib/pods/agent/bench/pack-gpu-drill.sh
#   (there, in the repository's copy) mkdir -p /tmp/gd && tar -C /tmp/gd -xJf .device/gpu-drill.tar.xz &&
#     /tmp/gd/node /tmp/gd/gpu-drill.mjs --bundle /tmp/gd --repo "$PWD"
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../../.."
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
node_modules/.bin/tsx lib/pods/agent/bundle/build-agent-bundle.ts --out "$stage" --sim-engine
node_modules/.bin/esbuild lib/pods/agent/bench/gpu-drill.ts --bundle --platform=node --format=esm --target=node20 \
  --tsconfig=tsconfig.json --log-level=warning --outfile="$stage/gpu-drill.mjs" \
  --banner:js='import { createRequire as __arenaRequire } from "node:module"; const require = __arenaRequire(import.meta.url);'
mkdir -p .device
tar -C "$stage" -cf - . | xz -T0 -6 >.device/gpu-drill.tar.xz
du -h .device/gpu-drill.tar.xz
