#!/usr/bin/env bash
# `npm run arena`: the whole arena on its embedded default (see lib/ops/arena.ts for the steps).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=lib/ops/bootstrap.sh
source lib/ops/bootstrap.sh
export NEXT_TELEMETRY_DISABLED=1
ops_check_node
ops_check_checkout_place
ops_ensure_node_modules
ops_ensure_redis_server
exec node_modules/.bin/tsx lib/ops/arena.ts "$@"
