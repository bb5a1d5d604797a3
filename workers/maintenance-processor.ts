import { reportDueCalibrations } from "../lib/admin/report-calibration";
import { reconcileEvaluationJobs } from "../lib/evaluations/reconcile-evaluation-jobs";
import { sweepOrphanPods } from "../lib/evaluations/sweep-orphan-pods";
import type { PodBackend } from "../lib/pods/types";

/**
 * The periodic upkeep: no queued row without a job, no job without a row, no pod without a live evaluation, no
 * finished calibration without its report.
 */
export function maintenanceProcessor(deps: { backend: PodBackend }) {
  return async (): Promise<void> => {
    await reconcileEvaluationJobs();
    await sweepOrphanPods(deps.backend);
    await reportDueCalibrations();
  };
}
