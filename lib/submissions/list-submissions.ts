import { db } from "../db/client";
import { type SubmissionView, toView } from "./get-submission";

/** The caller's own submissions, newest first. */
export async function listOwnSubmissions(accountId: string, limit = 100): Promise<SubmissionView[]> {
  const rows = await db().submission.findMany({
    where: { accountId },
    orderBy: { createdAt: "desc" },
    take: Math.min(Math.max(limit, 1), 500),
    omit: { engineArchive: true },
    include: { account: true, evaluations: { orderBy: { queuedAt: "desc" }, take: 1 } },
  });
  // the caller's own: their engines' log lines included
  return rows.map((row) => toView(row, { accountId, kind: "participant" }));
}
