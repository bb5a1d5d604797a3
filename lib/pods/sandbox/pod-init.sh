#!/usr/bin/env bash
# PID 1 of a local pod's PID namespace (lib/pods/local/local-pod-backend.ts): starts the pod agent, forwards SIGTERM
# and SIGINT to it (PID 1 gets no signal it has no handler for), reaps every orphan the pod's processes leave (bash
# reaps any child, known or not; Node, as PID 1, would leave them zombies that hold the pids cgroup's count), and
# exits with the agent's status. When it exits the kernel kills every process left in the namespace.
"$@" &
agent=$!
trap 'kill -TERM "$agent" 2>/dev/null' TERM INT
while :; do
  wait "$agent"
  status=$?
  kill -0 "$agent" 2>/dev/null || exit "$status"
done
