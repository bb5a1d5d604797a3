#!/usr/bin/env bash
# The simulated engine with a drafter that only its plugin/ provides (lib/sim-engine/README.md, "Plugins"): the
# arena installs plugin/ into $HOME before this runs, and `serve --drafter lookahead` fails without it.
case "$1" in serve) exec "$ARENA_SIM_ENGINE" serve --drafter lookahead;; *) echo "usage: launch.sh serve" >&2; exit 2;; esac
