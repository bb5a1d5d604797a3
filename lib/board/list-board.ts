import { db } from "@/lib/db/client";
import { FULL_PROFILE, getTask, type TaskId } from "@/lib/protocol";
import type { BoardEntry, TaskBoard } from "./board-entry";
import { devGap } from "./dev-gap";
import { latestPer, rankEntries, referenceKeyOf } from "./ranking";
import { type EntryRow, entryInclude, toEntry } from "./to-entry";

const PROFILED_SHOWN = 50;

/**
 * A task's board from the database: each participant's last scored evaluation on the test split under the
 * full protocol, ranked; the reference account's evaluations (the last of each reference), ranked apart;
 * and the runs under test profiles, listed with their label and never ranked.
 */
export async function listBoard(taskId: TaskId): Promise<TaskBoard> {
  const rows = (await db().evaluation.findMany({
    where: { status: "scored", submission: { taskId } },
    include: entryInclude,
    orderBy: { finishedAt: "desc" },
  })) as EntryRow[];
  const entries = rows.map(toEntry);
  return assembleBoard(taskId, entries);
}

/** The board's rules on rows already read (kept apart from the query so they are tested without a database). */
export function assembleBoard(taskId: TaskId, entries: readonly BoardEntry[]): TaskBoard {
  const full = entries.filter((e) => e.profile === FULL_PROFILE);
  const isReference = (e: BoardEntry) => e.accountKind === "reference";
  const isParticipant = (e: BoardEntry) => e.accountKind === "participant" || e.accountKind === "study";
  const noise = getTask(taskId).speedNoise.maxAbsError;

  const participants = rankEntries(
    latestPer(
      full.filter((e) => isParticipant(e) && e.split === "test"),
      (e) => e.account,
    ),
  ).map((e) => {
    const dev = full.filter((d) => d.account === e.account && d.split === "dev").map((d) => d.result?.score ?? null);
    return { ...e, devGap: devGap(e.result?.score ?? null, dev, noise) };
  });
  const references = rankEntries(latestPer(full.filter(isReference), referenceKeyOf));
  const profiled = entries
    .filter((e) => e.profile !== FULL_PROFILE)
    .sort((a, b) => Date.parse(b.finishedAt ?? b.queuedAt) - Date.parse(a.finishedAt ?? a.queuedAt))
    .slice(0, PROFILED_SHOWN);
  return { taskId, participants, references, profiled };
}
