import type { ReactNode } from "react";
import { ScrollRegion } from "./scroll-region";

/** Every cell's vertical padding: the table's density. */
export type CellPadding = "py-1" | "py-1.5" | "py-2";

/** Which columns keep a right gutter (pr-2): all but the last (the default), every one, or none. */
export type Gutter = "between" | "all" | "none";

export interface ColumnHeader {
  header: string;
  /** The React key; the header unless two columns could share one. */
  key?: string;
  align?: "right";
  /** Classes added to the header cell. */
  headerClassName?: string;
}

export interface Column<Row> extends ColumnHeader {
  cell: (row: Row) => ReactNode;
  /** Classes added to the body cells. */
  className?: string;
  /** Makes the body cells the rows' headers (th scope="row"), in this weight. */
  rowHeader?: "font-medium" | "font-normal";
}

interface Layout {
  /** py-2 unless given. */
  pad?: CellPadding;
  gutter?: Gutter;
}

/** What one kind of table keeps from render to render: its columns, and how its rows are keyed and laid out. */
export interface TableSpec<Row> extends Layout {
  columns: readonly Column<Row>[];
  rowKey: (row: Row) => string;
  /** A min-w-* class: below this width the table scrolls sideways rather than squeezing its columns. */
  minWidth?: string;
  /**
   * On phones (below Tailwind's sm), "cards" (the default) shows each row as a card of "header: value" lines, so no
   * column is ever off-screen; "scroll" keeps the table and lets it scroll sideways.
   */
  phone?: "cards" | "scroll";
  /** border-b border-slate-100 unless given (add align-top where cells run to several lines). */
  rowClassName?: string;
  /** data-* attributes a row carries, for the tests and scripts that find it. */
  rowAttributes?: (row: Row) => Record<`data-${string}`, string>;
}

function classes(...parts: (string | false | undefined)[]): string {
  return parts.filter(Boolean).join(" ");
}

/** The classes that turn a table into one card a row below the sm breakpoint; each cell says its header. */
const CARDS = {
  table: "max-sm:block max-sm:min-w-0",
  head: "max-sm:sr-only",
  body: "max-sm:block max-sm:space-y-3",
  row: "max-sm:block max-sm:rounded max-sm:border max-sm:border-slate-200 max-sm:px-3 max-sm:py-2",
  cell: "max-sm:flex max-sm:gap-3 max-sm:py-0.5 max-sm:pr-0 max-sm:text-left max-sm:before:w-28 max-sm:before:shrink-0 max-sm:before:font-medium max-sm:before:text-slate-600 max-sm:before:content-[attr(data-label)]",
  value: "max-sm:min-w-0 max-sm:flex-1 max-sm:[overflow-wrap:anywhere]",
} as const;

function hasGutter(gutter: Gutter, index: number, count: number): boolean {
  return gutter === "all" || (gutter === "between" && index < count - 1);
}

/** The header row, one th scope="col" a column. */
export function TableHead({
  columns,
  pad = "py-2",
  gutter = "between",
  className = "border-b border-slate-300 text-left",
  cards = false,
}: Layout & { columns: readonly ColumnHeader[]; className?: string; cards?: boolean }) {
  return (
    <thead className={cards ? CARDS.head : undefined}>
      <tr className={className}>
        {columns.map((c, i) => (
          <th
            key={c.key ?? c.header}
            scope="col"
            className={classes(
              pad,
              hasGutter(gutter, i, columns.length) && "pr-2",
              c.align === "right" && "text-right",
              c.headerClassName,
            )}
          >
            {c.header}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** A row a data item, a cell a column; with `cards`, each row a card on phones. */
export function TableBody<Row>({
  spec,
  rows,
  cards = false,
}: {
  spec: TableSpec<Row>;
  rows: readonly Row[];
  cards?: boolean;
}) {
  const { columns, pad = "py-2", gutter = "between", rowClassName = "border-b border-slate-100" } = spec;
  return (
    <tbody className={cards ? CARDS.body : undefined}>
      {rows.map((row) => (
        <tr key={spec.rowKey(row)} className={classes(rowClassName, cards && CARDS.row)} {...spec.rowAttributes?.(row)}>
          {columns.map((c, i) => {
            const gutterClass = hasGutter(gutter, i, columns.length) && "pr-2";
            const label = cards ? { "data-label": c.header } : {};
            const value = cards ? (
              <span key="value" className={CARDS.value}>
                {c.cell(row)}
              </span>
            ) : (
              c.cell(row)
            );
            return c.rowHeader ? (
              <th
                key={c.key ?? c.header}
                scope="row"
                className={classes(pad, gutterClass, "text-left", c.rowHeader, c.className, cards && CARDS.cell)}
                {...label}
              >
                {value}
              </th>
            ) : (
              <td
                key={c.key ?? c.header}
                className={classes(
                  pad,
                  gutterClass,
                  c.align === "right" && "text-right",
                  c.className,
                  cards && CARDS.cell,
                )}
                {...label}
              >
                {value}
              </td>
            );
          })}
        </tr>
      ))}
    </tbody>
  );
}

/**
 * A full-width table: on phones one card a row (or, with `phone: "scroll"`, sideways scrolling); wider, in a region
 * that scrolls sideways below its minimum width and takes keyboard focus to do so.
 */
export function DataTable<Row>({
  spec,
  rows,
  caption,
  className,
  testId,
}: {
  spec: TableSpec<Row>;
  rows: readonly Row[];
  /** Read to screen readers only: what the table lists (and the scrolling region's name). */
  caption: string;
  /** Classes added to the scrolling wrapper (its margin). */
  className?: string;
  testId?: string;
}) {
  const cards = spec.phone !== "scroll";
  return (
    <ScrollRegion label={caption} className={className}>
      <table
        className={classes("w-full", spec.minWidth, "border-collapse text-sm", cards && CARDS.table)}
        data-testid={testId}
      >
        <caption className="sr-only">{caption}</caption>
        <TableHead columns={spec.columns} pad={spec.pad} gutter={spec.gutter} cards={cards} />
        <TableBody spec={spec} rows={rows} cards={cards} />
      </table>
    </ScrollRegion>
  );
}
