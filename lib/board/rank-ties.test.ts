import { describe, expect, it } from "vitest";
import { getTask } from "@/lib/protocol";
import type { BoardEntry } from "./board-entry";
import { assembleBoard } from "./list-board";
import { rankLabel, rankWithTies, ratioInterval, type ScoredFigures, specScoreInterval, t975 } from "./rank-ties";
import { resultView } from "./result-view";
import { testEntry } from "./test-entries";

const figures = (score: number | null, passes: Record<"solo" | "team" | "busy", number[]>): ScoredFigures => ({
  score,
  workloads: {
    solo: { ratio: null, passes: passes.solo },
    team: { ratio: null, passes: passes.team },
    busy: { ratio: null, passes: passes.busy },
  },
});

describe("the intervals", () => {
  it("makes a workload's interval from its paired passes with Student's t, and the A/A noise in quadrature", () => {
    const passes = [1.9, 2.0, 2.1];
    const logs = passes.map(Math.log);
    const mean = logs.reduce((a, b) => a + b) / 3;
    const se = Math.sqrt(logs.reduce((a, l) => a + (l - mean) ** 2, 0) / 2 / 3);
    const half = Math.hypot(4.303 * se, Math.log(1.02));
    const i = ratioInterval(2.0, passes, 0.02);
    expect(i.low).toBeCloseTo(2 * Math.exp(-half), 12);
    expect(i.high).toBeCloseTo(2 * Math.exp(half), 12);
    // identical passes: only the A/A noise is left
    expect(ratioInterval(1.5, [1.5, 1.5, 1.5], 0.02).high).toBeCloseTo(1.5 * 1.02, 12);
    // a failed pass (ratio 0) leaves the spread unknown: the interval reaches 0
    expect(ratioInterval(1.5, [0, 1.5, 1.6], 0.02).low).toBe(0);
    // one pass (a test profile) has no spread to read: the A/A noise alone
    expect(ratioInterval(1.5, [1.5], 0.02)).toEqual({ low: 1.5 / 1.02, high: expect.closeTo(1.5 * 1.02, 12) });
    expect(ratioInterval(0, [0, 0, 1], 0.02)).toEqual({ low: 0, high: 0 });
  });

  it("combines the workloads for SpecScore (Welch–Satterthwaite), exact at 0, none without a score", () => {
    const f = figures(1.5, { solo: [1.9, 2.0, 2.1], team: [1.4, 1.5, 1.45], busy: [1.1, 1.12, 1.08] });
    const i = specScoreInterval(f, 0.02)!;
    expect(i.low).toBeLessThan(1.5);
    expect(i.high).toBeGreaterThan(1.5);
    // narrower than any single workload's: three workloads' passes average out, with more degrees of freedom
    expect(i.high / 1.5).toBeLessThan(ratioInterval(2.0, [1.9, 2.0, 2.1], 0.02).high / 2.0);
    expect(i.high / 1.5).toBeGreaterThan(1.02);
    expect(specScoreInterval(figures(0, f.workloads as never), 0.02)).toEqual({ low: 0, high: 0 });
    expect(specScoreInterval({ ...f, score: null }, 0.02)).toBeNull();
    expect(t975(2)).toBe(4.303);
    expect(t975(6.7)).toBe(2.447);
    expect(t975(100)).toBe(1.96);
  });
});

describe("the tie rule on constructed records", () => {
  const tight = (score: number) => ({
    score,
    interval: specScoreInterval(
      figures(score, { solo: [score, score, score], team: [score, score, score], busy: [score, score, score] }),
      0.02,
    ),
  });
  const noisy = (score: number) => ({
    score,
    interval: specScoreInterval(
      figures(score, {
        solo: [score * 0.8, score, score * 1.25],
        team: [score * 0.85, score, score * 1.2],
        busy: [score * 0.8, score, score * 1.2],
      }),
      0.02,
    ),
  });

  it("ranks entries apart when their intervals do not overlap", () => {
    const ranks = rankWithTies([tight(2.0), tight(1.8), tight(1.5)]);
    expect(ranks).toEqual([
      { rank: 1, tied: false },
      { rank: 2, tied: false },
      { rank: 3, tied: false },
    ]);
  });

  it("gives entries whose intervals overlap one shared rank, and the next one its place (1, =2, =2, 4)", () => {
    // 1.80 and 1.79 lie within 2% A/A noise of each other
    const ranks = rankWithTies([tight(2.0), tight(1.8), tight(1.79), tight(1.5)]);
    expect(ranks.map(rankLabel)).toEqual(["1", "=2", "=2", "4"]);
  });

  it("ties against a group's first entry, not a chain of neighbours", () => {
    // ±2%: 1.70 reaches down to 1.667; 1.67 and 1.64 reach up past it, 1.61 (up to 1.642) does not, though it
    // overlaps 1.64 just above it: a chain would tie all four
    const chain = [tight(1.7), tight(1.67), tight(1.64), tight(1.61)];
    expect(rankWithTies(chain).map(rankLabel)).toEqual(["=1", "=1", "=1", "4"]);
  });

  it("ties noisy entries whose passes spread wide, however far apart their scores look to three decimals", () => {
    expect(rankWithTies([noisy(1.62), noisy(1.55), tight(1.0)]).map(rankLabel)).toEqual(["=1", "=1", "3"]);
  });

  it("ties every SpecScore of 0 together, and ranks entries without a score alone, last", () => {
    const zero = { score: 0, interval: { low: 0, high: 0 } };
    const none = { score: null, interval: null };
    expect(rankWithTies([tight(1.2), zero, zero, none, none]).map(rankLabel)).toEqual(["1", "=2", "=2", "4", "5"]);
    // an entry without an interval (an old record) counts as its score alone
    expect(
      rankWithTies([
        { score: 1.2, interval: null },
        { score: 1.2, interval: null },
      ]).map(rankLabel),
    ).toEqual(["=1", "=1"]);
  });
});

describe("the board's ranks", () => {
  /** A full-profile test entry with three passes per workload at `score` × the given spreads. */
  const entry = (id: string, score: number, spread: [number, number, number]): BoardEntry => {
    const passes = spread.map((f) => score * f);
    const workload = { passes, ratio: score };
    return {
      ...testEntry({ evaluationId: id, account: id, score }),
      result: resultView({ ratios: { solo: workload, team: workload, busy: workload }, score })!,
    };
  };

  it("shares a rank between participants whose SpecScore intervals overlap, from their passes and the A/A noise", () => {
    expect(getTask("qwen3-8b").speedNoise.maxAbsError).toBe(0.02);
    const board = assembleBoard("qwen3-8b", [
      entry("steady-high", 1.9, [1, 1.005, 0.995]),
      entry("close-second", 1.88, [1, 1.004, 0.996]),
      entry("wide", 1.6, [0.85, 1, 1.15]),
      entry("below-wide", 1.45, [0.99, 1, 1.01]),
      entry("far-below", 1.1, [0.99, 1, 1.01]),
    ]);
    expect(board.participants.map((e) => [e.evaluationId, rankLabel(e)])).toEqual([
      ["steady-high", "=1"],
      ["close-second", "=1"],
      ["wide", "=3"],
      ["below-wide", "=3"],
      ["far-below", "5"],
    ]);
    const wide = board.participants.find((e) => e.evaluationId === "wide")!;
    expect(wide.interval!.low).toBeLessThan(1.45);
    expect(wide.interval!.high).toBeGreaterThan(1.6);
  });
});
