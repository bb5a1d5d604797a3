import type { ReactNode } from "react";

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
  /** border-b border-slate-100 unless given (add align-top where cells run to several lines). */
  rowClassName?: string;
  /** data-* attributes a row carries, for the tests and scripts that find it. */
  rowAttributes?: (row: Row) => Record<`data-${string}`, string>;
}

function classes(...parts: (string | false | undefined)[]): string {
  return parts.filter(Boolean).join(" ");
}

function hasGutter(gutter: Gutter, index: number, count: number): boolean {
  return gutter === "all" || (gutter === "between" && index < count - 1);
}

/** The header row, one th scope="col" a column. */
export function TableHead({
  columns,
  pad = "py-2",
  gutter = "between",
  className = "border-b border-slate-300 text-left",
}: Layout & { columns: readonly ColumnHeader[]; className?: string }) {
  return (
    <thead>
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

/** A row a data item, a cell a column. */
export function TableBody<Row>({ spec, rows }: { spec: TableSpec<Row>; rows: readonly Row[] }) {
  const { columns, pad = "py-2", gutter = "between", rowClassName = "border-b border-slate-100" } = spec;
  return (
    <tbody>
      {rows.map((row) => (
        <tr key={spec.rowKey(row)} className={rowClassName} {...spec.rowAttributes?.(row)}>
          {columns.map((c, i) => {
            const gutterClass = hasGutter(gutter, i, columns.length) && "pr-2";
            return c.rowHeader ? (
              <th
                key={c.key ?? c.header}
                scope="row"
                className={classes(pad, gutterClass, "text-left", c.rowHeader, c.className)}
              >
                {c.cell(row)}
              </th>
            ) : (
              <td
                key={c.key ?? c.header}
                className={classes(pad, gutterClass, c.align === "right" && "text-right", c.className)}
              >
                {c.cell(row)}
              </td>
            );
          })}
        </tr>
      ))}
    </tbody>
  );
}

/** A full-width table in a wrapper that scrolls sideways on narrow screens. */
export function DataTable<Row>({
  spec,
  rows,
  caption,
  className,
  testId,
}: {
  spec: TableSpec<Row>;
  rows: readonly Row[];
  /** Read to screen readers only: what the table lists. */
  caption?: string;
  /** Classes added to the scrolling wrapper (its margin). */
  className?: string;
  testId?: string;
}) {
  return (
    <div className={classes(className, "overflow-x-auto")}>
      <table className={classes("w-full", spec.minWidth, "border-collapse text-sm")} data-testid={testId}>
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        <TableHead columns={spec.columns} pad={spec.pad} gutter={spec.gutter} />
        <TableBody spec={spec} rows={rows} />
      </table>
    </div>
  );
}
