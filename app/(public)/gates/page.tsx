import type { Metadata } from "next";
import { DataTable, type TableSpec } from "@/components/ui/data-table";
import { DESIGN_DEFENSES, GATE_EXPLANATIONS, type GateExplanation } from "@/lib/board/gate-explanations";
import { currentProtocol, type TaskSpec } from "@/lib/protocol";

export const metadata: Metadata = { title: "The lossless gate" };

/** A check's limit on each task, and the evidence that calibrated it. */
function gateTable(g: GateExplanation): TableSpec<TaskSpec> {
  return {
    minWidth: "min-w-[32rem]",
    pad: "py-1.5",
    rowClassName: "border-b border-slate-100 align-top",
    rowKey: (t) => t.id,
    columns: [
      { header: "Task", rowHeader: "font-normal", cell: (t) => t.name },
      { header: "Limit", className: "whitespace-nowrap", cell: (t) => g.limit(t) },
      {
        header: "Evidence that calibrated it",
        className: "text-slate-700",
        cell: (t) => g.evidence(t) ?? "a rule of the protocol, not calibrated",
      },
    ],
  };
}

export default function GatesPage() {
  const protocol = currentProtocol();
  const tasks = Object.values(protocol.tasks);
  return (
    <div className="space-y-8">
      <header>
        <h1 className="text-2xl font-semibold">The lossless gate</h1>
        <p className="mt-2 max-w-prose text-slate-700">
          Speculative decoding must not change what the target says. Each check compares the candidate with the stock
          engine, in the same pod, against a limit calibrated on A/A runs, honest reference speculators and red-team
          attacks, at 95% confidence. One failed check makes SpecScore 0. The checks run after the timed passes on a
          restart of each engine with GPU_MEMORY_UTILIZATION {protocol.engine.checksGpuMemoryUtilization}.
        </p>
        <nav aria-label="Checks" className="mt-3 flex flex-wrap gap-x-4 gap-y-1 text-sm">
          {GATE_EXPLANATIONS.map((g) => (
            <a key={g.key} href={`#${g.key}`}>
              {g.title}
            </a>
          ))}
          <a href="#attacks">Other attacks</a>
        </nav>
      </header>
      {GATE_EXPLANATIONS.map((g) => (
        <section
          key={g.key}
          id={g.key}
          aria-labelledby={`${g.key}-title`}
          className="scroll-mt-4 rounded border border-slate-200 p-4"
        >
          <h2 id={`${g.key}-title`} className="text-lg font-semibold">
            {g.title}
          </h2>
          <p className="mt-2 max-w-prose">{g.what}</p>
          <p className="mt-2 max-w-prose text-slate-700">
            <span className="font-medium text-slate-900">Why: </span>
            {g.why}
          </p>
          <DataTable
            className="mt-3"
            spec={gateTable(g)}
            rows={tasks}
            caption={`${g.title}: limit and calibration evidence per task`}
          />
          <h3 className="mt-3 text-sm font-semibold">Attacks it catches</h3>
          <ul className="mt-1 list-disc pl-5 text-sm text-slate-700">
            {g.attacks.map((a) => (
              <li key={a}>{a}</li>
            ))}
          </ul>
        </section>
      ))}
      <section id="attacks" aria-labelledby="attacks-title" className="scroll-mt-4">
        <h2 id="attacks-title" className="text-lg font-semibold">
          Attacks stopped by design
        </h2>
        <ul className="mt-2 space-y-1 text-sm">
          {DESIGN_DEFENSES.map((d) => (
            <li key={d.attack}>
              <span className="font-medium">{d.attack}:</span> <span className="text-slate-700">{d.defense}</span>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
