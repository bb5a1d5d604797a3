import { type GapEstimate, gapOf } from "./equivalence";
import { type Cluster, ratioEstimate } from "./ratio-estimate";

/**
 * The verdicts the result record gives (record/build-record.ts), as functions of the figures alone, so that whatever
 * else judges the same figures (the gates' power, stats/gate-power.ts) judges them exactly as an evaluation is judged.
 */

/** Target fidelity passes at or under its ceiling; texts left unmeasured fail. */
export function fidelityPasses(fidelity: number | null, ceiling: number): boolean {
  return fidelity !== null && fidelity <= ceiling;
}

/** Greedy agreement passes at or over its floor; where the task sets no floor it passes whatever was measured. */
export function greedyPasses(agreement: number | null, floor: number | null): boolean {
  return floor === null || (agreement !== null && agreement >= floor);
}

/** A sampled reply's figures as the check reads them: its scored tokens and the per-token value it sums. */
export interface ScoredTokens {
  tokens: number;
}

/**
 * The candidate's token-weighted mean of `pick` minus the stock engine's, replies as clusters; replies left unscored
 * (null) or without tokens drop out, and with none left on a side there is no gap (null).
 */
export function sampledGap<T extends ScoredTokens>(
  candidate: readonly (T | null)[],
  stock: readonly (T | null)[],
  pick: (s: T) => number,
): GapEstimate | null {
  const estimate = (scores: readonly (T | null)[]) => {
    const clusters: Cluster[] = [];
    for (const s of scores) if (s && s.tokens > 0) clusters.push({ sum: pick(s), tokens: s.tokens });
    return clusters.length === 0 ? null : ratioEstimate(clusters);
  };
  const c = estimate(candidate);
  const s = estimate(stock);
  return c && s ? gapOf(c, s) : null;
}
