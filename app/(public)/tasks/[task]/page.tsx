import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AttentionLayout } from "@/components/board/attention-layout";
import { BoardPages } from "@/components/board/board-pages";
import { LiveRefresh } from "@/components/board/live-refresh";
import { ProfiledRuns } from "@/components/board/profiled-runs";
import { SortableBoard } from "@/components/board/sortable-board";
import { LatencyCompare } from "@/components/charts/latency-compare";
import { RatiosChart } from "@/components/charts/ratios-chart";
import { Section } from "@/components/ui/section";
import { boardPage } from "@/lib/board/board-page";
import { activeEvaluations } from "@/lib/board/cached-reads";
import { listBoard } from "@/lib/board/list-board";
import { currentProtocol, getTask, isTaskId } from "@/lib/protocol";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ task: string }>; searchParams: Promise<{ page?: string | string[] }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { task } = await params;
  return { title: isTaskId(task) ? `${getTask(task).name} board` : "Unknown task" };
}

export default async function TaskPage({ params, searchParams }: Props) {
  const { task: taskId } = await params;
  if (!isTaskId(taskId)) notFound();
  const task = getTask(taskId);
  const [board, active] = await Promise.all([listBoard(taskId), activeEvaluations()]);
  const protocol = currentProtocol();
  // a long board is read in pages: each answer renders one page's rows and charts, however many accounts there are
  const page = boardPage(board.participants, (await searchParams).page);
  // a reference measured only under a test profile is on the references board and among the test-profile runs
  const everyone = [...page.entries, ...board.references, ...board.profiled].filter(
    (e, i, all) => all.findIndex((x) => x.evaluationId === e.evaluationId) === i,
  );
  return (
    <div className="space-y-10">
      <LiveRefresh live={active > 0} />
      <header>
        <h1 className="text-2xl font-semibold">{task.name}</h1>
        <p className="mt-1 text-slate-700">
          {task.target.repository}@{task.target.revision.slice(0, 7)} · {task.gpu} · BF16 ·{" "}
          {task.maxModelLen.toLocaleString("en")} tokens · lanes solo {task.lanes.solo}, team {task.lanes.team}, busy{" "}
          {task.lanes.busy} · A/A speed error {(task.speedNoise.meanAbsError * 100).toFixed(1)}% on average
        </p>
        <div className="mt-3 max-w-md">
          <AttentionLayout task={task} />
        </div>
      </header>

      <Section id="participants" title="Participants">
        <p className="mt-1 max-w-prose text-sm text-slate-700">
          Each participant&apos;s last scored evaluation on the hidden test sessions under protocol {protocol.version}.
          A ⚑ marks a result far below the same account&apos;s best development result on this task.
          {page.pages > 1 ? " The board is shown by pages of ranks; a column's sort orders the page shown." : null}
        </p>
        <div className="mt-3">
          {board.participants.length === 0 ? (
            <p className="text-slate-600">
              No participant has a scored test evaluation on {task.name} yet. <a href="/submit">Submit one</a> once your
              dev runs look right.
            </p>
          ) : (
            <>
              <SortableBoard caption={`${task.name} participants`} entries={page.entries} />
              <BoardPages page={page} noun="participants" anchor="participants" />
            </>
          )}
        </div>
      </Section>

      <Section id="references" title="References: the same judge, the same sessions">
        <div className="mt-3">
          {board.references.length === 0 ? (
            <p className="text-slate-600">
              No reference has been measured on {task.name} yet: the operators measure them all at once from the admin
              page.
            </p>
          ) : (
            <SortableBoard caption={`${task.name} references`} entries={board.references} />
          )}
        </div>
      </Section>

      <Section id="charts" title="Charts" className="space-y-8">
        {page.entries.length + board.references.length > 0 ? (
          <RatiosChart
            title="Speedup over the stock engine, per workload"
            entries={[...page.entries, ...board.references]}
          />
        ) : (
          <p className="text-slate-600">The speedup chart appears with the first ranked entry.</p>
        )}
        <div>
          <h3 className="mb-2 text-lg font-semibold">Compare latency distributions</h3>
          <LatencyCompare entries={everyone} />
        </div>
      </Section>

      <Section id="profiled" title="Test-profile runs" aside={<a href="/evaluations#test-profiles">All →</a>}>
        <p className="mt-1 max-w-prose text-sm text-slate-700">
          Runs under a shortened test profile (for demos and automated tests): labelled with the profile, never ranked.
        </p>
        <div className="mt-3">
          <ProfiledRuns entries={board.profiled} />
        </div>
      </Section>
    </div>
  );
}
