import { ProfileLabel, StatusLabel } from "@/components/ui/status-label";
import type { BoardEntry } from "@/lib/board/board-entry";
import { formatScore, formatShortTime } from "@/lib/board/format";
import { verdictOf } from "@/lib/board/verdict";

/** "stock engine (A/A) reference · qwen3-8b · scored judged 1.001 10-24 03:15" */
export function LatestList({ entries }: { entries: BoardEntry[] }) {
  if (entries.length === 0) {
    return (
      <p className="text-slate-600">
        Nothing has been submitted yet. <a href="/submit">Submit the first speculator</a>.
      </p>
    );
  }
  return (
    <ul className="divide-y divide-slate-100">
      {entries.map((e) => (
        <li key={e.evaluationId} className="flex flex-wrap items-baseline gap-x-2 gap-y-1 py-2 text-sm">
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
          <time className="ml-auto text-xs text-slate-600 tabular-nums" dateTime={e.finishedAt ?? e.queuedAt}>
            {formatShortTime(e.finishedAt ?? e.queuedAt)}
          </time>
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
