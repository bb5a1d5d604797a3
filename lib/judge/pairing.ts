import { failedRequestsAllowance, type WorkloadId } from "@/lib/protocol";
import type { PassSummary } from "./speeds/summary";
import { median } from "./stats";

export interface PassRatio {
  pass: number;
  candidateSpeed: number | null;
  stockSpeed: number | null;
  candidateFailed: number;
  stockFailed: number;
  allowance: number;
  /** Candidate over stock; 0 when the candidate failed too many more requests, or has no speed. */
  ratio: number | null;
  zeroedForFailures: boolean;
}

export interface WorkloadRatio {
  workload: WorkloadId;
  passes: PassRatio[];
  /** r_w: the median over passes of the pass ratios. */
  ratio: number | null;
}

type PassLike = { summary: PassSummary } | PassSummary;
const summaryOf = (p: PassLike): PassSummary => ("summary" in p ? p.summary : p);

/**
 * Section 4's pairing: pass i of the candidate against pass i of the stock engine (the same sessions, seeds, order).
 * The allowance is taken on the stock engine's pass (its request count is the reference for "the pass's requests").
 */
export function pairPasses(candidate: readonly PassLike[], stock: readonly PassLike[]): WorkloadRatio {
  if (candidate.length !== stock.length) {
    throw new Error(`pairing needs the same passes: candidate has ${candidate.length}, stock ${stock.length}`);
  }
  if (candidate.length === 0) throw new Error("pairing needs at least one pass");
  const passes: PassRatio[] = candidate.map((c0, i) => {
    const c = summaryOf(c0);
    const s = summaryOf(stock[i]!);
    if (c.workload !== s.workload) throw new Error(`pass ${i}: candidate is ${c.workload}, stock is ${s.workload}`);
    const allowance = failedRequestsAllowance(s.requests);
    const zeroed = c.failed - s.failed > allowance;
    let ratio: number | null;
    if (zeroed) ratio = 0;
    else if (s.speed === null || s.speed <= 0) ratio = null;
    else ratio = (c.speed ?? 0) / s.speed;
    return {
      pass: i,
      candidateSpeed: c.speed,
      stockSpeed: s.speed,
      candidateFailed: c.failed,
      stockFailed: s.failed,
      allowance,
      ratio,
      zeroedForFailures: zeroed,
    };
  });
  const ratios = passes.flatMap((p) => (p.ratio === null ? [] : [p.ratio]));
  return { workload: summaryOf(candidate[0]!).workload, passes, ratio: median(ratios) };
}
