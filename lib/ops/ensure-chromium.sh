#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests when it is missing; test-all.ts runs it beside the other steps.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=lib/ops/bootstrap.sh
source lib/ops/bootstrap.sh
ops_ensure_chromium
