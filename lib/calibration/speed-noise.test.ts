import { describe, expect, it } from "vitest";
import { figures, pod } from "./calibration-fixtures";
import { aaSpeedNoise } from "./speed-noise";
import { errorFromOne, spread } from "./spread";

describe("the A/A speed noise", () => {
  it("is the mean and max of |SpecScore − 1| and each workload's ratio spread over runs and passes", () => {
    const runs = [
      pod("stock", figures({ passes: { solo: [1.02, 1.02, 1.02], team: [1, 1, 1], busy: [1, 1, 1] } })),
      pod("stock", figures({ passes: { solo: [0.97, 0.97, 0.97], team: [1, 1, 1], busy: [1, 1, 1] } })),
      pod("stock", figures({ passes: { solo: [1, 1, 1], team: [0.9, 1, 1.1], busy: [1, 1, 1] } })),
    ];
    const noise = aaSpeedNoise(runs);
    const e1 = Math.abs(1.02 ** (1 / 3) - 1);
    const e2 = Math.abs(0.97 ** (1 / 3) - 1);
    expect(noise.specscore_error!.n).toBe(3);
    expect(noise.specscore_error!.mean).toBeCloseTo((e1 + e2 + 0) / 3, 12);
    expect(noise.specscore_error!.max).toBeCloseTo(e2, 12);
    expect(noise.ratio_spread.solo.ratio).toEqual({ n: 3, mean: (1.02 + 0.97 + 1) / 3, min: 0.97, max: 1.02 });
    // the team ratio is each run's median, 1; its passes spread from 0.9 to 1.1
    expect(noise.ratio_spread.team.ratio).toMatchObject({ min: 1, max: 1 });
    expect(noise.ratio_spread.team.passes).toMatchObject({ n: 9, min: 0.9, max: 1.1 });
  });

  it("counts a gate's false alarm as an error of 1 in SpecScore, not in the speed alone", () => {
    const noise = aaSpeedNoise([pod("stock", figures({ fidelity: 0.5 })), pod("stock", figures())]);
    expect(noise.specscore_error).toEqual({ mean: 0.5, max: 1, n: 2 });
    expect(noise.speedup_error).toEqual({ mean: 0, max: 0, n: 2 });
  });

  it("skips runs without a record or a score, and is null when none is left", () => {
    const lost = { ...pod("stock", figures()), outcome: "error" as const, record: null };
    const noise = aaSpeedNoise([lost]);
    expect(noise.specscore_error).toBeNull();
    expect(noise.ratio_spread.busy).toEqual({ ratio: null, passes: null });
  });

  it("spread and errorFromOne on plain samples", () => {
    expect(spread([])).toBeNull();
    expect(spread([2, 4])).toEqual({ n: 2, mean: 3, min: 2, max: 4 });
    const e = errorFromOne([0.98, 1.01])!;
    expect(e.n).toBe(2);
    expect(e.mean).toBeCloseTo(0.015, 12);
    expect(e.max).toBeCloseTo(0.02, 12);
  });
});
