"use client";

import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, type XAxisProps, YAxis } from "recharts";
import { SERIES_COLOURS } from "@/lib/board/entry-label";

export interface PairedRow {
  name: string;
  candidate: number | null;
  stock: number | null;
}

/** The candidate's bar beside the stock engine's, row by row; `format` writes a value in the tooltip. */
export function PairedBarChart({
  data,
  format,
  xAxis,
}: {
  data: PairedRow[];
  format: (value: number) => string;
  /** How the row names are drawn under the bars. */
  xAxis: Omit<XAxisProps, "dataKey">;
}) {
  return (
    <BarChart data={data} margin={{ left: 0, right: 8, top: 4, bottom: 4 }}>
      <CartesianGrid strokeDasharray="3 3" vertical={false} />
      <XAxis dataKey="name" {...xAxis} />
      <YAxis width={56} />
      <Tooltip formatter={(v) => (typeof v === "number" ? format(v) : String(v))} />
      <Legend itemSorter={null} />
      <Bar dataKey="candidate" fill={SERIES_COLOURS[0]} isAnimationActive={false} />
      <Bar dataKey="stock" fill={SERIES_COLOURS[1]} isAnimationActive={false} />
    </BarChart>
  );
}
