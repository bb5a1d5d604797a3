#!/usr/bin/env bash
# Packs .device/board-pack.tar.xz: this machine's node binary, the standalone web server of the last `next build`
# (.next/standalone, without sharp's image binaries: no route measured here resizes images) and the modules the
# board's benchmark loads over HTTP (tsx, esbuild, undici, zod), for a quiet many-core host with neither Node nor a
# registry, where `GET /api/protocol` is timed with the server and the readers on cores of their own:
#   npx next build && bash lib/board/bench/pack-device-board.sh
#   (there, in a checkout of this tree) mkdir -p /tmp/bp && tar -C /tmp/bp -xJf .device/board-pack.tar.xz &&
#     ln -sfn /tmp/bp/node_modules node_modules && export PATH=/tmp/bp/bin:$PATH &&
#     (cd /tmp/bp/standalone && PORT=3000 HOSTNAME=127.0.0.1 taskset -c 0-3 node server.js &) &&
#     taskset -c 8-11 node --import tsx lib/board/bench/board-bench.ts --url http://127.0.0.1:3000 --only /api/protocol
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
[ -f .next/standalone/server.js ] || { echo "no .next/standalone/server.js: run npx next build first" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mods="$stage/node_modules"
mkdir -p "$stage/bin" "$mods/@esbuild"
cp "$(readlink -f "$(command -v node)")" "$stage/bin/node"
for m in tsx esbuild undici zod; do cp -r "node_modules/$m" "$mods/$m"; done
cp -r node_modules/@esbuild/linux-x64 "$mods/@esbuild/linux-x64"
cp -r .next/standalone "$stage/standalone"
rm -rf "$stage/standalone/node_modules/@img" "$stage/standalone/node_modules/sharp"
mkdir -p .device
tar -C "$stage" -cf - bin node_modules standalone | xz -T0 -6 >.device/board-pack.tar.xz
du -h .device/board-pack.tar.xz
