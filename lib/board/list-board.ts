import { db } from "@/lib/db/client";
import { FULL_PROFILE, getTask, type TaskId } from "@/lib/protocol";
import { cachedBoard } from "./board-cache";
import type { BoardEntry, TaskBoard } from "./board-entry";
import { devGap } from "./dev-gap";
import { listScoredRows } from "./list-scored";
import { latestPer, rankEntries } from "./ranking";
import { referencesShown } from "./reference-entries";
import { type EntryRow, entryInclude, toEntry } from "./to-entry";

const PROFILED_SHOWN = 10;

/**
 * A task's board from the database: each participant's last scored evaluation on the test split under the
 * full protocol, ranked; the reference account's evaluations (the last of each reference), ranked apart;
 * and the runs under test profiles, listed with their label and never ranked. Read once per new score
 * (board-cache.ts) and shared by every reader until the next.
 */
export function listBoard(taskId: TaskId): Promise<TaskBoard> {
  return cachedBoard(taskId, readBoard);
}

/**
 * The board's rules run twice: first on every scored row without its record (list-scored.ts), which picks the rows
 * the board shows; then on those rows read whole, with the dev rows the dev/test gap compares against. The rules
 * choose by account, split, profile, reference and time, never by the record, so the second run keeps what the
 * first chose, and ranks and flags it from the records.
 */
async function readBoard(taskId: TaskId): Promise<TaskBoard> {
  const scored = await listScoredRows(taskId);
  const chosen = assembleBoard(taskId, scored);
  const shown = [...chosen.participants, ...chosen.references, ...chosen.profiled];
  const rows = (await db().evaluation.findMany({
    where: { id: { in: shown.map((e) => e.evaluationId) } },
    include: entryInclude,
  })) as EntryRow[];
  const byId = new Map(rows.map((r) => [r.id, toEntry(r)]));
  // in the first run's order, so that equal times fall as they fell there
  const whole = shown.flatMap((e) => byId.get(e.evaluationId) ?? []);
  const ranked = new Set(chosen.participants.map((e) => e.account));
  const devs = scored.filter(
    (e) => e.profile === FULL_PROFILE && e.split === "dev" && ranked.has(e.account) && isParticipant(e),
  );
  return assembleBoard(taskId, [...whole, ...devs]);
}

const isParticipant = (e: BoardEntry) => e.accountKind === "participant" || e.accountKind === "study";

/** The board's rules on rows already read (kept apart from the query so they are tested without a database). */
export function assembleBoard(taskId: TaskId, entries: readonly BoardEntry[]): TaskBoard {
  const full = entries.filter((e) => e.profile === FULL_PROFILE);
  const isReference = (e: BoardEntry) => e.accountKind === "reference";
  const noise = getTask(taskId).speedNoise.maxAbsError;

  const devScores = new Map<string, (number | null)[]>();
  for (const d of full) {
    if (d.split !== "dev") continue;
    const scores = devScores.get(d.account) ?? [];
    scores.push(d.result?.score ?? null);
    devScores.set(d.account, scores);
  }
  const participants = rankEntries(
    latestPer(
      full.filter((e) => isParticipant(e) && e.split === "test"),
      (e) => e.account,
    ),
    noise,
  ).map((e) => ({ ...e, devGap: devGap(e.result?.score ?? null, devScores.get(e.account) ?? [], noise) }));
  const references = rankEntries(referencesShown(entries.filter(isReference)), noise);
  const profiled = entries
    .filter((e) => e.profile !== FULL_PROFILE)
    .sort((a, b) => Date.parse(b.finishedAt ?? b.queuedAt) - Date.parse(a.finishedAt ?? a.queuedAt))
    .slice(0, PROFILED_SHOWN);
  return { taskId, participants, references, profiled };
}
