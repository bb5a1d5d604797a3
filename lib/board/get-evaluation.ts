import { db } from "@/lib/db/client";
import { AppError } from "@/lib/http/app-error";
import { FULL_PROFILE, getTask, isTaskId } from "@/lib/protocol";
import type { BoardEntry, DevGap } from "./board-entry";
import { devGap } from "./dev-gap";
import type { GateView } from "./result-view";
import { type EntryRow, entryInclude, toEntry } from "./to-entry";

export interface PassRow {
  engine: string;
  workload: string;
  pass: number;
  speed: number;
  requests: number;
  failed: number;
  outputTokens: number;
}

export interface EvaluationPage {
  entry: BoardEntry;
  phase: string | null;
  reason: string | null;
  /** Whether the engine's last log lines were kept (a candidate that did not start or died, a broken plugin/). */
  hasLogTail: boolean;
  /**
   * Those lines, only for a reader allowed them (an operator; the submitter reads them through the API with their
   * token): an engine's log is its author's words, and a leak channel if anyone could read it.
   */
  logTail: string | null;
  podId: string | null;
  gpuSeconds: number;
  startedAt: string | null;
  engineSha256: string | null;
  speculatorCommit: string | null;
  refund: { at: string } | null;
  /** 1 for the next evaluation to start; null once it has left the queue. */
  queuePosition: number | null;
  passes: PassRow[];
  phases: { name: string; engine: string | null; startedAt: string; endedAt: string | null }[];
  /** The record's gate table, or the stored gate rows where the record has none. */
  gates: GateView[];
  /** Everything the judge recorded, as stored. */
  record: unknown;
  /** A scored test result far below the same account's dev result on the task (protocol section 8). */
  devGap: DevGap | null;
}

/** An evaluation's page, by the evaluation's id or by its submission's (then its latest evaluation). */
export async function getEvaluationPage(
  id: string,
  reader: { mayReadLogTail: boolean } = { mayReadLogTail: false },
): Promise<EvaluationPage> {
  const row = (await readRow({ id })) ?? (await readRow({ submissionId: id }));
  if (!row) throw new AppError({ code: "not_found", message: `evaluation ${id} not found` });
  const entry = toEntry(row as unknown as EntryRow);
  const [queuePosition, gap] = await Promise.all([
    row.status === "queued"
      ? db()
          .evaluation.count({ where: { status: "queued", queuedAt: { lt: row.queuedAt } } })
          .then((ahead) => ahead + 1)
      : null,
    devGapOf(entry, row.submission.accountId),
  ]);
  const refund = row.ledger.find((l) => l.kind === "refund");
  const storedGates: GateView[] = row.gates.map((g) => ({
    key: g.check,
    check: g.check,
    measured: g.measured,
    limit: g.limit,
    pass: g.passed,
    reason: null,
  }));
  return {
    entry,
    phase: row.phase,
    reason: row.reason,
    hasLogTail: row.logTail !== null && row.logTail !== "",
    logTail: reader.mayReadLogTail ? row.logTail : null,
    podId: row.podId,
    gpuSeconds: row.gpuSeconds,
    startedAt: row.startedAt?.toISOString() ?? null,
    engineSha256: row.engineSha256 ?? row.submission.engineSha256,
    speculatorCommit: row.speculatorCommit,
    refund: refund ? { at: refund.createdAt.toISOString() } : row.refunded ? { at: row.updatedAt.toISOString() } : null,
    queuePosition,
    passes: row.passes
      .map((p) => ({
        engine: p.engine,
        workload: p.workload,
        pass: p.pass,
        speed: p.speed,
        requests: p.requests,
        failed: p.failed,
        outputTokens: p.outputTokens,
      }))
      .sort((a, b) => a.workload.localeCompare(b.workload) || a.pass - b.pass || a.engine.localeCompare(b.engine)),
    phases: row.phases
      .map((p) => ({
        name: p.name,
        engine: p.engine,
        startedAt: p.startedAt.toISOString(),
        endedAt: p.endedAt?.toISOString() ?? null,
      }))
      .sort((a, b) => a.startedAt.localeCompare(b.startedAt)),
    gates: entry.result && entry.result.gates.length > 0 ? entry.result.gates : storedGates,
    record: row.result ?? null,
    devGap: gap,
  };
}

/**
 * The evaluation (by its id, or its submission's latest) with its submission, account, passes, gates, phases and
 * ledger. The relations are read side by side rather than one after another: one round trip's wait, not six.
 */
async function readRow(where: { id: string } | { submissionId: string }) {
  const evaluation = await db().evaluation.findFirst({
    where,
    orderBy: { queuedAt: "desc" },
    include: entryInclude,
  });
  if (!evaluation) return null;
  const evaluationId = evaluation.id;
  const [passes, gates, phases, ledger] = await Promise.all([
    db().evaluationPass.findMany({ where: { evaluationId } }),
    db().gateResult.findMany({ where: { evaluationId } }),
    db().evaluationPhase.findMany({ where: { evaluationId } }),
    db().budgetLedger.findMany({ where: { evaluationId } }),
  ]);
  return { ...evaluation, passes, gates, phases, ledger };
}

async function devGapOf(entry: BoardEntry, accountId: string): Promise<DevGap | null> {
  const score = entry.result?.score ?? null;
  if (entry.split !== "test" || entry.status !== "scored" || entry.profile !== FULL_PROFILE || score === null)
    return null;
  if (!isTaskId(entry.taskId)) return null;
  const dev = await db().evaluation.findMany({
    where: { status: "scored", submission: { accountId, taskId: entry.taskId, split: "dev", profile: FULL_PROFILE } },
    select: { specscore: true },
  });
  return devGap(
    score,
    dev.map((d) => d.specscore),
    getTask(entry.taskId).speedNoise.maxAbsError,
  );
}
