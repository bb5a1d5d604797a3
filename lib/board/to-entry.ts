import type { Account, Evaluation, Submission } from "@/lib/db/generated/client";
import type { BoardEntry } from "./board-entry";
import { resultView } from "./result-view";

export type EntryRow = Evaluation & { submission: Omit<Submission, "engineArchive"> & { account: Account } };

/** A stored evaluation as a board row. */
export function toEntry(row: EntryRow): BoardEntry {
  const s = row.submission;
  return {
    evaluationId: row.id,
    submissionId: s.id,
    taskId: s.taskId,
    split: s.split,
    profile: s.profile,
    account: s.account.name,
    accountKind: s.account.kind,
    method: s.method,
    kind: s.kind,
    speculator: s.speculatorUri ? { uri: s.speculatorUri, revision: s.speculatorRevision } : null,
    engine: { source: s.engineSource, uri: s.engineUri, revision: s.engineRevision },
    referenceKey: s.referenceKey,
    status: row.status,
    queuedAt: row.queuedAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
    result: resultView(row.result) ?? (row.specscore !== null ? scoreOnly(row) : null),
    devGap: null,
  };
}

/**
 * An evaluation with a stored score but no readable record still shows its score and its reason: a candidate
 * that did not start or died is scored 0 with no record. No record means no gate was judged: `lossless` is unknown.
 */
function scoreOnly(row: EntryRow): BoardEntry["result"] {
  const view = resultView({ score: row.specscore, reason: row.reason });
  return view && { ...view, lossless: null };
}

export const entryInclude = {
  submission: { omit: { engineArchive: true }, include: { account: true } },
} as const;
