import { describe, expect, it } from "vitest";
import { distributionOf, sample } from "./distribution";
import { workloadCard } from "./workload-card";

describe("the workload card", () => {
  it("loads, versioned, with rising quantile tables", () => {
    const card = workloadCard();
    expect(card.version).toBe("1");
    for (const d of [...Object.values(card.agent), ...Object.values(card.chat)]) {
      if (typeof d !== "object") continue;
      expect(d.samples).toBeGreaterThan(0);
      for (let i = 1; i < d.quantiles.length; i++)
        expect(d.quantiles[i]![1]).toBeGreaterThanOrEqual(d.quantiles[i - 1]![1]);
    }
    expect(card.mix.agentShare).toBeGreaterThan(0);
  });

  it("samples by inverse CDF between quantiles", () => {
    const d = distributionOf([0, 10, 20, 30, 40], "x", "test");
    expect(sample(d, 0)).toBe(0);
    expect(sample(d, 0.5)).toBe(20);
    expect(sample(d, 1)).toBe(40);
    expect(sample(d, 0.625)).toBeCloseTo(25, 10);
  });
});
