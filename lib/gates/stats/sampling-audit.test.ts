import { describe, expect, it } from "vitest";
import {
  type AuditSampling,
  andersonDarlingPValue,
  andersonDarlingUniform,
  foldStops,
  kolmogorovPValue,
  ksUniform,
  OUTSIDE_MASS,
  type PitInterval,
  pitInterval,
  processedDistribution,
  type RawCandidate,
  samplingAudit,
} from "./sampling-audit";
import { normal, seededRandom } from "./seeded-random";

const REQUESTED: AuditSampling = { temperature: 0.7, topK: 20, topP: 0.8 };

/** A position's top-20 raw log-probabilities: a random slope (peaked to flat) plus noise, ids shuffled. */
function rawPosition(rand: () => number): RawCandidate[] {
  const slope = 0.05 + 2 * rand();
  const logits = Array.from({ length: 20 }, (_, i) => -slope * i + 0.7 * normal(rand));
  const max = Math.max(...logits);
  const z = Math.log(logits.reduce((a, l) => a + Math.exp(l - max), 0)) + max + 0.3; // mass beyond the top 20
  return logits.map((l, i) => ({ id: 1000 + ((i * 7919) % 20) * 13, logprob: l - z }));
}

function draw(dist: { ids: number[]; probs: number[] }, rand: () => number): number {
  const u = rand();
  let cum = 0;
  for (let i = 0; i < dist.ids.length; i++) {
    cum += dist.probs[i]!;
    if (u < cum) return dist.ids[i]!;
  }
  return dist.ids[dist.ids.length - 1]!;
}

/** `tokens` positions sampled with `actual`, each token's PIT interval under the requested sampling. */
function sampledIntervals(tokens: number, actual: AuditSampling | "greedy", seed: number): PitInterval[] {
  const rand = seededRandom(seed);
  const out: PitInterval[] = [];
  for (let t = 0; t < tokens; t++) {
    const raw = rawPosition(rand);
    const requested = processedDistribution(raw, REQUESTED);
    const token = actual === "greedy" ? requested.ids[0]! : draw(processedDistribution(raw, actual), rand);
    out.push(pitInterval(requested, token));
  }
  return out;
}

describe("processedDistribution", () => {
  it("applies temperature, then top-k, then the smallest most-likely set reaching top_p, most likely first", () => {
    const raw = [
      { id: 5, logprob: Math.log(0.1) },
      { id: 2, logprob: Math.log(0.5) },
      { id: 9, logprob: Math.log(0.3) },
      { id: 1, logprob: Math.log(0.1) },
    ];
    expect(processedDistribution(raw, { temperature: 1, topK: 0, topP: 1 })).toEqual({
      ids: [2, 9, 1, 5],
      probs: [0.5, 0.3, 0.1, 0.1].map((p) => expect.closeTo(p, 12)),
    });
    // 0.5 < 0.75 ≤ 0.8: two tokens, renormalised
    const cut = processedDistribution(raw, { temperature: 1, topK: 0, topP: 0.75 });
    expect(cut.ids).toEqual([2, 9]);
    expect(cut.probs[0]).toBeCloseTo(0.625, 12);
    expect(processedDistribution(raw, { temperature: 1, topK: 1, topP: 1 })).toEqual({ ids: [2], probs: [1] });
    // temperature ½ squares the odds: 0.25 : 0.09 : 0.01 : 0.01
    const cool = processedDistribution(raw, { temperature: 0.5, topK: 0, topP: 1 });
    expect(cool.probs[0]).toBeCloseTo(0.25 / 0.36, 12);
  });

  it("gives each token of the support its own slice of [0, 1), and other tokens the reserved top", () => {
    const dist = { ids: [2, 9], probs: [0.625, 0.375] };
    expect(pitInterval(dist, 2)).toEqual({ below: 0, mass: 0.625 * (1 - OUTSIDE_MASS) });
    expect(pitInterval(dist, 9).below).toBeCloseTo(0.625 * (1 - OUTSIDE_MASS), 12);
    expect(pitInterval(dist, 77)).toEqual({ below: 1 - OUTSIDE_MASS, mass: OUTSIDE_MASS });
  });
});

describe("the Kolmogorov–Smirnov test", () => {
  it("matches known values of the Kolmogorov distribution", () => {
    // Q(1.36) ≈ 0.049, Q(1.63) ≈ 0.0098 (the 5% and 1% critical values), large n
    expect(kolmogorovPValue(1.36 / Math.sqrt(1e6), 1e6)).toBeCloseTo(0.0494, 3);
    expect(kolmogorovPValue(1.63 / Math.sqrt(1e6), 1e6)).toBeCloseTo(0.0098, 3);
    expect(kolmogorovPValue(0, 100)).toBe(1);
  });

  it("measures the distance of a sample from the uniform", () => {
    expect(ksUniform([0.5]).d).toBeCloseTo(0.5, 12);
    expect(ksUniform([0.1, 0.2, 0.3, 0.4]).d).toBeCloseTo(0.6, 12);
    const grid = Array.from({ length: 1000 }, (_, i) => (i + 0.5) / 1000);
    expect(ksUniform(grid).pValue).toBe(1);
    expect(() => ksUniform([1.5])).toThrow(/outside/);
  });
});

