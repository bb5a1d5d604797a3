#!/usr/bin/env bash
# Runs the Prisma CLI offline: without a schema-engine binary every command tries a download, so point it at a
# stub (generate, validate and format never call it). Migrations are applied by lib/db/migrate.ts instead.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export PRISMA_SCHEMA_ENGINE_BINARY="${PRISMA_SCHEMA_ENGINE_BINARY:-$root/lib/ops/schema-engine-stub.sh}"
export PRISMA_HIDE_UPDATE_MESSAGE=1 CHECKPOINT_DISABLE=1
exec "$root/node_modules/.bin/prisma" "$@"
