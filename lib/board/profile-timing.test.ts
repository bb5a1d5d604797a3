import { describe, expect, it } from "vitest";
import { currentProtocol } from "@/lib/protocol";
import { gpuTimeSeconds } from "./gpu-time";
import { profileTimings, timingWords } from "./profile-timing";

describe("profile timings", () => {
  it("states what a profile takes here when measured, and its timed passes as a floor when not", () => {
    const timings = profileTimings(currentProtocol().profiles, new Map([["smoke", { medianSeconds: 190, runs: 5 }]]));
    const full = timings.find((t) => t.name === "full")!;
    // both engines, three passes of 150 + 180 + 240 s
    expect(full.timedSeconds).toBe(2 * 3 * 570);
    expect(timingWords(full)).toBe("at least 57 min 00 s (its timed passes; not yet measured here)");
    expect(timingWords(timings.find((t) => t.name === "smoke")!)).toBe(
      "about 3 min 10 s here (median of the last 5 runs)",
    );
  });
});

describe("gpuTimeSeconds", () => {
  it("uses the recorded GPU time, else the time since a worker took it, and none while it waits", () => {
    const startedAt = "2026-12-01T10:00:00.000Z";
    expect(gpuTimeSeconds({ gpuSeconds: 42, startedAt, finishedAt: null })).toBe(42);
    expect(gpuTimeSeconds({ gpuSeconds: 0, startedAt, finishedAt: "2026-12-01T10:01:30.000Z" })).toBe(90);
    expect(gpuTimeSeconds({ gpuSeconds: 0, startedAt, finishedAt: null, now: new Date("2026-12-01T10:00:05Z") })).toBe(
      5,
    );
    expect(gpuTimeSeconds({ gpuSeconds: 0, startedAt: null, finishedAt: null })).toBeNull();
  });
});
