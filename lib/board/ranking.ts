import type { BoardEntry, RankedEntry } from "./board-entry";

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

/** Best score first; a tie goes to the entry that got there first; entries without a score come last. */
export function rankEntries(entries: readonly BoardEntry[]): RankedEntry[] {
  const sorted = [...entries].sort((a, b) => {
    const sa = boardScore(a);
    const sb = boardScore(b);
    if (sa === null && sb === null) return time(a) - time(b);
    if (sa === null) return 1;
    if (sb === null) return -1;
    return sb - sa || time(a) - time(b);
  });
  return sorted.map((e, i) => ({ ...e, rank: i + 1 }));
}

/** A reference is known by its protocol key (several runs of one reference keep the last). */
export function referenceKeyOf(e: BoardEntry): string {
  return e.referenceKey ?? e.method ?? e.kind;
}
