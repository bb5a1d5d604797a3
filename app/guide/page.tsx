import type { Metadata } from "next";
import { Section } from "@/components/ui/section";
import { EXIT } from "@/lib/client/exit-codes";
import { STATUS_MEANING } from "@/lib/client/format";
import { WARN_SHARE } from "@/lib/client/local/gate-lines";
import { CLIENT_VERSION } from "@/lib/client/versions";
import { env } from "@/lib/env";
import { GATE_CHECKS, GATE_REASONS, REASON_ORDER, VOID_REASON } from "@/lib/gates/record/reasons";
import { SIM_EAGLE_LAUNCH, VLLM_EAGLE3_LAUNCH } from "@/lib/kit/examples";
import { contactLink } from "@/lib/kit/operators-contact";
import { currentProtocol, SOLUTION_KINDS, TASK_IDS } from "@/lib/protocol";
import { isRegistrationOpen } from "@/lib/settings/registration";
import { CodeBlock } from "./code-block";
import { EnvironmentTable } from "./environment-table";
import { GuideTable } from "./guide-table";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Guide" };

const CHARGED: Record<string, string> = {
  queued: "charged when submitted; refunded if you cancel now",
  fetching: "charged",
  running: "charged",
  checking: "charged",
  scored: "charged",
  failed: "charged",
  void: "refunded",
  cancelled: "refunded when it was still queued, charged once running",
};

const EXIT_MEANING: Record<keyof typeof EXIT, string> = {
  ok: "done: submitted or printed; waiting or watching, the evaluation scored above 0; locally, every gate passed",
  notScored:
    "the evaluation ended without a score above 0 (failed, void, cancelled, or a gate scored it 0); locally, a FAIL",
  usage: "bad arguments or environment: nothing was sent",
  engineRefused: "the engine directory cannot be sent as it is (launch.sh, links, size): nothing was sent",
  refused: "the arena refused the request (the token, the budget, a field): nothing was charged",
  unreachable: "the arena could not be reached or failed on its side: try again later",
};

