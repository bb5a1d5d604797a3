import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { EngineLatencyChart } from "@/components/charts/engine-latency-chart";
import { PassSpeedChart } from "@/components/charts/pass-speed-chart";
import { LiveProgress } from "@/components/evaluation/live-progress";
import { ProfileLabel, StatusLabel } from "@/components/ui/status-label";
import { formatDuration, formatRatio, formatScore, formatShare, formatUtc, shortRevision } from "@/lib/board/format";
import { gateAnchor } from "@/lib/board/gate-anchor";
import { type EvaluationPage, getEvaluationPage } from "@/lib/board/get-evaluation";
import { pairPassSpeeds } from "@/lib/board/pass-speeds";
import { orderedRecord } from "@/lib/board/record-order";
import { isAppError } from "@/lib/http/app-error";
import { getTask, isTaskId, WORKLOAD_IDS } from "@/lib/protocol";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

/** One read per request, shared by the metadata and the page. */
const readPage = cache((id: string) => getEvaluationPage(id));

async function load(id: string): Promise<EvaluationPage> {
  try {
    return await readPage(id);
  } catch (error) {
    if (isAppError(error) && error.code === "not_found") notFound();
    throw error;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  try {
    const page = await readPage(id);
    return { title: page.entry.method || `evaluation ${id}` };
  } catch {
    return { title: "Evaluation" };
  }
}

const ACTIVE = ["queued", "fetching", "running", "checking"];
const WORKLOAD_WORDS = { solo: "one lane", team: "team lanes busy", busy: "KV cache nearly full" } as const;

export default async function EvaluationPageView({ params }: Props) {
  const { id } = await params;
  const page = await load(id);
  const { entry } = page;
  const result = entry.result;
  const taskName = isTaskId(entry.taskId) ? getTask(entry.taskId).name : entry.taskId;
  const active = ACTIVE.includes(entry.status);
  const passPairs = pairPassSpeeds(page.passes);
  const workloadViews = result ? WORKLOAD_IDS.map((w) => result.workloads[w]) : [];

  return (
    <article className="space-y-8">
      <header>
        <p className="text-sm text-slate-700">
          <a href={`/tasks/${entry.taskId}`}>{taskName}</a> · {entry.split === "test" ? "scored" : "development"}{" "}
          <ProfileLabel profile={entry.profile} />
        </p>
        <h1 className="mt-1 text-2xl font-semibold break-words">{entry.method || "(no method given)"}</h1>
        <p className="mt-1 flex flex-wrap items-center gap-x-2 text-sm text-slate-700">
          <span>{entry.account}</span>
          <span>{entry.kind}</span>
          <StatusLabel status={entry.status} />
          <span>submitted {formatUtc(entry.queuedAt)}</span>
          {entry.profile !== "full" ? (
            <span className="text-amber-900">run under a test profile: not ranked on the public board</span>
          ) : null}
        </p>
      </header>

      {entry.status === "void" ? (
        <div role="note" className="rounded border border-zinc-400 bg-zinc-50 p-4">
          <p className="font-semibold">This evaluation is void.</p>
          <p className="mt-1 text-sm text-slate-700">
            {result?.voidReason ?? page.reason ?? "voided by the operators"}
          </p>
          {page.refund ? (
            <p className="mt-1 text-sm text-slate-700">
              Its budget charge was refunded on {formatUtc(page.refund.at)}.
            </p>
          ) : null}
        </div>
      ) : page.refund ? (
        <p role="note" className="rounded border border-zinc-300 bg-zinc-50 p-3 text-sm">
          Its budget charge was refunded on {formatUtc(page.refund.at)}.
        </p>
      ) : null}

      {page.devGap ? (
        <p role="note" className="rounded border border-amber-500 bg-amber-50 p-3 text-sm text-amber-950">
          ⚑ Flagged: this scored result ({formatScore(page.devGap.test)}) is {Math.round(page.devGap.drop * 100)}% below
          the same account&apos;s best development result on this task ({formatScore(page.devGap.dev)}). A speculator
          that memorized public text gains less on the hidden sessions.
        </p>
      ) : null}

      {active ? (
        <LiveProgress
          submissionId={entry.submissionId}
          status={entry.status}
          phase={page.phase}
          queuePosition={page.queuePosition}
        />
      ) : null}

      {entry.status === "failed" ? (
        <section aria-labelledby="failed" className="rounded border border-red-300 bg-red-50 p-4">
          <h2 id="failed" className="font-semibold text-red-900">
            The evaluation failed
          </h2>
          <p className="mt-1 text-sm">{page.reason ?? "no reason was recorded"}</p>
          {page.logTail ? (
            <details open className="mt-3">
              <summary className="cursor-pointer text-sm font-medium">The engine&apos;s log, last lines</summary>
              <pre className="mt-2 max-h-96 overflow-auto rounded bg-slate-900 p-3 text-xs text-slate-100">
                {page.logTail}
              </pre>
            </details>
          ) : null}
        </section>
      ) : null}

      {entry.status === "cancelled" ? (
        <p className="text-slate-700">This evaluation was cancelled before it ran.</p>
      ) : null}

      {result && entry.status !== "void" ? (
        <>
          <section aria-labelledby="verdict">
            <h2 id="verdict" className="sr-only">
              Verdict
            </h2>
            <p className="text-lg font-medium" data-testid="verdict">
              {result.lossless ? "Passed every gate." : `Failed a gate: ${result.reason ?? "see the table below"}.`}
            </p>
            <p className="mt-3 flex flex-wrap items-baseline gap-x-3">
              <span className="text-slate-700">SpecScore</span>
              <span className="text-4xl font-semibold tabular-nums" data-testid="specscore">
                {formatScore(result.score)}
              </span>
              <span className="text-sm text-slate-700">
                geometric mean of the three speedups{result.lossless === false ? "; 0 because a gate failed" : ""}
                {result.lossless === false && result.speedup !== null
                  ? ` (their mean was ${formatScore(result.speedup)})`
                  : ""}
              </span>
            </p>
            <dl className="mt-4 grid gap-3 sm:grid-cols-3">
              {workloadViews.map((w) => (
                <div key={w.workload} className="rounded border border-slate-200 p-3">
                  <dt className="text-sm text-slate-700">{w.workload}</dt>
                  <dd>
                    <span className="text-2xl font-semibold tabular-nums">{formatRatio(w.ratio)}×</span>{" "}
                    <span className="text-sm text-slate-700">{WORKLOAD_WORDS[w.workload]}</span>
                    <span className="block text-xs text-slate-600 tabular-nums">
                      passes {w.passes.map((p) => formatRatio(p)).join(", ") || "—"}
                    </span>
                  </dd>
                </div>
              ))}
            </dl>
          </section>

          {page.gates.length > 0 ? (
            <section aria-labelledby="gates">
              <div className="flex flex-wrap items-baseline justify-between gap-2">
                <h2 id="gates" className="text-xl font-semibold">
                  Lossless gate
                </h2>
                <a href="/gates">what each check is →</a>
              </div>
              <div className="mt-2 overflow-x-auto">
                <table className="w-full min-w-[36rem] border-collapse text-sm">
                  <caption className="sr-only">Each check, what was measured, its limit, and whether it passed</caption>
                  <thead>
                    <tr className="border-b border-slate-300 text-left">
                      <th scope="col" className="py-2 pr-2">
                        Check
                      </th>
                      <th scope="col" className="py-2 pr-2">
                        Measured
                      </th>
                      <th scope="col" className="py-2 pr-2">
                        Limit
                      </th>
                      <th scope="col" className="py-2">
                        Result
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.gates.map((g) => (
                      <tr key={g.check} className="border-b border-slate-100 align-top">
                        <th scope="row" className="py-2 pr-2 text-left font-normal">
                          <a href={`/gates#${gateAnchor(g.key, g.check)}`}>{g.check}</a>
                        </th>
                        <td className="py-2 pr-2 tabular-nums">{g.measured}</td>
                        <td className="py-2 pr-2 tabular-nums">{g.limit}</td>
                        <td className="py-2">
                          {g.pass ? (
                            <span className="text-emerald-800">pass</span>
                          ) : (
                            <span className="font-semibold text-red-800">
                              fail{g.reason ? <span className="block text-xs font-normal">{g.reason}</span> : null}
                            </span>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </section>
          ) : null}

          <section aria-labelledby="speculation">
            <h2 id="speculation" className="text-xl font-semibold">
              Speculation
            </h2>
            <div className="mt-2 overflow-x-auto">
              <table className="w-full min-w-[30rem] border-collapse text-sm">
                <caption className="sr-only">
                  Tokens per verify step as the engine reports them, and the speedup
                </caption>
                <thead>
                  <tr className="border-b border-slate-300 text-left">
                    <th scope="col" className="py-2 pr-2">
                      Workload
                    </th>
                    <th scope="col" className="py-2 pr-2 text-right">
                      Tokens / verify step
                    </th>
                    <th scope="col" className="py-2 pr-2 text-right">
                      Speedup
                    </th>
                    <th scope="col" className="py-2 text-right">
                      Cache hit (candidate / stock)
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {workloadViews.map((w) => (
                    <tr key={w.workload} className="border-b border-slate-100">
                      <th scope="row" className="py-2 pr-2 text-left font-normal">
                        {w.workload}
                      </th>
                      <td className="py-2 pr-2 text-right tabular-nums">{formatRatio(w.acceptance)}</td>
                      <td className="py-2 pr-2 text-right tabular-nums">{formatRatio(w.ratio)}</td>
                      <td className="py-2 text-right tabular-nums">
                        {formatShare(w.cacheHit.candidate)} / {formatShare(w.cacheHit.stock)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>

          <section aria-labelledby="charts" className="space-y-6">
            <h2 id="charts" className="text-xl font-semibold">
              Candidate against stock
            </h2>
            {passPairs.length > 0 ? (
              <PassSpeedChart passes={passPairs} />
            ) : (
              <p className="text-slate-600">No per-pass speeds were stored for this evaluation.</p>
            )}
            <div className="grid gap-6 lg:grid-cols-2">
              <EngineLatencyChart workloads={workloadViews} metric="ttft" />
              <EngineLatencyChart workloads={workloadViews} metric="tpot" />
            </div>
          </section>
        </>
      ) : null}

      <section aria-labelledby="what" className="text-sm">
        <h2 id="what" className="text-xl font-semibold">
          What was judged
        </h2>
        <dl className="mt-2 grid gap-x-6 gap-y-1 sm:grid-cols-[12rem_1fr]">
          <dt className="text-slate-600">Speculator</dt>
          <dd className="break-all">
            {entry.speculator
              ? shortRevision(entry.speculator.uri, page.speculatorCommit ?? entry.speculator.revision)
              : "none, or inside the engine directory"}
          </dd>
          <dt className="text-slate-600">Engine</dt>
          <dd className="break-all">
            {entry.engine.source === "inline"
              ? `an uploaded directory${page.engineSha256 ? `, sha256 ${page.engineSha256.slice(0, 16)}…` : ""}`
              : shortRevision(entry.engine.uri ?? "", entry.engine.revision)}
          </dd>
          <dt className="text-slate-600">GPU time</dt>
          <dd>{formatDuration(page.gpuSeconds)}</dd>
          {page.startedAt ? (
            <>
              <dt className="text-slate-600">Started</dt>
              <dd>{formatUtc(page.startedAt)}</dd>
            </>
          ) : null}
          {entry.finishedAt ? (
            <>
              <dt className="text-slate-600">Finished</dt>
              <dd>{formatUtc(entry.finishedAt)}</dd>
            </>
          ) : null}
        </dl>
      </section>

      {page.record ? (
        <section aria-labelledby="record">
          <h2 id="record" className="text-xl font-semibold">
            Everything the judge recorded
          </h2>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so keyboard users can scroll it. */}
          <pre className="mt-2 max-h-[32rem] overflow-auto rounded bg-slate-50 p-4 text-xs" tabIndex={0}>
            {JSON.stringify(orderedRecord(page.record), null, 1)}
          </pre>
        </section>
      ) : null}
    </article>
  );
}
