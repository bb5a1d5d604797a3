import { describe, expect, it } from "vitest";
import { loadPool } from "../judge/pool/load";
import { DEV_POOL_PATH } from "../judge/pool/paths";
import { planFor } from "../judge/run/run-workload";
import { nearestPoint, type ThinkPointResult, thinkGrid, withInterleave } from "./think-search";
import { thinkStatistics } from "./think-statistics";

const usage = (promptTokens: number, cachedTokens: number, completionTokens = 100) => ({
  promptTokens,
  cachedTokens,
  completionTokens,
});

describe("the stock engine's cache statistics for the think-time search", () => {
  it("weighs the hit by tokens and by request, and reads a returning session's history against what it held before", () => {
    const records = [
      { sessionId: "a", turn: 0, usage: usage(1000, 0, 200), counted: true },
      // a came back after a think time past the cap: 900 of its 1,200 tokens of history still cached
      { sessionId: "a", turn: 1, usage: usage(1500, 900), counted: true },
      { sessionId: "b", turn: 0, usage: usage(500, 250), counted: true },
      // b's next turn came quickly: it counts for the hit only
      { sessionId: "b", turn: 1, usage: usage(800, 600), counted: true },
      // a request the engine reported no usage for is not read
      {
        sessionId: "c",
        turn: 0,
        usage: { promptTokens: null, cachedTokens: null, completionTokens: null },
        counted: false,
      },
    ];
    const s = thinkStatistics(records, (session, turn) => session === "a" && turn === 1);
    expect(s.requests).toBe(4);
    expect(s.tokenWeighted).toBeCloseTo((0 + 900 + 250 + 600) / (1000 + 1500 + 500 + 800), 12);
    expect(s.perRequest).toBeCloseTo((0 + 0.6 + 0.5 + 0.75) / 4, 12);
    expect(s.returning).toBe(1);
    expect(s.returningHistoryCached).toBeCloseTo(900 / 1200, 12);
  });

  it("says nothing of returning sessions when none came back within the pass", () => {
    const s = thinkStatistics([{ sessionId: "a", turn: 0, usage: usage(100, 50), counted: true }], () => true);
    expect(s.returning).toBe(0);
    expect(s.returningHistoryCached).toBeNull();
  });
});

describe("the search's grid and its choice", () => {
  it("plays every c with every m and picks the point whose larger miss is smallest", () => {
    const grid = thinkGrid([0.25, 1], [2, 4]);
    expect(grid).toEqual([
      { scale: 0.25, interleave: 2 },
      { scale: 0.25, interleave: 4 },
      { scale: 1, interleave: 2 },
      { scale: 1, interleave: 4 },
    ]);
    const result = (p: (typeof grid)[number], tokenWeighted: number | null, perRequest: number | null) =>
      ({
        ...p,
        workloads: {},
        overall: { tokenWeighted, perRequest, returningHistoryCached: null },
        wallSeconds: 1,
      }) as ThinkPointResult;
    const results = [
      result(grid[0]!, 0.9, 0.7),
      result(grid[1]!, 0.4, 0.6), // misses per request by 0.216
      result(grid[2]!, 0.5, 0.45), // misses token-weighted by 0.134: the nearest
      result(grid[3]!, null, 0.38),
    ];
    const nearest = nearestPoint(results, { tokenWeighted: 0.366, perRequest: 0.384 });
    expect(nearest?.point).toBe(results[2]);
    expect(nearest?.miss).toBeCloseTo(0.134, 12);
    expect(nearestPoint([results[3]!], { tokenWeighted: 0.366, perRequest: 0.384 })).toBeNull();
  });

  it("sets m on every timed pass of a workload, leaves the others and the warm-up wave, and refuses an m the pool cannot fill", () => {
    const pool = loadPool(DEV_POOL_PATH);
    const plan = planFor({ pool, evaluationSeed: "think", task: "qwen3-8b", profile: "full" });
    const changed = withInterleave(plan, "busy", 4);
    expect(changed.workloads.busy.passes.map((p) => p.interleave)).toEqual([4, 4, 4]);
    expect(changed.workloads.busy.warmup).toBe(plan.workloads.busy.warmup);
    expect(changed.workloads.team).toBe(plan.workloads.team);
    expect(plan.workloads.busy.passes[0]!.interleave).toBe(2);
    expect(changed.workloads.busy.passes[0]!.queues).toBe(plan.workloads.busy.passes[0]!.queues);
    expect(() => withInterleave(plan, "busy", 1000)).toThrow(/m = 1000 needs 1000 sessions a lane/);
  });
});
