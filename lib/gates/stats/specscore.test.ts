import { describe, expect, it } from "vitest";
import { geometricMean, median, passRatio } from "./specscore";
import { tooManyUnanswered } from "./unanswered";

describe("SpecScore arithmetic", () => {
  it("takes the median of passes and the geometric mean of workloads, as in the seed", () => {
    const solo = median([2.8687066321760852, 2.645158873964075, 2.8845848314981186]);
    const team = median([1.7998901913346994, 1.6002871790415794, 1.6140320495763796]);
    const busy = median([1.646562682494628, 1.5515807849740395, 1.6056650907332233]);
    expect([solo, team, busy]).toEqual([2.8687066321760852, 1.6140320495763796, 1.6056650907332233]);
    expect(geometricMean([solo, team, busy])).toBe(1.9517210776966265);
    expect(median([1, 3, 2, 4])).toBe(2.5);
    expect(geometricMean([2, 0, 8])).toBe(0);
    expect(geometricMean([2, 4, 8])).toBeCloseTo(4, 14);
  });

  it("scores a pass 0 when the candidate failed more requests than allowed", () => {
    const pass = { candidateSpeed: 200, stockSpeed: 100, stockFailed: 0, requests: 100 };
    expect(passRatio({ ...pass, candidateFailed: 2 })).toBe(2);
    expect(passRatio({ ...pass, candidateFailed: 3 })).toBe(0);
    // the allowance is 1% of the pass's requests when that is larger than 2
    expect(passRatio({ ...pass, requests: 1000, candidateFailed: 10 })).toBe(2);
    expect(passRatio({ ...pass, requests: 1000, candidateFailed: 11 })).toBe(0);
    expect(() => passRatio({ ...pass, stockSpeed: 0, candidateFailed: 0 })).toThrow(/stock speed/);
  });

  it("fails an engine that leaves more than 10% of a check's requests unanswered", () => {
    expect(tooManyUnanswered({ requests: 64, unanswered: 6 })).toBe(false);
    expect(tooManyUnanswered({ requests: 64, unanswered: 7 })).toBe(true);
    expect(tooManyUnanswered({ requests: 0, unanswered: 0 })).toBe(false);
    expect(() => tooManyUnanswered({ requests: 1, unanswered: 2 })).toThrow(/not a count/);
  });
});
