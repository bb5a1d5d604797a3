import { describe, expect, it } from "vitest";
import { chiSquareTwoSample, gammaQ } from "./chi-square";

describe("chi-square", () => {
  it("matches tabulated critical values", () => {
    // chi2(df=1) at 3.841 and chi2(df=10) at 18.307 are the 5% points.
    expect(gammaQ(0.5, 3.841 / 2)).toBeCloseTo(0.05, 3);
    expect(gammaQ(5, 18.307 / 2)).toBeCloseTo(0.05, 3);
    expect(gammaQ(2, 0)).toBe(1);
  });

  it("accepts equal samples and rejects different ones", () => {
    const same = chiSquareTwoSample(
      new Map([
        ["a", 500],
        ["b", 300],
        ["c", 200],
      ]),
      new Map([
        ["a", 510],
        ["b", 290],
        ["c", 200],
      ]),
    );
    expect(same.df).toBe(2);
    expect(same.pValue).toBeGreaterThan(0.5);
    const diff = chiSquareTwoSample(
      new Map([
        ["a", 500],
        ["b", 300],
        ["c", 200],
      ]),
      new Map([
        ["a", 650],
        ["b", 250],
        ["c", 100],
      ]),
    );
    expect(diff.pValue).toBeLessThan(1e-6);
  });
});
