import { ProfileLabel } from "@/components/ui/status-label";
import type { BoardEntry } from "@/lib/board/board-entry";
import { formatRatio, formatScore, formatShortTime } from "@/lib/board/format";
import { GateCell, SolutionCell } from "./solution-cell";

/** Runs under a test profile: listed with their label, newest first, never ranked. */
export function ProfiledRuns({ entries }: { entries: BoardEntry[] }) {
  if (entries.length === 0) {
    return <p className="text-slate-600">No run under a test profile on this task.</p>;
  }
  return (
    <div className="overflow-x-auto">
      <table className="w-full min-w-[48rem] border-collapse text-sm" data-testid="profiled-runs">
        <caption className="sr-only">Test-profile runs, not ranked</caption>
        <thead>
          <tr className="border-b border-slate-300 text-left">
            <th scope="col" className="py-2 pr-2">
              Profile
            </th>
            <th scope="col" className="py-2 pr-2">
              Solution
            </th>
            <th scope="col" className="py-2 pr-2">
              Who
            </th>
            <th scope="col" className="py-2 pr-2">
              Split
            </th>
            <th scope="col" className="py-2 pr-2 text-right">
              SpecScore
            </th>
            <th scope="col" className="py-2 pr-2 text-right">
              solo
            </th>
            <th scope="col" className="py-2 pr-2 text-right">
              team
            </th>
            <th scope="col" className="py-2 pr-2 text-right">
              busy
            </th>
            <th scope="col" className="py-2 pr-2">
              Lossless gate
            </th>
            <th scope="col" className="py-2">
              Finished (UTC)
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.evaluationId} className="border-b border-slate-100 align-top" data-evaluation={e.evaluationId}>
              <td className="py-2 pr-2">
                <ProfileLabel profile={e.profile} />
              </td>
              <td className="py-2 pr-2">
                <SolutionCell entry={e} />
              </td>
              <td className="py-2 pr-2">{e.account}</td>
              <td className="py-2 pr-2">{e.split}</td>
              <td className="py-2 pr-2 text-right tabular-nums">{formatScore(e.result?.score)}</td>
              <td className="py-2 pr-2 text-right tabular-nums">{formatRatio(e.result?.workloads.solo.ratio)}</td>
              <td className="py-2 pr-2 text-right tabular-nums">{formatRatio(e.result?.workloads.team.ratio)}</td>
              <td className="py-2 pr-2 text-right tabular-nums">{formatRatio(e.result?.workloads.busy.ratio)}</td>
              <td className="py-2 pr-2">
                <GateCell entry={e} />
              </td>
              <td className="py-2 tabular-nums">{formatShortTime(e.finishedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
