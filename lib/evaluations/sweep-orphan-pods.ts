import { db } from "../db/client";
import { logger } from "../logger";
import type { PodBackend } from "../pods/types";

/** A pod still running this long past its deadline is stopped whatever its evaluation says (its agent ends it first). */
const PAST_DEADLINE_MS = 60_000;

/**
 * Stops pods whose evaluation is over, pods that are neither the evaluation's current attempt's nor the pod it
 * follows (a later attempt may have re-attached to an earlier attempt's pod: `Evaluation.podId` names it), and pods
 * past their deadline. A pod whose worker died is left running while its evaluation lives: the next worker
 * re-attaches to it.
 */
export async function sweepOrphanPods(backend: PodBackend, now: Date = new Date()): Promise<string[]> {
  const stopped: string[] = [];
  for (const pod of await backend.list()) {
    const evaluation = await db().evaluation.findUnique({
      where: { id: pod.evaluationId },
      select: { status: true, attempt: true, podId: true },
    });
    const live = evaluation && ["fetching", "running", "checking"].includes(evaluation.status);
    const followed = evaluation && (evaluation.attempt === pod.attempt || evaluation.podId === pod.podId);
    const overdue = pod.deadlineAt !== undefined && now.getTime() > pod.deadlineAt.getTime() + PAST_DEADLINE_MS;
    if (!live || !followed || overdue) {
      await backend.stop(pod.podId);
      stopped.push(pod.podId);
    }
  }
  if (stopped.length) logger.info("orphan pods stopped", { pods: stopped });
  return stopped;
}
