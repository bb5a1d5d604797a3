import type { DeviceMemory, DeviceProbe } from "./device-probe";

export interface MemorySamples {
  samples: number;
  peakMib: number;
  totalMib: number;
  failures: number;
  /** Ticks that found the previous reading still running (nvidia-smi answers in ~25 ms on an idle H200, slower under load). */
  skipped: number;
}

/**
 * Samples device memory every `intervalMs` from outside the engine, keeping the peak. One reading at a time: a probe
 * slower than the interval skips ticks rather than stacking nvidia-smi processes on a loaded host.
 */
export function startMemorySampler(probe: DeviceProbe, intervalMs: number, onSample?: (m: DeviceMemory) => void) {
  const state: MemorySamples = { samples: 0, peakMib: 0, totalMib: 0, failures: 0, skipped: 0 };
  let running = true;
  let reading = false;
  let inFlight: Promise<void> = Promise.resolve();
  const tick = () => {
    if (reading) {
      state.skipped += 1;
      return;
    }
    reading = true;
    inFlight = probe()
      .then((m) => {
        state.samples += 1;
        state.totalMib = m.totalMib;
        state.peakMib = Math.max(state.peakMib, m.usedMib);
        onSample?.(m);
      })
      .catch(() => {
        state.failures += 1;
      })
      .finally(() => {
        reading = false;
      });
  };
  tick();
  const timer = setInterval(() => {
    if (running) tick();
  }, intervalMs);
  return {
    state,
    async stop(): Promise<MemorySamples> {
      running = false;
      clearInterval(timer);
      await inFlight;
      return { ...state };
    },
  };
}
