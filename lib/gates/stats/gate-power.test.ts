import { describe, expect, it } from "vitest";
import {
  drawIndices,
  estimatePower,
  type PairedValues,
  type PooledReply,
  type PowerLimits,
  poolFigures,
  sidesOf,
  smallestCaught,
} from "./gate-power";
import { pitInterval } from "./sampling-audit";
import { normal, seededRandom } from "./seeded-random";

// qwen3-8b's limits under protocol v1, and the audit's defaults
const LIMITS: PowerLimits = {
  z: 1.96,
  likelihoodBound: 0.02,
  argmaxBound: 0.003,
  fidelityCeiling: 1e-3,
  greedyFloor: 0.5,
  auditAlpha: 0.01,
  outsideTolerance: 1e-3,
};
const TOKENS = 50;

/** Replies of 50 tokens, each token not the first choice with probability `p`, its log-probability N(−1, 1). */
function replies(count: number, p: number, seed: number): PooledReply[] {
  const rand = seededRandom(seed);
  return Array.from({ length: count }, () => {
    let notFirstChoice = 0;
    let logprobSum = 0;
    for (let t = 0; t < TOKENS; t++) {
      if (rand() < p) notFirstChoice++;
      logprobSum += -1 + normal(rand);
    }
    return { tokens: TOKENS, logprobSum, notFirstChoice };
  });
}

/** The standard normal CDF (Abramowitz–Stegun 26.2.17, |error| < 7.5e-8). */
function phi(x: number): number {
  const t = 1 / (1 + 0.2316419 * Math.abs(x));
  const d = 0.3989423 * Math.exp((-x * x) / 2);
  const tail = d * t * (0.3193815 + t * (-0.3565638 + t * (1.781478 + t * (-1.821256 + t * 1.330274))));
  return x >= 0 ? 1 - tail : tail;
}

describe("drawing from a pool", () => {
  it("draws a subset without replacement when the pool holds the draw, with replacement when it does not", () => {
    const sub = drawIndices(50, 80, 7);
    expect(new Set(sub).size).toBe(50);
    expect(sub.every((i) => Number.isInteger(i) && i >= 0 && i < 80)).toBe(true);
    expect(drawIndices(50, 80, 7)).toEqual(sub);
    expect(drawIndices(50, 80, 8)).not.toEqual(sub);
    const boot = drawIndices(50, 10, 7);
    expect(boot).toHaveLength(50);
    expect(new Set(boot).size).toBeLessThanOrEqual(10);
    expect(() => drawIndices(1, 0, 7)).toThrow("empty pool");
  });
});

