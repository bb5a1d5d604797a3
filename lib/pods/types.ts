import type { AgentEvent } from "./agent/events";

/** An event as the backend relays it: the agent's, with the pod's own sequence number when the agent gave one. */
export type PodEvent = AgentEvent & { seq?: number };

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
  /**
   * The agent's events in order, ending when the pod ends (or is detached). Events the agent numbered carry `seq`;
   * the backend's own notes (what the sandbox lacks) carry none.
   */
  events: AsyncIterable<PodEvent>;
  /** Settles when the pod has ended, with why; never, once detached. */
  exited: Promise<PodExit>;
  /**
   * Stops following the pod and leaves it running (its evaluation now belongs to another attempt, which follows it,
   * or the worker is shutting down): its events end, and nothing of the pod is touched.
   */
  detach(): void;
}

export interface PodInfo {
  podId: string;
  evaluationId: string;
  /** The attempt that started it (a later attempt may have re-attached to it: the evaluation's `podId` says). */
  attempt: number;
  phase: "pending" | "running" | "succeeded" | "failed" | "unknown";
  /** When the pod must have ended, where the backend itself does not end it then (the local backend). */
  deadlineAt?: Date;
}

/** One interface over where pods run: child processes on this host, or Kubernetes. */
export interface PodBackend {
  readonly name: "local" | "kubernetes";
  start(launch: PodLaunch): Promise<PodHandle>;
  /**
   * Follows a pod that an earlier worker started (and that may have ended since): its events numbered above
   * `afterSeq` (what the evaluation's log already holds), then its end. Null when the pod, or what it reported, is
   * gone: the evaluation must start a new one.
   */
  attach(podId: string, afterSeq: number): Promise<PodHandle | null>;
  /** Tears a pod down (cancel, orphan, end); safe to call for a pod that is already gone. */
  stop(podId: string): Promise<void>;
  /** Pods this backend runs now, for finding orphans whose evaluation is over. */
  list(): Promise<PodInfo[]>;
}
