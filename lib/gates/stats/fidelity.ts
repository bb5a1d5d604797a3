/**
 * Target fidelity: the mean absolute difference of the log-probabilities two engines give the same tokens of
 * the same texts, token-weighted over all texts. Texts either engine left unscored (null) drop out.
 */
export function fidelity(
  candidate: readonly (readonly number[] | null)[],
  stock: readonly (readonly number[] | null)[],
): { fidelity: number | null; texts: number; compared: number; tokens: number } {
  if (candidate.length !== stock.length) {
    throw new Error(`fixed texts differ in number: candidate ${candidate.length}, stock ${stock.length}`);
  }
  let sum = 0;
  let tokens = 0;
  let compared = 0;
  for (let i = 0; i < candidate.length; i++) {
    const c = candidate[i];
    const s = stock[i];
    if (!c || !s) continue;
    if (c.length !== s.length) {
      throw new Error(
        `fixed text ${i} was scored on ${c.length} tokens by the candidate and ${s.length} by the stock engine`,
      );
    }
    for (let j = 0; j < c.length; j++) sum += Math.abs(c[j]! - s[j]!);
    tokens += c.length;
    compared++;
  }
  return { fidelity: tokens === 0 ? null : sum / tokens, texts: candidate.length, compared, tokens };
}