describe("the checks' power, on constructed pools with known answers", () => {
  const stock = replies(20_000, 0.14, 1);
  const sizes = { replies: 100, texts: 8, probes: 8 };

  it("matches the first-choice check's analytic power, and finds the weakest shift caught 95% of the time", () => {
    // pools 200 times the draw: the pool's own noise is negligible, so the rate is the check's power at n = 100
    const shifts = [0.01, 0.02, 0.03, 0.04];
    const points = shifts.map((d, i) => {
      const power = estimatePower({ candidate: replies(20_000, 0.14 + d, 100 + i), stock }, sizes, LIMITS, {
        resamples: 400,
        seed: 5,
      });
      const pc = 0.14 + d;
      const se = Math.sqrt((pc * (1 - pc) + 0.14 * 0.86) / (TOKENS * sizes.replies));
      // fails when gap − 1.96 se lies above the bound (the other tail is negligible here)
      const expected = phi((d - LIMITS.argmaxBound - LIMITS.z * se) / se);
      return { strength: d, rate: power.rates.argmax!.rate, expected, power };
    });
    for (const p of points) {
      // 400 draws: the rate's standard error is at most 0.025
      expect(Math.abs(p.rate - p.expected), `shift ${p.strength}: ${p.rate} against ${p.expected}`).toBeLessThan(0.075);
      expect(p.power.resampling).toEqual({ replies: "subsample", texts: null, probes: null });
      // the likelihood does not see a shift in ranks alone
      expect(p.power.rates.likelihood!.rate).toBeLessThan(0.05);
    }
    expect(smallestCaught(points)).toEqual({ strength: 0.03, atWeakest: false });
    expect(smallestCaught(points.map((p) => ({ strength: p.strength, rate: p.power.rates.likelihood!.rate })))).toBe(
      null,
    );
  });

  it("reads an honest pool's rejection rate as the false-alarm rate: the test's level where the bound is 0", () => {
    const candidate = replies(20_000, 0.14, 2);
    const zTest = estimatePower(
      { candidate, stock },
      sizes,
      { ...LIMITS, argmaxBound: 0 },
      { resamples: 1000, seed: 9 },
    );
    // a plain two-sided test at 1.96 standard errors: 5%, within 3 of the rate's standard errors (0.007)
    expect(Math.abs(zTest.rates.argmax!.rate - 0.05)).toBeLessThan(0.021);
    // the gate's bound of 0.003 against a gap se of 0.0069: P(|Z| > 1.96 + 0.43) = 1.7%
    const gate = estimatePower({ candidate, stock }, sizes, LIMITS, { resamples: 1000, seed: 9 });
    expect(Math.abs(gate.rates.argmax!.rate - 2 * phi(-(1.96 + 0.003 / 0.0069)))).toBeLessThan(0.013);
    // the likelihood's bound is one gap se (0.02): P(|Z| > 2.96) = 0.3%
    expect(gate.rates.likelihood!.rate).toBeLessThan(0.01);
  });

  it("gives a check that never fires no threshold", () => {
    const same: PooledReply = { tokens: 10, logprobSum: -10, notFirstChoice: 1 };
    const pool = Array.from({ length: 40 }, () => same);
    const power = estimatePower({ candidate: pool, stock: pool }, sizes, LIMITS, { resamples: 50, seed: 1 });
    expect(power.rates.likelihood).toEqual({ detected: 0, draws: 50, rate: 0 });
    expect(power.rates.argmax!.rate).toBe(0);
    expect(power.rates.gates!.rate).toBe(0);
    // no texts, no probes: those checks do not apply; no PIT intervals: nothing audited, nothing flagged
    expect(power.rates.fidelity).toBeUndefined();
    expect(power.rates.greedy).toBeUndefined();
    expect(power.rates.audit!.rate).toBe(0);
    expect(smallestCaught([0.25, 0.5, 1].map((strength) => ({ strength, rate: power.rates.likelihood!.rate })))).toBe(
      null,
    );
  });

  it("judges fixed texts by the fidelity ceiling and probes by the greedy floor, and any gated check fails the gates", () => {
    // fewer replies than a draw holds: the replies are bootstrapped; all alike, so the sampled checks never fire
    const pool = Array.from({ length: 60 }, (): PooledReply => ({ tokens: 20, logprobSum: -20, notFirstChoice: 3 }));
    const text = (shift: number): PairedValues => {
      const stockLp = Array.from({ length: 30 }, (_, i) => -1 - i / 30);
      return { candidate: stockLp.map((x) => x + shift), stock: stockLp };
    };
    const probe = (agree: number): PairedValues => {
      const ids = Array.from({ length: 10 }, (_, i) => i);
      return { candidate: ids.map((x, i) => (i < agree ? x : x + 100)), stock: ids };
    };
    const sweep = [5e-4, 9e-4, 1.5e-3, 3e-3].map((shift) => {
      const power = estimatePower(
        {
          candidate: pool,
          stock: pool,
          texts: Array.from({ length: 20 }, () => text(shift)),
          probes: Array.from({ length: 20 }, () => probe(shift > 2e-3 ? 3 : 10)),
        },
        sizes,
        LIMITS,
        { resamples: 30, seed: 4 },
      );
      return { strength: shift, power };
    });
    expect(sweep.map((s) => s.power.rates.fidelity!.rate)).toEqual([0, 0, 1, 1]);
    expect(sweep.map((s) => s.power.rates.greedy!.rate)).toEqual([0, 0, 0, 1]);
    // the gates fail on fidelity alone (the greedy probes fail only where the fidelity already does)
    expect(sweep.map((s) => s.power.rates.gates!.rate)).toEqual([0, 0, 1, 1]);
    expect(sweep[0]!.power.resampling).toEqual({ replies: "bootstrap", texts: "subsample", probes: "subsample" });
    const rates = (check: "fidelity" | "greedy") =>
      sweep.map((s) => ({ strength: s.strength, rate: s.power.rates[check]!.rate }));
    expect(smallestCaught(rates("fidelity"))).toEqual({ strength: 1.5e-3, atWeakest: false });
    expect(smallestCaught(rates("greedy"))).toEqual({ strength: 3e-3, atWeakest: false });
    // a task with no greedy floor has no greedy check
    const noFloor = estimatePower(
      { candidate: pool, stock: pool, probes: [probe(0)] },
      sizes,
      { ...LIMITS, greedyFloor: null },
      { resamples: 5, seed: 1 },
    );
    expect(noFloor.rates.greedy).toBeUndefined();
    const figures = poolFigures({ candidate: pool, stock: pool, texts: [text(2e-3)], probes: [probe(3)] }, LIMITS, 1);
    expect(figures.likelihood!.gap).toBe(0);
    expect(figures.fidelity).toBeCloseTo(2e-3, 12);
    expect(figures.greedy).toBeCloseTo(0.3, 12);
  });

  it("sees cooler sampling in the audit and leaves exact sampling flagged at its level", () => {
    const dist = { ids: [1, 2, 3, 4], probs: [0.4, 0.3, 0.2, 0.1] };
    /** Replies of 40 tokens drawn from `probs`, with their PIT intervals under the target's `dist`. */
    const audited = (count: number, probs: readonly number[], seed: number): PooledReply[] => {
      const rand = seededRandom(seed);
      return Array.from({ length: count }, () => {
        const pit = Array.from({ length: 40 }, () => {
          let u = rand();
          let k = 0;
          while (k < probs.length - 1 && u >= probs[k]!) u -= probs[k++]!;
          return pitInterval(dist, dist.ids[k]!);
        });
        return { tokens: 40, logprobSum: -40, notFirstChoice: 20, pit };
      });
    };
    const honest = audited(4000, dist.probs, 11);
    const falseAlarms = estimatePower({ candidate: audited(4000, dist.probs, 12), stock: honest }, sizes, LIMITS, {
      resamples: 500,
      seed: 2,
    });
    // level 0.01: over 500 draws, under 0.03 but for chance beyond 3 standard errors
    expect(falseAlarms.rates.audit!.rate).toBeLessThan(0.03);
    const cooler = estimatePower(
      { candidate: audited(4000, [0.5, 0.3, 0.15, 0.05], 13), stock: honest },
      sizes,
      LIMITS,
      {
        resamples: 100,
        seed: 2,
      },
    );
    expect(cooler.rates.audit!.rate).toBeGreaterThan(0.95);
    // the audit is shown, not gated: the sampled checks saw nothing (the same figures on both sides)
    expect(cooler.rates.gates!.rate).toBe(0);
  });

  it("repeats from its seed", () => {
    const candidate = replies(300, 0.16, 6);
    const run = (seed: number) =>
      estimatePower({ candidate, stock: stock.slice(0, 300) }, sizes, LIMITS, { resamples: 50, seed }).rates.argmax;
    expect(run(3)).toEqual(run(3));
    expect(() => estimatePower({ candidate: [], stock }, sizes, LIMITS, { resamples: 1, seed: 1 })).toThrow("empty");
  });
});

