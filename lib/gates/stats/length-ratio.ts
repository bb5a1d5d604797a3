import { interval, whollyOutside } from "./equivalence";

/** One answered timed reply: where it was sent and its length in the target's tokens. */
export interface ReplyLength {
  pass: number;
  session: string;
  turn: number;
  tokens: number;
}

export interface LengthRatio {
  /** Σ candidate / Σ stock over the paired replies; null with fewer than two pairs. */
  ratio: number | null;
  low: number | null;
  high: number | null;
  paired: true;
  replies: number;
}

const keyOf = (r: ReplyLength) => `${r.pass}\u0000${r.session}\u0000${r.turn}`;

/** Pairs the two engines' replies to the same request (same pass, session and turn); unmatched ones drop out. */
export function pairReplies(
  candidate: readonly ReplyLength[],
  stock: readonly ReplyLength[],
): { candidate: number; stock: number }[] {
  const byKey = new Map<string, number>();
  for (const r of stock) {
    const key = keyOf(r);
    if (byKey.has(key)) throw new Error(`stock replies repeat pass ${r.pass}, session ${r.session}, turn ${r.turn}`);
    byKey.set(key, r.tokens);
  }
  const seen = new Set<string>();
  const pairs: { candidate: number; stock: number }[] = [];
  for (const r of candidate) {
    const key = keyOf(r);
    if (seen.has(key)) throw new Error(`candidate replies repeat pass ${r.pass}, session ${r.session}, turn ${r.turn}`);
    seen.add(key);
    const s = byKey.get(key);
    if (s !== undefined) pairs.push({ candidate: r.tokens, stock: s });
  }
  return pairs;
}

/**
 * The mean-length ratio of paired replies with its delta-method interval:
 * var(R) ≈ Σ (c_i − R·s_i)² / (n(n−1) · s̄²).
 */
export function lengthRatio(pairs: readonly { candidate: number; stock: number }[], z: number): LengthRatio {
  const n = pairs.length;
  for (const p of pairs) {
    if (!(p.candidate >= 0 && p.stock >= 0)) throw new Error(`reply length is not a count: ${JSON.stringify(p)}`);
  }
  const sumC = pairs.reduce((a, p) => a + p.candidate, 0);
  const sumS = pairs.reduce((a, p) => a + p.stock, 0);
  if (n < 2 || sumS === 0) return { ratio: null, low: null, high: null, paired: true, replies: n };
  const ratio = sumC / sumS;
  const meanS = sumS / n;
  const ss = pairs.reduce((a, p) => a + (p.candidate - ratio * p.stock) ** 2, 0);
  const se = Math.sqrt(ss / (n * (n - 1))) / meanS;
  const { low, high } = interval(ratio, se, z);
  return { ratio, low, high, paired: true, replies: n };
}

/** Fails when the interval lies wholly outside 1 ± margin; too few pairs to judge also fails. */
export function lengthPasses(result: { low: number | null; high: number | null }, margin: number): boolean {
  if (result.low === null || result.high === null) return false;
  return !whollyOutside(result.low, result.high, 1, margin);
}
