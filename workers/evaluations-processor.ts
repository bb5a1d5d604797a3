import type { Job } from "bullmq";
import { DelayedError } from "bullmq";
import { reportCalibrationOf } from "../lib/admin/report-calibration";
import { type RunDeps, runEvaluation } from "../lib/evaluations/run-evaluation";
import { type EvaluationJob, evaluationJobSchema } from "../lib/queue/evaluation-job";

/** Processes one `evaluations` job: the payload is checked again here, then the evaluation runs from Postgres. */
export function evaluationsProcessor(deps: RunDeps) {
  return async (job: Job<EvaluationJob>, token?: string): Promise<void> => {
    const { evaluationId } = evaluationJobSchema.parse(job.data);
    const outcome = await runEvaluation(evaluationId, deps);
    if (outcome.kind === "retry-later") {
      // Another worker's lease has not lapsed yet, no slot is free, or this worker is shutting down (its pod left
      // running): look again then, without spending one of the job's attempts.
      await job.moveToDelayed(Date.now() + outcome.afterMs, token);
      throw new DelayedError();
    }
    // the calibration that queued it, if one did, may be complete now (the maintenance sweep catches the rest)
    await reportCalibrationOf(evaluationId);
  };
}
