import { type Column, DataTable, type TableSpec } from "@/components/ui/data-table";
import { Section } from "@/components/ui/section";
import { BUSY_SPEED_READING } from "@/lib/judge/speeds/speeds";
import { PROTOCOLS, type Protocol, type TaskSpec, WORKLOAD_IDS, type WorkloadId } from "@/lib/protocol";
import type { Calibrations } from "@/lib/protocol/calibrations";
import { CalibrationEvidence } from "./calibration-evidence";
import { reportDate } from "./calibration-format";

/** A table of named values, one Row each. */
function Facts({ className, children }: { className: string; children: React.ReactNode }) {
  // fixed layout: a long unbroken value (the image's digest) wraps inside its cell instead of widening the page
  return (
    <table className={`${className} w-full table-fixed border-collapse text-sm`}>
      <tbody>{children}</tbody>
    </table>
  );
}

function Row({ name, children }: { name: string; children: React.ReactNode }) {
  return (
    <tr className="border-b border-slate-100 align-top">
      <th scope="row" className="w-32 py-1.5 pr-4 text-left font-medium [overflow-wrap:anywhere] sm:w-56">
        {name}
      </th>
      <td className="py-1.5 [overflow-wrap:anywhere]">{children}</td>
    </tr>
  );
}

const TASK_TABLE: TableSpec<TaskSpec> = {
  minWidth: "min-w-[48rem]",
  pad: "py-1.5",
  rowClassName: "border-b border-slate-100 align-top",
  rowKey: (t) => t.id,
  columns: [
    { header: "Task", rowHeader: "font-medium", cell: (t) => <code>{t.id}</code> },
    {
      header: "Target (BF16, fixed)",
      className: "break-all",
      cell: (t) => (
        <>
          {t.target.repository} at <code>{t.target.revision}</code>
          {t.target.textOnly ? ", text only" : ""}
          {t.languageModelOnly ? " (LANGUAGE_MODEL_ONLY=1)" : ""}
        </>
      ),
    },
    { header: "GPU", cell: (t) => t.gpu },
    {
      header: "MAX_MODEL_LEN",
      align: "right",
      className: "tabular-nums",
      cell: (t) => t.maxModelLen.toLocaleString("en"),
    },
    {
      header: "Lanes solo / team / busy",
      className: "tabular-nums",
      cell: (t) => `${t.lanes.solo} / ${t.lanes.team} / ${t.lanes.busy}`,
    },
    {
      header: "Busy KV cache · session footprint",
      className: "tabular-nums",
      cell: (t) =>
        `${(t.busy.kvCacheTokens / 1e6).toFixed(2)}M tokens · ${(t.busy.sessionFootprintTokens / 1000).toFixed(1)}K`,
    },
  ],
};

function workloadTable(p: Protocol): TableSpec<WorkloadId> {
  return {
    minWidth: "min-w-[36rem]",
    pad: "py-1.5",
    rowClassName: "border-b border-slate-100 align-top",
    rowKey: (w) => w,
    columns: [
      { header: "Workload", rowHeader: "font-medium", cell: (w) => w },
      { header: "Interleave", align: "right", className: "tabular-nums", cell: (w) => p.workloads[w].interleave },
      { header: "Pass", align: "right", className: "tabular-nums", cell: (w) => `${p.workloads[w].passSeconds} s` },
      { header: "Speed", cell: (w) => p.workloads[w].description },
    ],
  };
}

/** A gate limit's name and its value on a task. */
type GateLimit = readonly [name: string, value: (t: TaskSpec) => string];

