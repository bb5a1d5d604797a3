import { hashTokens } from "./rng";

/** Continuations seen after one context, most frequent first, truncated to the few that matter. */
export interface Continuations {
  ids: Int32Array;
  counts: Float64Array;
  /** Count over every continuation, kept ones and truncated ones. */
  total: number;
  /** Distinct continuations (Witten-Bell's N1+). */
  distinct: number;
}

export interface NgramTables {
  vocabSize: number;
  maxOrder: number;
  /** byOrder[o] maps a hashed context of o tokens to its continuations (index 0 unused). */
  byOrder: Map<number, Continuations>[];
  unigram: Continuations;
  /** Corpus count of every token id, for the analytic floor. */
  tokenCounts: Float64Array;
}

function finalize(counts: Map<number, number>, keep: number): Continuations {
  const entries = [...counts.entries()].sort((x, y) => y[1] - x[1] || x[0] - y[0]);
  let total = 0;
  for (const [, c] of entries) total += c;
  const kept = entries.slice(0, keep);
  return {
    ids: Int32Array.from(kept.map((e) => e[0])),
    counts: Float64Array.from(kept.map((e) => e[1])),
    total,
    distinct: entries.length,
  };
}

/** Counts n-gram continuations over token sequences; contexts are hashed with their length as the salt. */
export function buildTables(
  sequences: readonly (readonly number[])[],
  vocabSize: number,
  maxOrder: number,
  keepPerContext = 24,
  keepUnigram = 48,
): NgramTables {
  const raw: Map<number, Map<number, number>>[] = [];
  for (let o = 0; o <= maxOrder; o++) raw.push(new Map());
  const tokenCounts = new Float64Array(vocabSize);
  const uni = new Map<number, number>();
  for (const seq of sequences) {
    for (let i = 0; i < seq.length; i++) {
      const next = seq[i]!;
      tokenCounts[next] = (tokenCounts[next] ?? 0) + 1;
      uni.set(next, (uni.get(next) ?? 0) + 1);
      for (let o = 1; o <= maxOrder && i - o >= 0; o++) {
        const key = hashTokens(seq, i - o, i, o);
        let m = raw[o]!.get(key);
        if (!m) {
          m = new Map();
          raw[o]!.set(key, m);
        }
        m.set(next, (m.get(next) ?? 0) + 1);
      }
    }
  }
  const byOrder: Map<number, Continuations>[] = [new Map()];
  for (let o = 1; o <= maxOrder; o++) {
    const m = new Map<number, Continuations>();
    for (const [key, counts] of raw[o]!) m.set(key, finalize(counts, keepPerContext));
    byOrder.push(m);
  }
  return { vocabSize, maxOrder, byOrder, unigram: finalize(uni, keepUnigram), tokenCounts };
}
