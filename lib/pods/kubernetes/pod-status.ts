import type { V1ContainerStatus, V1Pod } from "@kubernetes/client-node";
import type { PodExit, PodInfo } from "../types";
import { AGENT_CONTAINER, ATTEMPT_LABEL, ENGINE_CONTAINER, EVALUATION_ID_LABEL } from "./pod-spec";

const IMAGE_PULL_REASONS = new Set([
  "ErrImagePull",
  "ImagePullBackOff",
  "InvalidImageName",
  "ErrImageNeverPull",
  "RegistryUnavailable",
]);

function allStatuses(pod: V1Pod): V1ContainerStatus[] {
  return [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
}

/** Why the scheduler cannot place the pod, or null when it is placed or still trying for the first time. */
export function unschedulableMessage(pod: V1Pod): string | null {
  const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
  if (scheduled?.status === "False" && scheduled.reason === "Unschedulable") {
    return scheduled.message || "the scheduler cannot place the pod";
  }
  return null;
}

/** True once the agent container has started, so its log can be followed. */
export function agentLogAvailable(pod: V1Pod): boolean {
  const agent = pod.status?.containerStatuses?.find((s) => s.name === AGENT_CONTAINER);
  return Boolean(agent?.state?.running || agent?.state?.terminated || agent?.lastState?.terminated);
}

/**
 * How the pod ended, or null while it may still run. Reads only what the kubelet and the
 * control plane report, never what the pod says about itself. The agent's container is the pod's
 * main one: once it has ended, so has the evaluation (the engine container follows it, its
 * launcher ending with the agent's connection). What befalls the engine container (an engine
 * OOM-killed at its limit, a launcher gone) is the agent's to judge and report.
 */
export function podExitFor(pod: V1Pod): PodExit | null {
  const status = pod.status;
  const phase = status?.phase;
  if (status?.reason === "DeadlineExceeded") {
    return {
      kind: "failed",
      reason: "deadline-exceeded",
      message: status.message || "the pod ran past activeDeadlineSeconds",
    };
  }
  for (const s of allStatuses(pod)) {
    if (s.name === ENGINE_CONTAINER) continue;
    const terminated = s.state?.terminated ?? s.lastState?.terminated;
    if (terminated?.reason === "OOMKilled") {
      return {
        kind: "failed",
        reason: "oom-killed",
        message: `container ${s.name} was killed for running out of memory (exit ${terminated.exitCode})`,
      };
    }
  }
  if (phase === "Succeeded") return { kind: "completed" };
  const agentEnded = status?.containerStatuses?.find((s) => s.name === AGENT_CONTAINER)?.state?.terminated;
  if (agentEnded && agentEnded.exitCode === 0 && !(phase === "Failed" && status?.reason)) return { kind: "completed" };
  if (agentEnded && phase !== "Failed") {
    return {
      kind: "failed",
      reason: "agent-crashed",
      message: `the pod agent exited with code ${agentEnded.exitCode}${agentEnded.reason ? ` (${agentEnded.reason})` : ""}${agentEnded.message ? `: ${agentEnded.message.slice(-2000)}` : ""}`,
    };
  }
  if (phase === "Failed") {
    if (status?.reason) {
      return { kind: "failed", reason: "pod-lost", message: `${status.reason}: ${status.message ?? "the pod failed"}` };
    }
    for (const s of status?.initContainerStatuses ?? []) {
      const t = s.state?.terminated;
      if (t && t.exitCode !== 0) {
        return {
          kind: "failed",
          reason: "agent-crashed",
          message: `init container ${s.name} exited with code ${t.exitCode}${t.reason ? ` (${t.reason})` : ""}${t.message ? `: ${t.message}` : ""}`,
        };
      }
    }
    const agent = status?.containerStatuses?.find((s) => s.name === AGENT_CONTAINER)?.state?.terminated;
    if (agent) {
      return {
        kind: "failed",
        reason: "agent-crashed",
        message: `the pod agent exited with code ${agent.exitCode}${agent.reason ? ` (${agent.reason})` : ""}${agent.message ? `: ${agent.message.slice(-2000)}` : ""}`,
      };
    }
    return {
      kind: "failed",
      reason: "pod-lost",
      message: status?.message || "the pod failed without a container status",
    };
  }
  for (const s of allStatuses(pod)) {
    const waiting = s.state?.waiting;
    if (waiting?.reason && IMAGE_PULL_REASONS.has(waiting.reason)) {
      return {
        kind: "failed",
        reason: "image-pull",
        message: `container ${s.name} cannot pull ${s.image || "its image"}: ${waiting.reason}${waiting.message ? ` (${waiting.message})` : ""}`,
      };
    }
  }
  return null;
}

/** The arena's view of a pod, for finding orphans. */
export function podInfoFor(pod: V1Pod): PodInfo | null {
  const name = pod.metadata?.name;
  const labels = pod.metadata?.labels ?? {};
  const evaluationId = labels[EVALUATION_ID_LABEL];
  const attempt = Number(labels[ATTEMPT_LABEL]);
  if (!name || !evaluationId || !Number.isInteger(attempt)) return null;
  const phases: Record<string, PodInfo["phase"]> = {
    Pending: "pending",
    Running: "running",
    Succeeded: "succeeded",
    Failed: "failed",
  };
  return { podId: name, evaluationId, attempt, phase: phases[pod.status?.phase ?? ""] ?? "unknown" };
}
