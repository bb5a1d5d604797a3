import { db } from "@/lib/db/client";
import { ACTIVE_STATUSES } from "@/lib/evaluations/status-machine";

export interface QueueRow {
  evaluationId: string;
  submissionId: string;
  taskId: string;
  split: string;
  profile: string;
  account: string;
  method: string | null;
  kind: string;
  status: string;
  phase: string | null;
  attempt: number;
  podId: string | null;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  queuedAt: string;
  startedAt: string | null;
}

export interface QueueListing {
  /** Waiting for a GPU, oldest first (the order they start in). */
  queued: QueueRow[];
  /** Taken by a worker: fetching, running or checking, with the pod that runs them. */
  running: QueueRow[];
}

/** The operators' view of the queue and the running pods. */
export async function listQueue(): Promise<QueueListing> {
  const rows = await db().evaluation.findMany({
    where: { status: { in: [...ACTIVE_STATUSES] } },
    orderBy: { queuedAt: "asc" },
    include: { submission: { omit: { engineArchive: true }, include: { account: true } } },
  });
  const view = rows.map(
    (r): QueueRow => ({
      evaluationId: r.id,
      submissionId: r.submissionId,
      taskId: r.submission.taskId,
      split: r.submission.split,
      profile: r.submission.profile,
      account: r.submission.account.name,
      method: r.submission.method,
      kind: r.submission.kind,
      status: r.status,
      phase: r.phase,
      attempt: r.attempt,
      podId: r.podId,
      leaseOwner: r.leaseOwner,
      leaseExpiresAt: r.leaseExpiresAt?.toISOString() ?? null,
      queuedAt: r.queuedAt.toISOString(),
      startedAt: r.startedAt?.toISOString() ?? null,
    }),
  );
  return { queued: view.filter((r) => r.status === "queued"), running: view.filter((r) => r.status !== "queued") };
}
