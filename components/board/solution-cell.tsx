import type { BoardEntry } from "@/lib/board/board-entry";
import { formatRatio, formatScore, shortRevision } from "@/lib/board/format";
import type { ResultView } from "@/lib/board/result-view";
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

/** Passed, or failed with its reason. */
export function GateCell({ entry }: { entry: BoardEntry }) {
  const r = entry.result;
  if (!r || r.lossless === null) return <span className="text-slate-600">—</span>;
  if (r.lossless) return <span className="text-emerald-800">passed</span>;
  return (
    <span>
      <span className="font-medium text-red-800">failed</span>{" "}
      <span className="text-xs text-slate-700">{r.reason ?? r.gates.find((g) => !g.pass)?.check ?? ""}</span>
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
