import { describe, expect, it } from "vitest";
import { gateRule } from "./gate-rule";

describe("gateRule", () => {
  it("writes a two-sided check as its rule, with the interval the rule is applied to", () => {
    // the row the issue quotes: outside ±0.003, yet it passes, because its interval reaches inside
    expect(gateRule({ measured: "-0.0036 ± 0.0090", limit: "within ±0.003 at 95%" })).toEqual({
      measured: "\u22120.0036 ± 0.0090",
      interval: "95% interval \u22120.0126 to +0.0054",
      limit: "fails only if the whole 95% interval (1.96 standard errors each way) lies beyond ±0.003",
    });
    expect(gateRule({ measured: "+0.0120 ± 0.0040", limit: "within ±0.02 at 95%" }).interval).toBe(
      "95% interval +0.0080 to +0.0160",
    );
  });

  it("writes the length check's ratio with its interval and the band it must not leave", () => {
    expect(gateRule({ measured: "1.000 [0.915, 1.084]", limit: "1 ± 0.05 at 95%" })).toEqual({
      measured: "1.000",
      interval: "95% interval 0.915 to 1.084",
      limit: "fails only if the whole 95% interval lies outside 0.95 to 1.05",
    });
  });

  it("keeps every other row as the record wrote it", () => {
    const row = { measured: "162.2 GiB", limit: "≤ 165.2 GiB" };
    expect(gateRule(row)).toEqual({ ...row, interval: null });
    expect(gateRule({ measured: "not measured", limit: "within ±0.003 at 95%" }).interval).toBeNull();
  });
});
