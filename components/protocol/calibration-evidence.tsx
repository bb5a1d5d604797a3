import { DataTable, type TableSpec } from "@/components/ui/data-table";
import type { TaskSpec } from "@/lib/protocol";
import type { CalibrationReport, ThinkSearchCalibration } from "@/lib/protocol/calibration-schema";
import type { Calibrations } from "@/lib/protocol/calibrations";
import { figure, GATE_NAMES, percent, reportHeadline, spreadText } from "./calibration-format";
import { GatePowerEvidence } from "./gate-power-evidence";

interface EvidenceRow {
  name: string;
  inForce: string;
  aa: string;
  references: string;
  margin: string;
}

const EVIDENCE_TABLE: TableSpec<EvidenceRow> = {
  minWidth: "min-w-[48rem]",
  pad: "py-1.5",
  rowClassName: "border-b border-slate-100 align-top",
  rowKey: (r) => r.name,
  rowAttributes: (r) => ({ "data-value": r.name }),
  columns: [
    { header: "Value", rowHeader: "font-medium", cell: (r) => r.name },
    { header: "In force", cell: (r) => r.inForce },
    { header: "A/A (stock as candidate)", className: "tabular-nums", cell: (r) => r.aa },
    { header: "References", className: "tabular-nums", cell: (r) => r.references },
    { header: "Worst margin", className: "tabular-nums", cell: (r) => r.margin },
  ],
};

function evidenceRows(task: TaskSpec, r: CalibrationReport): EvidenceRow[] {
  const noise = task.speedNoise;
  const rows: EvidenceRow[] = [
    {
      name: "A/A speed noise",
      inForce: `${percent(noise.meanAbsError)} mean, ${percent(noise.maxAbsError, 1)} at most`,
      aa: r.aa.specscore_error
        ? `|SpecScore − 1| ${percent(r.aa.specscore_error.mean)} mean, ${percent(r.aa.specscore_error.max)} at most (n ${r.aa.specscore_error.n}); speed alone ${percent(r.aa.speedup_error?.mean)} mean, ${percent(r.aa.speedup_error?.max)} at most`
        : "no A/A evaluation scored",
      references: r.references
        .map((x) => `${x.key} ${x.specscore === null ? x.outcome : x.specscore.toFixed(3)}`)
        .join("; "),
      margin: "–",
    },
    {
      name: "A/A workload ratios",
      inForce: "1 up to the noise",
      aa: (["solo", "team", "busy"] as const)
        .map((w) => `${w} ${spreadText(r.aa.ratio_spread[w].ratio, (x) => x.toFixed(3))}`)
        .join("; "),
      references: "–",
      margin: "–",
    },
  ];
  for (const g of r.gates) {
    rows.push({
      name: GATE_NAMES[g.key],
      inForce: g.limit === null ? "none" : `${g.direction === "max" ? "≤" : "≥"} ${figure(g.limit)}: ${g.statistic}`,
      aa: `${spreadText(g.aa.spread)}; passed ${g.aa.passed} of ${g.aa.runs}`,
      references:
        g.references
          .map((x) => `${x.key} ${figure(x.value)}${x.pass === false ? " (fails)" : x.pass ? " (passes)" : ""}`)
          .join("; ") || "–",
      margin: figure(g.margin),
    });
  }
  const c = r.cache;
  const byWorkload = (pick: "token_weighted" | "per_request") =>
    (["solo", "team", "busy"] as const)
      .map((w) => `${w} ${spreadText(c.stock[w][pick], (x) => percent(x, 1))}`)
      .join("; ");
  rows.push(
    {
      name: "Cache hit, token-weighted",
      inForce: `target ${percent(c.targets.token_weighted, 1)} (the data card)`,
      aa: `${percent(c.overall.token_weighted, 1)} overall; ${byWorkload("token_weighted")}`,
      references: "–",
      margin: "–",
    },
    {
      name: "Cache hit, per request",
      inForce: `target ${percent(c.targets.per_request, 1)} (the data card)`,
      aa: `${percent(c.overall.per_request, 1)} overall; ${byWorkload("per_request")}`,
      references: "–",
      margin: "–",
    },
    {
      name: "Returning session's cached share",
      inForce: "no target in the data card",
      aa: c.returning_session_share.recorded
        ? percent(c.returning_session_share.value, 1)
        : r.think_search
          ? `in the search: ${returningText(r.think_search)}`
          : c.returning_session_share.note,
      references: "–",
      margin: "–",
    },
    ...auditRows(r),
    {
      name: "Think time",
      inForce: `capped at ${r.think_time.cap_seconds} s, scaled by c = ${r.think_time.scale}; m ${r.think_time.interleave.solo} / ${r.think_time.interleave.team} / ${r.think_time.interleave.busy}`,
      aa: r.think_search ? searchText(r.think_search) : "the values this run was made under; not searched",
      references: "–",
      margin: "–",
    },
  );
  return rows;
}

const listed = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b).join(", ");

