/** Chi-square homogeneity test of two samples of categories (the distribution checks of the speculators). */

function logGamma(x: number): number {
  const c = [
    76.18009172947146, -86.50532032941678, 24.01409824083091, -1.231739572450155, 0.001208650973866179,
    -0.000005395239384953,
  ];
  let y = x;
  const tmp = x + 5.5 - (x + 0.5) * Math.log(x + 5.5);
  let ser = 1.000000000190015;
  for (const ci of c) ser += ci / ++y;
  return -tmp + Math.log((2.5066282746310007 * ser) / x);
}

/** The regularized upper incomplete gamma Q(a, x). */
export function gammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  const gln = logGamma(a);
  if (x < a + 1) {
    let sum = 1 / a;
    let del = sum;
    let ap = a;
    for (let n = 0; n < 1000; n++) {
      ap++;
      del *= x / ap;
      sum += del;
      if (Math.abs(del) < Math.abs(sum) * 1e-15) break;
    }
    return 1 - sum * Math.exp(-x + a * Math.log(x) - gln);
  }
  let b = x + 1 - a;
  let c = 1 / 1e-300;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < 1e-300) d = 1e-300;
    c = b + an / c;
    if (Math.abs(c) < 1e-300) c = 1e-300;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return Math.exp(-x + a * Math.log(x) - gln) * h;
}

export interface ChiSquareResult {
  statistic: number;
  df: number;
  pValue: number;
}

/**
 * Two-sample homogeneity test: categories expected fewer than `minExpected` times in either sample are pooled
 * into one "other" category, so the chi-square approximation holds.
 */
export function chiSquareTwoSample(
  a: ReadonlyMap<string, number>,
  b: ReadonlyMap<string, number>,
  minExpected = 5,
): ChiSquareResult {
  let na = 0;
  let nb = 0;
  for (const v of a.values()) na += v;
  for (const v of b.values()) nb += v;
  if (na === 0 || nb === 0) throw new Error("chi-square: an empty sample");
  const keys = new Set([...a.keys(), ...b.keys()]);
  const cells: [number, number][] = [];
  let otherA = 0;
  let otherB = 0;
  for (const k of keys) {
    const x = a.get(k) ?? 0;
    const y = b.get(k) ?? 0;
    const total = x + y;
    if (Math.min((total * na) / (na + nb), (total * nb) / (na + nb)) < minExpected) {
      otherA += x;
      otherB += y;
    } else cells.push([x, y]);
  }
  if (otherA + otherB > 0) cells.push([otherA, otherB]);
  let stat = 0;
  for (const [x, y] of cells) {
    const total = x + y;
    const ea = (total * na) / (na + nb);
    const eb = (total * nb) / (na + nb);
    stat += (x - ea) ** 2 / ea + (y - eb) ** 2 / eb;
  }
  const df = Math.max(1, cells.length - 1);
  return { statistic: stat, df, pValue: gammaQ(df / 2, stat / 2) };
}

export function countBy<T>(items: readonly T[], key: (t: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const it of items) {
    const k = key(it);
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}
