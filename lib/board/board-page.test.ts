import { describe, expect, it } from "vitest";
import { BOARD_PAGE_SIZE, boardPage } from "./board-page";

const rows = Array.from({ length: 120 }, (_, i) => i + 1);

describe("boardPage", () => {
  it("cuts a long board into pages and says which rows a page holds", () => {
    expect(boardPage(rows, undefined, 50)).toMatchObject({ page: 1, pages: 3, first: 1, last: 50, total: 120 });
    const third = boardPage(rows, "3", 50);
    expect(third).toMatchObject({ page: 3, pages: 3, first: 101, last: 120 });
    expect(third.entries).toEqual(rows.slice(100));
  });

  it("reads a page past the end as the last and anything else as the first", () => {
    expect(boardPage(rows, "9", 50).page).toBe(3);
    for (const asked of ["0", "-2", "1.5", "abc", "", "01", "99999999", 7])
      expect(boardPage(rows, asked, 50).page).toBe(1);
    expect(boardPage(rows, ["2", "3"], 50).page).toBe(2);
  });

  it("holds BOARD_PAGE_SIZE rows a page unless told otherwise", () => {
    expect(boardPage(rows, "1").entries).toHaveLength(BOARD_PAGE_SIZE);
  });

  it("has one empty page for an empty board", () => {
    expect(boardPage([], "2")).toEqual({ entries: [], page: 1, pages: 1, first: 0, last: 0, total: 0 });
  });
});