describe("the Anderson–Darling test", () => {
  it("has the limiting distribution's critical values and the statistic's definition", () => {
    // the limiting 10%, 5% and 1% points are 1.933, 2.492 and 3.857
    expect(andersonDarlingPValue(1.933)).toBeCloseTo(0.1, 3);
    expect(andersonDarlingPValue(2.492)).toBeCloseTo(0.05, 3);
    expect(andersonDarlingPValue(3.857)).toBeCloseTo(0.01, 3);
    expect(andersonDarlingPValue(0)).toBe(1);
    // A² = −n − (1/n)Σ(2i−1)[ln u_i + ln(1 − u_{n+1−i})]: one value at ½ gives −1 − 2 ln ½
    expect(andersonDarlingUniform([0.5]).a2).toBeCloseTo(-1 - 2 * Math.log(0.5), 12);
    const grid = Array.from({ length: 1000 }, (_, i) => (i + 0.5) / 1000);
    expect(andersonDarlingUniform(grid).pValue).toBeGreaterThan(0.99);
    expect(andersonDarlingUniform(grid.map((u) => u * u)).pValue).toBeLessThan(1e-6);
  });
});

describe("the sampling audit on constructed distributions", () => {
  it("is uniform under exact sampling: its false alarms stay near the level over many seeded runs", () => {
    let alarms = 0;
    const runs = 200;
    for (let s = 0; s < runs; s++) {
      const audit = samplingAudit([sampledIntervals(1500, REQUESTED, 10_000 + s)], 77 + s)!;
      if (!audit.consistent) alarms++;
      expect(audit.outside_share).toBe(0);
    }
    // 1% level: 2 expected, 7 or more has probability < 0.5%
    expect(alarms).toBeLessThan(7);
    const big = samplingAudit([sampledIntervals(40_000, REQUESTED, 1)], 2)!;
    expect(big.consistent).toBe(true);
    expect(big.mean_u).toBeCloseTo(0.5, 2);
  });

  it("detects cooler, hotter, other top-k, other top-p and greedy sampling, with their direction", () => {
    const at = (actual: AuditSampling | "greedy", tokens = 20_000) =>
      samplingAudit([sampledIntervals(tokens, actual, 3)], 4)!;
    const cooler = at({ ...REQUESTED, temperature: 0.63 });
    const hotter = at({ ...REQUESTED, temperature: 0.8 });
    const topK5 = at({ ...REQUESTED, topK: 5 });
    const topP95 = at({ ...REQUESTED, topP: 0.95 });
    const greedy = at("greedy", 2000);
    for (const a of [cooler, hotter, topK5, topP95, greedy]) expect(a.p_value).toBeLessThan(1e-4);
    expect(cooler.mean_u).toBeLessThan(0.5);
    expect(greedy.mean_u).toBeLessThan(0.4);
    expect(hotter.mean_u).toBeGreaterThan(0.5);
    // a wider nucleus draws tokens the requested cut leaves out
    expect(topP95.outside_share).toBeGreaterThan(0.01);
    expect(cooler.outside_share).toBe(0);
  });

  it("reads only informative tokens, and calls many tokens outside the support inconsistent", () => {
    const lone = { below: 0, mass: 1 - OUTSIDE_MASS };
    const outside = { below: 1 - OUTSIDE_MASS, mass: OUTSIDE_MASS };
    const base = sampledIntervals(5000, REQUESTED, 8);
    const padded = samplingAudit([[...base, ...Array(5000).fill(lone)]], 3)!;
    const plain = samplingAudit([base], 3)!;
    // where the cut leaves one token and the engine drew it, u says nothing: the same u's are tested
    expect(padded.tokens).toBe(10_000);
    expect(padded.informative).toBe(plain.informative);
    expect(padded.p_value).toBe(plain.p_value);
    // exact sampling draws no token outside the support; a share above the tolerance is flagged on its own
    expect(plain.outside_share).toBe(0);
    const few = samplingAudit([[...base, ...Array(2).fill(outside)]], 3)!;
    const many = samplingAudit([[...base, ...Array(50).fill(outside)]], 3)!;
    expect(few.consistent).toBe(true);
    expect(many.outside_share).toBeCloseTo(50 / 5050, 12);
    expect(many.consistent).toBe(false);
  });

  it("counts replies, skips those not audited, and is null with nothing to audit", () => {
    const r = samplingAudit([sampledIntervals(10, REQUESTED, 5), null, sampledIntervals(5, REQUESTED, 6)], 1)!;
    expect([r.replies, r.tokens]).toEqual([2, 15]);
    expect(samplingAudit([null, undefined, []], 1)).toBeNull();
    // the same seed gives the same u's
    expect(samplingAudit([sampledIntervals(100, REQUESTED, 5)], 9)).toEqual(
      samplingAudit([sampledIntervals(100, REQUESTED, 5)], 9),
    );
  });
});

