import { describe, expect, it } from "vitest";
import { memoryVerdict } from "./memory";

describe("memoryVerdict", () => {
  it("reproduces the seed evaluation: peak 166,428 MiB within 169,119.1 MiB", () => {
    // 0.90 × 183,359 MiB + 4,096 MiB
    expect(memoryVerdict([120_000, 166_428, 150_000], 183_359, 0.9, 4096)).toEqual({
      ok: true,
      peak_mib: 166_428,
      allowed_mib: 169_119.1,
    });
  });

  it("fails 0.97 of the device", () => {
    expect(memoryVerdict([0.97 * 183_359], 183_359, 0.9, 4096).ok).toBe(false);
  });

  it("allows exactly the budget and refuses bad samples", () => {
    expect(memoryVerdict([1000 * 0.5 + 10], 1000, 0.5, 10).ok).toBe(true);
    expect(() => memoryVerdict([], 1000, 0.9, 0)).toThrow(/no device memory samples/);
    expect(() => memoryVerdict([Number.NaN], 1000, 0.9, 0)).toThrow(/not a MiB count/);
    expect(() => memoryVerdict([1], 1000, 1.5, 0)).toThrow(/GPU_MEMORY_UTILIZATION/);
  });
});
