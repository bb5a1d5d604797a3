/** Ranked rows a task page shows at once; the rest are a page link away. */
export const BOARD_PAGE_SIZE = 25;

export interface BoardPage<T> {
  entries: T[];
  /** 1-based. */
  page: number;
  pages: number;
  /** 1-based positions of the first and last entry shown (0 and 0 when there is none). */
  first: number;
  last: number;
  total: number;
}

/**
 * One page of a long board, from the `?page=` a reader asked for: a page past the end shows the last one, and
 * anything that is not a positive whole number the first. Rendering a thousand rows per answer is what made the
 * board slow at scale; a page renders the same work whatever the board's length.
 */
export function boardPage<T>(entries: readonly T[], asked: unknown, size = BOARD_PAGE_SIZE): BoardPage<T> {
  const pages = Math.max(1, Math.ceil(entries.length / size));
  const raw = Array.isArray(asked) ? asked[0] : asked;
  const n = typeof raw === "string" && /^[1-9][0-9]{0,6}$/.test(raw) ? Number(raw) : 1;
  const page = Math.min(n, pages);
  const shown = entries.slice((page - 1) * size, page * size);
  const first = shown.length === 0 ? 0 : (page - 1) * size + 1;
  return {
    entries: shown,
    page,
    pages,
    first,
    last: first === 0 ? 0 : first + shown.length - 1,
    total: entries.length,
  };
}