/** One token drawn exactly from `dist` by inverting its CDF at a uniform draw. */
function drawFrom(dist: { ids: number[]; probs: number[] }, rand: () => number): number {
  let u = rand();
  for (let i = 0; i < dist.ids.length; i++) {
    u -= dist.probs[i]!;
    if (u < 0) return dist.ids[i]!;
  }
  return dist.ids[dist.ids.length - 1]!;
}

describe("the sampling audit over whole replies", () => {
  /**
   * Replies sampled exactly, token by token, from a target whose end token (id 0) is likely at every position, until
   * it is drawn or 60 tokens: the PITs of every drawn token, the end included, are uniform; leaving the end out reads
   * every other token conditioned on "not the end", which empties the end's slice of [0, 1).
   */
  function replies(seed: number, count: number) {
    const rand = seededRandom(seed);
    const withEnd: PitInterval[][] = [];
    const withoutEnd: PitInterval[][] = [];
    for (let r = 0; r < count; r++) {
      const all: PitInterval[] = [];
      let ended = false;
      for (let t = 0; t < 60 && !ended; t++) {
        const raw = [0, 1, 2, 3, 4, 5].map((id) => ({ id, logprob: id === 0 ? -1.5 : -1 - 0.2 * id - rand() }));
        const dist = processedDistribution(raw, REQUESTED);
        const token = drawFrom(dist, rand);
        all.push(pitInterval(dist, token));
        ended = token === 0;
      }
      withEnd.push(all);
      withoutEnd.push(ended ? all.slice(0, -1) : all);
    }
    return { withEnd, withoutEnd };
  }

  it("is uniform when the end token is read, and sees the missing end's slice when it is not", () => {
    let alarms = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const { withEnd, withoutEnd } = replies(seed, 1000);
      if (!samplingAudit(withEnd, seed)!.consistent) alarms++;
      expect(samplingAudit(withoutEnd, seed)!.p_value).toBeLessThan(1e-4);
    }
    // 20 runs at the 1% level: more than 2 alarms has probability below 0.1%
    expect(alarms).toBeLessThanOrEqual(2);
  });

  /**
   * Two stop tokens (ids 0 and 1, as Qwen3 stops on <|im_end|> and <|endoftext|>), either drawn; the stream says only
   * that the reply stopped, and the scoring request closes it with id 0. Read under the distribution with the stops
   * folded into id 0 the u's are uniform; read as though id 0 were always drawn, id 1's draws land in id 0's slice.
   */
  function twoStopReplies(seed: number, count: number) {
    const rand = seededRandom(seed);
    const folded: PitInterval[][] = [];
    const asDrawn0: PitInterval[][] = [];
    for (let r = 0; r < count; r++) {
      const a: PitInterval[] = [];
      const b: PitInterval[] = [];
      for (let t = 0; t < 60; t++) {
        const raw = [0, 1, 2, 3, 4, 5].map((id) => ({ id, logprob: id <= 1 ? -1.6 : -1 - 0.2 * id - rand() }));
        const dist = processedDistribution(raw, REQUESTED);
        const token = drawFrom(dist, rand);
        const stopped = token <= 1;
        const read = stopped ? 0 : token;
        a.push(pitInterval(stopped ? foldStops(dist, 0, [0, 1]) : dist, read));
        b.push(pitInterval(dist, read));
        if (stopped) break;
      }
      folded.push(a);
      asDrawn0.push(b);
    }
    return { folded, asDrawn0 };
  }

  it("reads a reply's end as any of the stop tokens: uniform folded, seen when the drawn one is taken for the close", () => {
    const dist = processedDistribution(
      [0, 1, 2, 3].map((id) => ({ id, logprob: -id })),
      { temperature: 1, topK: 0, topP: 1 },
    );
    const f = foldStops(dist, 1, [1, 3]);
    // the stops' mass in one entry, at the place of the likelier (id 1), named as the close; the rest in order
    expect(f.ids).toEqual([0, 1, 2]);
    expect(f.probs[1]).toBeCloseTo(dist.probs[1]! + dist.probs[3]!, 12);
    expect(f.probs.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
    expect(foldStops(dist, 1, [1])).toEqual(dist);
    let alarms = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const { folded, asDrawn0 } = twoStopReplies(seed, 1000);
      if (!samplingAudit(folded, seed)!.consistent) alarms++;
      expect(samplingAudit(asDrawn0, seed)!.p_value).toBeLessThan(1e-4);
    }
    expect(alarms).toBeLessThanOrEqual(2);
  });
});
