import { describe, expect, it } from "vitest";
import { devGap } from "./dev-gap";

describe("devGap", () => {
  it("flags a test score more than 10% below the best dev score", () => {
    expect(devGap(1.5, [1.2, 1.8, null], 0.02)).toEqual({ test: 1.5, dev: 1.8, drop: expect.closeTo(1 / 6, 9) });
  });

  it("leaves the seed board's DSpark (2.074 dev, 1.952 test: 6% lower) unflagged", () => {
    expect(devGap(1.952, [2.074, 2.122, 2.071], 0.02)).toBeNull();
  });

  it("needs a drop beyond five times the A/A speed error when that is larger than 10%", () => {
    expect(devGap(0.85, [1], 0.02)).toEqual({ test: 0.85, dev: 1, drop: expect.closeTo(0.15, 9) });
    expect(devGap(0.85, [1], 0.04)).toBeNull();
    expect(devGap(0.85, [1], 0.01, 0.2)).toBeNull();
  });

  it("says nothing without a test score or a dev score above 0", () => {
    expect(devGap(null, [2], 0.01)).toBeNull();
    expect(devGap(0, [], 0.01)).toBeNull();
    expect(devGap(0, [0, null], 0.01)).toBeNull();
    // A failed gate scores 0 on test: far below a dev score, so flagged.
    expect(devGap(0, [1.3], 0.01)?.drop).toBe(1);
  });
});
