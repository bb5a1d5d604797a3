#!/usr/bin/env bash
# The simulated engine in mode "failing" (lib/sim-engine/README.md); $ARENA_SIM_ENGINE is set by the pod backend.
case "$1" in serve) exec "$ARENA_SIM_ENGINE" serve --mode failing;; *) echo "usage: launch.sh serve" >&2; exit 2;; esac
