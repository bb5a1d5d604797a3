#!/usr/bin/env bash
# GPU drill engine "hog": the simulated EAGLE-like engine, beside a process of its own group that holds real device
# memory (0.97 of the device, over the share it is told). Stopping the group frees it.
case "$1" in
  serve)
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    python3 "$here/../../hold-device-memory.py" --share 0.97 &
    exec "$ARENA_SIM_ENGINE" serve --mode eagle
    ;;
  *) echo "usage: launch.sh serve" >&2; exit 2 ;;
esac
