#!/usr/bin/env bash
# The plugin engine's broken twin: its plugin/ imports a package it does not carry, so installing it fails, as
# a vLLM plugin that needs a dependency fails to install offline.
case "$1" in serve) exec "$ARENA_SIM_ENGINE" serve --drafter lookahead;; *) echo "usage: launch.sh serve" >&2; exit 2;; esac
