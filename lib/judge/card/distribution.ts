import { z } from "zod";

/** An empirical distribution as a quantile table: `[p, value]` pairs, p rising from 0 to 1. */
export const distributionZ = z.object({
  unit: z.string(),
  samples: z.number().int().positive(),
  source: z.string(),
  quantiles: z.array(z.tuple([z.number().min(0).max(1), z.number()])).min(2),
});
export type Distribution = z.infer<typeof distributionZ>;

export const QUANTILE_POINTS = [0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1] as const;

export function distributionOf(values: readonly number[], unit: string, source: string): Distribution {
  if (values.length === 0) throw new Error(`no samples for ${source}`);
  const sorted = values.slice().sort((a, b) => a - b);
  const at = (p: number) => {
    const rank = p * (sorted.length - 1);
    const lo = Math.floor(rank);
    const hi = Math.ceil(rank);
    return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
  };
  return {
    unit,
    samples: sorted.length,
    source,
    quantiles: QUANTILE_POINTS.map((p) => [p, Math.round(at(p) * 1000) / 1000] as [number, number]),
  };
}

/** Inverse-CDF draw: `u` uniform in [0, 1) maps linearly between the table's quantiles. */
export function sample(dist: Distribution, u: number): number {
  const q = dist.quantiles;
  for (let i = 1; i < q.length; i++) {
    const [p1, v1] = q[i]!;
    const [p0, v0] = q[i - 1]!;
    if (u <= p1) return p1 === p0 ? v1 : v0 + ((v1 - v0) * (u - p0)) / (p1 - p0);
  }
  return q[q.length - 1]![1];
}

export function quantileOf(dist: Distribution, p: number): number {
  return sample(dist, p);
}
