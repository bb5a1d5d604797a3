import { activityVersion, boardVersion } from "@/lib/board/board-version";
import { db } from "@/lib/db/client";
import { isTerminal } from "@/lib/evaluations/status-machine";
import type { PageTarget } from "./page-target";

/** A final evaluation page's version: its own row's state and last write, and for a test result the boards'. */
export function evaluationPageVersion(row: { status: string; updatedAt: Date; split: string }, board: string): string {
  const own = `${row.status}@${row.updatedAt.getTime()}`;
  return row.split === "test" ? `${own}|${board}` : own;
}

async function settingsVersion(): Promise<string> {
  const [row] = await db().$queryRaw<{ latest: Date | null; n: number }[]>`
    SELECT max("updatedAt") AS latest, count(*)::int AS n FROM "Setting"`;
  return `${row?.n ?? 0}@${row?.latest?.getTime() ?? 0}`;
}

/**
 * What a page's rendered answer depends on, as one string: equal strings, equal pages. The boards change with a new
 * score (`boardVersion`); the newest evaluations, the active count and queue positions with any evaluation's move
 * (`activityVersion`); the home page's registration link with the settings. An evaluation page is kept only once its
 * evaluation is final, and then changes only with its own row (a refund, say) and, for a test result, with the same
 * account's dev scores that its dev/test gap reads (a new score: `boardVersion`): the queue's moves, which change the
 * activity many times a minute, leave it be. Null says: render it for each reader.
 */
export async function pageVersion(target: PageTarget): Promise<string | null> {
  const client = db();
  switch (target.kind) {
    case "home": {
      const [board, activity, settings] = await Promise.all([
        boardVersion(client),
        activityVersion(client),
        settingsVersion(),
      ]);
      return `${board}|${activity}|${settings}`;
    }
    case "task": {
      const [board, activity] = await Promise.all([boardVersion(client), activityVersion(client)]);
      return `${board}|${activity}`;
    }
    case "evaluation": {
      const row = await client.evaluation.findUnique({
        where: { id: target.id },
        select: { status: true, updatedAt: true, submission: { select: { split: true } } },
      });
      if (!row || !isTerminal(row.status)) return null;
      const split = row.submission.split;
      return evaluationPageVersion(
        { status: row.status, updatedAt: row.updatedAt, split },
        split === "test" ? await boardVersion(client) : "",
      );
    }
  }
}
