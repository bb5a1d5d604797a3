#!/usr/bin/env bash
# The red-team probe engine (lib/pods/sandbox/properties.ts): before serving, it tries every way out of the engine
# sandbox that the protocol closes and writes one `ARENA-PROBE {json}` line per attempt to its log; then it serves
# honestly, as the simulated stock engine, so the evaluation is judged as any other.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
case "$1" in
  serve)
    python3 "$here/probe.py" "$here/probe-targets.json" || echo "ARENA-PROBE-ERROR the probe exited with $?"
    exec "$ARENA_SIM_ENGINE" serve --mode stock
    ;;
  *) echo "usage: launch.sh serve" >&2; exit 2;;
esac
