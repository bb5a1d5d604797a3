/**
 * The share of a greedy reply that agrees with the stock engine's before their first difference:
 * the common prefix in tokens over the longer of the two, so that a reply cut short or run on agrees less.
 * Two empty replies agree fully.
 */
export function promptAgreement(candidate: readonly number[], stock: readonly number[]): number {
  const longer = Math.max(candidate.length, stock.length);
  if (longer === 0) return 1;
  let same = 0;
  while (same < candidate.length && same < stock.length && candidate[same] === stock[same]) same++;
  return same / longer;
}

export interface GreedyAgreement {
  /** Mean over prompts both engines answered; null when none were. */
  agreement: number | null;
  prompts: number;
  compared: number;
}

/** Greedy agreement over probe prompts: replies are token ids, null where that engine left the probe unanswered. */
export function greedyAgreement(
  candidate: readonly (readonly number[] | null)[],
  stock: readonly (readonly number[] | null)[],
): GreedyAgreement {
  if (candidate.length !== stock.length) {
    throw new Error(`greedy probes differ in number: candidate ${candidate.length}, stock ${stock.length}`);
  }
  const shares: number[] = [];
  for (let i = 0; i < candidate.length; i++) {
    const c = candidate[i];
    const s = stock[i];
    if (c && s) shares.push(promptAgreement(c, s));
  }
  const agreement = shares.length === 0 ? null : shares.reduce((a, b) => a + b, 0) / shares.length;
  return { agreement, prompts: candidate.length, compared: shares.length };
}
