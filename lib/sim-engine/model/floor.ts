/**
 * The analytic floor: a fixed distribution over the whole vocabulary (corpus counts plus one, special tokens
 * far lower) that every context mixes in with a small weight, so every token has a finite log-probability and a
 * rank. Sorted copies make ranks and top-k exact without touching the whole vocabulary (151K tokens for Qwen3) per position.
 */
export class Floor {
  readonly weights: Float64Array;
  /** Token ids by weight, highest first (ties by id). */
  readonly order: Int32Array;
  /** The weights in ascending order, for counting how many exceed a value. */
  private readonly ascending: Float64Array;
  private readonly tempered = new Map<number, { pow: Float64Array; total: number; cdf?: Float64Array }>();

  constructor(
    tokenCounts: Float64Array,
    specialIds: ReadonlySet<number>,
    /** The tokenizer's end token: special, yet as likely as the corpus makes it. */
    readonly eosId: number,
  ) {
    const n = tokenCounts.length;
    const w = new Float64Array(n);
    let total = 0;
    for (let i = 0; i < n; i++) {
      const special = specialIds.has(i) && i !== eosId;
      w[i] = special ? 0.001 : tokenCounts[i]! + 1;
      total += w[i]!;
    }
    for (let i = 0; i < n; i++) w[i] = w[i]! / total;
    this.weights = w;
    const ids = Array.from({ length: n }, (_, i) => i);
    ids.sort((a, b) => w[b]! - w[a]! || a - b);
    this.order = Int32Array.from(ids);
    this.ascending = Float64Array.from(w).sort();
  }

  get size(): number {
    return this.weights.length;
  }

  /** How many tokens have a floor weight strictly above x. */
  countAbove(x: number): number {
    const a = this.ascending;
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (a[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return a.length - lo;
  }

  /** weights^invT and their sum, cached per temperature. */
  temperedTable(invT: number): { pow: Float64Array; total: number } {
    let t = this.tempered.get(invT);
    if (!t) {
      const pow = new Float64Array(this.weights.length);
      let total = 0;
      for (let i = 0; i < pow.length; i++) {
        pow[i] = this.weights[i]! ** invT;
        total += pow[i]!;
      }
      t = { pow, total };
      this.tempered.set(invT, t);
    }
    return t;
  }

  /** Samples a token ∝ weights^invT outside `excluded` (rejection: the excluded mass is small). */
  sampleTempered(invT: number, excluded: ReadonlySet<number>, next: () => number): number {
    const t = this.temperedTable(invT) as { pow: Float64Array; total: number; cdf?: Float64Array };
    if (!t.cdf) {
      const cdf = new Float64Array(t.pow.length);
      let acc = 0;
      for (let i = 0; i < cdf.length; i++) {
        acc += t.pow[i]!;
        cdf[i] = acc;
      }
      t.cdf = cdf;
    }
    const cdf = t.cdf;
    for (let attempt = 0; attempt < 10_000; attempt++) {
      const u = next() * cdf[cdf.length - 1]!;
      let lo = 0;
      let hi = cdf.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (cdf[mid]! <= u) lo = mid + 1;
        else hi = mid;
      }
      if (!excluded.has(lo)) return lo;
    }
    for (const id of this.order) if (!excluded.has(id)) return id;
    throw new Error("floor: every token excluded");
  }
}
