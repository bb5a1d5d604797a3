import { type Column, DataTable, type TableSpec } from "@/components/ui/data-table";

export interface ChartTableRow {
  key: string;
  /** The row's name, then one value a column after it. */
  cells: readonly string[];
}

/** A chart's figures as a table, under the chart: for reading exact values, and for readers who cannot see it. */
export function ChartTable({
  caption,
  headers,
  rows,
}: {
  caption: string;
  /** The first names the rows; the rest are right-aligned figures. */
  headers: readonly string[];
  rows: readonly ChartTableRow[];
}) {
  const spec: TableSpec<ChartTableRow> = {
    pad: "py-1",
    rowKey: (r) => r.key,
    columns: headers.map(
      (header, i): Column<ChartTableRow> =>
        i === 0
          ? { header, key: `c${i}`, rowHeader: "font-normal", cell: (r) => r.cells[i] }
          : { header, key: `c${i}`, align: "right", className: "tabular-nums", cell: (r) => r.cells[i] },
    ),
  };
  return (
    <details className="mt-2 text-sm" data-testid="chart-table">
      <summary className="cursor-pointer text-slate-700">The figures as a table</summary>
      <DataTable className="mt-1" spec={spec} rows={rows} caption={caption} />
    </details>
  );
}
