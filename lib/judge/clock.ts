/** The judge's one clock: monotonic nanoseconds. Records store float milliseconds relative to their pass's start. */
export const nowNs = (): bigint => process.hrtime.bigint();

export const msSince = (originNs: bigint, tNs: bigint): number => Number(tNs - originNs) / 1e6;

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
export async function sleepUntil(originNs: bigint, targetMs: number, signal?: AbortSignal): Promise<void> {
  for (;;) {
    if (signal?.aborted) return;
    const left = targetMs - msSince(originNs, nowNs());
    if (left <= 0) return;
    if (left > 1.5) await sleep(left - 1, signal);
    else await immediate();
  }
}
