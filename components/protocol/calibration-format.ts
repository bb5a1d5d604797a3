import type { CalibrationReport, GateCalibration, Spread } from "@/lib/protocol/calibration-schema";

export const percent = (x: number | null | undefined, digits = 2) =>
  x === null || x === undefined ? "–" : `${(x * 100).toFixed(digits)}%`;

/** A figure to four significant digits, as gate statistics span 1e-7 to thousands of MiB. */
export const figure = (x: number | null) => (x === null ? "–" : Number(x.toPrecision(4)).toString());

export const spreadText = (s: Spread | null, show: (x: number) => string = (x) => figure(x)) =>
  s === null ? "none read" : `${show(s.mean)} (${show(s.min)}–${show(s.max)}, n ${s.n})`;

/** The date a report was run, as the page prints it (UTC day). */
export const reportDate = (r: CalibrationReport) => r.created_at.slice(0, 10);

export const GATE_NAMES: Record<GateCalibration["key"], string> = {
  fidelity: "Fidelity ceiling",
  likelihood: "Likelihood bound",
  argmax: "First-choice bound",
  greedy: "Greedy agreement floor",
  length: "Reply length",
  memory: "Memory slack",
};

/** One line saying what a report is: its profile, date, and whether it is the full protocol's evidence. */
export function reportHeadline(r: CalibrationReport): string {
  const scored = r.aa.runs.filter((x) => x.outcome === "scored").length;
  return `run under the ${r.profile} profile on ${reportDate(r)}: ${scored} of ${r.aa.requested} A/A evaluations scored, ${r.references.length} simulated reference(s)`;
}
