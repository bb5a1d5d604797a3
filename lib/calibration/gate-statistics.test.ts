import { describe, expect, it } from "vitest";
import { currentProtocol } from "../protocol";
import { taskLimits } from "./build-report";
import { figures, pod } from "./calibration-fixtures";
import { gapDistance, gateStatistics, lengthDistance, memoryOverShare } from "./gate-statistics";

const limits = taskLimits(currentProtocol(), "qwen3-8b");
const z = currentProtocol().gates.z;

describe("gate statistics against their limits", () => {
  it("reduces a gap to its 95% interval's end nearest 0, and a length ratio to its interval's distance from 1", () => {
    expect(gapDistance({ gap: 0.01, se: 0.01 }, 1.96)).toBe(0);
    expect(gapDistance({ gap: -0.05, se: 0.01 }, 1.96)).toBeCloseTo(0.0304, 12);
    expect(gapDistance(null, 1.96)).toBeNull();
    expect(lengthDistance({ low: 0.98, high: 1.03 })).toBe(0);
    expect(lengthDistance({ low: 1.07, high: 1.12 })).toBeCloseTo(0.07, 12);
    expect(lengthDistance({ low: 0.8, high: 0.9 })).toBeCloseTo(0.1, 12);
    expect(lengthDistance({ low: null, high: null })).toBeNull();
  });

  it("reads the memory peak above GPU_MEMORY_UTILIZATION's share, which the slack bounds", () => {
    expect(memoryOverShare({ ok: true, peak_mib: 130_000, allowed_mib: 130_096 }, 4096)).toBe(4000);
  });

  it("gathers A/A values and each reference's value and verdict, with the worst margin to the limit", () => {
    const aa = [
      pod("stock", figures({ fidelity: 0 })),
      pod("stock", figures({ fidelity: 2e-4, greedyAgreement: 0.8 })),
    ];
    const refs = [
      pod("ngram-4", figures({ fidelity: 5e-4, greedyAgreement: 0.7 })),
      pod("quantized", figures({ fidelity: 0.09, greedyAgreement: 0.2 })),
    ];
    const gates = gateStatistics(aa, refs, limits, z);
    expect(gates.map((g) => g.key)).toEqual(["fidelity", "likelihood", "argmax", "greedy", "length", "memory"]);

    const fidelity = gates.find((g) => g.key === "fidelity")!;
    expect(fidelity.limit).toBe(1e-3);
    expect(fidelity.aa).toEqual({
      values: [0, 2e-4],
      spread: { n: 2, mean: 1e-4, min: 0, max: 2e-4 },
      passed: 2,
      runs: 2,
    });
    expect(fidelity.references).toEqual([
      { key: "ngram-4", value: 5e-4, pass: true },
      { key: "quantized", value: 0.09, pass: false },
    ]);
    expect(fidelity.margin).toBeCloseTo(1e-3 - 0.09, 12);

    const greedy = gates.find((g) => g.key === "greedy")!;
    expect(greedy.direction).toBe("min");
    expect(greedy.limit).toBe(0.5);
    expect(greedy.margin).toBeCloseTo(0.2 - 0.5, 12);

    // equal engines: every interval holds equality, every run passes
    for (const key of ["likelihood", "argmax", "length"] as const) {
      const g = gates.find((x) => x.key === key)!;
      expect(g.aa.values).toEqual([0, 0]);
      expect(g.aa.passed).toBe(2);
      expect(g.margin).toBe(g.limit);
    }
    expect(gates.find((g) => g.key === "memory")!.aa.values).toEqual([
      100_000 - 0.9 * 140_000,
      100_000 - 0.9 * 140_000,
    ]);
  });

  it("has no margin where the task sets no limit, and no values from a run without a record", () => {
    const lost = { ...pod("stock", figures()), outcome: "error" as const, record: null };
    const gates = gateStatistics([lost], [], { ...limits, greedy_agreement_floor: null }, z);
    const greedy = gates.find((g) => g.key === "greedy")!;
    expect(greedy.limit).toBeNull();
    expect(greedy.margin).toBeNull();
    expect(greedy.aa).toEqual({ values: [], spread: null, passed: 0, runs: 0 });
  });
});
