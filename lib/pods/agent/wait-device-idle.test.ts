import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { DeviceProbe } from "./device-probe";
import { DEVICE_IDLE_POLL_MS, waitDeviceIdle } from "./wait-device-idle";

/** A device that holds `busyMib` until `freedAt` (the fake clock's ms), then nothing; every reading is counted. */
function freedAt(freed: number, busyMib = 40_000): DeviceProbe & { reads: number } {
  const probe = Object.assign(
    async () => {
      probe.reads += 1;
      return { usedMib: Date.now() < freed ? busyMib : 0, totalMib: 80_000 };
    },
    { reads: 0 },
  );
  return probe;
}

describe("waitDeviceIdle", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sees the device idle within one poll of its memory being released", async () => {
    // released between two readings: the next one, at most a poll later, sees it (half a second later, at 500 ms)
    const probe = freedAt(Date.now() + 1_050);
    let idle: boolean | undefined;
    void waitDeviceIdle(probe, 2048, 120_000).then((v) => {
      idle = v;
    });
    await vi.advanceTimersByTimeAsync(1_049);
    expect(idle).toBeUndefined();
    await vi.advanceTimersByTimeAsync(DEVICE_IDLE_POLL_MS + 1);
    expect(idle).toBe(true);
    expect(DEVICE_IDLE_POLL_MS).toBe(100);
  });

  it("answers at once for a device already idle, with one reading", async () => {
    const probe = freedAt(0);
    await expect(waitDeviceIdle(probe, 2048, 120_000)).resolves.toBe(true);
    expect(probe.reads).toBe(1);
  });

  it("gives up at the timeout, and never takes an unreadable probe for an idle device", async () => {
    const failing: DeviceProbe = async () => {
      throw new Error("nvidia-smi: no devices");
    };
    let idle: boolean | undefined;
    void waitDeviceIdle(failing, 2048, 5_000).then((v) => {
      idle = v;
    });
    await vi.advanceTimersByTimeAsync(4_900);
    expect(idle).toBeUndefined();
    await vi.advanceTimersByTimeAsync(DEVICE_IDLE_POLL_MS + 100);
    expect(idle).toBe(false);
  });
});
