import type { DeviceMemory, DeviceProbe } from "./device-probe";

export interface MemorySamples {
  samples: number;
  peakMib: number;
  totalMib: number;
  failures: number;
}

/** Samples device memory every `intervalMs` from outside the engine, keeping the peak. */
export function startMemorySampler(probe: DeviceProbe, intervalMs: number, onSample?: (m: DeviceMemory) => void) {
  const state: MemorySamples = { samples: 0, peakMib: 0, totalMib: 0, failures: 0 };
  let running = true;
  let inFlight: Promise<void> = Promise.resolve();
  const tick = () => {
    inFlight = probe()
      .then((m) => {
        state.samples += 1;
        state.totalMib = m.totalMib;
        state.peakMib = Math.max(state.peakMib, m.usedMib);
        onSample?.(m);
      })
      .catch(() => {
        state.failures += 1;
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
