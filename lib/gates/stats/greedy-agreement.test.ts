import { describe, expect, it } from "vitest";
import { greedyAgreement, promptAgreement } from "./greedy-agreement";

describe("greedy agreement", () => {
  it("counts the tokens before the first difference over the longer reply", () => {
    expect(promptAgreement([1, 2, 3, 4], [1, 2, 3, 4])).toBe(1);
    expect(promptAgreement([1, 2, 9, 4], [1, 2, 3, 4])).toBe(0.5);
    expect(promptAgreement([5, 2, 3, 4], [1, 2, 3, 4])).toBe(0);
    // a reply cut short, or run on, agrees on the shorter's length only
    expect(promptAgreement([1, 2], [1, 2, 3, 4])).toBe(0.5);
    expect(promptAgreement([1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4])).toBe(0.5);
    expect(promptAgreement([], [])).toBe(1);
    expect(promptAgreement([], [1])).toBe(0);
  });

  it("averages over the prompts both engines answered", () => {
    const r = greedyAgreement([[1, 2], [1, 9, 9, 9], null, [7]], [[1, 2], [1, 2, 3, 4], [1], null]);
    expect(r).toEqual({ agreement: (1 + 0.25) / 2, prompts: 4, compared: 2 });
    expect(greedyAgreement([null], [[1]]).agreement).toBeNull();
    expect(() => greedyAgreement([[1]], [])).toThrow(/differ in number/);
  });
});
