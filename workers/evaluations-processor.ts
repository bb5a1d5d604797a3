import type { Job } from "bullmq";
import { DelayedError } from "bullmq";
import { runEvaluation } from "../lib/evaluations/run-evaluation";
import type { PodBackend } from "../lib/pods/types";
import { type EvaluationJob, evaluationJobSchema } from "../lib/queue/evaluation-job";

/** Processes one `evaluations` job: the payload is checked again here, then the evaluation runs from Postgres. */
export function evaluationsProcessor(deps: { backend: PodBackend; workerId: string }) {
  return async (job: Job<EvaluationJob>, token?: string): Promise<void> => {
    const { evaluationId } = evaluationJobSchema.parse(job.data);
    const outcome = await runEvaluation(evaluationId, deps);
    if (outcome.kind === "retry-later") {
      // Another worker's lease has not lapsed yet: look again when it would have.
      await job.moveToDelayed(Date.now() + outcome.afterMs, token);
      throw new DelayedError();
    }
  };
}
