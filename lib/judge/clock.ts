import { performance } from "node:perf_hooks";

/** The judge's one clock: monotonic nanoseconds. Records store float milliseconds relative to their pass's start. */
export const nowNs = (): bigint => process.hrtime.bigint();

export const msSince = (originNs: bigint, tNs: bigint): number => Number(tNs - originNs) / 1e6;

/** A reading of `nowNs` in float milliseconds, the unit `nowMs` reads. */
export const nsToMs = (tNs: bigint): number => Number(tNs) / 1e6;

/**
 * `performance.now()` reads the same monotonic clock as `process.hrtime` (libuv's) from the process's start: the
 * offset between them, taken from the tightest of a few back-to-back readings, is constant for the process.
 */
function performanceOffsetMs(): number {
  let tightest = Number.POSITIVE_INFINITY;
  let offset = 0;
  for (let i = 0; i < 64; i++) {
    const before = performance.now();
    const t = process.hrtime.bigint();
    const after = performance.now();
    if (after - before < tightest) {
      tightest = after - before;
      offset = nsToMs(t) - (before + after) / 2;
    }
  }
  return offset;
}
const PERFORMANCE_OFFSET_MS = performanceOffsetMs();

/**
 * The judge's clock in float milliseconds (`nsToMs(nowNs())`, to a fraction of a microsecond), read without a heap
 * BigInt: what the lanes stamp every chunk with. A double holds these readings to well under a nanosecond.
 */
export const nowMs = (): number => performance.now() + PERFORMANCE_OFFSET_MS;

/** A `performance` timeline time (a GC entry's `startTime`) on the judge's clock in milliseconds. */
export const performanceToClockMs = (t: number): number => t + PERFORMANCE_OFFSET_MS;

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Waits until `targetMs` on the pass's clock. Timers run on libuv's cached millisecond clock and can fire a little
 * early, so the last millisecond is waited out with setImmediate turns (I/O keeps flowing): never before the target.
 */
export async function sleepUntil(originMs: number, targetMs: number, signal?: AbortSignal): Promise<void> {
  for (;;) {
    if (signal?.aborted) return;
    const left = targetMs - (nowMs() - originMs);
    if (left <= 0) return;
    if (left > 1.5) await sleep(left - 1, signal);
    else await immediate();
  }
}
