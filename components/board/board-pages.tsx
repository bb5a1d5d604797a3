import type { BoardPage } from "@/lib/board/board-page";

/** The page links under a long board: which rows are shown, and links to the others (`?page=N#anchor`). */
export function BoardPages({ page, noun, anchor }: { page: BoardPage<unknown>; noun: string; anchor: string }) {
  if (page.pages <= 1) return null;
  const href = (n: number) => `?page=${n}#${anchor}`;
  // the first, the last, and two either side of the current one
  const shown = [...new Set([1, page.page - 2, page.page - 1, page.page, page.page + 1, page.page + 2, page.pages])]
    .filter((n) => n >= 1 && n <= page.pages)
    .sort((a, b) => a - b);
  return (
    <nav aria-label={`${noun} pages`} className="mt-3 flex flex-wrap items-baseline gap-x-3 gap-y-1 text-sm">
      <span className="text-slate-700">
        {page.first.toLocaleString("en")}–{page.last.toLocaleString("en")} of {page.total.toLocaleString("en")} {noun}
      </span>
      {page.page > 1 ? <a href={href(page.page - 1)}>← previous</a> : null}
      {shown.map((n, i) => (
        <span key={n}>
          {i > 0 && n - shown[i - 1]! > 1 ? <span className="mr-3 text-slate-500">…</span> : null}
          {n === page.page ? (
            <span aria-current="page" className="font-semibold">
              {n}
            </span>
          ) : (
            <a href={href(n)}>{n}</a>
          )}
        </span>
      ))}
      {page.page < page.pages ? <a href={href(page.page + 1)}>next →</a> : null}
    </nav>
  );
}
