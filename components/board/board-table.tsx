import { type ColumnHeader, TableHead } from "@/components/ui/data-table";
import { ScrollRegion } from "@/components/ui/scroll-region";
import { ProfileLabel } from "@/components/ui/status-label";
import type { RankedEntry } from "@/lib/board/board-entry";
import { formatScore } from "@/lib/board/format";
import { rankLabel } from "@/lib/board/rank-ties";
import { WORKLOAD_IDS } from "@/lib/protocol";
import { GateCell, ScoreCells, SolutionCell } from "./solution-cell";

const COLUMNS: ColumnHeader[] = [
  { header: "#", headerClassName: "w-8" },
  { header: "Solution", headerClassName: "md:w-[34%]" },
  { header: "Who", headerClassName: "hidden md:table-cell md:w-[16%]" },
  { header: "SpecScore", align: "right", headerClassName: "md:w-24" },
  ...WORKLOAD_IDS.map((w): ColumnHeader => ({ header: w, align: "right", headerClassName: "md:w-14" })),
  { header: "Lossless gate", headerClassName: "hidden sm:table-cell" },
];

/** The home page's compact board: participants, then references, as the seed's leaderboard shows them. */
export function BoardTable({
  caption,
  participants,
  references,
}: {
  caption: string;
  participants: RankedEntry[];
  references: RankedEntry[];
}) {
  return (
    <ScrollRegion label={caption}>
      <table className="w-full border-collapse text-sm md:table-fixed">
        <caption className="sr-only">{caption}</caption>
        <TableHead columns={COLUMNS} className="border-b border-slate-300 text-left text-slate-700" />
        <tbody>
          <SectionRow title="Participants" />
          {participants.length === 0 ? (
            <EmptyRow text="No scored test evaluation yet: the first participant to submit to the test split appears here." />
          ) : (
            participants.map((e) => <Row key={e.evaluationId} entry={e} />)
          )}
          <SectionRow title="References: the same judge, the same sessions" />
          {references.length === 0 ? (
            <EmptyRow text="No reference has been run yet: an operator runs them from the admin page." />
          ) : (
            references.map((e) => <Row key={e.evaluationId} entry={e} />)
          )}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

function SectionRow({ title }: { title: string }) {
  return (
    <tr>
      <th
        scope="rowgroup"
        colSpan={COLUMNS.length}
        className="bg-slate-50 py-1.5 text-left text-xs font-semibold uppercase tracking-wide text-slate-700"
      >
        {title}
      </th>
    </tr>
  );
}

function EmptyRow({ text }: { text: string }) {
  return (
    <tr>
      <td colSpan={COLUMNS.length} className="py-3 text-slate-600">
        {text}
      </td>
    </tr>
  );
}

function Row({ entry }: { entry: RankedEntry }) {
  return (
    <tr className="border-b border-slate-100 align-top">
      <td className="py-2 pr-2 tabular-nums">{rankLabel(entry)}</td>
      <td className="py-2 pr-2">
        <SolutionCell entry={entry} /> <ProfileLabel profile={entry.profile} />
        <span className="block text-xs text-slate-700 md:hidden">{entry.account}</span>
        <span className="block text-xs sm:hidden">
          <GateCell entry={entry} />
        </span>
        {entry.devGap ? (
          <span className="mt-1 block text-xs font-medium text-amber-900">
            ⚑ far below its dev result ({formatScore(entry.devGap.dev)})
          </span>
        ) : null}
      </td>
      <td className="hidden py-2 pr-2 md:table-cell">{entry.account}</td>
      <ScoreCells result={entry.result} />
      <td className="hidden py-2 sm:table-cell">
        <GateCell entry={entry} />
      </td>
    </tr>
  );
}
