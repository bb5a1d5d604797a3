import { db } from "../db/client";
import { AppError } from "../http/app-error";
import type { AccountKind } from "../protocol";

/** Who reads a submission through the API: the token's account. */
export interface SubmissionReader {
  accountId: string;
  kind: AccountKind;
}

/** A failing engine's log lines are its submitter's and the operators', never other readers'. */
export function mayReadLogTail(reader: SubmissionReader | undefined, ownerAccountId: string): boolean {
  return reader !== undefined && (reader.accountId === ownerAccountId || reader.kind === "admin");
}

export interface SubmissionView {
  id: string;
  task_id: string;
  split: string;
  profile: string;
  account: string;
  speculator: { uri: string; revision: string } | null;
  engine: { source: string; sha256: string | null; uri: string | null; revision: string | null; subdir: string | null };
  solution: { method: string | null; kind: string };
  created_at: string;
  evaluation: {
    id: string;
    status: string;
    phase: string | null;
    reason: string | null;
    specscore: number | null;
    gpu_seconds: number;
    refunded: boolean;
    queued_at: string;
    started_at: string | null;
    finished_at: string | null;
    result: unknown;
    /** The engine's last log lines, present only for its submitter and the operators (null when none were kept). */
    log_tail?: string | null;
  } | null;
}

/**
 * A submission and its latest evaluation; the engine archive itself is never returned, and the engine's log lines
 * only to a reader allowed them (none given: a public view, as the events stream's).
 */
export async function getSubmission(id: string, reader?: SubmissionReader): Promise<SubmissionView> {
  const s = await db().submission.findUnique({
    where: { id },
    omit: { engineArchive: true },
    include: { account: true, evaluations: { orderBy: { queuedAt: "desc" }, take: 1 } },
  });
  if (!s) throw new AppError({ code: "not_found", message: `submission ${id} not found` });
  return toView(s, reader);
}

type Row = NonNullable<Awaited<ReturnType<typeof findForView>>>;
const findForView = (id: string) =>
  db().submission.findUnique({
    where: { id },
    omit: { engineArchive: true },
    include: { account: true, evaluations: { orderBy: { queuedAt: "desc" }, take: 1 } },
  });

export function toView(s: Row, reader?: SubmissionReader): SubmissionView {
  const e = s.evaluations[0];
  return {
    id: s.id,
    task_id: s.taskId,
    split: s.split,
    profile: s.profile,
    account: s.account.name,
    speculator: s.speculatorUri ? { uri: s.speculatorUri, revision: s.speculatorRevision ?? "" } : null,
    engine: {
      source: s.engineSource,
      sha256: s.engineSha256,
      uri: s.engineUri,
      revision: s.engineRevision,
      subdir: s.engineSubdir,
    },
    solution: { method: s.method, kind: s.kind },
    created_at: s.createdAt.toISOString(),
    evaluation: e
      ? {
          id: e.id,
          status: e.status,
          phase: e.phase,
          reason: e.reason,
          specscore: e.specscore,
          gpu_seconds: e.gpuSeconds,
          refunded: e.refunded,
          queued_at: e.queuedAt.toISOString(),
          started_at: e.startedAt?.toISOString() ?? null,
          finished_at: e.finishedAt?.toISOString() ?? null,
          result: e.status === "scored" || e.status === "failed" || e.status === "void" ? e.result : null,
          ...(mayReadLogTail(reader, s.accountId) ? { log_tail: e.logTail } : {}),
        }
      : null,
  };
}
