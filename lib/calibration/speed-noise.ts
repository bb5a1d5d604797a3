import { WORKLOAD_IDS } from "../protocol";
import type { CalibrationReport } from "../protocol/calibration-schema";
import type { CalibrationPod } from "./pod-outcome";
import { errorFromOne, spread } from "./spread";

type AaNoise = Omit<CalibrationReport["aa"], "requested" | "runs">;

/**
 * The A/A speed noise (protocol section 10): |SpecScore − 1| and |speedup − 1| over the A/A runs that have a record
 * and a score (void ones carry none), and each workload's ratio over the runs and over all their passes.
 */
export function aaSpeedNoise(pods: readonly CalibrationPod[]): AaNoise {
  const records = pods.flatMap((p) => (p.record ? [p.record] : []));
  const scored = records.filter((r) => r.specscore !== null);
  const ratio_spread = {} as AaNoise["ratio_spread"];
  for (const w of WORKLOAD_IDS) {
    ratio_spread[w] = {
      ratio: spread(records.map((r) => r.ratios[w].ratio)),
      passes: spread(records.flatMap((r) => r.ratios[w].passes)),
    };
  }
  return {
    specscore_error: errorFromOne(scored.map((r) => r.specscore!)),
    speedup_error: errorFromOne(scored.map((r) => r.speedup)),
    ratio_spread,
  };
}
