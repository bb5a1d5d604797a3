import { db } from "../db/client";
import type { ProfileDuration } from "./queue-estimate";

/** How many of each profile's latest scored evaluations the median is taken over. */
export const RECENT_RUNS = 20;

/**
 * What each profile's evaluations take on this arena, start (a worker took it from the queue) to finish: the median
 * over its last RECENT_RUNS scored evaluations. Only scored ones: an evaluation that failed or was voided stopped
 * early, and would promise a queue less wait than it will have. A profile nobody has finished has no entry.
 */
export async function recentDurations(runs = RECENT_RUNS): Promise<Map<string, ProfileDuration>> {
  const rows = await db().$queryRaw<{ profile: string; median: number; runs: number }[]>`
    SELECT profile, percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS median, count(*)::int AS runs
    FROM (
      SELECT s.profile, EXTRACT(EPOCH FROM (e."finishedAt" - e."startedAt"))::float8 AS seconds,
             row_number() OVER (PARTITION BY s.profile ORDER BY e."finishedAt" DESC) AS n
      FROM "Evaluation" e JOIN "Submission" s ON s.id = e."submissionId"
      WHERE e.status = 'scored' AND e."startedAt" IS NOT NULL AND e."finishedAt" IS NOT NULL
        AND e."finishedAt" >= e."startedAt"
    ) recent
    WHERE n <= ${runs}
    GROUP BY profile`;
  return new Map(rows.map((r) => [r.profile, { medianSeconds: Number(r.median), runs: r.runs }]));
}
