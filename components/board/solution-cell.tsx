import type { BoardEntry } from "@/lib/board/board-entry";
import { formatRatio, formatScore, shortRevision } from "@/lib/board/format";
import type { ResultView } from "@/lib/board/result-view";
import { verdictOf } from "@/lib/board/verdict";
import { WORKLOAD_IDS } from "@/lib/protocol";

/** "EAGLE-3 RedHatAI k=3 eagle3 · RedHatAI/Qwen3-8B-speculator.eagle3@08610ff", linked to the evaluation. */
export function SolutionCell({ entry }: { entry: BoardEntry }) {
  const origin = entry.speculator
    ? shortRevision(entry.speculator.uri, entry.speculator.revision)
    : entry.engine.source === "inline"
      ? "an uploaded engine directory"
      : entry.engine.uri
        ? shortRevision(entry.engine.uri, entry.engine.revision)
        : null;
  return (
    <span>
      <a href={`/evaluations/${entry.evaluationId}`} className="font-medium">
        {entry.method || "(no method given)"}
      </a>{" "}
      <span className="text-xs text-slate-600">{entry.kind}</span>
      {origin ? <span className="hidden text-xs text-slate-600 break-all sm:block">{origin}</span> : null}
    </span>
  );
}

/** Passed, or failed with its reason in words: every SpecScore of 0 reads as failed (protocol sections 5 and 7). */
export function GateCell({ entry }: { entry: BoardEntry }) {
  const verdict = verdictOf(entry.result);
  if (verdict === null) return <span className="text-slate-600">—</span>;
  if (verdict.kind === "passed") return <span className="text-emerald-800">passed</span>;
  return (
    <span data-testid="verdict-failed">
      <span className="font-medium text-red-800">failed</span>{" "}
      <span className="text-xs text-slate-700">{verdict.reason}</span>
    </span>
  );
}

/** A ranked row's SpecScore and its solo, team and busy speedups: four right-aligned cells. */
export function ScoreCells({ result }: { result: ResultView | null }) {
  return (
    <>
      <td className="py-2 pr-2 text-right font-semibold tabular-nums">{formatScore(result?.score)}</td>
      {WORKLOAD_IDS.map((w) => (
        <td key={w} className="py-2 pr-2 text-right tabular-nums">
          {formatRatio(result?.workloads[w].ratio)}
        </td>
      ))}
    </>
  );
}
