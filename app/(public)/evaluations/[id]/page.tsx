import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { EngineLatencyChart } from "@/components/charts/engine-latency-chart";
import { PassSpeedChart } from "@/components/charts/pass-speed-chart";
import { EngineLog } from "@/components/evaluation/engine-log";
import { LiveProgress } from "@/components/evaluation/live-progress";
import { MemorySummary } from "@/components/evaluation/memory-summary";
import { DataTable, type TableSpec } from "@/components/ui/data-table";
import { ScrollRegion } from "@/components/ui/scroll-region";
import { Section } from "@/components/ui/section";
import { ProfileLabel, StatusLabel } from "@/components/ui/status-label";
import { currentAdmin } from "@/lib/auth/admin-session";
import { formatDuration, formatRatio, formatScore, formatShare, formatUtc, shortRevision } from "@/lib/board/format";
import { gateAnchor } from "@/lib/board/gate-anchor";
import { gateRule } from "@/lib/board/gate-rule";
import { type EvaluationPage, getEvaluationPage } from "@/lib/board/get-evaluation";
import { gpuTimeSeconds } from "@/lib/board/gpu-time";
import { pairPassSpeeds } from "@/lib/board/pass-speeds";
import { INTERVAL_METHOD, specScoreInterval } from "@/lib/board/rank-ties";
import { orderedRecord } from "@/lib/board/record-order";
import type { GateView, WorkloadView } from "@/lib/board/result-view";
import { samplingAuditLine } from "@/lib/board/sampling-audit-line";
import { verdictLine, verdictOf } from "@/lib/board/verdict";
import { isAppError } from "@/lib/http/app-error";
import { getTask, isTaskId, WORKLOAD_IDS } from "@/lib/protocol";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

/** One read per request, shared by the metadata and the page; an operator's read includes the engine's log lines. */
const readPage = cache(async (id: string) => getEvaluationPage(id, { mayReadLogTail: await isOperator() }));

async function isOperator(): Promise<boolean> {
  try {
    return (await currentAdmin()) !== null;
  } catch {
    // no session configured (NEXTAUTH_SECRET unset): nobody reads as an operator
    return false;
  }
}

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

const GATE_TABLE: TableSpec<GateView> = {
  minWidth: "min-w-[40rem]",
  rowClassName: "border-b border-slate-100 align-top",
  rowKey: (g) => g.check,
  rowAttributes: (g) => ({ "data-gate": g.key ?? g.check }),
  columns: [
    {
      header: "Check",
      rowHeader: "font-normal",
      cell: (g) => <a href={`/gates#${gateAnchor(g.key, g.check)}`}>{g.check}</a>,
    },
    {
      header: "Measured",
      className: "tabular-nums",
      cell: (g) => {
        const rule = gateRule(g);
        return (
          <>
            {rule.measured}
            {rule.interval ? <span className="block text-xs text-slate-600">{rule.interval}</span> : null}
          </>
        );
      },
    },
    { header: "Limit", cell: (g) => gateRule(g).limit },
    {
      header: "Result",
      cell: (g) =>
        g.pass ? (
          <span className="text-emerald-800">pass</span>
        ) : (
          <span className="font-semibold text-red-800">
            fail{g.reason ? <span className="block text-xs font-normal">{g.reason}</span> : null}
          </span>
        ),
    },
  ],
};

const SPECULATION_TABLE: TableSpec<WorkloadView> = {
  minWidth: "min-w-[30rem]",
  rowKey: (w) => w.workload,
  columns: [
    { header: "Workload", rowHeader: "font-normal", cell: (w) => w.workload },
    {
      header: "Tokens / verify step",
      align: "right",
      className: "tabular-nums",
      cell: (w) =>
        w.acceptanceCredible === false ? (
          <span>
            {formatRatio(w.acceptance)} <span className="font-semibold text-red-800">not credible</span>
            <span className="block text-xs">{w.acceptanceWhy}</span>
          </span>
        ) : (
          formatRatio(w.acceptance)
        ),
    },
    { header: "Speedup", align: "right", className: "tabular-nums", cell: (w) => formatRatio(w.ratio) },
    {
      header: "Cache hit (candidate / stock)",
      align: "right",
      className: "tabular-nums",
      cell: (w) => `${formatShare(w.cacheHit.candidate)} / ${formatShare(w.cacheHit.stock)}`,
    },
  ],
};