function gateLimits(p: Protocol, calibrations: Calibrations): readonly GateLimit[] {
  return [
    ["Fidelity ceiling", (t) => String(t.gates.fidelityCeiling.value)],
    ["Likelihood bound", (t) => `±${t.gates.likelihoodBound.value} beyond ${p.gates.z} SE`],
    ["First-choice bound", (t) => `±${t.gates.argmaxBound.value} beyond ${p.gates.z} SE`],
    [
      "Greedy agreement floor",
      (t) => (t.gates.greedyAgreementFloor.value === null ? "none" : String(t.gates.greedyAgreementFloor.value)),
    ],
    ["Memory slack", (t) => `${t.gates.memorySlackMib.value / 1024} GiB`],
    ["Reply length", () => `±${p.gates.length.margin * 100}% at ${p.gates.length.confidence * 100}%, pooled`],
    ["Unanswered check requests", () => `≤ ${p.gates.unansweredShare * 100}%`],
    [
      "Failed requests per pass",
      () =>
        `more than ${p.gates.failedRequests.absolute} or ${p.gates.failedRequests.share * 100}% over stock: ratio 0`,
    ],
    [
      "A/A speed noise",
      (t) =>
        `${(t.speedNoise.meanAbsError * 100).toFixed(2)}% mean, ${(t.speedNoise.maxAbsError * 100).toFixed(1)}% at most`,
    ],
    [
      "Calibration report",
      (t) => {
        const r = calibrations[t.id];
        if (!r) return "none yet";
        return `${r.profile} profile, ${reportDate(r)}${r.full_protocol ? "" : " (a test profile: not the full protocol's evidence)"}; see the evidence below`;
      },
    ],
  ];
}

/** One row a limit, one column a task; every column keeps its gutter, the last task's too. */
function gateLimitTable(tasks: readonly TaskSpec[]): TableSpec<GateLimit> {
  return {
    minWidth: "min-w-[36rem]",
    pad: "py-1.5",
    gutter: "all",
    rowKey: ([name]) => name,
    columns: [
      { header: "Limit", rowHeader: "font-medium", cell: ([name]) => name },
      ...tasks.map((t): Column<GateLimit> => ({ header: t.name, key: t.id, cell: ([, value]) => value(t) })),
    ],
  };
}

