import { db } from "@/lib/db/client";
import type { BoardEntry } from "./board-entry";
import { type EntryRow, entryInclude, toEntry } from "./to-entry";

/** The newest evaluations of every task, whatever their state, newest first. */
export async function listLatestEvaluations(limit = 8): Promise<BoardEntry[]> {
  const rows = (await db().evaluation.findMany({
    include: entryInclude,
    orderBy: { queuedAt: "desc" },
    take: Math.min(Math.max(limit, 1), 100),
  })) as EntryRow[];
  return rows.map(toEntry);
}
