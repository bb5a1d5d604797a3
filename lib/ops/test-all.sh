#!/usr/bin/env bash
# `npm test`: every check and test (lint, types, unit and integration, browser); see lib/ops/test-all.ts.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=lib/ops/bootstrap.sh
source lib/ops/bootstrap.sh
export NEXT_TELEMETRY_DISABLED=1
ops_check_node
ops_check_checkout_place
ops_ensure_node_modules
ops_ensure_redis_server
# Chromium installs beside the other steps (test-all.ts, lib/ops/ensure-chromium.sh): only the browser tests need it
exec node_modules/.bin/tsx lib/ops/test-all.ts "$@"