/** The /protocol page's content: a version's values, and beside them the calibration reports that are their evidence. */
export function ProtocolView({ protocol: p }: { protocol: Protocol & { calibration: Calibrations } }) {
  const tasks = Object.values(p.tasks);
  const earlier = PROTOCOLS.filter((x) => x.version !== p.version);
  return (
    <div className="space-y-8">
      <header>
        <h1 className="text-2xl font-semibold">{p.title}</h1>
        <p className="mt-1 text-slate-700">
          In force since {p.published}. A change is a new version; this page and{" "}
          <a href="/api/protocol">GET /api/protocol</a> serve the values in force, and{" "}
          <code>/api/protocol/&#123;version&#125;</code> any earlier one.
        </p>
      </header>

      <Section id="tasks" title="Tasks">
        <DataTable className="mt-2" spec={TASK_TABLE} rows={tasks} caption="The tasks: target, GPU, window and lanes" />
      </Section>

      <Section id="workloads" title="Timed workloads">
        <DataTable
          className="mt-2"
          spec={workloadTable(p)}
          rows={WORKLOAD_IDS}
          caption="The timed workloads: interleave, pass time and speed"
        />
        <Facts className="mt-4">
          <Row name="Passes">
            {p.passes} per workload, fresh sessions each; grace {p.graceSeconds} s; warm-up: {p.warmup}
          </Row>
          <Row name="Think time">
            capped at {p.thinkTime.capSeconds} s, scaled by c = {p.thinkTime.scale.value} ({p.thinkTime.scale.evidence})
          </Row>
          <Row name="Sampling">
            temperature {p.sampling.temperature}, top_p {p.sampling.topP}, top_k {p.sampling.topK}, a seed per request,
            non-thinking
          </Row>
          <Row name="The window">
            prompt tokens + {p.window.overheadShare * 100}% + {p.window.overheadTokens} tokens; cut after the first
            message to {p.window.cutTo * 100}% of the window
          </Row>
          <Row name="Counting">{p.countsOnly}</Row>
          <Row name="Busy time">{BUSY_SPEED_READING}</Row>
          <Row name="SpecScore">
            (r_solo · r_team · r_busy)^(1/3) if every gate passes, else 0; r_w is the median over passes
          </Row>
        </Facts>
      </Section>

      <Section id="engine" title="Engine">
        <Facts className="mt-2">
          <Row name="Image">
            <code className="break-all">{p.image.reference}</code>
          </Row>
          <Row name="Stock engine">
            vLLM {p.image.vllmRelease} ({p.image.vllmCommit}) {p.image.stockFlags.join(" ")}
          </Row>
          <Row name="Environment">{p.engine.environment.join(", ")}</Row>
          <Row name="GPU_MEMORY_UTILIZATION">
            {p.engine.gpuMemoryUtilization} timed, {p.engine.checksGpuMemoryUtilization} for the checks
          </Row>
          <Row name="Start and stop">
            /health within {p.engine.healthTimeoutSeconds / 60} min; SIGTERM then SIGKILL after{" "}
            {p.engine.stopGraceSeconds} s; the device below {p.engine.deviceIdleMib / 1024} GiB within{" "}
            {p.engine.deviceIdleTimeoutSeconds} s
          </Row>
          <Row name="No offload">{p.engine.noOffload}</Row>
        </Facts>
      </Section>

      <Section id="gates" title="Gate limits">
        <p className="mt-1 text-sm text-slate-700">
          Explained check by check on <a href="/gates">the gates page</a>.
        </p>
        <DataTable
          className="mt-2"
          spec={gateLimitTable(tasks)}
          rows={gateLimits(p, p.calibration)}
          caption="Each gate's limit on each task"
        />
      </Section>

      <Section id="calibration" title="Calibration evidence">
        <p className="mt-1 text-sm text-slate-700">
          Section 10: A/A evaluations (the stock engine submitted as the candidate) and the references, run through the
          arena's own pod pipeline, against each calibrated value in force. Served with the values at{" "}
          <a href="/api/protocol">GET /api/protocol</a> under <code>calibration</code>.
        </p>
        <CalibrationEvidence tasks={tasks} calibrations={p.calibration} />
      </Section>

      <Section id="submission" title="Submissions, budgets and references">
        <Facts className="mt-2">
          <Row name="Engine archive">
            inline at most {p.submission.engineInlineMaxChars.toLocaleString("en")} base64 characters; a repository at
            most {p.submission.engineRepositoryMaxBytes / 1024 / 1024} MiB at an exact commit
          </Row>
          <Row name="Speculator">
            only {p.submission.speculatorFiles.join(" and ")}, at most {p.submission.speculatorMaxShareOfTarget * 100}%
            of the target&apos;s bytes, at an exact commit
          </Row>
          <Row name="Method">at most {p.submission.methodMaxChars} characters</Row>
          <Row name="Budgets per task">
            participants {p.budgets.participant.dev} dev and {p.budgets.participant.test} test; study accounts{" "}
            {p.budgets.study.dev} and {p.budgets.study.test}
          </Row>
          {tasks.map((t) => (
            <Row key={t.id} name={`References, ${t.name}`}>
              {t.references.map((r) => r.label).join("; ")}
            </Row>
          ))}
          <Row name="Test profiles">
            {p.profiles
              .filter((x) => x.name !== "full")
              .map((x) => `${x.name}: ${x.description}`)
              .join("; ")}
            . A run under a profile is labelled with it and never ranked.
          </Row>
        </Facts>
      </Section>

      <Section id="versions" title="Versions">
        <ul className="mt-2 list-disc pl-5 text-sm">
          <li>
            <a href={`/api/protocol/${p.version}`}>version {p.version}</a>, published {p.published} (in force)
          </li>
          {earlier.length === 0 ? <li>No earlier version: version {p.version} is the first.</li> : null}
          {earlier.map((v) => (
            <li key={v.version}>
              <a href={`/api/protocol/${v.version}`}>version {v.version}</a>, published {v.published}
            </li>
          ))}
        </ul>
      </Section>
    </div>
  );
}
