import { describe, expect, it } from "vitest";
import {
  formatDuration,
  formatMs,
  formatRatio,
  formatScore,
  formatShortTime,
  formatUtc,
  shortRevision,
} from "./format";

describe("format", () => {
  it("writes scores and ratios as the seed's board does", () => {
    expect(formatScore(1.9517210776966265)).toBe("1.952");
    expect(formatScore(0)).toBe("0.000");
    expect(formatScore(null)).toBe("—");
    expect(formatRatio(2.8687066321760852)).toBe("2.87");
  });

  it("writes times in UTC", () => {
    expect(formatShortTime("2026-10-24T01:47:09Z")).toBe("10-24 01:47");
    expect(formatUtc(new Date("2026-10-24T01:47:09Z"))).toBe("2026-10-24 01:47 UTC");
    expect(formatShortTime("not a date")).toBe("—");
  });

  it("writes milliseconds and durations at a precision that suits their size", () => {
    expect(formatMs(4.567)).toBe("4.57 ms");
    expect(formatMs(45.67)).toBe("45.7 ms");
    expect(formatMs(1204.4)).toBe("1,204 ms");
    expect(formatDuration(37)).toBe("37 s");
    expect(formatDuration(245)).toBe("4 min 05 s");
    expect(formatDuration(3720)).toBe("1 h 02 min");
    expect(formatDuration(-1)).toBe("—");
  });

  it("shortens a commit to seven characters", () => {
    expect(shortRevision("RedHatAI/Qwen3-8B-speculator.eagle3", "08610ff1234567890123456789012345678901234")).toBe(
      "RedHatAI/Qwen3-8B-speculator.eagle3@08610ff",
    );
    expect(shortRevision("org/repo", null)).toBe("org/repo");
  });
});