export default async function EvaluationPageView({ params }: Props) {
  const { id } = await params;
  const page = await load(id);
  const { entry } = page;
  const result = entry.result;
  const taskName = isTaskId(entry.taskId) ? getTask(entry.taskId).name : entry.taskId;
  const active = ACTIVE.includes(entry.status);
  const passPairs = pairPassSpeeds(page.passes);
  const workloadViews = result ? WORKLOAD_IDS.map((w) => result.workloads[w]) : [];
  const verdict = verdictOf(result);
  const interval =
    result && isTaskId(entry.taskId) ? specScoreInterval(result, getTask(entry.taskId).speedNoise.maxAbsError) : null;

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
          startedAt={page.startedAt}
          profile={entry.profile}
        />
      ) : null}

      {entry.status === "failed" ? (
        <section aria-labelledby="failed" className="rounded border border-red-300 bg-red-50 p-4">
          <h2 id="failed" className="font-semibold text-red-900">
            The evaluation failed
          </h2>
          <p className="mt-1 text-sm">{page.reason ?? "no reason was recorded"}</p>
          <p className="mt-1 text-sm text-slate-700">
            Nothing was measured: this evaluation is charged and never ranked.
          </p>
        </section>
      ) : null}

      {page.hasLogTail && !active ? (
        <EngineLog submissionId={entry.submissionId} evaluationId={entry.evaluationId} initial={page.logTail} />
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
              {verdictLine(verdict)}
            </p>
            <p className="mt-3 flex flex-wrap items-baseline gap-x-3">
              <span className="text-slate-700">SpecScore</span>
              <span className="text-4xl font-semibold tabular-nums" data-testid="specscore">
                {formatScore(result.score)}
              </span>
              <span className="text-sm text-slate-700">
                geometric mean of the three speedups
                {verdict?.kind === "failed"
                  ? verdict.gate
                    ? "; 0 because a gate failed"
                    : "; 0 by the protocol's engine rules (section 7)"
                  : ""}
                {verdict?.kind === "failed" && result.speedup !== null && result.speedup > 0
                  ? ` (their mean was ${formatScore(result.speedup)})`
                  : ""}
              </span>
            </p>
            {interval && result.score ? (
              <p className="mt-1 max-w-prose text-sm text-slate-700" data-testid="score-interval">
                95% interval {formatScore(interval.low)}–{formatScore(interval.high)}. {INTERVAL_METHOD}
              </p>
            ) : null}
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
            <Section id="gates" title="Lossless gate" aside={<a href="/gates">what each check is →</a>}>
              <p className="mt-1 max-w-prose text-sm text-slate-700">
                A check that compares the candidate with the stock engine fails only when its whole 95% interval lies
                beyond the limit: a difference outside the limit whose interval still reaches inside it passes, since
                the measurement cannot tell it from none.
              </p>
              <DataTable
                className="mt-2"
                spec={GATE_TABLE}
                rows={page.gates}
                caption="Each check, what was measured, its limit, and whether it passed"
                testId="gate-table"
              />
              {result.samplingAudit ? (
                <div className="mt-3 max-w-prose text-sm text-slate-700" data-testid="sampling-audit">
                  <p>
                    Sampling audit (shown, not gated under protocol v1): each timed reply token&apos;s randomized
                    probability integral transform under the stock engine&apos;s top-20 distribution, after the
                    request&apos;s temperature, top_k and top_p, is uniform exactly when an engine samples the target.
                  </p>
                  <ul className="mt-1 list-disc pl-5">
                    <li>{samplingAuditLine("candidate", result.samplingAudit.candidate)}</li>
                    <li>{samplingAuditLine("stock engine", result.samplingAudit.stock)}</li>
                  </ul>
                </div>
              ) : null}
            </Section>
          ) : null}

          <MemorySummary record={page.record} />

          <Section id="speculation" title="Speculation">
            <DataTable
              className="mt-2"
              spec={SPECULATION_TABLE}
              rows={workloadViews}
              caption="Tokens per verify step as the engine reports them, and the speedup"
            />
          </Section>

          <Section id="charts" title="Candidate against stock" className="space-y-6">
            {passPairs.length > 0 ? (
              <PassSpeedChart passes={passPairs} />
            ) : (
              <p className="text-slate-600">No per-pass speeds were stored for this evaluation.</p>
            )}
            <div className="grid gap-6 lg:grid-cols-2">
              <EngineLatencyChart workloads={workloadViews} metric="ttft" />
              <EngineLatencyChart workloads={workloadViews} metric="tpot" />
            </div>
          </Section>
        </>
      ) : null}

      <Section id="what" title="What was judged" className="text-sm">
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
          <dd>
            {entry.status === "queued"
              ? "none yet: it is waiting in the queue"
              : active
                ? "counting: see the live progress above"
                : formatDuration(
                    gpuTimeSeconds({
                      gpuSeconds: page.gpuSeconds,
                      startedAt: page.startedAt,
                      finishedAt: entry.finishedAt,
                    }) ?? 0,
                  )}
          </dd>
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
      </Section>

      {page.record ? (
        <Section id="record" title="Everything the judge recorded">
          <ScrollRegion
            label="The judge's record, as stored"
            scroll="both"
            className="mt-2 max-h-[32rem] rounded bg-slate-50"
          >
            <pre className="p-4 text-xs">{JSON.stringify(orderedRecord(page.record), null, 1)}</pre>
          </ScrollRegion>
        </Section>
      ) : null}
    </article>
  );
}
