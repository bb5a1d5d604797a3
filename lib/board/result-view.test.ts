import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { resultView } from "./result-view";

const seed = JSON.parse(
  readFileSync(new URL("../gates/record/fixtures/seed-004-record.json", import.meta.url), "utf8"),
) as Record<string, unknown>;

describe("resultView", () => {
  it("reads the seed evaluation page's record: score, ratios with their passes, acceptance", () => {
    const v = resultView(seed)!;
    expect(v.score).toBeCloseTo(1.9517210776966265, 12);
    expect(v.workloads.solo.ratio).toBeCloseTo(2.8687, 4);
    expect(v.workloads.team.passes).toHaveLength(3);
    expect(v.workloads.busy.acceptance).toBeCloseTo(4.0763, 4);
    expect(v.reason).toBeNull();
    // The seed's record has no gate table, but no reason either and a score: it passed.
    expect(v.lossless).toBe(true);
    // Its speedup is the geometric mean of the three ratios (what SpecScore is when every gate passes).
    expect(v.speedup).toBeCloseTo(1.9517, 4);
  });

  it("reads the judge's gate table, latency and cache hits, and orders the gates as the page shows them", () => {
    const v = resultView({
      ...seed,
      score: 0,
      reason: "replies are longer or shorter than the stock engine's",
      speedup: 1.2,
      gates: [
        {
          key: "length",
          check: "reply lengths",
          measured: "1.2 [1.1, 1.3]",
          limit: "1 ± 0.05 at 95%",
          pass: false,
          reason: "x",
        },
        {
          key: "memory",
          check: "device memory",
          measured: "162.5 GiB",
          limit: "≤ 165.2 GiB",
          pass: true,
          reason: null,
        },
      ],
      latency: {
        solo: {
          candidate: { ttft_ms: { p50: 40, p90: 80, p99: 120 }, tpot_ms: { p50: 5, p90: 7, p99: 9 } },
          stock: { ttft_ms: null, tpot_ms: { p50: 12, p90: 14, p99: 20 } },
        },
      },
      cache_hits: { team: { candidate: { token_weighted: 0.81, per_request: 0.7 }, stock: null } },
    })!;
    expect(v.score).toBe(0);
    expect(v.speedup).toBe(1.2);
    expect(v.lossless).toBe(false);
    expect(v.gates.map((g) => g.key)).toEqual(["memory", "length"]);
    expect(v.workloads.solo.latency.candidate?.ttft?.p90).toBe(80);
    expect(v.workloads.solo.latency.stock?.ttft).toBeNull();
    expect(v.workloads.solo.latency.stock?.tpot?.p99).toBe(20);
    expect(v.workloads.team.latency.candidate).toBeNull();
    expect(v.workloads.team.cacheHit).toEqual({ candidate: 0.81, stock: null });
  });

  it("keeps what it can read of a damaged record and returns null for no record", () => {
    expect(resultView(null)).toBeNull();
    expect(resultView("nonsense")).toBeNull();
    const v = resultView({ score: 0.5, ratios: { solo: { passes: "bad", ratio: 0.5 } }, latency: 7 })!;
    expect(v.score).toBe(0.5);
    expect(v.workloads.solo.ratio).toBe(0.5);
    expect(v.workloads.solo.passes).toEqual([]);
    expect(v.workloads.team.ratio).toBeNull();
    expect(v.speedup).toBeNull();
  });
});
