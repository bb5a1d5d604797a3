import { WORKLOAD_IDS, type WorkloadId } from "@/lib/protocol";
import type { LivePass } from "./live-progress";

export interface LiveRatio {
  workload: WorkloadId;
  /** The median, over the passes both engines have played so far, of the candidate's speed over the stock's. */
  ratio: number;
  /** Passes both engines finished, and whether a stock pass still running is counted at its speed so far. */
  passes: number;
  provisional: boolean;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The speedup as the stock engine's passes come in, workload by workload: each pass the candidate finished over the
 * same pass of the stock engine, finished or at its speed so far. Nothing for a workload the stock engine has not
 * started; the score itself waits for every pass and the gates.
 */
export function liveRatios(passes: readonly LivePass[]): LiveRatio[] {
  const out: LiveRatio[] = [];
  for (const workload of WORKLOAD_IDS) {
    const ratios: number[] = [];
    let finished = 0;
    let provisional = false;
    for (const stock of passes) {
      if (stock.engine !== "stock" || stock.workload !== workload || !stock.tokensPerSecond) continue;
      const candidate = passes.find(
        (p) => p.engine === "candidate" && p.workload === workload && p.pass === stock.pass && p.done,
      );
      if (candidate?.tokensPerSecond === null || candidate?.tokensPerSecond === undefined) continue;
      ratios.push(candidate.tokensPerSecond / stock.tokensPerSecond);
      if (stock.done) finished++;
      else provisional = true;
    }
    if (ratios.length > 0) out.push({ workload, ratio: median(ratios), passes: finished, provisional });
  }
  return out;
}
