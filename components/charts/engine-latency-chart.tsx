"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { SERIES_COLOURS } from "@/lib/board/entry-label";
import { formatMs } from "@/lib/board/format";
import type { Percentiles, WorkloadView } from "@/lib/board/result-view";

/** TTFT or TPOT percentiles per workload, candidate beside the stock engine. */
export function EngineLatencyChart({ workloads, metric }: { workloads: WorkloadView[]; metric: "ttft" | "tpot" }) {
  const title = metric === "ttft" ? "Time to first token" : "Time per output token";
  const rows: { name: string; candidate: number | null; stock: number | null }[] = [];
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
  return (
    <figure>
      <figcaption className="mb-2 font-medium">{title} (ms, lower is better)</figcaption>
      <div className="h-72" role="img" aria-label={`${title}. ${label}`}>
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={rows} margin={{ left: 0, right: 8, top: 4, bottom: 4 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="name" tick={{ fontSize: 11 }} interval={0} angle={-30} textAnchor="end" height={56} />
            <YAxis width={56} />
            <Tooltip formatter={(v) => (typeof v === "number" ? formatMs(v) : String(v))} />
            <Legend itemSorter={null} />
            <Bar dataKey="candidate" fill={SERIES_COLOURS[0]} isAnimationActive={false} />
            <Bar dataKey="stock" fill={SERIES_COLOURS[1]} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
