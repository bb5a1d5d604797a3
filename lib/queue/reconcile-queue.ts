import type { Queue } from "bullmq";
import { db } from "../db/client";
import { logger } from "../logger";
import type { EvaluationJob } from "./evaluation-job";
import { enqueueEvaluation, evaluationsQueue } from "./evaluations-queue";

export interface ReconcileReport {
  queued: string[];
  removed: string[];
}

/**
 * Keeps Postgres and the queue in step: every queued evaluation has a live job, and no waiting job
 * points at a row that is missing or already over. Safe to run at any time, from any process.
 */
export async function reconcileQueue(queue: Queue<EvaluationJob> = evaluationsQueue()): Promise<ReconcileReport> {
  const report: ReconcileReport = { queued: [], removed: [] };
  // Queued rows, and active rows whose worker's lease lapsed: each must have a job that will take it.
  const waiting = await db().evaluation.findMany({
    where: {
      OR: [
        { status: "queued" },
        { status: { in: ["fetching", "running", "checking"] }, leaseExpiresAt: { lt: new Date() } },
      ],
    },
    select: { id: true },
  });
  for (const { id } of waiting) {
    const job = await queue.getJob(id);
    const state = job ? await job.getState() : "missing";
    if (state === "missing" || state === "completed" || state === "failed" || state === "unknown") {
      // A finished or failed job cannot run again under its id: replace it.
      if (job) await job.remove().catch(() => undefined);
      await enqueueEvaluation(id, queue);
      report.queued.push(id);
    }
  }
  const jobs = await queue.getJobs(["waiting", "delayed", "prioritized", "paused"]);
  for (const job of jobs) {
    const evaluationId = job.data?.evaluationId;
    const row = evaluationId
      ? await db().evaluation.findUnique({ where: { id: evaluationId }, select: { status: true } })
      : null;
    if (
      !row ||
      (row.status !== "queued" && row.status !== "fetching" && row.status !== "running" && row.status !== "checking")
    ) {
      await job.remove().catch(() => undefined);
      report.removed.push(job.id ?? "?");
    }
  }
  if (report.queued.length || report.removed.length) logger.info("queue reconciled", { ...report });
  return report;
}
