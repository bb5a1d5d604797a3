import { activityVersion, boardVersion } from "@/lib/board/board-version";
import { db } from "@/lib/db/client";
import type { PageTarget } from "./page-target";

const FINAL = new Set(["scored", "failed", "void", "cancelled"]);

async function settingsVersion(): Promise<string> {
  const [row] = await db().$queryRaw<{ latest: Date | null; n: number }[]>`
    SELECT max("updatedAt") AS latest, count(*)::int AS n FROM "Setting"`;
  return `${row?.n ?? 0}@${row?.latest?.getTime() ?? 0}`;
}

/**
 * What a page's rendered answer depends on, as one string: equal strings, equal pages. The boards change with a new
 * score (`boardVersion`); the newest evaluations, the active count and queue positions with any evaluation's move
 * (`activityVersion`); the home page's registration link with the settings. An evaluation page is kept only once its
 * evaluation is final (its passes and checks no longer change; what the boards decide on it moves with them), and
 * null says: render it for each reader.
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
      const [row, board, activity] = await Promise.all([
        client.evaluation.findUnique({ where: { id: target.id }, select: { status: true } }),
        boardVersion(client),
        activityVersion(client),
      ]);
      if (!row || !FINAL.has(row.status)) return null;
      return `${row.status}|${board}|${activity}`;
    }
  }
}
