import type { PodFailureReason } from "../pods/types";

/** Every way a pod can be lost (lib/pods/types.ts), and the two ends that are the worker's, not a pod's. */
export const POD_FAILURE_REASONS = [
  "unschedulable",
  "image-pull",
  "deadline-exceeded",
  "oom-killed",
  "pod-lost",
  "agent-crashed",
  "no-result",
  "worker-lost",
] as const satisfies readonly (PodFailureReason | "no-result" | "worker-lost")[];

export type PodFailureLabel = (typeof POD_FAILURE_REASONS)[number];

/**
 * Why a void evaluation's pod failed, read from the reason the worker stored (lib/evaluations/run-evaluation.ts):
 * "the pod was lost (<reason>)", "the pod was lost (the pod ended without a result)", or "the evaluation's worker
 * was lost N times". Null for a void of another cause (the Hub out of reach, a stock engine that did not start).
 */
export function podFailureOf(reason: string | null): PodFailureLabel | null {
  if (!reason) return null;
  if (/^the evaluation's worker was lost \d+ times$/.test(reason)) return "worker-lost";
  const lost = /^the pod was lost \((.+)\)$/.exec(reason)?.[1];
  if (!lost) return null;
  return (POD_FAILURE_REASONS as readonly string[]).includes(lost) ? (lost as PodFailureLabel) : "no-result";
}
