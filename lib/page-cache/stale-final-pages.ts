import { boardVersion } from "@/lib/board/board-version";
import { db } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/db/generated/client";
import { TERMINAL_STATUSES } from "@/lib/evaluations/status-machine";
import { evaluationPageVersion } from "./page-version";

export interface PageToRender {
  evaluationId: string;
  /** The version it is to be kept at (its pageVersion now). */
  version: string;
}

/**
 * Final evaluations whose page is not kept at its current version, the most recently written first: none kept yet,
 * its row written since (a refund, say), or a test result's board moved on. The SQL's version is
 * `evaluationPageVersion`'s, spelled in SQL (kept-pages.test.ts holds the two to one another).
 */
export async function staleFinalPages(limit: number, client: PrismaClient = db()): Promise<PageToRender[]> {
  const board = await boardVersion(client);
  const rows = await client.$queryRaw<{ id: string; status: string; updatedAt: Date; split: string }[]>`
    SELECT e.id, e.status::text AS status, e."updatedAt", s.split::text AS split
    FROM "Evaluation" e
    JOIN "Submission" s ON s.id = e."submissionId"
    LEFT JOIN "KeptEvaluationPage" k ON k."evaluationId" = e.id
    WHERE e.status::text = ANY(${[...TERMINAL_STATUSES]})
      AND (k."evaluationId" IS NULL OR k.version <> (
        e.status::text || '@' || round(extract(epoch FROM e."updatedAt") * 1000)::bigint::text
        || CASE WHEN s.split = 'test' THEN '|' || ${board} ELSE '' END))
    ORDER BY e."updatedAt" DESC
    LIMIT ${limit}`;
  return rows.map((row) => ({ evaluationId: row.id, version: evaluationPageVersion(row, board) }));
}
