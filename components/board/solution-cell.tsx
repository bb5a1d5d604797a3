import type { BoardEntry } from "@/lib/board/board-entry";
import { shortRevision } from "@/lib/board/format";

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
