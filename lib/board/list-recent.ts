import { db } from "@/lib/db/client";
import { FULL_PROFILE } from "@/lib/protocol";
import type { BoardEntry } from "./board-entry";
import { type EntryRow, entryInclude, toEntry } from "./to-entry";

/** An evaluation as the latest list shows it: by its last change, which the list is ordered by and shows. */
export interface RecentEntry extends BoardEntry {
  change: "queued" | "started" | "finished";
  changedAt: string;
}

/**
 * The evaluations that changed last, whatever their state, newest change first: finished, else started (a worker
 * took it), else queued. Under the full protocol (`profiles: "full"`), or only runs under a test profile ("test"),
 * which the pages list apart so that demos and automated runs never crowd out the submissions.
 */
export async function listRecentEvaluations(options: {
  limit: number;
  profiles: "full" | "test";
}): Promise<RecentEntry[]> {
  const limit = Math.min(Math.max(Math.floor(options.limit), 1), 100);
  const full = options.profiles === "full";
  const order = await db().$queryRaw<{ id: string; startedAt: Date | null }[]>`
    SELECT e.id, e."startedAt"
    FROM "Evaluation" e JOIN "Submission" s ON s.id = e."submissionId"
    WHERE (s.profile = ${FULL_PROFILE}) = ${full}
    ORDER BY COALESCE(e."finishedAt", e."startedAt", e."queuedAt") DESC, e.id
    LIMIT ${limit}`;
  if (order.length === 0) return [];
  const rows = (await db().evaluation.findMany({
    where: { id: { in: order.map((o) => o.id) } },
    include: entryInclude,
  })) as EntryRow[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return order.flatMap(({ id, startedAt }) => {
    const row = byId.get(id);
    if (!row) return [];
    const entry = toEntry(row);
    const change = entry.finishedAt ? "finished" : startedAt ? "started" : "queued";
    const changedAt = entry.finishedAt ?? startedAt?.toISOString() ?? entry.queuedAt;
    return [{ ...entry, change, changedAt }];
  });
}
