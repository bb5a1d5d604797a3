import { sweepOrphanPods } from "../lib/evaluations/sweep-orphan-pods";
import type { PodBackend } from "../lib/pods/types";
import { reconcileQueue } from "../lib/queue/reconcile-queue";

/** The periodic upkeep: no queued row without a job, no job without a row, no pod without a live evaluation. */
export function maintenanceProcessor(deps: { backend: PodBackend }) {
  return async (): Promise<void> => {
    await reconcileQueue();
    await sweepOrphanPods(deps.backend);
  };
}
