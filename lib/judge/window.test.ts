import { describe, expect, it } from "vitest";
import { cutStart, needsCut, promptEstimate, windowRule } from "./window";

const rule = windowRule(40_960);

describe("the window rule", () => {
  it("counts tokens plus 5% and 128", () => {
    expect(promptEstimate(1000, rule)).toBe(1178);
    expect(promptEstimate(0, rule)).toBe(128);
    expect(promptEstimate(1, rule)).toBe(130);
  });

  it("cuts exactly when prompt and reply budget would not fit", () => {
    // ceil(raw × 1.05) + 128 + maxTokens > 40,960
    const maxTokens = 1_000;
    const raw = 37_800; // ceil(39,690) + 128 + 1,000 = 40,818 fits
    expect(needsCut(raw, maxTokens, rule)).toBe(false);
    // the largest raw that fits: ceil(r×1.05) ≤ 39,832 ⇒ r ≤ 37,935
    expect(needsCut(37_935, maxTokens, rule)).toBe(false);
    expect(promptEstimate(37_935, rule) + maxTokens).toBe(40_960);
    expect(needsCut(37_936, maxTokens, rule)).toBe(true);
  });

  it("keeps the first message and the newest that fit half the window", () => {
    const half = 20_480;
    const tokens = [100, 5_000, 5_000, 5_000, 5_000, 2_000];
    const start = cutStart(tokens, 50, rule);
    const kept = [tokens[0]!, ...tokens.slice(start)];
    const raw = 50 + kept.reduce((a, b) => a + b, 0);
    expect(promptEstimate(raw, rule)).toBeLessThanOrEqual(half);
    // one more message would not fit
    expect(promptEstimate(raw + tokens[start - 1]!, rule)).toBeGreaterThan(half);
    expect(start).toBe(2);
  });

  it("keeps the last message even when it alone exceeds the half", () => {
    expect(cutStart([10, 100, 30_000], 0, rule)).toBe(2);
    expect(cutStart([10, 100, 200, 30_000], 0, rule)).toBe(3);
  });
});