describe("reading a sweep", () => {
  it("finds the weakest strength from which every stronger one is caught", () => {
    const sweep = (rates: (number | null)[]) => rates.map((rate, i) => ({ strength: i + 1, rate }));
    expect(smallestCaught(sweep([0.1, 0.5, 0.96, 0.99]))).toEqual({ strength: 3, atWeakest: false });
    expect(smallestCaught(sweep([0.97, 0.5, 0.99]))).toEqual({ strength: 3, atWeakest: false });
    expect(smallestCaught(sweep([0.95, 0.99]))).toEqual({ strength: 1, atWeakest: true });
    expect(smallestCaught(sweep([0.99, 0.9]))).toBe(null);
    expect(smallestCaught(sweep([0.99, null]))).toBe(null);
    expect(smallestCaught([])).toBe(null);
  });

  it("splits a family's strengths at its honest value, each side weakest first", () => {
    const points = [0.8, 1.1, 0.95, 1, 1.05, 0.9].map((strength) => ({ strength }));
    const { below, above } = sidesOf(points, 1);
    expect(below.map((p) => p.strength)).toEqual([0.95, 0.9, 0.8]);
    expect(above.map((p) => p.strength)).toEqual([1.05, 1.1]);
    expect(
      sidesOf(
        [5, 15, 10].map((strength) => ({ strength })),
        20,
      ).below.map((p) => p.strength),
    ).toEqual([15, 10, 5]);
  });
});
