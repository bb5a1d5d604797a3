import type { LivePass } from "../board/live-progress";

const FULL = "█";
const EMPTY = "░";

/** The pass's share of its fixed time, 0..1 (a finished pass is full). */
export function passShare(pass: LivePass): number {
  if (pass.done) return 1;
  if (!pass.fixedSeconds || pass.fixedSeconds <= 0) return 0;
  return Math.max(0, Math.min(1, pass.elapsedSeconds / pass.fixedSeconds));
}

/**
 * One pass as a bar: `candidate solo  pass 2/3 [█████░░░░░] 48%  3.8/8 s  21 requests  148.2 tok/s`; a finished pass
 * shows its measured speed and failures in place of the clock.
 */
export function passBar(pass: LivePass, passes: number | null, width = 20): string {
  const share = passShare(pass);
  const filled = Math.round(share * width);
  const bar = `[${FULL.repeat(filled)}${EMPTY.repeat(width - filled)}]`;
  const label = `${pass.engine.padEnd(9)} ${pass.workload.padEnd(4)} pass ${pass.pass + 1}${passes ? `/${passes}` : ""}`;
  const speed = pass.tokensPerSecond === null ? "" : `  ${pass.tokensPerSecond.toFixed(1)} tok/s`;
  const requests = `${pass.requests} request${pass.requests === 1 ? "" : "s"}`;
  if (pass.done) {
    const failed = pass.failed ? `, ${pass.failed} failed` : "";
    return `${label} ${bar} done  ${requests}${failed}${speed}`;
  }
  const clock = pass.fixedSeconds ? `  ${pass.elapsedSeconds.toFixed(1)}/${pass.fixedSeconds} s` : "";
  return `${label} ${bar} ${String(Math.round(share * 100)).padStart(3)}%${clock}  ${requests}${speed}`;
}
