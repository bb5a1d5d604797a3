import type { DeviceMemory, DeviceProbe } from "./device-probe";

/** What the windowed sampler attributes a reading to: the engine's start-up (to its first timed pass), or a pass. */
export type MemoryWindow = "startup" | "pass";

export interface WindowedReadings {
  /** Readings taken while a timed pass ran (from its start to its end, grace included): what the gate judges. */
  passMib: number[];
  /** Readings from the engine's start to its first timed pass: loading, compiling, the first warm-up. */
  startupMib: number[];
  totalMib: number;
  failures: number;
  /** Ticks that found the previous reading still running. */
  skipped: number;
  /** Readings that ended after their window had closed or changed: counted for neither side of the edge. */
  straddled: number;
}

/** The judge's pass events, as far as the sampler reads them (lib/judge/events.ts). */
type PassEvent = { type: string; pass?: number | "warmup" };

/**
 * Samples device memory every `intervalMs` only while a window is open (protocol section 7: "during the timed
 * passes"), each reading attributed to the window open when it was taken. `follow` opens the pass window on a timed
 * pass's start and closes it on its end; warm-ups, the time between passes and the engine's shutdown are not sampled,
 * and the start-up window, opened by the caller before the engine starts, ends at the first timed pass.
 * One reading at a time: a probe slower than the interval (nvidia-smi answers in ~25 ms on an idle H200, slower
 * under load) skips ticks rather than stacking processes on a loaded host.
 */
export function startWindowedSampler(
  probe: DeviceProbe,
  intervalMs: number,
  onSample?: (m: DeviceMemory, window: MemoryWindow) => void,
) {
  const out: WindowedReadings = { passMib: [], startupMib: [], totalMib: 0, failures: 0, skipped: 0, straddled: 0 };
  let window: MemoryWindow | null = null;
  // a reading counts only if its window is still the one that was open when it was taken
  let generation = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  let reading = false;
  let inFlight: Promise<void> = Promise.resolve();
  const tick = () => {
    const taken = window;
    if (taken === null) return;
    if (reading) {
      out.skipped += 1;
      return;
    }
    reading = true;
    const taking = generation;
    inFlight = probe()
      .then((m) => {
        out.totalMib = m.totalMib;
        if (taking !== generation) {
          // it straddles a window's edge (a pass's end, the engine's shutdown): it belongs to neither side
          out.straddled += 1;
          return;
        }
        (taken === "pass" ? out.passMib : out.startupMib).push(m.usedMib);
        onSample?.(m, taken);
      })
      .catch(() => {
        out.failures += 1;
      })
      .finally(() => {
        reading = false;
      });
  };
  const open = (next: MemoryWindow) => {
    if (window === next) return;
    window = next;
    generation += 1;
    clearInterval(timer);
    tick();
    timer = setInterval(tick, intervalMs);
  };
  const close = () => {
    if (window !== null) generation += 1;
    window = null;
    clearInterval(timer);
    timer = undefined;
  };
  return {
    readings: out,
    open,
    close,
    /** Opens the pass window when a timed pass starts and closes it when it ends; a warm-up changes nothing. */
    follow(event: PassEvent) {
      if (typeof event.pass !== "number") return;
      if (event.type === "pass-started") open("pass");
      else if (event.type === "pass-ended") close();
    },
    async stop(): Promise<WindowedReadings> {
      close();
      await inFlight;
      return { ...out, passMib: [...out.passMib], startupMib: [...out.startupMib] };
    },
  };
}

export type WindowedSampler = ReturnType<typeof startWindowedSampler>;
