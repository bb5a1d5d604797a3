/** Percentile by linear interpolation between closest ranks (numpy's default), the way vLLM's benchmarks report. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = values.slice().sort((a, b) => a - b);
  return percentileSorted(sorted, p);
}

export function percentileSorted(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (rank - lo);
}

export function median(values: readonly number[]): number | null {
  return percentile(values, 50);
}

export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

export interface Percentiles {
  p50: number | null;
  p90: number | null;
  p99: number | null;
  mean: number | null;
  count: number;
}

export function percentiles(values: readonly number[]): Percentiles {
  const sorted = values.slice().sort((a, b) => a - b);
  return {
    p50: percentileSorted(sorted, 50),
    p90: percentileSorted(sorted, 90),
    p99: percentileSorted(sorted, 99),
    mean: mean(sorted),
    count: sorted.length,
  };
}
