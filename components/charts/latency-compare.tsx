"use client";

import { useId, useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import { RadioOptions } from "@/components/ui/radio-options";
import { useHydrated } from "@/components/ui/use-hydrated";
import type { BoardEntry } from "@/lib/board/board-entry";
import { entryLabel, SERIES_COLOURS } from "@/lib/board/entry-label";
import { formatMs } from "@/lib/board/format";
import type { Percentiles } from "@/lib/board/result-view";
import { WORKLOAD_IDS, type WorkloadId } from "@/lib/protocol";
import { ChartFigure } from "./chart-figure";
import { ChartTable } from "./chart-table";

const PICK_AT_MOST = SERIES_COLOURS.length;

function hasLatency(e: BoardEntry): boolean {
  return WORKLOAD_IDS.some((w) => {
    const l = e.result?.workloads[w].latency.candidate;
    return Boolean(l?.ttft || l?.tpot);
  });
}

/** TTFT and TPOT distributions (p50, p90, p99) of the entries a reader picks, side by side. */
export function LatencyCompare({ entries }: { entries: BoardEntry[] }) {
  const candidates = entries.filter(hasLatency);
  const [picked, setPicked] = useState<string[]>(() => candidates.slice(0, 2).map((e) => e.evaluationId));
  const [workload, setWorkload] = useState<WorkloadId>("solo");
  const id = useId();
  // a box ticked before React hydrates would change the page's checkbox and not its state
  const hydrated = useHydrated();
  if (candidates.length === 0) {
    return (
      <p className="text-slate-600">
        No entry has latency figures yet: they appear once an evaluation on this task has been scored.
      </p>
    );
  }
  const chosen = candidates.filter((e) => picked.includes(e.evaluationId));
  const toggle = (evaluationId: string) =>
    setPicked((p) =>
      p.includes(evaluationId) ? p.filter((x) => x !== evaluationId) : [...p, evaluationId].slice(-PICK_AT_MOST),
    );
  return (
    <div className="grid gap-4 lg:grid-cols-[16rem_1fr]">
      <div className="space-y-3">
        <fieldset disabled={!hydrated}>
          <legend className="font-medium">Entries to compare</legend>
          <ul className="mt-1 max-h-72 space-y-1 overflow-y-auto text-sm">
            {candidates.map((e) => (
              <li key={e.evaluationId}>
                <label className="inline-flex items-start gap-2">
                  <input
                    type="checkbox"
                    className="mt-1"
                    checked={picked.includes(e.evaluationId)}
                    onChange={() => toggle(e.evaluationId)}
                    data-evaluation={e.evaluationId}
                  />
                  <span>{entryLabel(e)}</span>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <fieldset disabled={!hydrated}>
          <legend className="font-medium">Workload</legend>
          <div className="mt-1 flex gap-3 text-sm">
            <RadioOptions name={`${id}-workload`} options={WORKLOAD_IDS} value={workload} onChange={setWorkload} />
          </div>
        </fieldset>
      </div>
      {chosen.length === 0 ? (
        <p className="text-slate-600">Pick one or more entries to see their latency distributions.</p>
      ) : (
        <div className="grid gap-6 md:grid-cols-2" data-testid="latency-charts">
          <PercentileChart
            title={`Time to first token, ${workload}`}
            entries={chosen}
            pick={(e) => e.result?.workloads[workload].latency.candidate?.ttft ?? null}
          />
          <PercentileChart
            title={`Time per output token, ${workload}`}
            entries={chosen}
            pick={(e) => e.result?.workloads[workload].latency.candidate?.tpot ?? null}
          />
        </div>
      )}
    </div>
  );
}

function PercentileChart({
  title,
  entries,
  pick,
}: {
  title: string;
  entries: BoardEntry[];
  pick: (e: BoardEntry) => Percentiles | null;
}) {
  const data = (["p50", "p90", "p99"] as const).map((p) => {
    const row: Record<string, string | number | null> = { percentile: p };
    for (const e of entries) row[e.evaluationId] = pick(e)?.[p] ?? null;
    return row;
  });
  const summary = entries
    .map((e) => {
      const v = pick(e);
      return `${entryLabel(e)}: ${v ? `p50 ${formatMs(v.p50)}, p90 ${formatMs(v.p90)}, p99 ${formatMs(v.p99)}` : "no figures"}`;
    })
    .join("; ");
  const table = (
    <ChartTable
      caption={`${title}: p50, p90 and p99 of each entry`}
      headers={["Entry", "p50", "p90", "p99"]}
      rows={entries.map((e) => {
        const v = pick(e);
        return {
          key: e.evaluationId,
          cells: [entryLabel(e), formatMs(v?.p50), formatMs(v?.p90), formatMs(v?.p99)],
        };
      })}
    />
  );
  return (
    <ChartFigure caption={`${title} (ms, lower is better)`} label={`${title}. ${summary}`} height="h-64" table={table}>
      <BarChart data={data} margin={{ left: 0, right: 8, top: 4, bottom: 4 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="percentile" />
        <YAxis width={56} />
        <Tooltip formatter={(v) => (typeof v === "number" ? formatMs(v) : String(v))} />
        <Legend itemSorter={null} />
        {entries.map((e, i) => (
          <Bar
            key={e.evaluationId}
            dataKey={e.evaluationId}
            name={entryLabel(e)}
            fill={SERIES_COLOURS[i % SERIES_COLOURS.length]}
            isAnimationActive={false}
          />
        ))}
      </BarChart>
    </ChartFigure>
  );
}