export default async function GuidePage() {
  const protocol = currentProtocol();
  const url = env().ARENA_PUBLIC_URL;
  const contact = contactLink(env().OPERATORS_CONTACT);
  const registrationOpen = await isRegistrationOpen();
  const { participant, study } = protocol.budgets;
  const quickStart = `# the kit: the Python client, the local kit with its own Node, example engines
curl -sL ${url}/kit.tar.gz | tar xz && cd speculatorarena-kit
export PATH="$PWD/bin:$PATH"
export SPECULATORARENA_URL=${url}
export SPECULATORARENA_TOKEN=spa_...          # the token the operators gave you

# 1. try the engine here: what the arena runs, ok / warn / FAIL per gate
speculatorarena local --task qwen3-8b --engine my-engine/ --speculator /models/my-eagle3 --target /models/Qwen3-8B

# 2. a development evaluation: the public split, never ranked
python3 -m speculatorarena.client submit --task qwen3-8b --split dev \\
  --engine my-engine/ --speculator org/repo@<commit> \\
  --method "EAGLE-3 k=4" --kind eagle3 --wait

# 3. its gates and its SpecScore, your budget, the board
python3 -m speculatorarena.client status <id>
python3 -m speculatorarena.client budget
python3 -m speculatorarena.client board --task qwen3-8b

# 4. the same with --split test is scored on the hidden sessions and ranked`;
  const pythonClient = `python3 -m speculatorarena.client submit --task qwen3-8b --split dev --engine my-engine/ \\
  --speculator org/repo@<commit> --method "EAGLE-3 k=4" --kind eagle3 [--profile smoke] [--wait]
python3 -m speculatorarena.client status <id> [--json]
python3 -m speculatorarena.client watch <id>
python3 -m speculatorarena.client budget [--json]
python3 -m speculatorarena.client board [--task qwen3-8b] [--json]

# the client alone, without the kit
mkdir -p speculatorarena && curl -so speculatorarena/client.py ${url}/client.py`;
  const cli = `speculatorarena submit --task qwen3-8b --split dev --engine my-engine/ --speculator org/repo@<commit> \\
  --method "EAGLE-3 k=4" --kind eagle3 --wait
speculatorarena status <id>
speculatorarena watch <id>
speculatorarena budget
speculatorarena board --task qwen3-8b
speculatorarena local --task qwen3-8b --engine my-engine/ [--speculator DIR] [--profile smoke|full] [--target DIR]

# from a clone of the arena's repository (Node 20): npx speculatorarena ...`;
  const curl = `curl -s -X POST $SPECULATORARENA_URL/api/submissions \\
  -H "authorization: Bearer $SPECULATORARENA_TOKEN" -H 'content-type: application/json' -d '{
  "task_id": "qwen3-8b", "split": "dev",
  "speculator": {"uri": "org/repo", "revision": "<40-hex commit>"},
  "engine": {"inline": "'"$(tar -C my-engine -cz . | base64 -w0)"'"},
  "solution": {"method": "EAGLE-3 k=4", "kind": "eagle3"}}'
curl -s $SPECULATORARENA_URL/api/submissions/<id> -H "authorization: Bearer $SPECULATORARENA_TOKEN"
curl -N $SPECULATORARENA_URL/api/submissions/<id>/events      # server-sent events; resume with Last-Event-ID`;
  const local = `# the simulated engines, on any Linux machine: an honest engine, then one that cheats
speculatorarena local --task qwen3-8b --engine examples/sim-eagle --profile smoke --sim-speed 20
speculatorarena local --task qwen3-8b --engine examples/sim-quantized --profile smoke --sim-speed 20

# your engine on your GPU, in the arena's image (vllm on PATH), with the target's directory
docker run --gpus all --rm -it --ipc=host -v "$PWD":/kit -v /models:/models -w /kit --entrypoint bash \\
  ${protocol.image.reference}
speculatorarena local --task qwen3-8b --engine ./my-engine --speculator /models/my-eagle3 \\
  --target /models/Qwen3-8B --profile full
python3 -m speculatorarena.local --task qwen3-8b --engine ./my-engine ...   # the same`;
  const localOutput = `ok    device memory                   162.2 GiB                limit ≤ 165.2 GiB
ok    fixed texts' log-probabilities  0                        limit ≤ 0.001
warn  sampled replies' likelihood     -0.0160 ± 0.0050         limit within ±0.02 at 95%  (within a quarter of its limit (84% of it used))
FAIL  reply lengths                   0.910 [0.880, 0.940]     limit 1 ± 0.05 at 95%  (replies are longer or shorter than the stock engine's)
ratios: solo 1.34× (passes 1.30, 1.34, 1.40) · team 1.31× (passes 1.29, 1.31, 1.33) · busy 1.21× (passes 1.20, 1.21, 1.25)
SpecScore 0.000: replies are longer or shorter than the stock engine's (speedup 1.286 whatever the gates say)`;

  return (
    <div className="max-w-4xl space-y-10">
      <div className="space-y-2">
        <h1 className="text-2xl font-semibold">Guide: from an engine directory to SpecScore</h1>
        <p className="text-slate-700">
          A submission is an <a href="#engine">engine directory</a> whose <code>launch.sh serve</code> serves the
          task&apos;s target with your speculator, and an optional speculator checkpoint on the Hugging Face Hub. The
          arena serves the same closed-loop sessions with your engine and with the stock engine, in one pod, checks that
          nothing it serves has changed, and scores the speed it gains. The <a href="/protocol">protocol</a> is the
          contract (its values in force: <a href="/api/protocol">/api/protocol</a>); this guide is how to meet it. The
          kit and the clients are version <code>{CLIENT_VERSION}</code>.
        </p>
      </div>

      <Section id="quick-start" title="Quick start">
        <CodeBlock kind="quick-start">{quickStart}</CodeBlock>
        <p className="mt-2 text-sm text-slate-700">
          Downloads: <a href="/kit.tar.gz">the kit</a> (<code>kit.tar.gz</code>: the Python client, the local kit with
          its own Node, example engine directories) and <a href="/client.py">the Python client alone</a> (
          <code>client.py</code>, Python 3.9+, standard library only).
        </p>
      </Section>

      <Section id="token" title="Getting a token">
        <p className="mt-2 max-w-prose text-slate-700">
          Submitting takes an account&apos;s token (<code>Authorization: Bearer spa_...</code>, which the clients send
          from <code>SPECULATORARENA_TOKEN</code>). Accounts are by invitation: the operators give each participant a
          token, shown once and kept only as its hash.{" "}
          {registrationOpen ? (
            <>
              Registration is open now: <a href="/register">register</a> and you get one.
            </>
          ) : (
            <>Registration is closed now; when the operators open it, /register hands one out.</>
          )}{" "}
          {contact ? (
            <>
              To ask the operators for one, write to{" "}
              {contact.href ? <a href={contact.href}>{contact.text}</a> : <span>{contact.text}</span>}.
            </>
          ) : (
            <>Ask the arena&apos;s operators for one.</>
          )}
        </p>
      </Section>

      <Section id="engine" title="The engine directory">
        <CodeBlock>{`my-engine/
  launch.sh      required: \`launch.sh serve\` serves $TARGET with $SPECULATOR
  plugin/        optional: installed offline for the engine user before every start
  ...            anything launch.sh uses (no weights: the speculator is fetched from the Hub)`}</CodeBlock>
        <p className="mt-2 max-w-prose text-slate-700">
          Sent inline as a base64 <code>.tar.gz</code> of at most{" "}
          {protocol.submission.engineInlineMaxChars.toLocaleString("en")} characters (what the clients do), or as a git
          repository at an exact commit of at most {protocol.submission.engineRepositoryMaxBytes / 1024 / 1024} MiB. It
          holds files and folders only: no links, no special files, nothing that climbs out; the clients pack what a
          link inside the directory points to, and refuse one that leaves it. <code>launch.sh</code> sits at its top,
          executable. The arena runs <code>launch.sh serve</code> and nothing else of the directory.
        </p>
        <h3 className="mt-4 font-semibold" id="environment">
          Its environment
        </h3>
        <p className="mt-1 max-w-prose text-slate-700">
          <code>launch.sh serve</code> runs as an unprivileged user, with no network and one GPU, in the pinned image (
          <code>{protocol.image.reference.split("@")[0]}</code>, vLLM {protocol.image.vllmRelease}), with exactly this
          environment:
        </p>
        <EnvironmentTable />
        <h3 className="mt-4 font-semibold" id="server">
          What the server must answer
        </h3>
        <ul className="mt-1 max-w-prose list-disc space-y-1 pl-5 text-slate-700">
          <li>
            <code>GET /health</code>: 200 once it serves.
          </li>
          <li>
            <code>POST /v1/chat/completions</code>, streamed (<code>stream_options.include_usage</code>, ending with{" "}
            <code>data: [DONE]</code>), honoring <code>temperature</code> {protocol.sampling.temperature},{" "}
            <code>top_p</code> {protocol.sampling.topP}, <code>top_k</code> {protocol.sampling.topK}, a{" "}
            <code>seed</code> per request, <code>max_tokens</code>, and <code>chat_template_kwargs</code> with{" "}
            <code>enable_thinking: false</code>; <code>tools</code> with <code>tool_choice: &quot;none&quot;</code>{" "}
            rendered into the prompt; and, for the checks, unstreamed requests with <code>prompt_logprobs</code>,{" "}
            <code>continue_final_message</code> and <code>add_generation_prompt: false</code>, and greedy ones at
            temperature 0. A reply counts only if its stream ends with <code>[DONE]</code> within its{" "}
            <code>max_tokens</code>; the arena counts its tokens itself.
          </li>
          <li>
            <code>usage.prompt_tokens_details.cached_tokens</code> (vLLM&apos;s{" "}
            <code>--enable-prompt-tokens-details</code>): the prefix cache&apos;s hit, shown on the board.
          </li>
          <li>
            <code>GET /metrics</code>: vLLM&apos;s <code>vllm:spec_decode_*</code> counters, read around every pass,
            show your acceptance (never scored).
          </li>
        </ul>
        <h3 className="mt-4 font-semibold" id="plugin">
          <code>plugin/</code>
        </h3>
        <p className="mt-1 max-w-prose text-slate-700">
          A Python package the arena installs for the engine user before each start, offline and without dependencies:{" "}
          <code>pip install --user --no-index --no-deps plugin/</code> on vLLM (the simulated runtime runs{" "}
          <code>sim-engine install-plugin</code>). It must build with the standard library alone and import only what
          the image holds or what it carries; a vLLM plugin registers an entry point in the{" "}
          <code>vllm.general_plugins</code> group, whose <code>register()</code> vLLM calls in every process it starts.
          A plugin that does not install fails the evaluation with the installer&apos;s message.
        </p>
        <h3 className="mt-4 font-semibold" id="start-stop">
          Start and stop
        </h3>
        <ul className="mt-1 max-w-prose list-disc space-y-1 pl-5 text-slate-700">
          <li>
            Each engine starts twice: once for the three timed workloads (one start serves all three), once more with
            GPU_MEMORY_UTILIZATION {protocol.engine.checksGpuMemoryUtilization.toFixed(2)} for the lossless checks.
          </li>
          <li>
            It must answer <code>/health</code> within {protocol.engine.healthTimeoutSeconds / 60} minutes of each
            start, or the candidate scores 0 (&quot;did not start&quot;); an engine that exits while serving scores 0
            (&quot;died&quot;).
          </li>
          <li>
            It is stopped with SIGTERM to its process group, then SIGKILL after {protocol.engine.stopGraceSeconds} s:{" "}
            <code>exec</code> the server so the signal reaches it. Then every process of the engine user is killed, its
            files in shared memory and scratch are removed, and the device must hold less than{" "}
            {protocol.engine.deviceIdleMib / 1024} GiB within {protocol.engine.deviceIdleTimeoutSeconds} s before the
            stock engine runs.
          </li>
        </ul>
        <h3 className="mt-4 font-semibold" id="memory">
          Memory
        </h3>
        <p className="mt-1 max-w-prose text-slate-700">
          The engine may hold no more of the device than GPU_MEMORY_UTILIZATION of it plus{" "}
          {protocol.tasks["qwen3-8b"].gates.memorySlackMib.value / 1024} GiB (its CUDA context and workspaces), sampled
          from outside every {protocol.engine.memorySampleSeconds} s during the timed passes. What the speculator holds
          (its weights, its KV cache, its buffers) comes out of the same budget as the target&apos;s KV cache.{" "}
          {protocol.engine.noOffload}.
        </p>
      </Section>

      <Section id="launch-sh" title="A complete launch.sh: vLLM with a speculator">
        <p className="mt-2 max-w-prose text-slate-700">
          The stock engine&apos;s command line plus <code>--speculative-config</code>; every value comes from the
          environment. The kit holds it as <code>examples/vllm-eagle3/launch.sh</code>, beside a simulated engine for
          machines without a GPU:
        </p>
        <CodeBlock kind="launch-sh" label="my-engine/launch.sh">
          {VLLM_EAGLE3_LAUNCH}
        </CodeBlock>
        <CodeBlock kind="launch-sh" label="examples/sim-eagle/launch.sh">
          {SIM_EAGLE_LAUNCH}
        </CodeBlock>
      </Section>

      <Section id="local" title="Try it with the local kit">
        <p className="mt-2 max-w-prose text-slate-700">
          Before you spend an evaluation, <code>speculatorarena local</code> runs what the arena runs, on your machine:
          it packs and checks the engine directory as a submission is checked, and the arena&apos;s own pod agent plays
          your engine and then the stock engine (the pinned vLLM where <code>vllm</code> is installed and{" "}
          <code>--target</code> is given, the simulated engine otherwise) through the three workloads on the public dev
          pool, then the lossless checks, and writes the same result record. It ships with its own Node, so a GPU host
          with the arena&apos;s image and no Node runs it.
        </p>
        <CodeBlock kind="local">{local}</CodeBlock>
        <p className="mt-2 max-w-prose text-slate-700">
          It ends with one line per gate: <code>ok</code>, <code>warn</code> (passed, with less than{" "}
          {Math.round(WARN_SHARE * 100)}% of its limit to spare; for memory, of the slack) or <code>FAIL</code>, with
          the figure and the limit, then the ratios and SpecScore:
        </p>
        <CodeBlock>{localOutput}</CodeBlock>
        <p className="mt-2 max-w-prose text-slate-700">
          On a GPU other than a B200 the speeds differ, not the checks. The hidden <code>test</code> sessions exist only
          in the arena.
        </p>
      </Section>

      <Section id="submit" title="Submit">
        <h3 className="mt-2 font-semibold">The Python client</h3>
        <CodeBlock kind="python-client">{pythonClient}</CodeBlock>
        <h3 className="mt-4 font-semibold">The kit&apos;s CLI, with a progress bar per pass</h3>
        <CodeBlock kind="cli">{cli}</CodeBlock>
        <h3 className="mt-4 font-semibold">curl</h3>
        <CodeBlock kind="curl">{curl}</CodeBlock>
        <p className="mt-2 max-w-prose text-slate-700">
          Both clients check the engine directory before anything is sent and follow an evaluation with its event
          stream, resuming after a dropped connection without losing or repeating an event. <code>--kind</code> is one
          of {SOLUTION_KINDS.join(", ")} (a label: nothing is scored from it); <code>--task</code> one of{" "}
          {TASK_IDS.join(", ")}. A test profile (<code>--profile smoke</code>) runs a few seconds a pass, is labelled,
          and is never ranked. The whole API is at <a href="/api-docs">/api-docs</a> (OpenAPI:{" "}
          <a href="/api/openapi.json">/api/openapi.json</a>).
        </p>
        <GuideTable
          caption="The clients' exit codes"
          head={["Exit code", "Meaning"]}
          rows={(Object.keys(EXIT) as (keyof typeof EXIT)[]).map((key) => ({
            key,
            cells: [<code key="c">{EXIT[key]}</code>, EXIT_MEANING[key]],
          }))}
        />
      </Section>

      <Section id="statuses" title="Statuses">
        <GuideTable
          caption="What each status means"
          head={["Status", "Meaning", "Budget"]}
          rows={Object.entries(STATUS_MEANING).map(([status, meaning]) => ({
            key: status,
            cells: [<code key="s">{status}</code>, meaning, CHARGED[status] ?? ""],
          }))}
        />
      </Section>

      <Section id="reasons" title="Why an evaluation scored 0, failed, or is void">
        <p className="mt-2 max-w-prose text-slate-700">
          <strong>Scored 0</strong>: a gate failed (the first in this order is the reason shown), the candidate did not
          start or died, or a workload&apos;s speedup is 0 (a pass in which the candidate failed more requests than the
          stock engine by more than {protocol.gates.failedRequests.absolute} or{" "}
          {protocol.gates.failedRequests.share * 100}% counts as 0). It is ranked, with its reason.
        </p>
        <GuideTable
          caption="Gate failures"
          head={["Gate", "Reason shown"]}
          rows={REASON_ORDER.map((key) => ({ key, cells: [GATE_CHECKS[key], GATE_REASONS[key]] }))}
        />
        <p className="mt-3 max-w-prose text-slate-700">
          <strong>Failed</strong> (charged): the submission itself is wrong where the arena could only find out by
          fetching it: a speculator repository, commit or file that is not there or not what the Hub lists, more
          speculator bytes than half the target&apos;s, an engine repository or folder that is missing, holds links or
          is too large, a <code>plugin/</code> that does not install. The reason names it; your engine&apos;s last log
          lines come with it in <code>status</code>.
        </p>
        <p className="mt-2 max-w-prose text-slate-700">
          <strong>Void</strong> (refunded): the arena&apos;s own fault: the Hub or a repository out of reach, the stock
          engine that did not start or died, &quot;{VOID_REASON}&quot;, the device not idle in time, a pod or worker
          lost. Submit again.
        </p>
      </Section>

      <Section id="budgets" title="Budgets">
        <p className="mt-2 max-w-prose text-slate-700">
          Each account has {participant.dev} <code>dev</code> and {participant.test} <code>test</code> evaluations per
          task (the arena&apos;s study agents {study.dev} and {study.test}). One is charged when you submit, checked
          atomically: a refused request (a bad field, a bad token, no budget left) is not charged. A void evaluation is
          refunded, and so is one you cancel while it is queued. <code>dev</code> plays the public pool and returns
          everything a scored one does; <code>test</code> plays the hidden sessions and the board ranks your last scored
          one (not your best). <code>budget</code> shows what is left.
        </p>
      </Section>
    </div>
  );
}
