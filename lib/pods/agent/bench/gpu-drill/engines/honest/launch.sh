#!/usr/bin/env bash
# GPU drill engine "honest": the simulated EAGLE-like engine, beside a process of its own group that holds real device
# memory (the share it is told, as vLLM does). Stopping the group frees it.
case "$1" in
  serve)
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    python3 "$here/../../hold-device-memory.py" --share "$GPU_MEMORY_UTILIZATION" &
    exec "$ARENA_SIM_ENGINE" serve --mode eagle
    ;;
  *) echo "usage: launch.sh serve" >&2; exit 2 ;;
esac
