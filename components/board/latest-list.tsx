import { ProfileLabel, StatusLabel } from "@/components/ui/status-label";
import type { BoardEntry } from "@/lib/board/board-entry";
import { formatScore, formatShortTime } from "@/lib/board/format";
import type { RecentEntry } from "@/lib/board/list-recent";
import { verdictOf } from "@/lib/board/verdict";

/**
 * "stock engine (A/A) reference · qwen3-8b · scored judged 1.001 finished 10-24 03:15", newest change first: the
 * time shown is the change the list is ordered by.
 */
export function LatestList({ entries, empty }: { entries: RecentEntry[]; empty: React.ReactNode }) {
  if (entries.length === 0) return <p className="text-slate-600">{empty}</p>;
  return (
    <ul className="divide-y divide-slate-100">
      {entries.map((e) => (
        <li
          key={e.evaluationId}
          className="flex flex-wrap items-baseline gap-x-2 gap-y-1 py-2 text-sm"
          data-evaluation={e.evaluationId}
        >
          <a href={`/evaluations/${e.evaluationId}`} className="font-medium">
            {e.method || e.kind}
          </a>
          <span className="text-slate-700">{e.account}</span>
          <span className="text-slate-600">
            · {e.taskId} · {e.split === "test" ? "scored" : "development"}
          </span>
          <StatusLabel status={e.status} />
          <ProfileLabel profile={e.profile} />
          {e.result?.score !== undefined && e.result?.score !== null ? (
            <span className="font-semibold tabular-nums">{formatScore(e.result.score)}</span>
          ) : null}
          <FailedWhy entry={e} />
          <span className="ml-auto text-xs text-slate-600 tabular-nums">
            {e.change} <time dateTime={e.changedAt}>{formatShortTime(e.changedAt)}</time>
          </span>
        </li>
      ))}
    </ul>
  );
}

/** A scored 0 says so, with why, beside its score. */
function FailedWhy({ entry }: { entry: BoardEntry }) {
  const verdict = entry.status === "scored" ? verdictOf(entry.result) : null;
  if (verdict?.kind !== "failed") return null;
  return (
    <span className="text-xs text-red-800">
      failed: <span className="text-slate-700">{verdict.reason}</span>
    </span>
  );
}
