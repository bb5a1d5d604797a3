import { describe, expect, it } from "vitest";
import { pairPasses } from "./pairing";
import type { PassSummary } from "./speeds/summary";

const pass = (speed: number | null, failed: number, requests = 100): PassSummary =>
  ({ workload: "team", pass: 0, speed, failed, requests }) as PassSummary;

describe("pairPasses", () => {
  it("takes the median over passes of candidate over stock", () => {
    const r = pairPasses([pass(150, 0), pass(120, 0), pass(300, 0)], [pass(100, 0), pass(100, 0), pass(100, 0)]);
    expect(r.passes.map((p) => p.ratio)).toEqual([1.5, 1.2, 3]);
    expect(r.ratio).toBe(1.5);
  });

  it("zeroes a pass where the candidate failed more than the allowance (2 or 1%) beyond the stock", () => {
    // 100 requests: allowance max(2, 1) = 2; 3 more failures is too many, 2 more is not
    const r = pairPasses([pass(200, 3), pass(200, 2), pass(200, 5)], [pass(100, 0), pass(100, 0), pass(100, 2)]);
    expect(r.passes.map((p) => p.zeroedForFailures)).toEqual([true, false, true]);
    expect(r.passes.map((p) => p.ratio)).toEqual([0, 2, 0]);
    expect(r.ratio).toBe(0);
    // 1,000 requests: allowance 10
    const big = pairPasses([pass(200, 10, 1000)], [pass(100, 0, 1000)]);
    expect(big.passes[0]!.allowance).toBe(10);
    expect(big.ratio).toBe(2);
  });

  it("refuses unpaired passes", () => {
    expect(() => pairPasses([pass(1, 0)], [])).toThrow(/same passes/);
  });
});
