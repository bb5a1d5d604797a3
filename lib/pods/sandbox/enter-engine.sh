#!/usr/bin/env bash
# Starts one engine process (launch.sh, or plugin/'s installer) inside the pod's engine cgroup, as the engine user.
# Run by the pod's agent, as root:
#   enter-engine.sh UID GID CGROUP_DIR... -- COMMAND ARGS...
# It joins every cgroup folder first, so nothing the engine starts is ever outside them, then drops to UID:GID with no
# supplementary group, no capability and no way to gain one (setuid and file-capability binaries included), and execs
# COMMAND: the same pid, so the engine's process group is this one's. UID "-" keeps the agent's user (an engine that
# cannot run as a user of its own, which the evaluation's log then says).
set -eu
uid=$1
gid=$2
shift 2
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  echo "$$" > "$1/cgroup.procs"
  shift
done
shift
command -v -- "$1" >/dev/null 2>&1 || { echo "enter-engine.sh: $1: command not found" >&2; exit 127; }
if [ "$uid" = "-" ]; then exec "$@"; fi
exec setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- "$@"
