import type { RankedEntry } from "@/lib/board/board-entry";
import { formatRatio, formatScore } from "@/lib/board/format";
import { GateCell, SolutionCell } from "./solution-cell";

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
    <div className="overflow-x-auto">
      <table className="w-full border-collapse text-sm md:table-fixed">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr className="border-b border-slate-300 text-left text-slate-700">
            <th scope="col" className="w-8 py-2 pr-2">
              #
            </th>
            <th scope="col" className="py-2 pr-2 md:w-[34%]">
              Solution
            </th>
            <th scope="col" className="hidden py-2 pr-2 md:table-cell md:w-[16%]">
              Who
            </th>
            <th scope="col" className="py-2 pr-2 text-right md:w-24">
              SpecScore
            </th>
            <th scope="col" className="py-2 pr-2 text-right md:w-14">
              solo
            </th>
            <th scope="col" className="py-2 pr-2 text-right md:w-14">
              team
            </th>
            <th scope="col" className="py-2 pr-2 text-right md:w-14">
              busy
            </th>
            <th scope="col" className="hidden py-2 sm:table-cell">
              Lossless gate
            </th>
          </tr>
        </thead>
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
    </div>
  );
}

function SectionRow({ title }: { title: string }) {
  return (
    <tr>
      <th
        scope="rowgroup"
        colSpan={8}
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
      <td colSpan={8} className="py-3 text-slate-600">
        {text}
      </td>
    </tr>
  );
}

function Row({ entry }: { entry: RankedEntry }) {
  const r = entry.result;
  return (
    <tr className="border-b border-slate-100 align-top">
      <td className="py-2 pr-2 tabular-nums">{entry.rank}</td>
      <td className="py-2 pr-2">
        <SolutionCell entry={entry} />
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
      <td className="py-2 pr-2 text-right font-semibold tabular-nums">{formatScore(r?.score)}</td>
      <td className="py-2 pr-2 text-right tabular-nums">{formatRatio(r?.workloads.solo.ratio)}</td>
      <td className="py-2 pr-2 text-right tabular-nums">{formatRatio(r?.workloads.team.ratio)}</td>
      <td className="py-2 pr-2 text-right tabular-nums">{formatRatio(r?.workloads.busy.ratio)}</td>
      <td className="hidden py-2 sm:table-cell">
        <GateCell entry={entry} />
      </td>
    </tr>
  );
}
