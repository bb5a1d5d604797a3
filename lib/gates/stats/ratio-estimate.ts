/** One cluster's contribution to a token-weighted mean: a reply's summed value and its token count. */
export interface Cluster {
  sum: number;
  tokens: number;
}

export interface RatioEstimate {
  /** Σ sum / Σ tokens: the per-token mean, weighted by tokens. */
  mean: number;
  /** Cluster-robust (linearized ratio-estimator) standard error, with the k/(k−1) small-sample factor. */
  se: number;
  clusters: number;
  tokens: number;
}

/**
 * The token-weighted mean of clustered values and its standard error, treating clusters (replies) as the
 * independent units: se² = k/(k−1) · Σ (y_i − m·n_i)² / (Σ n_i)².
 */
export function ratioEstimate(clusters: readonly Cluster[]): RatioEstimate {
  const used = clusters.filter((c) => c.tokens > 0);
  for (const c of used) {
    if (!Number.isFinite(c.sum) || !Number.isFinite(c.tokens))
      throw new Error(`cluster is not finite: ${JSON.stringify(c)}`);
  }
  const k = used.length;
  const tokens = used.reduce((a, c) => a + c.tokens, 0);
  if (k === 0) throw new Error("ratioEstimate needs at least one cluster with tokens");
  const mean = used.reduce((a, c) => a + c.sum, 0) / tokens;
  if (k === 1) return { mean, se: 0, clusters: k, tokens };
  const ss = used.reduce((a, c) => a + (c.sum - mean * c.tokens) ** 2, 0);
  const se = Math.sqrt((k / (k - 1)) * ss) / tokens;
  return { mean, se, clusters: k, tokens };
}
