import { seededRandom } from "../stats/seeded-random";

/**
 * Draws `n` items from several groups (the workloads' timed replies) without replacement, each group's share
 * proportional to its size (largest remainders), in a seeded order: the same seed draws the same replies.
 */
export function drawAcrossGroups<T>(groups: Readonly<Record<string, readonly T[]>>, n: number, seed: number): T[] {
  if (!Number.isInteger(n) || n < 0) throw new Error(`cannot draw ${n} items`);
  const names = Object.keys(groups).sort();
  const total = names.reduce((a, k) => a + groups[k]!.length, 0);
  if (total <= n) return names.flatMap((k) => [...groups[k]!]);
  const quotas = names.map((k) => (groups[k]!.length * n) / total);
  const take = quotas.map(Math.floor);
  const order = names.map((_, i) => i).sort((a, b) => quotas[b]! - take[b]! - (quotas[a]! - take[a]!) || a - b);
  for (let left = n - take.reduce((a, b) => a + b, 0), j = 0; left > 0; left--, j++) take[order[j]!]!++;
  const rand = seededRandom(seed);
  return names.flatMap((k, i) => shuffle([...groups[k]!], rand).slice(0, take[i]));
}

function shuffle<T>(xs: T[], rand: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}
