import { db } from "../db/client";
import { logger } from "../logger";
import type { PodBackend } from "../pods/types";

/** Deletes pods whose evaluation is over, or that belong to an attempt the evaluation has moved past. */
export async function sweepOrphanPods(backend: PodBackend): Promise<string[]> {
  const stopped: string[] = [];
  for (const pod of await backend.list()) {
    const evaluation = await db().evaluation.findUnique({
      where: { id: pod.evaluationId },
      select: { status: true, attempt: true },
    });
    const live = evaluation && ["fetching", "running", "checking"].includes(evaluation.status);
    if (!live || evaluation.attempt !== pod.attempt) {
      await backend.stop(pod.podId);
      stopped.push(pod.podId);
    }
  }
  if (stopped.length) logger.info("orphan pods stopped", { pods: stopped });
  return stopped;
}
