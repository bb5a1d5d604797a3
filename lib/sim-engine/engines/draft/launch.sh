#!/usr/bin/env bash
# The simulated engine in mode "draft" (lib/sim-engine/README.md); $ARENA_SIM_ENGINE is set by the pod backend.
case "$1" in serve) exec "$ARENA_SIM_ENGINE" serve --mode draft;; *) echo "usage: launch.sh serve" >&2; exit 2;; esac
