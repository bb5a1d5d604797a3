import type { V1ContainerStatus, V1PodCondition, V1PodStatus } from "@kubernetes/client-node";
import { AGENT_CONTAINER, ENGINE_CONTAINER, LAUNCHER_INIT_CONTAINER } from "../pod-spec";

/** Pod statuses as a real control plane and kubelet report them, for driving the fake API. */

const scheduled: V1PodCondition = { type: "PodScheduled", status: "True" };

function container(
  name: string,
  state: V1ContainerStatus["state"],
  extra: Partial<V1ContainerStatus> = {},
): V1ContainerStatus {
  return {
    name,
    image: `${name}-image`,
    imageID: "",
    ready: Boolean(state?.running),
    restartCount: 0,
    state,
    ...extra,
  };
}

const initDone = container(LAUNCHER_INIT_CONTAINER, { terminated: { exitCode: 0, reason: "Completed" } });
const engineRunning = () => container(ENGINE_CONTAINER, { running: { startedAt: new Date() } });
const engineDone = container(ENGINE_CONTAINER, { terminated: { exitCode: 0, reason: "Completed" } });

export const podStates = {
  unschedulable(message = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."): V1PodStatus {
    return {
      phase: "Pending",
      conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message }],
    };
  },
  initializing(): V1PodStatus {
    return {
      phase: "Pending",
      conditions: [scheduled],
      initContainerStatuses: [container(LAUNCHER_INIT_CONTAINER, { running: { startedAt: new Date() } })],
      containerStatuses: [container(AGENT_CONTAINER, { waiting: { reason: "PodInitializing" } })],
    };
  },
  imagePullBackOff(which: "agent" | "init" = "agent"): V1PodStatus {
    const waiting = { waiting: { reason: "ImagePullBackOff", message: 'Back-off pulling image "vllm/vllm-openai"' } };
    return which === "agent"
      ? {
          phase: "Pending",
          conditions: [scheduled],
          initContainerStatuses: [initDone],
          containerStatuses: [container(AGENT_CONTAINER, waiting)],
        }
      : {
          phase: "Pending",
          conditions: [scheduled],
          initContainerStatuses: [container(LAUNCHER_INIT_CONTAINER, { waiting: { reason: "ErrImagePull" } })],
          containerStatuses: [container(AGENT_CONTAINER, { waiting: { reason: "PodInitializing" } })],
        };
  },
  running(): V1PodStatus {
    return {
      phase: "Running",
      conditions: [scheduled, { type: "Ready", status: "True" }],
      initContainerStatuses: [initDone],
      containerStatuses: [engineRunning(), container(AGENT_CONTAINER, { running: { startedAt: new Date() } })],
    };
  },
  succeeded(): V1PodStatus {
    return {
      phase: "Succeeded",
      conditions: [scheduled],
      initContainerStatuses: [initDone],
      containerStatuses: [engineDone, container(AGENT_CONTAINER, { terminated: { exitCode: 0, reason: "Completed" } })],
    };
  },
  agentFailed(exitCode = 1): V1PodStatus {
    return {
      phase: "Failed",
      conditions: [scheduled],
      initContainerStatuses: [initDone],
      containerStatuses: [engineDone, container(AGENT_CONTAINER, { terminated: { exitCode, reason: "Error" } })],
    };
  },
  deadlineExceeded(): V1PodStatus {
    return {
      phase: "Failed",
      reason: "DeadlineExceeded",
      message: "Pod was active on the node longer than the specified deadline",
      conditions: [scheduled],
      initContainerStatuses: [initDone],
      containerStatuses: [container(AGENT_CONTAINER, { terminated: { exitCode: 137, reason: "Error" } })],
    };
  },
  oomKilled(): V1PodStatus {
    return {
      phase: "Failed",
      conditions: [scheduled],
      initContainerStatuses: [initDone],
      containerStatuses: [container(AGENT_CONTAINER, { terminated: { exitCode: 137, reason: "OOMKilled" } })],
    };
  },
  /** The agent has reported and ended; its engine container's launcher has not yet followed it. */
  agentDoneEngineRunning(): V1PodStatus {
    return {
      phase: "Running",
      conditions: [scheduled],
      initContainerStatuses: [initDone],
      containerStatuses: [
        engineRunning(),
        container(AGENT_CONTAINER, { terminated: { exitCode: 0, reason: "Completed" } }),
      ],
    };
  },
  /** An engine ran past the engine container's memory limit and the container ended; the agent reported and ended. */
  engineOomKilled(): V1PodStatus {
    return {
      phase: "Failed",
      conditions: [scheduled],
      initContainerStatuses: [initDone],
      containerStatuses: [
        container(ENGINE_CONTAINER, { terminated: { exitCode: 137, reason: "OOMKilled" } }),
        container(AGENT_CONTAINER, { terminated: { exitCode: 0, reason: "Completed" } }),
      ],
    };
  },
  evicted(): V1PodStatus {
    return {
      phase: "Failed",
      reason: "Evicted",
      message: "The node was low on resource: memory.",
      conditions: [scheduled],
    };
  },
};
