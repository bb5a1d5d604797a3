import type { AgentEvent } from "./agent/events";

/** Everything a backend needs to start one evaluation's pod. */
export interface PodLaunch {
  evaluationId: string;
  /** The evaluation's attempt (its fencing token): a pod of an older attempt is never trusted. */
  attempt: number;
  taskId: string;
  profile: string;
  seed: number;
  /** Sealed, read-only inputs, by path on the backend's storage. */
  engineDir: string;
  speculatorDir: string;
  targetDir: string;
  /** The stock engine's directory (the pinned vLLM's launch.sh, or the simulated stock engine). */
  stockEngineDir: string;
  /** The session pool to play; absent means the public dev pool the agent ships with. */
  poolPath?: string;
  /** Hard limit on the pod's life. */
  deadlineSeconds: number;
}

export type PodFailureReason =
  | "unschedulable"
  | "image-pull"
  | "deadline-exceeded"
  | "oom-killed"
  | "pod-lost"
  | "agent-crashed";

export type PodExit = { kind: "completed" } | { kind: "failed"; reason: PodFailureReason; message: string };

export interface PodHandle {
  podId: string;
  /** The agent's events in order, ending when the pod ends. */
  events: AsyncIterable<AgentEvent>;
  /** Settles when the pod has ended, with why. */
  exited: Promise<PodExit>;
}

export interface PodInfo {
  podId: string;
  evaluationId: string;
  attempt: number;
  phase: "pending" | "running" | "succeeded" | "failed" | "unknown";
}

/** One interface over where pods run: child processes on this host, or Kubernetes. */
export interface PodBackend {
  readonly name: "local" | "kubernetes";
  start(launch: PodLaunch): Promise<PodHandle>;
  /** Tears a pod down (cancel, orphan, end); safe to call for a pod that is already gone. */
  stop(podId: string): Promise<void>;
  /** Pods this backend runs now, for finding orphans whose evaluation is over. */
  list(): Promise<PodInfo[]>;
}
