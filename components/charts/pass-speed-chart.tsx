"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { SERIES_COLOURS } from "@/lib/board/entry-label";
import { formatTokensPerSecond, passNumber } from "@/lib/board/format";

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
  return (
    <figure>
      <figcaption className="mb-2 font-medium">Tokens per second in each pass</figcaption>
      <div className="h-72" role="img" aria-label={`Tokens per second in each pass. ${label}`}>
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} margin={{ left: 0, right: 8, top: 4, bottom: 4 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="name" tick={{ fontSize: 12 }} />
            <YAxis width={56} />
            <Tooltip formatter={(v) => (typeof v === "number" ? formatTokensPerSecond(v) : String(v))} />
            <Legend itemSorter={null} />
            <Bar dataKey="candidate" fill={SERIES_COLOURS[0]} isAnimationActive={false} />
            <Bar dataKey="stock" fill={SERIES_COLOURS[1]} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
