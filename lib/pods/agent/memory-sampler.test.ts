import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgeEvaluation } from "../../gates";
import { allowedMemoryMib, currentProtocol } from "../../protocol";
import { type DeviceProbe, simulatedDeviceProbe } from "./device-probe";
import { startWindowedSampler, type WindowedReadings } from "./memory-sampler";

const later = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DEVICE_MIB = 183_359;
const protocol = currentProtocol();
const ALLOWED = allowedMemoryMib(
  DEVICE_MIB,
  protocol.engine.gpuMemoryUtilization,
  protocol.tasks["qwen3-8b"].gates.memorySlackMib.value,
);
const HIGH = Math.round(0.97 * DEVICE_MIB); // the protocol's "caught" attack: 0.97 of the device
const HONEST = Math.round(ALLOWED - 2048);

let dir: string;
let file: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arena-memory-sampler-"));
  file = join(dir, "simulated-device.csv");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Sets the simulated device's memory as the simulated engine does: nvidia-smi's CSV, replaced atomically. */
async function hold(usedMib: number): Promise<void> {
  await writeFile(`${file}.tmp`, `${usedMib}, ${DEVICE_MIB}\n`);
  await rename(`${file}.tmp`, file);
}

/**
 * One engine's life as run-pod.ts drives the sampler: the start-up window opened before the engine starts, then the
 * judge's events for a workload (its warm-up, then two timed passes), then shutdown. `during` sets what the device
 * holds in each stretch, each long enough for several readings at a 10 ms interval. At each window's edge the device
 * first drops to the lower of the two values, so that a reading taken right at the edge can only under-read.
 */
async function engineLife(during: {
  startup: number;
  warmup: number;
  pass: number;
  between: number;
  shutdown: number;
}): Promise<WindowedReadings> {
  const sampler = startWindowedSampler(simulatedDeviceProbe(file, DEVICE_MIB), 10);
  let current = 0;
  const stretch = async (usedMib: number, edge?: () => void) => {
    await hold(Math.min(current, usedMib));
    edge?.();
    await hold(usedMib);
    current = usedMib;
    await later(80);
  };
  await hold(0);
  await stretch(during.startup, () => sampler.open("startup"));
  await stretch(during.warmup, () => sampler.follow({ type: "pass-started", pass: "warmup" }));
  for (const pass of [0, 1]) {
    await stretch(during.pass, () => sampler.follow({ type: "pass-started", pass }));
    sampler.follow({ type: "pass-progress", pass });
    await later(80);
    await stretch(during.between, () => sampler.follow({ type: "pass-ended", pass }));
  }
  await stretch(during.shutdown);
  return sampler.stop();
}

const memoryGate = (readings: WindowedReadings) =>
  judgeEvaluation({
    task: "qwen3-8b",
    passes: { solo: [1], team: [1], busy: [1] },
    checks: {
      greedy: { candidate: [[1, 2]], stock: [[1, 2]] },
      sampled: { candidate: [], stock: [] },
      fidelity: { candidate: [[-1]], stock: [[-1]] },
    },
    lengths: {
      solo: { candidate: [], stock: [] },
      team: { candidate: [], stock: [] },
      busy: { candidate: [], stock: [] },
    },
    memory: { samplesMib: readings.passMib, startupSamplesMib: readings.startupMib, deviceTotalMib: readings.totalMib },
    startupLog: [],
    acceptance: { solo: null, team: null, busy: null },
    reproducibility: {
      profile: "ci",
      seeds: {},
      engine_archive_sha256: null,
      speculator_commit: null,
      speculator_sha256: null,
      image: "sim",
      device: "simulated B200",
    },
  }).memory;

describe("startWindowedSampler on the simulated device", () => {
  it("does not gate what an engine holds while it starts, warms up, idles between passes or shuts down", async () => {
    const readings = await engineLife({ startup: HIGH, warmup: HIGH, pass: HONEST, between: HIGH, shutdown: HIGH });
    expect(readings.passMib.length).toBeGreaterThan(4);
    expect(new Set(readings.passMib)).toEqual(new Set([HONEST]));
    expect(Math.max(...readings.startupMib)).toBe(HIGH);
    const memory = memoryGate(readings);
    expect(memory).toMatchObject({ ok: true, peak_mib: HONEST, startup_peak_mib: HIGH, device_mib: DEVICE_MIB });
    expect(memory.allowed_mib).toBeCloseTo(ALLOWED, 0);
  });

  it("fails the gate when the engine holds more during a timed pass", async () => {
    const readings = await engineLife({ startup: HONEST, warmup: HONEST, pass: HIGH, between: 0, shutdown: 0 });
    expect(Math.max(...readings.passMib)).toBe(HIGH);
    expect(memoryGate(readings)).toMatchObject({ ok: false, peak_mib: HIGH, startup_peak_mib: HONEST });
  });

  it("samples nothing before a window opens, and a warm-up opens none", async () => {
    await hold(HIGH);
    const sampler = startWindowedSampler(simulatedDeviceProbe(file, DEVICE_MIB), 10);
    sampler.follow({ type: "pass-started", pass: "warmup" });
    await later(60);
    const out = await sampler.stop();
    expect(out.passMib).toEqual([]);
    expect(out.startupMib).toEqual([]);
  });
});

describe("startWindowedSampler's readings", () => {
  it("counts failed readings and keeps the device's total", async () => {
    let n = 0;
    const probe: DeviceProbe = async () => {
      if (n++ === 1) throw new Error("nvidia-smi failed");
      return { usedMib: 1000 * n, totalMib: 143_771 };
    };
    const sampler = startWindowedSampler(probe, 5);
    sampler.follow({ type: "pass-started", pass: 0 });
    while (n < 6) await later(5);
    sampler.follow({ type: "pass-ended", pass: 0 });
    const out = await sampler.stop();
    expect(out.failures).toBe(1);
    expect(out.totalMib).toBe(143_771);
    expect(out.passMib.length + out.failures + out.straddled).toBe(n);
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
    const sampler = startWindowedSampler(slow, 10);
    sampler.open("pass");
    await later(200);
    sampler.close();
    const out = await sampler.stop();
    expect(most).toBe(1);
    expect(out.skipped).toBeGreaterThan(0);
    // every reading is counted once: in the window, or dropped for crossing its edge (the one in flight at close)
    expect(out.passMib.length + out.straddled).toBe(calls);
    expect(out.straddled).toBeLessThanOrEqual(1);
  });
});
