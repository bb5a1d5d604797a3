import { db } from "@/lib/db/client";
import type { TaskId } from "@/lib/protocol";
import type { BoardEntry } from "./board-entry";
import { resultView } from "./result-view";

interface ScoredRow {
  id: string;
  queuedAt: Date;
  finishedAt: Date | null;
  specscore: number | null;
  reason: string | null;
  submissionId: string;
  split: "dev" | "test";
  profile: string;
  method: string | null;
  kind: string;
  referenceKey: string | null;
  speculatorUri: string | null;
  speculatorRevision: string | null;
  engineSource: string;
  engineUri: string | null;
  engineRevision: string | null;
  account: string;
  accountKind: string;
}

/**
 * Every scored evaluation of a task as a board row without its record, newest first: what the board's rules choose
 * by (account, split, profile, reference key, times) and its score from the `specscore` column. That column is the
 * record's SpecScore (lib/evaluations/record-result.ts stores the record's score there, and a scored evaluation
 * without a record shows the column), so a row ranks here as it does with its record.
 */
export async function listScoredRows(taskId: TaskId): Promise<BoardEntry[]> {
  const rows = await db().$queryRaw<ScoredRow[]>`
    SELECT e.id, e."queuedAt", e."finishedAt", e.specscore, e.reason, e."submissionId",
           s.split, s.profile, s.method, s.kind, s."referenceKey", s."speculatorUri", s."speculatorRevision",
           s."engineSource", s."engineUri", s."engineRevision", a.name AS account, a.kind AS "accountKind"
    FROM "Evaluation" e
    JOIN "Submission" s ON s.id = e."submissionId"
    JOIN "Account" a ON a.id = s."accountId"
    WHERE e.status = 'scored' AND s."taskId" = ${taskId}
    ORDER BY e."finishedAt" DESC`;
  return rows.map((r) => ({
    evaluationId: r.id,
    submissionId: r.submissionId,
    taskId,
    split: r.split,
    profile: r.profile,
    account: r.account,
    accountKind: r.accountKind,
    method: r.method,
    kind: r.kind,
    speculator: r.speculatorUri ? { uri: r.speculatorUri, revision: r.speculatorRevision } : null,
    engine: { source: r.engineSource, uri: r.engineUri, revision: r.engineRevision },
    referenceKey: r.referenceKey,
    status: "scored",
    queuedAt: r.queuedAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
    result: r.specscore === null ? null : resultView({ score: r.specscore, reason: r.reason }),
    devGap: null,
  }));
}
