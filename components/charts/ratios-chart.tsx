"use client";

import { Bar, BarChart, CartesianGrid, Legend, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import type { BoardEntry } from "@/lib/board/board-entry";
import { entryLabel, SERIES_COLOURS } from "@/lib/board/entry-label";
import { formatRatio } from "@/lib/board/format";
import { WORKLOAD_IDS } from "@/lib/protocol";
import { ChartFigure } from "./chart-figure";
import { ChartTable } from "./chart-table";

/** The three ratios of each entry side by side; the stock engine's 1 is marked. */
export function RatiosChart({ entries, title }: { entries: BoardEntry[]; title: string }) {
  const data = entries
    .filter((e) => e.result)
    .map((e) => ({
      name: entryLabel(e),
      solo: e.result?.workloads.solo.ratio ?? null,
      team: e.result?.workloads.team.ratio ?? null,
      busy: e.result?.workloads.busy.ratio ?? null,
    }));
  if (data.length === 0) return null;
  const height = 60 + data.length * 56;
  const table = (
    <ChartTable
      caption={`${title}, as a table`}
      headers={["Entry", ...WORKLOAD_IDS]}
      rows={data.map((d, i) => ({
        key: `${i}-${d.name}`,
        cells: [d.name, ...WORKLOAD_IDS.map((w) => (d[w] === null ? "—" : `${formatRatio(d[w])}×`))],
      }))}
    />
  );
  return (
    <ChartFigure
      caption={title}
      label={`${title}: ${data.map((d) => `${d.name} solo ${d.solo?.toFixed(2)} team ${d.team?.toFixed(2)} busy ${d.busy?.toFixed(2)}`).join("; ")}`}
      height={height}
      className="w-full"
      table={table}
    >
      <BarChart data={data} layout="vertical" margin={{ left: 8, right: 16, top: 4, bottom: 4 }}>
        <CartesianGrid strokeDasharray="3 3" horizontal={false} />
        <XAxis type="number" domain={[0, "auto"]} tickFormatter={(v: number) => `${v}×`} />
        <YAxis type="category" dataKey="name" width={190} tick={{ fontSize: 12 }} />
        <Tooltip formatter={(v) => (typeof v === "number" ? `${v.toFixed(2)}×` : String(v))} />
        <Legend itemSorter={null} />
        <ReferenceLine x={1} stroke="#334155" strokeDasharray="4 2" />
        {WORKLOAD_IDS.map((w, i) => (
          <Bar key={w} dataKey={w} fill={SERIES_COLOURS[i]} isAnimationActive={false} />
        ))}
      </BarChart>
    </ChartFigure>
  );
}
