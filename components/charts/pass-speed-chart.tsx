"use client";

import { formatRatio, formatTokensPerSecond, passNumber } from "@/lib/board/format";
import { ChartFigure } from "./chart-figure";
import { ChartTable } from "./chart-table";
import { PairedBarChart } from "./paired-bar-chart";

export interface PassSpeed {
  workload: string;
  pass: number;
  candidate: number | null;
  stock: number | null;
}

/** Each pass's tokens per second, candidate beside the stock engine. */
export function PassSpeedChart({ passes }: { passes: PassSpeed[] }) {
  const data = passes.map((p) => ({
    name: `${p.workload} ${passNumber(p.pass)}`,
    candidate: p.candidate,
    stock: p.stock,
  }));
  const label = data
    .map((d) => `${d.name}: candidate ${formatTokensPerSecond(d.candidate)}, stock ${formatTokensPerSecond(d.stock)}`)
    .join("; ");
  const table = (
    <ChartTable
      caption="Tokens per second in each pass, candidate and stock engine, and their ratio"
      headers={["Workload · pass", "Candidate", "Stock", "Ratio"]}
      rows={data.map((d) => ({
        key: d.name,
        cells: [
          d.name,
          formatTokensPerSecond(d.candidate),
          formatTokensPerSecond(d.stock),
          d.candidate !== null && d.stock ? `${formatRatio(d.candidate / d.stock)}×` : "—",
        ],
      }))}
    />
  );
  return (
    <ChartFigure
      caption="Tokens per second in each pass"
      label={`Tokens per second in each pass. ${label}`}
      height="h-72"
      table={table}
    >
      <PairedBarChart data={data} format={formatTokensPerSecond} xAxis={{ tick: { fontSize: 12 } }} />
    </ChartFigure>
  );
}
