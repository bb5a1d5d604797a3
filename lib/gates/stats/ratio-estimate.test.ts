import { describe, expect, it } from "vitest";
import { gapOf, gapPasses, interval, whollyOutside } from "./equivalence";
import { ratioEstimate } from "./ratio-estimate";
import { normal, seededRandom } from "./seeded-random";

describe("ratioEstimate", () => {
  it("computes the token-weighted mean and the cluster standard error by hand", () => {
    // mean −8/8 = −1; residuals 0, −2, 2 → Σ² = 8; se = √(3/2 · 8) / 8
    const r = ratioEstimate([
      { sum: -2, tokens: 2 },
      { sum: -6, tokens: 4 },
      { sum: 0, tokens: 2 },
    ]);
    expect(r.mean).toBe(-1);
    expect(r.se).toBeCloseTo(Math.sqrt(12) / 8, 15);
    expect(r.clusters).toBe(3);
    expect(r.tokens).toBe(8);
  });

  it("weights by tokens, not by reply", () => {
    const r = ratioEstimate([
      { sum: -1, tokens: 1 },
      { sum: -0, tokens: 9 },
    ]);
    expect(r.mean).toBeCloseTo(-0.1, 15);
  });

  it("ignores empty replies and refuses to estimate from none", () => {
    expect(
      ratioEstimate([
        { sum: 0, tokens: 0 },
        { sum: -3, tokens: 3 },
      ]).mean,
    ).toBe(-1);
    expect(() => ratioEstimate([{ sum: 0, tokens: 0 }])).toThrow(/at least one cluster/);
  });

  it("covers the true mean about 95% of the time when tokens within a reply are correlated", () => {
    const rand = seededRandom(7);
    const trueMean = -0.65;
    let covered = 0;
    const runs = 400;
    for (let run = 0; run < runs; run++) {
      const clusters = Array.from({ length: 120 }, () => {
        const tokens = 5 + Math.floor(rand() * 200);
        const replyShift = 0.3 * normal(rand);
        let sum = 0;
        for (let t = 0; t < tokens; t++) sum += trueMean + replyShift + 0.8 * normal(rand);
        return { sum, tokens };
      });
      const r = ratioEstimate(clusters);
      if (Math.abs(r.mean - trueMean) <= 1.96 * r.se) covered++;
    }
    expect(covered / runs).toBeGreaterThan(0.9);
    expect(covered / runs).toBeLessThan(0.99);
  });
});

describe("the equivalence rule", () => {
  it("combines two engines' standard errors", () => {
    const g = gapOf({ mean: -0.7, se: 0.03 }, { mean: -0.6, se: 0.04 });
    expect(g.gap).toBeCloseTo(-0.1, 15);
    expect(g.se).toBeCloseTo(0.05, 15);
    expect(g.candidate).toBe(-0.7);
    expect(g.stock).toBe(-0.6);
  });

  it("fails only when the whole interval lies outside ±bound", () => {
    expect(interval(0.5, 0.1, 2)).toEqual({ low: 0.3, high: 0.7 });
    expect(whollyOutside(0.03, 0.1, 0, 0.02)).toBe(true);
    expect(whollyOutside(-0.1, -0.03, 0, 0.02)).toBe(true);
    expect(whollyOutside(0.01, 0.1, 0, 0.02)).toBe(false);
    expect(whollyOutside(-0.5, 0.5, 0, 0.02)).toBe(false);
    expect(whollyOutside(1.06, 1.2, 1, 0.05)).toBe(true);
    expect(() => whollyOutside(1, 0, 0, 1)).toThrow(/reversed/);
  });

  it("reproduces the seed evaluation's verdicts", () => {
    // likelihood −0.0552 ± 1.96·0.0428 against 0.02; first choice +0.0081 ± 1.96·0.0076 against 0.003
    expect(gapPasses(-0.05521124197750893, 0.04283085382973492, 0.02, 1.96)).toBe(true);
    expect(gapPasses(0.008056198480393656, 0.007626637283476702, 0.003, 1.96)).toBe(true);
    // forcing greedy: +0.019 with a lower bound of 0.0037 fails the 0.003 bound (protocol section 10)
    expect(gapPasses(0.019, (0.019 - 0.0037) / 1.96, 0.003, 1.96)).toBe(false);
    // n-gram on qwen35-27b: −0.096 ± 0.029 nats fails 0.02; +0.019 ± 0.006 fails 0.003
    expect(gapPasses(-0.096, 0.029 / 1.96, 0.02, 1.96)).toBe(false);
    expect(gapPasses(0.019, 0.006 / 1.96, 0.003, 1.96)).toBe(false);
  });
});
