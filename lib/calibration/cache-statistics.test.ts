import { describe, expect, it } from "vitest";
import { cacheStatistics, RETURNING_SESSION_NOTE } from "./cache-statistics";
import { figures, pod } from "./calibration-fixtures";

const targets = { tokenWeighted: 0.366, perRequest: 0.384, source: "the data card" };
const hit = (token_weighted: number, per_request: number) => ({
  candidate: { token_weighted: 0.99, per_request: 0.99 },
  stock: { token_weighted, per_request },
});

describe("the stock engine's cache figures against the data card's targets", () => {
  it("takes the stock side of each A/A record per workload, and their mean over workloads and runs", () => {
    const records = [
      pod("stock", figures({ cacheHits: { solo: hit(0.2, 0.3), team: hit(0.4, 0.5), busy: hit(0.3, 0.4) } })).record!,
      pod("stock", figures({ cacheHits: { solo: hit(0.4, 0.5), team: hit(0.4, 0.5), busy: hit(0.1, 0.2) } })).record!,
    ];
    const cache = cacheStatistics(records, targets);
    expect(cache.targets).toEqual({ token_weighted: 0.366, per_request: 0.384, source: "the data card" });
    expect(cache.stock.solo.token_weighted).toMatchObject({ n: 2, min: 0.2, max: 0.4 });
    expect(cache.stock.solo.token_weighted!.mean).toBeCloseTo(0.3, 12);
    expect(cache.stock.busy.per_request).toMatchObject({ n: 2, min: 0.2, max: 0.4 });
    expect(cache.overall.token_weighted).toBeCloseTo((0.2 + 0.4 + 0.3 + 0.4 + 0.4 + 0.1) / 6, 12);
    expect(cache.overall.per_request).toBeCloseTo((0.3 + 0.5 + 0.4 + 0.5 + 0.5 + 0.2) / 6, 12);
  });

  it("says the returning-session share is not recorded rather than making one up", () => {
    const cache = cacheStatistics([pod("stock", figures()).record!], targets);
    expect(cache.returning_session_share).toEqual({ recorded: false, value: null, note: RETURNING_SESSION_NOTE });
    // a record without cache figures (none measured) leaves every figure empty
    expect(cache.stock.team).toEqual({ token_weighted: null, per_request: null });
    expect(cache.overall).toEqual({ token_weighted: null, per_request: null });
  });
});
