import { describe, expect, it } from "vitest";
import type { DeviceProbe } from "./device-probe";
import { startMemorySampler } from "./memory-sampler";

const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("startMemorySampler", () => {
  it("keeps the peak and the device's total, and counts failed readings", async () => {
    const readings = [1000, 5000, 3000];
    let n = 0;
    const probe: DeviceProbe = async () => {
      const i = n++;
      if (i === 1) throw new Error("nvidia-smi failed");
      return { usedMib: readings[i % readings.length]!, totalMib: 143_771 };
    };
    const sampler = startMemorySampler(probe, 5);
    while (n < 6) await later(5);
    const out = await sampler.stop();
    expect(out.peakMib).toBe(5000);
    expect(out.totalMib).toBe(143_771);
    expect(out.failures).toBe(1);
    expect(out.samples).toBe(n - 1);
  });

  it("runs one reading at a time: a probe slower than the interval skips ticks instead of stacking", async () => {
    let running = 0;
    let most = 0;
    let calls = 0;
    const slow: DeviceProbe = async () => {
      calls++;
      running++;
      most = Math.max(most, running);
      await later(60);
      running--;
      return { usedMib: 100, totalMib: 1000 };
    };
    const sampler = startMemorySampler(slow, 10);
    await later(200);
    const out = await sampler.stop();
    expect(most).toBe(1);
    expect(out.skipped).toBeGreaterThan(0);
    expect(out.samples).toBe(calls);
  });
});
