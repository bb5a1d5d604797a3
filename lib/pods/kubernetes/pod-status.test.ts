import type { V1Pod, V1PodStatus } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { agentLogAvailable, podExitFor, podInfoFor, unschedulableMessage } from "./pod-status";
import { podStates } from "./testing/pod-states";

const pod = (status: V1PodStatus, labels: Record<string, string> = {}): V1Pod => ({
  metadata: { name: "p", labels },
  status,
});

describe("podExitFor", () => {
  it("keeps waiting while the pod is scheduling, initializing or running", () => {
    expect(podExitFor(pod({ phase: "Pending" }))).toBeNull();
    expect(podExitFor(pod(podStates.initializing()))).toBeNull();
    expect(podExitFor(pod(podStates.running()))).toBeNull();
    expect(podExitFor(pod(podStates.unschedulable()))).toBeNull();
  });

  it("maps each way a pod ends to its reason", () => {
    expect(podExitFor(pod(podStates.succeeded()))).toEqual({ kind: "completed" });
    expect(podExitFor(pod(podStates.deadlineExceeded()))).toEqual({
      kind: "failed",
      reason: "deadline-exceeded",
      message: "Pod was active on the node longer than the specified deadline",
    });
    expect(podExitFor(pod(podStates.oomKilled()))).toMatchObject({ kind: "failed", reason: "oom-killed" });
    expect(podExitFor(pod(podStates.imagePullBackOff()))).toMatchObject({ kind: "failed", reason: "image-pull" });
    expect(podExitFor(pod(podStates.imagePullBackOff("init")))).toMatchObject({ kind: "failed", reason: "image-pull" });
    expect(podExitFor(pod(podStates.agentFailed(3)))).toEqual({
      kind: "failed",
      reason: "agent-crashed",
      message: "the pod agent exited with code 3 (Error)",
    });
    expect(podExitFor(pod(podStates.evicted()))).toEqual({
      kind: "failed",
      reason: "pod-lost",
      message: "Evicted: The node was low on resource: memory.",
    });
  });

  it("names a failed init container", () => {
    const status: V1PodStatus = {
      phase: "Failed",
      initContainerStatuses: [
        {
          name: "install-launcher",
          image: "a",
          imageID: "",
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 1, reason: "Error", message: "cp: no such file" } },
        },
      ],
    };
    expect(podExitFor(pod(status))).toEqual({
      kind: "failed",
      reason: "agent-crashed",
      message: "init container install-launcher exited with code 1 (Error): cp: no such file",
    });
  });

  it("ends with the agent's container: what befalls the engine container is the agent's to report", () => {
    // the agent has reported and exited: the pod's run is over, whether or not the launcher has followed yet
    expect(podExitFor(pod(podStates.agentDoneEngineRunning()))).toEqual({ kind: "completed" });
    // an engine OOM-killed at the engine container's limit is a dead engine (the agent scored it), not a lost pod
    expect(podExitFor(pod(podStates.engineOomKilled()))).toEqual({ kind: "completed" });
    const running = podStates.running();
    running.containerStatuses![0]!.state = { terminated: { exitCode: 137, reason: "OOMKilled" } };
    expect(podExitFor(pod(running))).toBeNull();
    // an agent that crashed while its pod still runs has ended the evaluation all the same
    const crashed = podStates.agentDoneEngineRunning();
    crashed.containerStatuses![1]!.state = { terminated: { exitCode: 2, reason: "Error" } };
    expect(podExitFor(pod(crashed))).toEqual({
      kind: "failed",
      reason: "agent-crashed",
      message: "the pod agent exited with code 2 (Error)",
    });
  });
});

describe("pod readings", () => {
  it("reads the Unschedulable condition only when PodScheduled is False for that reason", () => {
    expect(unschedulableMessage(pod(podStates.unschedulable("no GPU")))).toBe("no GPU");
    expect(unschedulableMessage(pod(podStates.running()))).toBeNull();
    expect(
      unschedulableMessage(
        pod({ phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "SchedulingGated" }] }),
      ),
    ).toBeNull();
  });

  it("follows the log only once the agent container has started", () => {
    expect(agentLogAvailable(pod(podStates.initializing()))).toBe(false);
    expect(agentLogAvailable(pod(podStates.imagePullBackOff()))).toBe(false);
    expect(agentLogAvailable(pod(podStates.running()))).toBe(true);
    expect(agentLogAvailable(pod(podStates.succeeded()))).toBe(true);
  });

  it("turns labelled pods into PodInfo and skips pods without the arena's labels", () => {
    const labels = { "arena.evaluation-id": "ev1", "arena.attempt": "4" };
    expect(podInfoFor(pod(podStates.running(), labels))).toEqual({
      podId: "p",
      evaluationId: "ev1",
      attempt: 4,
      phase: "running",
    });
    expect(podInfoFor(pod({ phase: "Unknown" }, labels))?.phase).toBe("unknown");
    expect(podInfoFor(pod(podStates.running(), { "arena.evaluation-id": "ev1" }))).toBeNull();
  });
});
