/**
 * The order that ends a few-at-a-time run of files soonest, given each file's time: longest first (a file started
 * late must not be a long one). A file with no known time goes first, as vitest runs its unknown files first: it
 * may be the longest.
 */
export function longestFirst<T>(items: readonly T[], secondsOf: (item: T) => number | undefined): T[] {
  const key = (item: T) => secondsOf(item) ?? Number.POSITIVE_INFINITY;
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => key(b.item) - key(a.item) || a.index - b.index)
    .map(({ item }) => item);
}
