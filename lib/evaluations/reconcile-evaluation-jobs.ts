import type { Job, Queue } from "bullmq";
import { db, type Prisma } from "../db/client";
import { logger } from "../logger";
import type { EvaluationJob } from "../queue/evaluation-job";
import { enqueueEvaluation, evaluationsQueue } from "../queue/evaluations-queue";

export interface ReconcileReport {
  /** Evaluations that had no job that would run them, given one: oldest first. */
  queued: string[];
  /** Waiting jobs moved behind the older evaluations that had lost theirs, so the queue runs in submission order. */
  requeued: string[];
  /** Waiting jobs whose evaluation is missing or over, removed. */
  removed: string[];
  /** Another process was reconciling: nothing was done. */
  skipped: boolean;
}

/** Job states from which the job will still take its evaluation (BullMQ's getState names). */
const WILL_RUN = new Set(["active", "delayed", "waiting-children"]);
const WAITING = new Set(["waiting", "prioritized", "paused"]);
const LIVE = new Set(["queued", "fetching", "running", "checking"]);

/** Serialises reconcilers across processes (several workers may run): taken per transaction, never waited for. */
const LOCK_KEY = "arena:reconcile-evaluation-jobs";

/**
 * Keeps PostgreSQL and the queue in step, in submission order. Every queued evaluation (charged when it was
 * created), and every active one whose worker's lease lapsed, gets a job that will take it; when some had lost
 * theirs (Redis restarted empty, an enqueue that failed), they are queued oldest first and the waiting jobs of newer
 * evaluations are queued again behind them, so an evaluation charged earlier never waits behind one charged later.
 * Waiting jobs of evaluations that are missing or over are removed. Jobs carry ids only and runEvaluation is safe to
 * run twice, so a job queued twice by a race costs nothing. Safe to run at any time, from any process.
 */
export async function reconcileEvaluationJobs(
  queue: Queue<EvaluationJob> = evaluationsQueue(),
  options: {
    /** Wait for another process's reconcile to end, then run (a worker's start-up: none may be taken before). */
    wait?: boolean;
  } = {},
): Promise<ReconcileReport> {
  const report = await db().$transaction(
    async (tx) => {
      if (options.wait) await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${LOCK_KEY}, 0))`;
      else {
        const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`
          SELECT pg_try_advisory_xact_lock(hashtextextended(${LOCK_KEY}, 0)) AS locked`;
        if (!lock?.locked) return { queued: [], requeued: [], removed: [], skipped: true } satisfies ReconcileReport;
      }
      return reconcile(queue, tx);
    },
    { maxWait: 10_000, timeout: 120_000 },
  );
  if (report.queued.length || report.requeued.length || report.removed.length)
    logger.info("evaluation jobs reconciled", { ...report });
  return report;
}

/** Reads through the transaction that holds the lock: one connection for the whole reconcile. */
async function reconcile(queue: Queue<EvaluationJob>, tx: Prisma.TransactionClient): Promise<ReconcileReport> {
  const report: ReconcileReport = { queued: [], requeued: [], removed: [], skipped: false };
  const rows = await tx.evaluation.findMany({
    where: {
      OR: [
        { status: "queued" },
        { status: { in: ["fetching", "running", "checking"] }, leaseExpiresAt: { lt: new Date() } },
      ],
    },
    orderBy: [{ queuedAt: "asc" }, { id: "asc" }],
    select: { id: true },
  });
  const jobs: { id: string; job: Job<EvaluationJob> | undefined; state: string }[] = [];
  for (const { id } of rows) {
    const job = await queue.getJob(id);
    jobs.push({ id, job, state: job ? await job.getState() : "missing" });
  }
  const lost = (state: string) => !WILL_RUN.has(state) && !WAITING.has(state);
  const first = jobs.findIndex((j) => lost(j.state));
  if (first !== -1) {
    for (const { id, job, state } of jobs.slice(first)) {
      if (WILL_RUN.has(state)) continue;
      if (job) {
        // a finished or failed job cannot run again under its id, and a waiting one must go behind the older ones;
        // one a worker took meanwhile is locked and stays
        const removed = await job.remove().then(
          () => true,
          () => false,
        );
        if (!removed) continue;
      }
      await enqueueEvaluation(id, queue);
      (lost(state) ? report.queued : report.requeued).push(id);
    }
  }

  for (const job of await queue.getJobs(["waiting", "delayed", "prioritized", "paused"])) {
    const evaluationId = job.data?.evaluationId;
    const row = evaluationId
      ? await tx.evaluation.findUnique({ where: { id: evaluationId }, select: { status: true } })
      : null;
    if (!row || !LIVE.has(row.status)) {
      await job.remove().catch(() => undefined);
      report.removed.push(job.id ?? "?");
    }
  }
  return report;
}
