import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { performanceToClockMs } from "../clock";

/** One garbage-collection pause of this thread's heap, on the judge's clock (ms, `nowMs`). */
export interface GcPause {
  startMs: number;
  durationMs: number;
  kind: "minor" | "major" | "incremental" | "weak-callbacks" | "other";
}

const KINDS = new Map<number, GcPause["kind"]>([
  [constants.NODE_PERFORMANCE_GC_MINOR, "minor"],
  [constants.NODE_PERFORMANCE_GC_MAJOR, "major"],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, "incremental"],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, "weak-callbacks"],
]);

function pauseOf(e: PerformanceEntry): GcPause {
  const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
  return {
    startMs: performanceToClockMs(e.startTime),
    durationMs: e.duration,
    kind: (kind !== undefined && KINDS.get(kind)) || "other",
  };
}

/**
 * Records this thread's GC pauses (PerformanceObserver) until `stop`, which returns them in order. A pause stops the
 * lanes' event loop: a chunk that arrives during one is stamped when it ends.
 */
export function watchGc(): { stop(): GcPause[] } {
  const pauses: GcPause[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push(pauseOf(e));
  });
  observer.observe({ entryTypes: ["gc"] });
  return {
    stop() {
      for (const e of observer.takeRecords()) pauses.push(pauseOf(e));
      observer.disconnect();
      return pauses.sort((a, b) => a.startMs - b.startMs);
    },
  };
}

/** What a pass reports of its GC pauses. */
export interface GcSummary {
  pauses: number;
  totalMs: number;
  maxMs: number | null;
  /** Pauses longer than a millisecond: each could have held a chunk's arrival stamp back by as much. */
  overOneMs: number;
}

export function summarizeGc(pauses: readonly GcPause[]): GcSummary {
  let totalMs = 0;
  let maxMs: number | null = null;
  let overOneMs = 0;
  for (const p of pauses) {
    totalMs += p.durationMs;
    if (maxMs === null || p.durationMs > maxMs) maxMs = p.durationMs;
    if (p.durationMs > 1) overOneMs++;
  }
  return { pauses: pauses.length, totalMs, maxMs, overOneMs };
}

let fullGc: (() => void) | null | undefined;

/**
 * A full garbage collection now, where the runtime grants one (`--expose-gc`, or the flag set at run time and `gc`
 * taken from a fresh context); false where it does not. Before a pass's clock starts, it leaves the pass a heap with
 * nothing of earlier passes' garbage, so the old generation's collections during the pass are its own.
 */
export function collectGarbage(): boolean {
  if (fullGc === undefined) {
    const exposed = (globalThis as { gc?: unknown }).gc;
    if (typeof exposed === "function") fullGc = exposed as () => void;
    else {
      try {
        setFlagsFromString("--expose-gc");
        const gc = runInNewContext("gc") as unknown;
        fullGc = typeof gc === "function" ? (gc as () => void) : null;
      } catch {
        fullGc = null;
      }
    }
  }
  fullGc?.();
  return fullGc !== null;
}