/** The search in one cell: its grid, the range of the hit it found, and the point nearest the targets. */
function searchText(s: ThinkSearchCalibration): string {
  const tw = s.points.flatMap((p) => (p.token_weighted === null ? [] : [p.token_weighted]));
  const pr = s.points.flatMap((p) => (p.per_request === null ? [] : [p.per_request]));
  const range = (xs: number[]) => `${percent(Math.min(...xs), 1)}–${percent(Math.max(...xs), 1)}`;
  const workloads = [...new Set(s.points.map((p) => p.workload))].join(" and ");
  return [
    `searched (${s.profile} profile, ${workloads}${s.cores ? `, ${s.cores} cores` : ""}): c ∈ {${listed(s.points.map((p) => p.scale))}} × m ∈ {${listed(s.points.map((p) => p.interleave))}}`,
    tw.length ? `hit ${range(tw)} token-weighted, ${range(pr)} per request` : "no hit measured",
    s.nearest
      ? `nearest the targets: c ${s.nearest.scale}, m ${s.nearest.interleave}, ${(s.nearest.miss * 100).toFixed(1)} points off`
      : "no point measured both",
    busyText(s),
  ]
    .filter(Boolean)
    .join("; ");
}

/** How much of a pass team's and busy's speed was read over: the time every lane had a request in flight. */
function busyText(s: ThinkSearchCalibration): string | null {
  const read = s.points.filter((p) => p.workload !== "solo" && p.all_busy_seconds != null && p.pass_seconds);
  if (read.length === 0) return null;
  const shares = read.map((p) => p.all_busy_seconds! / p.pass_seconds!);
  return `every lane busy ${percent(Math.min(...shares), 1)}–${percent(Math.max(...shares), 1)} of a pass (the time team's and busy's speed is read over)`;
}

function returningText(s: ThinkSearchCalibration): string {
  const seen = s.points.filter((p) => p.returning > 0 && p.returning_history_cached !== null);
  if (seen.length === 0) return "no session came back within a pass";
  const shares = seen.map((p) => p.returning_history_cached!);
  const scales = [...new Set(s.points.map((p) => p.scale))];
  const none = listed(scales.filter((c) => s.points.every((p) => p.scale !== c || p.returning === 0)));
  return `${percent(Math.min(...shares), 1)}–${percent(Math.max(...shares), 1)} of a returning session's history still cached (${seen.reduce((a, p) => a + p.returning, 0)} returns)${none ? `; none came back within a pass at c = ${none}` : ""}`;
}

function auditRows(r: CalibrationReport): EvidenceRow[] {
  const a = r.sampling_audit;
  if (!a) return [];
  const verdict = (x: { p_value: number; consistent: boolean } | null) =>
    x ? `p ${figure(x.p_value)}${x.consistent ? "" : " (flagged)"}` : "not audited";
  const replies = a.likelihood_replies;
  return [
    {
      name: "Sampling audit (shown, not gated)",
      inForce: `flags an engine at p < ${a.alpha ?? "–"}: each sampled token's randomized PIT under the stock engine's distribution`,
      aa: `${a.aa.false_alarms} false alarm(s) in ${a.aa.audits} audits of the stock engine${a.aa.p_values.length ? `; p ${a.aa.p_values.map((p) => figure(p)).join(", ")}` : ""}`,
      references: a.references.map((x) => `${x.key} ${verdict(x.candidate)}`).join("; ") || "–",
      margin: "–",
    },
    {
      name: "Sampled replies scored",
      inForce: `${replies.asked} per engine (the profile's)`,
      aa:
        replies.min === null ? "none recorded" : `${replies.min}–${replies.max} per engine and run, A/A and references`,
      references: "–",
      margin: "–",
    },
  ];
}

function TaskEvidence({ task, report }: { task: TaskSpec; report: CalibrationReport | null }) {
  if (!report) {
    return (
      <div data-calibration={task.id} className="mt-4">
        <h3 className="font-medium">{task.name}</h3>
        <p className="text-sm text-slate-700">
          No calibration report yet: its calibrated values stand on the evidence the protocol states with them.
        </p>
      </div>
    );
  }
  return (
    <div data-calibration={task.id} data-profile={report.profile} className="mt-4">
      <h3 className="font-medium">
        {task.name}: {reportHeadline(report)}
      </h3>
      {report.full_protocol ? (
        <p className="text-sm text-slate-700">{report.label}.</p>
      ) : (
        <p className="mt-1 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-sm text-amber-900">
          Test profile ({report.profile}): {report.label}. The values in force are not set from it.
        </p>
      )}
      <DataTable
        className="mt-2"
        spec={EVIDENCE_TABLE}
        rows={evidenceRows(task, report)}
        caption={`Calibration evidence for ${task.name}: each value in force beside what the calibration measured`}
      />
      {report.gate_power ? <GatePowerEvidence power={report.gate_power} /> : null}
      <p className="mt-2 text-sm text-slate-700">
        Simulated engines (SIM_SPEED {report.sim_speed}, {report.concurrency} pod(s) at once
        {report.device ? `, ${report.device}` : ""}), {Math.round(report.wall_seconds / 60)} min. Not measured:{" "}
        {report.not_measured.join("; ")}.
      </p>
    </div>
  );
}

/** Each task's calibration report beside the values in force (protocol section 10), or that it has none yet. */
export function CalibrationEvidence({
  tasks,
  calibrations,
}: {
  tasks: readonly TaskSpec[];
  calibrations: Calibrations;
}) {
  return (
    <>
      {tasks.map((t) => (
        <TaskEvidence key={t.id} task={t} report={calibrations[t.id]} />
      ))}
    </>
  );
}
