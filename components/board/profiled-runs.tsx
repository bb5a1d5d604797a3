import { type Column, DataTable, type TableSpec } from "@/components/ui/data-table";
import { ProfileLabel } from "@/components/ui/status-label";
import type { BoardEntry } from "@/lib/board/board-entry";
import { formatRatio, formatScore, formatShortTime } from "@/lib/board/format";
import { WORKLOAD_IDS } from "@/lib/protocol";
import { GateCell, SolutionCell } from "./solution-cell";

const TABLE: TableSpec<BoardEntry> = {
  minWidth: "min-w-[48rem]",
  rowClassName: "border-b border-slate-100 align-top",
  rowKey: (e) => e.evaluationId,
  rowAttributes: (e) => ({ "data-evaluation": e.evaluationId }),
  columns: [
    { header: "Profile", cell: (e) => <ProfileLabel profile={e.profile} /> },
    { header: "Solution", cell: (e) => <SolutionCell entry={e} /> },
    { header: "Who", cell: (e) => e.account },
    { header: "Split", cell: (e) => e.split },
    { header: "SpecScore", align: "right", className: "tabular-nums", cell: (e) => formatScore(e.result?.score) },
    ...WORKLOAD_IDS.map(
      (w): Column<BoardEntry> => ({
        header: w,
        align: "right",
        className: "tabular-nums",
        cell: (e) => formatRatio(e.result?.workloads[w].ratio),
      }),
    ),
    { header: "Lossless gate", cell: (e) => <GateCell entry={e} /> },
    { header: "Finished (UTC)", className: "tabular-nums", cell: (e) => formatShortTime(e.finishedAt) },
  ],
};

/** Runs under a test profile: listed with their label, newest first, never ranked. */
export function ProfiledRuns({ entries }: { entries: BoardEntry[] }) {
  if (entries.length === 0) {
    return <p className="text-slate-600">No run under a test profile on this task.</p>;
  }
  return <DataTable spec={TABLE} rows={entries} caption="Test-profile runs, not ranked" testId="profiled-runs" />;
}
