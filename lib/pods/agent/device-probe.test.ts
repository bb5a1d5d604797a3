import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectDeviceProbe, parseNvidiaSmi, simulatedDeviceProbe } from "./device-probe";

describe("device memory probes", () => {
  it("reads nvidia-smi's query as an H200 printed it", () => {
    // `nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader,nounits` on an idle H200, and holding a
    // 20 GiB tensor (the CUDA context adds about 0.5 GiB)
    expect(parseNvidiaSmi("0, 143771\n")).toEqual({ usedMib: 0, totalMib: 143771 });
    expect(parseNvidiaSmi("21007, 143771\n")).toEqual({ usedMib: 21007, totalMib: 143771 });
    // a host with more GPUs than the pod was given lists one line each; the pod's is the first
    expect(parseNvidiaSmi("512, 183359\n0, 183359\n")).toEqual({ usedMib: 512, totalMib: 183359 });
  });

  it("refuses what it cannot read, naming it", () => {
    expect(() => parseNvidiaSmi("[N/A], 143771")).toThrow('unreadable device memory: "[N/A], 143771"');
    expect(() => parseNvidiaSmi("")).toThrow("unreadable device memory");
  });

  it("reads the simulated device's file, idle while it is absent", async () => {
    const dir = await mkdtemp(join(tmpdir(), "device-probe-"));
    try {
      const file = join(dir, "device.csv");
      const probe = simulatedDeviceProbe(file, 183_359);
      expect(await probe()).toEqual({ usedMib: 0, totalMib: 183_359 });
      await writeFile(file, "165800, 183359\n");
      expect(await probe()).toEqual({ usedMib: 165_800, totalMib: 183_359 });
      // where no nvidia-smi answers (this machine), the simulated device is the one measured
      const detected = await detectDeviceProbe(file, 183_359);
      if (detected.kind === "simulated")
        expect(await detected.probe()).toEqual({ usedMib: 165_800, totalMib: 183_359 });
      else expect((await detected.probe()).totalMib).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
