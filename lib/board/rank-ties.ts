import { WORKLOAD_IDS, type WorkloadId } from "@/lib/protocol";

/**
 * The board's tie rule (issue 17, item 5; beyond the seeds): each workload ratio and each SpecScore carries a 95%
 * interval made from its own passes and the calibrated A/A noise, and entries whose intervals overlap share a rank.
 *
 * - A workload's passes are paired (candidate and stock engine on the same sessions), so its pass ratios are the
 *   paired measurements: on the log scale, their standard error s/√n with Student's t at n − 1 degrees of freedom.
 * - SpecScore's log is the mean of the three workloads' logs: its standard error is √(Σ se_w²)/3, its degrees of
 *   freedom Welch–Satterthwaite's.
 * - The A/A noise (the task's calibrated maximum SpecScore error of the stock engine against itself) is added in
 *   quadrature, for what the passes of one evaluation cannot see: the pod, the machine, the day.
 * - The interval is centred on the figure shown (the median of the passes, their geometric mean for SpecScore).
 */

export interface Interval {
  low: number;
  high: number;
}

/** Student's t at 97.5% for 1 … 30 degrees of freedom; 1.96 beyond. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** t at 97.5% for `df` degrees of freedom, read at the whole degrees below a fractional one (the wider side). */
export function t975(df: number): number {
  if (!(df >= 1)) throw new Error(`no t quantile for ${df} degrees of freedom`);
  const whole = Math.floor(df);
  return whole <= T975.length ? T975[whole - 1]! : 1.96;
}

interface LogSpread {
  /** standard error of the mean log pass ratio */
  se: number;
  df: number;
}

/**
 * The paired spread of a workload's pass ratios on the log scale; null when a pass is 0 (the failed-requests rule:
 * the spread is unknown). A single pass (test profiles) has no spread to read: only the A/A noise is left for it.
 */
function logSpread(passes: readonly number[]): LogSpread | null {
  if (passes.length === 0 || passes.some((p) => !(p > 0))) return null;
  const logs = passes.map(Math.log);
  if (logs.length === 1) return { se: 0, df: Number.POSITIVE_INFINITY };
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const variance = logs.reduce((a, l) => a + (l - mean) ** 2, 0) / (logs.length - 1);
  return { se: Math.sqrt(variance / logs.length), df: logs.length - 1 };
}

const around = (center: number, halfLog: number): Interval => ({
  low: center * Math.exp(-halfLog),
  high: center * Math.exp(halfLog),
});

/**
 * A workload ratio's interval: t·se of its paired passes and the A/A noise in quadrature, on the log scale. A ratio
 * of 0 is exact; a workload with a pass of 0 (the failed-requests rule) reaches down to 0.
 */
export function ratioInterval(ratio: number, passes: readonly number[], noise: number): Interval {
  if (ratio <= 0) return { low: 0, high: 0 };
  const spread = logSpread(passes);
  if (!spread) return { low: 0, high: ratio * Math.exp(Math.log1p(noise)) };
  const t = spread.se > 0 ? t975(spread.df) : 0;
  return around(ratio, Math.hypot(t * spread.se, Math.log1p(noise)));
}

export interface ScoredFigures {
  score: number | null;
  workloads: Record<WorkloadId, { ratio: number | null; passes: readonly number[] }>;
}

/**
 * SpecScore's interval: the three workloads' spreads combined (Welch–Satterthwaite), and the A/A noise in
 * quadrature. A SpecScore of 0 (a failed gate) is exact; null when there is no score. A workload with a pass of 0
 * leaves the interval reaching down to 0.
 */
export function specScoreInterval(figures: ScoredFigures, noise: number): Interval | null {
  const score = figures.score;
  if (score === null) return null;
  if (score <= 0) return { low: 0, high: 0 };
  const spreads = WORKLOAD_IDS.map((w) => logSpread(figures.workloads[w].passes));
  if (spreads.some((s) => s === null)) return { low: 0, high: score * Math.exp(Math.log1p(noise)) };
  const known = spreads as LogSpread[];
  const variance = known.reduce((a, s) => a + s.se ** 2, 0) / known.length ** 2;
  const dfDenominator = known.reduce((a, s) => a + (s.se / known.length) ** 4 / s.df, 0);
  const df = dfDenominator > 0 ? variance ** 2 / dfDenominator : Number.POSITIVE_INFINITY;
  const t = variance > 0 ? t975(Math.max(1, df)) : 0;
  return around(score, Math.hypot(t * Math.sqrt(variance), Math.log1p(noise)));
}

export interface TiedRank {
  rank: number;
  /** Another entry shares this rank. */
  tied: boolean;
}

/**
 * Ranks entries already in board order (best score first, ties broken by who got there first): an entry shares the
 * rank of the first entry of the group above it when its interval overlaps that entry's (competition ranking:
 * 1, =2, =2, 4). Overlap is tested against the group's first entry, not the one just above, so a slow drift of
 * overlapping neighbours does not tie the whole board. An entry without a score is ranked alone; one without an
 * interval counts as its score alone.
 */
export function rankWithTies(ordered: readonly { score: number | null; interval: Interval | null }[]): TiedRank[] {
  const ranks: TiedRank[] = [];
  let leader = -1;
  for (let i = 0; i < ordered.length; i++) {
    const e = ordered[i]!;
    const lead = leader >= 0 ? ordered[leader]! : null;
    if (e.score !== null && lead && lead.score !== null && overlaps(span(e), span(lead))) {
      ranks.push({ rank: leader + 1, tied: true });
      ranks[leader] = { rank: leader + 1, tied: true };
    } else {
      leader = e.score === null ? -1 : i;
      ranks.push({ rank: i + 1, tied: false });
    }
  }
  return ranks;
}

const span = (e: { score: number | null; interval: Interval | null }): Interval =>
  e.interval ?? { low: e.score!, high: e.score! };

const overlaps = (a: Interval, b: Interval) => a.low <= b.high && b.low <= a.high;

/** How the board writes a rank: "=3" when shared. */
export const rankLabel = (e: { rank: number; tied?: boolean }) => (e.tied ? `=${e.rank}` : String(e.rank));

/** The sentence the evaluation page says under the interval. */
export const INTERVAL_METHOD =
  "The interval is 95%: each workload's passes are paired with the stock engine's on the same sessions, so the spread of their log ratios gives a Student-t interval (three workloads combined for SpecScore), widened in quadrature by the task's calibrated A/A noise. Entries whose intervals overlap share a rank on the board.";
