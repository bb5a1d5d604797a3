import { Queue } from "bullmq";
import { env } from "../env";
import { createFailFastRedis } from "./connection";
import { EVALUATIONS_QUEUE, type EvaluationJob, evaluationJobSchema } from "./evaluation-job";

const globalForQueue = globalThis as unknown as { arenaEvaluationsQueue?: Queue<EvaluationJob> };

export function evaluationsQueue(): Queue<EvaluationJob> {
  // fail-fast: a submission is answered while Redis is away, and the reconciler queues what could not be
  globalForQueue.arenaEvaluationsQueue ??= new Queue<EvaluationJob>(EVALUATIONS_QUEUE, {
    connection: createFailFastRedis(),
    prefix: env().QUEUE_PREFIX,
  });
  return globalForQueue.arenaEvaluationsQueue;
}

/**
 * Queues an evaluation; the job id is the evaluation id, so queueing twice is one job.
 * Call only after the row is committed.
 */
export async function enqueueEvaluation(evaluationId: string, queue = evaluationsQueue()): Promise<void> {
  const data = evaluationJobSchema.parse({ evaluationId });
  await queue.add("evaluate", data, {
    jobId: evaluationId,
    attempts: 3,
    backoff: { type: "exponential", delay: 5_000 },
    removeOnComplete: { age: 7 * 24 * 3600 },
    removeOnFail: { age: 30 * 24 * 3600 },
  });
}

/** For tests that switch arenas within one process. */
export async function resetEvaluationsQueueForTests(): Promise<void> {
  const queue = globalForQueue.arenaEvaluationsQueue;
  globalForQueue.arenaEvaluationsQueue = undefined;
  if (queue) await queue.close();
}
