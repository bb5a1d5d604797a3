import { failedRequestsAllowance } from "@/lib/protocol";

/** One timed pass of a workload as both engines ran it. */
export interface PassSpeeds {
  candidateSpeed: number;
  stockSpeed: number;
  candidateFailed: number;
  stockFailed: number;
  /** Requests the pass sent (the base of the 1% allowance). */
  requests: number;
}

/** The failed-requests rule (protocol section 7): the candidate failed more than the stock engine, beyond the allowance. */
export function breaksFailuresRule(pass: PassSpeeds): boolean {
  return pass.candidateFailed - pass.stockFailed > failedRequestsAllowance(pass.requests);
}

/** A pass's speed ratio; 0 when the candidate failed more requests than the stock engine beyond the allowance. */
export function passRatio(pass: PassSpeeds): number {
  if (!(pass.stockSpeed > 0)) throw new Error(`stock speed must be positive, got ${pass.stockSpeed}`);
  if (breaksFailuresRule(pass)) return 0;
  return Math.max(0, pass.candidateSpeed) / pass.stockSpeed;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of no values");
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** (Π r)^(1/n): the geometric mean of the workloads' ratios (0 when any is 0). */
export function geometricMean(ratios: readonly number[]): number {
  if (ratios.length === 0) throw new Error("geometric mean of no ratios");
  for (const r of ratios)
    if (!(r >= 0) || !Number.isFinite(r)) throw new Error(`ratio is not a non-negative number: ${r}`);
  return ratios.reduce((a, b) => a * b, 1) ** (1 / ratios.length);
}
