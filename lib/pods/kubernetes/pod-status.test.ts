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
          name: "install-agent",
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
      message: "init container install-agent exited with code 1 (Error): cp: no such file",
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
