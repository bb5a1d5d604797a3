import type { Metadata } from "next";
import { currentProtocol, PROTOCOLS, WORKLOAD_IDS } from "@/lib/protocol";

export const metadata: Metadata = { title: "Protocol" };

function Row({ name, children }: { name: string; children: React.ReactNode }) {
  return (
    <tr className="border-b border-slate-100 align-top">
      <th scope="row" className="py-1.5 pr-4 text-left font-medium">
        {name}
      </th>
      <td className="py-1.5">{children}</td>
    </tr>
  );
}

export default function ProtocolPage() {
  const p = currentProtocol();
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

      <section aria-labelledby="tasks">
        <h2 id="tasks" className="text-xl font-semibold">
          Tasks
        </h2>
        <div className="mt-2 overflow-x-auto">
          <table className="w-full min-w-[48rem] border-collapse text-sm">
            <thead>
              <tr className="border-b border-slate-300 text-left">
                <th scope="col" className="py-1.5 pr-2">
                  Task
                </th>
                <th scope="col" className="py-1.5 pr-2">
                  Target (BF16, fixed)
                </th>
                <th scope="col" className="py-1.5 pr-2">
                  GPU
                </th>
                <th scope="col" className="py-1.5 pr-2 text-right">
                  MAX_MODEL_LEN
                </th>
                <th scope="col" className="py-1.5 pr-2">
                  Lanes solo / team / busy
                </th>
                <th scope="col" className="py-1.5">
                  Busy KV cache · session footprint
                </th>
              </tr>
            </thead>
            <tbody>
              {tasks.map((t) => (
                <tr key={t.id} className="border-b border-slate-100 align-top">
                  <th scope="row" className="py-1.5 pr-2 text-left font-medium">
                    <code>{t.id}</code>
                  </th>
                  <td className="py-1.5 pr-2 break-all">
                    {t.target.repository} at <code>{t.target.revision}</code>
                    {t.target.textOnly ? ", text only" : ""}
                    {t.languageModelOnly ? " (LANGUAGE_MODEL_ONLY=1)" : ""}
                  </td>
                  <td className="py-1.5 pr-2">{t.gpu}</td>
                  <td className="py-1.5 pr-2 text-right tabular-nums">{t.maxModelLen.toLocaleString("en")}</td>
                  <td className="py-1.5 pr-2 tabular-nums">
                    {t.lanes.solo} / {t.lanes.team} / {t.lanes.busy}
                  </td>
                  <td className="py-1.5 tabular-nums">
                    {(t.busy.kvCacheTokens / 1e6).toFixed(2)}M tokens ·{" "}
                    {(t.busy.sessionFootprintTokens / 1000).toFixed(1)}K
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section aria-labelledby="workloads">
        <h2 id="workloads" className="text-xl font-semibold">
          Timed workloads
        </h2>
        <div className="mt-2 overflow-x-auto">
          <table className="w-full min-w-[36rem] border-collapse text-sm">
            <thead>
              <tr className="border-b border-slate-300 text-left">
                <th scope="col" className="py-1.5 pr-2">
                  Workload
                </th>
                <th scope="col" className="py-1.5 pr-2 text-right">
                  Interleave
                </th>
                <th scope="col" className="py-1.5 pr-2 text-right">
                  Pass
                </th>
                <th scope="col" className="py-1.5">
                  Speed
                </th>
              </tr>
            </thead>
            <tbody>
              {WORKLOAD_IDS.map((w) => (
                <tr key={w} className="border-b border-slate-100 align-top">
                  <th scope="row" className="py-1.5 pr-2 text-left font-medium">
                    {w}
                  </th>
                  <td className="py-1.5 pr-2 text-right tabular-nums">{p.workloads[w].interleave}</td>
                  <td className="py-1.5 pr-2 text-right tabular-nums">{p.workloads[w].passSeconds} s</td>
                  <td className="py-1.5">{p.workloads[w].description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <table className="mt-4 w-full border-collapse text-sm">
          <tbody>
            <Row name="Passes">
              {p.passes} per workload, fresh sessions each; grace {p.graceSeconds} s; warm-up: {p.warmup}
            </Row>
            <Row name="Think time">
              capped at {p.thinkTime.capSeconds} s, scaled by c = {p.thinkTime.scale.value} (
              {p.thinkTime.scale.evidence})
            </Row>
            <Row name="Sampling">
              temperature {p.sampling.temperature}, top_p {p.sampling.topP}, top_k {p.sampling.topK}, a seed per
              request, non-thinking
            </Row>
            <Row name="The window">
              prompt tokens + {p.window.overheadShare * 100}% + {p.window.overheadTokens} tokens; cut after the first
              message to {p.window.cutTo * 100}% of the window
            </Row>
            <Row name="Counting">{p.countsOnly}</Row>
            <Row name="SpecScore">
              (r_solo · r_team · r_busy)^(1/3) if every gate passes, else 0; r_w is the median over passes
            </Row>
          </tbody>
        </table>
      </section>

      <section aria-labelledby="engine">
        <h2 id="engine" className="text-xl font-semibold">
          Engine
        </h2>
        <table className="mt-2 w-full border-collapse text-sm">
          <tbody>
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
          </tbody>
        </table>
      </section>

      <section aria-labelledby="gates">
        <h2 id="gates" className="text-xl font-semibold">
          Gate limits
        </h2>
        <p className="mt-1 text-sm text-slate-700">
          Explained check by check on <a href="/gates">the gates page</a>.
        </p>
        <div className="mt-2 overflow-x-auto">
          <table className="w-full min-w-[36rem] border-collapse text-sm">
            <thead>
              <tr className="border-b border-slate-300 text-left">
                <th scope="col" className="py-1.5 pr-2">
                  Limit
                </th>
                {tasks.map((t) => (
                  <th key={t.id} scope="col" className="py-1.5 pr-2">
                    {t.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {(
                [
                  ["Fidelity ceiling", (t) => String(t.gates.fidelityCeiling.value)],
                  ["Likelihood bound", (t) => `±${t.gates.likelihoodBound.value} beyond ${p.gates.z} SE`],
                  ["First-choice bound", (t) => `±${t.gates.argmaxBound.value} beyond ${p.gates.z} SE`],
                  [
                    "Greedy agreement floor",
                    (t) =>
                      t.gates.greedyAgreementFloor.value === null ? "none" : String(t.gates.greedyAgreementFloor.value),
                  ],
                  ["Memory slack", (t) => `${t.gates.memorySlackMib.value / 1024} GiB`],
                  [
                    "Reply length",
                    () => `±${p.gates.length.margin * 100}% at ${p.gates.length.confidence * 100}%, pooled`,
                  ],
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
                ] as const satisfies readonly (readonly [string, (t: (typeof tasks)[number]) => string])[]
              ).map(([name, value]) => (
                <tr key={name} className="border-b border-slate-100">
                  <th scope="row" className="py-1.5 pr-2 text-left font-medium">
                    {name}
                  </th>
                  {tasks.map((t) => (
                    <td key={t.id} className="py-1.5 pr-2">
                      {value(t)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section aria-labelledby="submission">
        <h2 id="submission" className="text-xl font-semibold">
          Submissions, budgets and references
        </h2>
        <table className="mt-2 w-full border-collapse text-sm">
          <tbody>
            <Row name="Engine archive">
              inline at most {p.submission.engineInlineMaxChars.toLocaleString("en")} base64 characters; a repository at
              most {p.submission.engineRepositoryMaxBytes / 1024 / 1024} MiB at an exact commit
            </Row>
            <Row name="Speculator">
              only {p.submission.speculatorFiles.join(" and ")}, at most {p.submission.speculatorMaxShareOfTarget * 100}
              % of the target&apos;s bytes, at an exact commit
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
          </tbody>
        </table>
      </section>

      <section aria-labelledby="versions">
        <h2 id="versions" className="text-xl font-semibold">
          Versions
        </h2>
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
      </section>
    </div>
  );
}
