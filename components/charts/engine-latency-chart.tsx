"use client";

import { formatMs } from "@/lib/board/format";
import type { Percentiles, WorkloadView } from "@/lib/board/result-view";
import { ChartFigure } from "./chart-figure";
import { ChartTable } from "./chart-table";
import { PairedBarChart, type PairedRow } from "./paired-bar-chart";

/** TTFT or TPOT percentiles per workload, candidate beside the stock engine. */
export function EngineLatencyChart({ workloads, metric }: { workloads: WorkloadView[]; metric: "ttft" | "tpot" }) {
  const title = metric === "ttft" ? "Time to first token" : "Time per output token";
  const rows: PairedRow[] = [];
  for (const w of workloads) {
    const c: Percentiles | null | undefined = w.latency.candidate?.[metric];
    const s: Percentiles | null | undefined = w.latency.stock?.[metric];
    if (!c && !s) continue;
    for (const p of ["p50", "p90", "p99"] as const) {
      rows.push({ name: `${w.workload} ${p}`, candidate: c?.[p] ?? null, stock: s?.[p] ?? null });
    }
  }
  if (rows.length === 0) return null;
  const label = rows.map((r) => `${r.name}: candidate ${formatMs(r.candidate)}, stock ${formatMs(r.stock)}`).join("; ");
  const table = (
    <ChartTable
      caption={`${title}, candidate and stock engine, per workload and percentile`}
      headers={["Workload · percentile", "Candidate", "Stock"]}
      rows={rows.map((r) => ({ key: r.name, cells: [r.name, formatMs(r.candidate), formatMs(r.stock)] }))}
    />
  );
  return (
    <ChartFigure caption={`${title} (ms, lower is better)`} label={`${title}. ${label}`} height="h-72" table={table}>
      <PairedBarChart
        data={rows}
        format={formatMs}
        xAxis={{ tick: { fontSize: 11 }, interval: 0, angle: -30, textAnchor: "end", height: 56 }}
      />
    </ChartFigure>
  );
}
