export interface GapEstimate {
  gap: number;
  se: number;
  candidate: number;
  stock: number;
}

/** candidate − stock, with the two independent standard errors combined: se = √(se_c² + se_s²). */
export function gapOf(candidate: { mean: number; se: number }, stock: { mean: number; se: number }): GapEstimate {
  return {
    gap: candidate.mean - stock.mean,
    se: Math.sqrt(candidate.se ** 2 + stock.se ** 2),
    candidate: candidate.mean,
    stock: stock.mean,
  };
}

/** The interval [estimate − z·se, estimate + z·se]. */
export function interval(estimate: number, se: number, z: number): { low: number; high: number } {
  return { low: estimate - z * se, high: estimate + z * se };
}

/**
 * The gate's rule: a difference fails only when its whole interval lies outside [center − bound, center + bound],
 * i.e. the data show with the interval's confidence that it differs by more than the bound (either way).
 */
export function whollyOutside(low: number, high: number, center: number, bound: number): boolean {
  if (low > high) throw new Error(`interval is reversed: [${low}, ${high}]`);
  return low > center + bound || high < center - bound;
}

/** Whether a gap with its standard error passes a two-sided bound at z standard errors. */
export function gapPasses(gap: number, se: number, bound: number, z: number): boolean {
  const { low, high } = interval(gap, se, z);
  return !whollyOutside(low, high, 0, bound);
}
