import type { ReactNode } from "react";
import { DataTable, type TableSpec } from "@/components/ui/data-table";

type Row = { key: string; cells: ReactNode[] };

/** A plain table of the guide's: a header per column, the first column naming each row. */
export function GuideTable({ caption, head, rows }: { caption: string; head: string[]; rows: Row[] }) {
  const spec: TableSpec<Row> = {
    columns: head.map((header, i) => ({
      header,
      cell: (row: Row) => row.cells[i],
      ...(i === 0 ? { rowHeader: "font-normal" as const, className: "whitespace-nowrap" } : {}),
    })),
    rowKey: (row) => row.key,
    rowClassName: "border-b border-slate-100 align-top",
  };
  return <DataTable spec={spec} rows={rows} caption={caption} className="mt-3" />;
}
