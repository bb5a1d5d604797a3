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

/**
 * Every context's continuations in flat rows rather than an object and two typed arrays a context: an engine start
 * built 89,000 of them (46 MB of heap, a third of a second of CPU and the collections that followed).
 */
export interface NgramTables {
  vocabSize: number;
  maxOrder: number;
  /** byOrder[o] maps a hashed context of o tokens to its row (index 0 unused). */
  byOrder: Map<number, number>[];
  /** Row r keeps ids[rowStart[r] .. rowStart[r + 1]) with their counts: most frequent first, ties by id. */
  rowStart: Uint32Array;
  ids: Int32Array;
  counts: Float64Array;
  /** Row r's count over every continuation, kept ones and truncated ones. */
  rowTotal: Float64Array;
  /** Row r's distinct continuations (Witten-Bell's N1+). */
  rowDistinct: Float64Array;
  unigram: Continuations;
  /** Corpus count of every token id, for the analytic floor. */
  tokenCounts: Float64Array;
}

/** The `keep` most frequent of distinct ids given in ascending order, ties by id (a stable sort keeps id order). */
function mostFrequent(ids: number[], counts: number[], keep: number): number[] {
  const order = ids.map((_, i) => i);
  order.sort((x, y) => counts[y]! - counts[x]!);
  return order.slice(0, keep);
}

function unigramOf(tokenCounts: Float64Array, keep: number): Continuations {
  const ids: number[] = [];
  const counts: number[] = [];
  let total = 0;
  for (let id = 0; id < tokenCounts.length; id++) {
    if (tokenCounts[id]! === 0) continue;
    ids.push(id);
    counts.push(tokenCounts[id]!);
    total += tokenCounts[id]!;
  }
  const kept = mostFrequent(ids, counts, keep);
  return {
    ids: Int32Array.from(kept, (i) => ids[i]!),
    counts: Float64Array.from(kept, (i) => counts[i]!),
    total,
    distinct: ids.length,
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
  const tokenCounts = new Float64Array(vocabSize);
  let occurrences = 0;
  for (const seq of sequences) {
    for (const t of seq) tokenCounts[t] = tokenCounts[t]! + 1;
    for (let o = 1; o <= maxOrder; o++) occurrences += Math.max(0, seq.length - o);
  }
  // each (context, next token) occurrence with its context's row, rows numbered as first seen
  const byOrder: Map<number, number>[] = [];
  for (let o = 0; o <= maxOrder; o++) byOrder.push(new Map());
  const occurrenceRow = new Int32Array(occurrences);
  const occurrenceNext = new Int32Array(occurrences);
  let rows = 0;
  let n = 0;
  for (const seq of sequences) {
    for (let i = 0; i < seq.length; i++) {
      for (let o = 1; o <= maxOrder && i - o >= 0; o++) {
        const key = hashTokens(seq, i - o, i, o);
        let row = byOrder[o]!.get(key);
        if (row === undefined) {
          row = rows++;
          byOrder[o]!.set(key, row);
        }
        occurrenceRow[n] = row;
        occurrenceNext[n] = seq[i]!;
        n++;
      }
    }
  }
  // the occurrences grouped by row (a counting sort), each group then sorted by token id
  const groupStart = new Uint32Array(rows + 1);
  for (let k = 0; k < n; k++) groupStart[occurrenceRow[k]! + 1]!++;
  for (let r = 0; r < rows; r++) groupStart[r + 1] = groupStart[r + 1]! + groupStart[r]!;
  const grouped = new Int32Array(n);
  const fill = groupStart.slice(0, rows);
  for (let k = 0; k < n; k++) grouped[fill[occurrenceRow[k]!]!++] = occurrenceNext[k]!;

  const rowStart = new Uint32Array(rows + 1);
  const ids = new Int32Array(n);
  const counts = new Float64Array(n);
  const rowTotal = new Float64Array(rows);
  const rowDistinct = new Float64Array(rows);
  let at = 0;
  const distinctIds: number[] = [];
  const distinctCounts: number[] = [];
  for (let r = 0; r < rows; r++) {
    const group = grouped.subarray(groupStart[r]!, groupStart[r + 1]!);
    group.sort();
    distinctIds.length = 0;
    distinctCounts.length = 0;
    for (let i = 0; i < group.length; i++) {
      if (i > 0 && group[i] === group[i - 1]) distinctCounts[distinctCounts.length - 1]!++;
      else {
        distinctIds.push(group[i]!);
        distinctCounts.push(1);
      }
    }
    rowStart[r] = at;
    rowTotal[r] = group.length;
    rowDistinct[r] = distinctIds.length;
    if (distinctIds.length === 1) {
      ids[at] = distinctIds[0]!;
      counts[at++] = distinctCounts[0]!;
    } else {
      for (const i of mostFrequent(distinctIds, distinctCounts, keepPerContext)) {
        ids[at] = distinctIds[i]!;
        counts[at++] = distinctCounts[i]!;
      }
    }
  }
  rowStart[rows] = at;
  return {
    vocabSize,
    maxOrder,
    byOrder,
    rowStart,
    ids: ids.slice(0, at),
    counts: counts.slice(0, at),
    rowTotal,
    rowDistinct,
    unigram: unigramOf(tokenCounts, keepUnigram),
    tokenCounts,
  };
}
