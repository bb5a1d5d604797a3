import type { GatePowerCalibration } from "@/lib/protocol/calibration-schema";
import { POWER_CHECKS, type PowerCheck } from "../stats/gate-power";
import { familySpec } from "./gate-power-families";
import type { GatePowerFile, PowerMeasurement } from "./gate-power-file";

export const CHECK_LABELS: Record<PowerCheck, string> = {
  likelihood: "likelihood",
  argmax: "first-choice",
  audit: "audit",
  fidelity: "fidelity",
  greedy: "greedy",
  gates: "any gate",
};

const rate = (x: number | undefined) => (x === undefined ? "–" : x.toFixed(3));
const gap = (g: { gap: number; se: number } | null) => (g ? `${g.gap.toFixed(4)} ± ${(1.96 * g.se).toFixed(4)}` : "–");
const num = (x: number | null, digits = 4) => (x === null ? "–" : Number(x.toPrecision(digits)).toString());

export function headerLine(f: Pick<GatePowerFile, "task" | "profile" | "sizes" | "resamples" | "target">): string {
  return `gate power on ${f.task} at the ${f.profile} profile's sizes (${f.sizes.replies} sampled replies per engine, ${f.sizes.texts} fixed texts, ${f.sizes.probes} greedy probes), ${f.resamples} draws each; a check catches an attack when it fails at least ${Math.round(f.target * 100)}% of draws`;
}

export const POINT_HEADER = `${"engine".padEnd(26)} ${"pool".padStart(6)} ${POWER_CHECKS.map((c) => CHECK_LABELS[c].padStart(12)).join(" ")} | ${"likelihood gap ± 1.96se".padStart(24)} ${"first-choice gap".padStart(20)} ${"audit p".padStart(9)} ${"fidelity".padStart(9)} ${"greedy".padStart(7)} | wall s  cpu s`;

/** One measured engine's rates and its pools' figures, as a line under POINT_HEADER. */
export function pointLine(name: string, m: PowerMeasurement): string {
  const f = m.figures;
  return `${name.padEnd(26)} ${String(m.pool.replies).padStart(6)} ${POWER_CHECKS.map((c) => rate(m.rates[c]).padStart(12)).join(" ")} | ${gap(f.likelihood).padStart(24)} ${gap(f.argmax).padStart(20)} ${num(f.audit_p, 3).padStart(9)} ${num(f.fidelity).padStart(9)} ${num(f.greedy, 3).padStart(7)} | ${m.wall_seconds.toFixed(0).padStart(6)} ${m.cpu_seconds.toFixed(0).padStart(6)}`;
}

/** A family side as a column names it: "temperature × s < 1". */
export const sideLabel = (family: GatePowerCalibration["thresholds"][number]["family"], side: "below" | "above") =>
  `${familySpec(family).label} ${side === "below" ? "<" : ">"} ${familySpec(family).honest}`;

/** The threshold as a cell: the strength, "≤" where the sweep's weakest is caught already, or none of the sweep. */
export function thresholdText(t: GatePowerCalibration["thresholds"][number]): string {
  if (t.smallest === null) return `none of ${t.strengths.join(", ")}`;
  return t.at_weakest ? `≤ ${t.smallest}` : String(t.smallest);
}

/** The evidence's thresholds: a row per check, a column per family side. */
export function formatThresholds(e: GatePowerCalibration): string {
  const columns = e.thresholds.filter(
    (t, i) => e.thresholds.findIndex((x) => x.family === t.family && x.side === t.side) === i,
  );
  const lines = [
    `weakest strength caught in at least ${Math.round(e.target * 100)}% of draws (from it on, every stronger one too):`,
    `${"check".padEnd(14)} ${columns.map((c) => sideLabel(c.family, c.side).padStart(26)).join(" ")}`,
  ];
  for (const check of POWER_CHECKS) {
    const cells = columns.map((c) => {
      const t = e.thresholds.find((x) => x.family === c.family && x.side === c.side && x.check === check);
      return (t ? thresholdText(t) : "not measured").padStart(26);
    });
    lines.push(`${CHECK_LABELS[check].padEnd(14)} ${cells.join(" ")}`);
  }
  if (e.honest)
    lines.push(
      `false alarms on the honest engine (the stock engine as candidate): ${POWER_CHECKS.filter(
        (c) => e.honest!.rates[c] !== undefined,
      )
        .map((c) => `${CHECK_LABELS[c]} ${rate(e.honest!.rates[c])}`)
        .join(", ")}`,
    );
  else lines.push("false alarms: the honest engine was not measured (--families honest)");
  const fa = e.false_alarms;
  if (fa) {
    const pBelow = fa.audit_p.filter((p) => p !== null && p < fa.audit_alpha).length;
    lines.push(
      `false alarms over ${fa.seeds.length} independent honest pools (mean of the pools' rates ± 1.96 se): ${POWER_CHECKS.filter(
        (c) => fa.rates[c] !== undefined,
      )
        .map((c) => `${CHECK_LABELS[c]} ${rate(fa.rates[c]!.mean)} ± ${(1.96 * fa.rates[c]!.se).toFixed(3)}`)
        .join(", ")}; the audit on each whole pool below its level in ${pBelow} of ${fa.seeds.length}`,
    );
  }
  return lines.join("\n");
}
