import type { BoardEntry, RankedEntry } from "./board-entry";
import { rankWithTies, specScoreInterval } from "./rank-ties";

const time = (e: BoardEntry) => Date.parse(e.finishedAt ?? e.queuedAt);

/** The score a board ranks by: SpecScore, 0 when a gate failed; null (ranked last) when there is none. */
export function boardScore(e: BoardEntry): number | null {
  return e.result?.score ?? null;
}

/** Keeps, per key, the entry that finished last (the board shows each participant's last scored evaluation). */
export function latestPer(entries: readonly BoardEntry[], key: (e: BoardEntry) => string): BoardEntry[] {
  const latest = new Map<string, BoardEntry>();
  for (const e of entries) {
    const k = key(e);
    const held = latest.get(k);
    if (!held || time(e) > time(held)) latest.set(k, e);
  }
  return [...latest.values()];
}

/**
 * Best score first, the entry that got there first before an equal one; entries without a score come last. With the
 * task's A/A noise, entries whose SpecScore intervals overlap share a rank (rank-ties.ts); without it, every entry
 * has its own.
 */
export function rankEntries(entries: readonly BoardEntry[], noise?: number): RankedEntry[] {
  const sorted = [...entries].sort((a, b) => {
    const sa = boardScore(a);
    const sb = boardScore(b);
    if (sa === null && sb === null) return time(a) - time(b);
    if (sa === null) return 1;
    if (sb === null) return -1;
    return sb - sa || time(a) - time(b);
  });
  if (noise === undefined) return sorted.map((e, i) => ({ ...e, rank: i + 1 }));
  const withIntervals = sorted.map((e) => ({ score: boardScore(e), interval: intervalOf(e, noise) }));
  const ranks = rankWithTies(withIntervals);
  return sorted.map((e, i) => ({ ...e, ...ranks[i]!, interval: withIntervals[i]!.interval }));
}

function intervalOf(e: BoardEntry, noise: number) {
  return e.result ? specScoreInterval({ score: boardScore(e), workloads: e.result.workloads }, noise) : null;
}

/** A reference is known by its protocol key (several runs of one reference keep the last). */
export function referenceKeyOf(e: BoardEntry): string {
  return e.referenceKey ?? e.method ?? e.kind;
}
