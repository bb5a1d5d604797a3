"use client";

import { useMemo, useState } from "react";
import { RadioOptions } from "@/components/ui/radio-options";
import { ScrollRegion } from "@/components/ui/scroll-region";
import { ProfileLabel } from "@/components/ui/status-label";
import type { RankedEntry } from "@/lib/board/board-entry";
import { formatMs, formatRatio, formatScore, formatShare } from "@/lib/board/format";
import { rankLabel } from "@/lib/board/rank-ties";
import { defaultDirection, type SortDirection, type SortKey, sortBoard } from "@/lib/board/sort-board";
import { WORKLOAD_IDS, type WorkloadId } from "@/lib/protocol";
import { GateCell, ScoreCells, SolutionCell } from "./solution-cell";

/** The task page's full board: every column sortable, latency, cache hit and acceptance for a chosen workload. */
export function SortableBoard({ caption, entries }: { caption: string; entries: RankedEntry[] }) {
  const [workload, setWorkload] = useState<WorkloadId>("solo");
  const [sort, setSort] = useState<{ key: SortKey; direction: SortDirection }>({ key: "rank", direction: "asc" });
  const rows = useMemo(() => sortBoard(entries, sort.key, sort.direction), [entries, sort]);

  const header = (key: SortKey, label: string, align: "left" | "right" = "right") => {
    const active = sort.key === key;
    const ariaSort = active ? (sort.direction === "asc" ? "ascending" : "descending") : "none";
    return (
      <th scope="col" aria-sort={ariaSort} className={`py-2 pr-2 ${align === "right" ? "text-right" : "text-left"}`}>
        <button
          type="button"
          className="font-semibold text-slate-800 hover:underline"
          onClick={() =>
            setSort((s) => ({
              key,
              direction: s.key === key ? (s.direction === "asc" ? "desc" : "asc") : defaultDirection(key),
            }))
          }
        >
          {label}
          <span aria-hidden="true">{active ? (sort.direction === "asc" ? " ▲" : " ▼") : ""}</span>
        </button>
      </th>
    );
  };

  return (
    <div>
      <fieldset className="mb-2 flex flex-wrap items-center gap-3 text-sm">
        <legend className="sr-only">Workload for the latency, cache and acceptance columns</legend>
        <span className="text-slate-700">Latency, cache hit and acceptance on</span>
        <RadioOptions name={`${caption}-workload`} options={WORKLOAD_IDS} value={workload} onChange={setWorkload} />
      </fieldset>
      <ScrollRegion label={caption}>
        <table className="w-full min-w-[68rem] border-collapse text-sm">
          <caption className="sr-only">{caption}, sortable by each column</caption>
          <thead>
            <tr className="border-b border-slate-300">
              {header("rank", "#", "left")}
              {header("solution", "Solution", "left")}
              {header("who", "Who", "left")}
              {header("score", "SpecScore")}
              {header("solo", "solo")}
              {header("team", "team")}
              {header("busy", "busy")}
              <th scope="col" className="py-2 pr-2 text-left">
                Lossless gate
              </th>
              {header(`ttft-${workload}`, `TTFT p50/p90/p99`)}
              {header(`tpot-${workload}`, `TPOT p50/p90/p99`)}
              {header(`cache-${workload}`, "cache hit")}
              {header(`acceptance-${workload}`, "tokens/step (engine-reported)")}
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => {
              const w = e.result?.workloads[workload];
              const ttft = w?.latency.candidate?.ttft;
              const tpot = w?.latency.candidate?.tpot;
              return (
                <tr key={e.evaluationId} className="border-b border-slate-100 align-top">
                  <td className="py-2 pr-2 tabular-nums">{rankLabel(e)}</td>
                  <td className="py-2 pr-2">
                    <SolutionCell entry={e} /> <ProfileLabel profile={e.profile} />
                    {e.devGap ? (
                      <span className="mt-1 block text-xs font-medium text-amber-900">
                        ⚑ far below its dev result: {formatScore(e.devGap.test)} here, {formatScore(e.devGap.dev)} on
                        dev ({Math.round(e.devGap.drop * 100)}% lower)
                      </span>
                    ) : null}
                  </td>
                  <td className="py-2 pr-2">{e.account}</td>
                  <ScoreCells result={e.result} />
                  <td className="py-2 pr-2">
                    <GateCell entry={e} />
                  </td>
                  <td className="py-2 pr-2 text-right tabular-nums whitespace-nowrap">
                    {ttft ? `${formatMs(ttft.p50)} / ${formatMs(ttft.p90)} / ${formatMs(ttft.p99)}` : "—"}
                  </td>
                  <td className="py-2 pr-2 text-right tabular-nums whitespace-nowrap">
                    {tpot ? `${formatMs(tpot.p50)} / ${formatMs(tpot.p90)} / ${formatMs(tpot.p99)}` : "—"}
                  </td>
                  <td className="py-2 pr-2 text-right tabular-nums">{formatShare(w?.cacheHit.candidate)}</td>
                  <td className="py-2 pr-2 text-right tabular-nums">
                    {w?.acceptanceCredible === false ? (
                      <span title={w.acceptanceWhy ?? undefined}>{formatRatio(w.acceptance)} ✗ not credible</span>
                    ) : (
                      formatRatio(w?.acceptance)
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollRegion>
    </div>
  );
}
