import type { ResultRecord } from "../gates";
import type { CalibrationRun } from "../protocol/calibration-schema";

/** How a calibration names its A/A runs, wherever it runs them (the CLI's pods, the admin page's evaluations). */
export const AA_LABEL = "stock engine (A/A)";

/** One evaluation pod the calibration ran, as it came back: its record, null when it ended without one. */
export interface CalibrationPod {
  key: string;
  label: string;
  mode: string;
  seed: string;
  outcome: CalibrationRun["outcome"];
  reason: string | null;
  record: ResultRecord | null;
  wallSeconds: number;
  /** The pod agent's warnings and errors, as it logged them (an unanswered check names its cause there). */
  warnings?: string[];
}

/** The report's line for one pod: its verdict, scores and ratios, and the gates it failed. */
export function runSummary(pod: CalibrationPod): CalibrationRun {
  const r = pod.record;
  return {
    key: pod.key,
    label: pod.label,
    mode: pod.mode,
    seed: pod.seed,
    outcome: pod.outcome,
    reason: pod.reason,
    specscore: r?.specscore ?? null,
    speedup: r ? r.speedup : null,
    ratios: r ? { solo: r.ratios.solo.ratio, team: r.ratios.team.ratio, busy: r.ratios.busy.ratio } : null,
    failed_gates: r ? r.gates.filter((g) => !g.pass).map((g) => g.key) : [],
    wall_seconds: Math.round(pod.wallSeconds * 10) / 10,
  };
}
