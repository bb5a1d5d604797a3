/**
 * Derives the workload card from the public traces: `npx tsx lib/judge/card/derive-card.ts [--data DIR]`.
 * Writes workload-card.v1.json next to this file. Every distribution names the files it came from.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { dataDirFromArgs } from "../pool/data-dir";
import { importMlcommons } from "../pool/importers/mlcommons";
import { importMtBench } from "../pool/importers/mt-bench";
import { importMtBench101 } from "../pool/importers/mt-bench-101";
import { importOpenHands } from "../pool/importers/openhands";
import { readJsonLines } from "../pool/importers/raw";
import { importSweAgent } from "../pool/importers/swe-agent";
import { distributionOf } from "./distribution";
import type { WorkloadCard } from "./workload-card";

const data = dataDirFromArgs(process.argv.slice(2));
const tok = qwen3Tokenizer();
const tokens = (s: string) => tok.encode(s).length;

// --- agent traces ---
const ml = importMlcommons(data);
const oh = importOpenHands(data);
const swe = importSweAgent(data);
const agentConvs = [...ml.conversations, ...oh.conversations, ...swe.conversations];

const turnsPerSession = agentConvs.map((c) => c.turns.length);
const toolDelays = agentConvs.flatMap((c) =>
  c.turns.flatMap((t) => (t.delaySeconds === undefined ? [] : [t.delaySeconds])),
);
const toolResultTokens = agentConvs.flatMap((c) =>
  c.turns.filter((t) => t.role === "tool").map((t) => tokens(t.content)),
);
const firstPromptTokens = agentConvs.map((c) => tokens(c.turns[0]!.content));

const ohRuns = readJsonLines(
  readFileSync(join(data, "openhands/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl"), "utf8"),
) as { metrics: { token_usages: { prompt_tokens: number; completion_tokens: number }[] } }[];
const ohUsage = ohRuns.flatMap((r) => r.metrics.token_usages);

const lmDir = join(data, "lmcache-agent-trace/miniswe");
const lmCalls: { session: string; input: string; output: string; ts: number }[] = [];
for (const f of readdirSync(lmDir).filter((n) => n.endsWith(".jsonl"))) {
  for (const row of readJsonLines(readFileSync(join(lmDir, f), "utf8")) as {
    timestamp: number;
    input: string;
    output: string;
    session_id: string;
  }[]) {
    lmCalls.push({ session: row.session_id, input: row.input, output: row.output, ts: row.timestamp });
  }
}
const lmSessions = new Map<string, number>();
for (const c of lmCalls) lmSessions.set(c.session, (lmSessions.get(c.session) ?? 0) + 1);

const agentReplyTokens = [
  ...ohUsage.map((u) => u.completion_tokens),
  ...lmCalls.map((c) => tokens(c.output)),
  ...ml.conversations.flatMap((c) => c.turns.flatMap((t) => (t.recordedReply ? [tokens(t.recordedReply)] : []))),
];
const promptTokensPerCall = [...ohUsage.map((u) => u.prompt_tokens), ...lmCalls.map((c) => tokens(c.input))];

// --- chat statistics ---
const chatConvs = [...importMtBench(data).conversations, ...importMtBench101(data).conversations];
const depth = chatConvs.map((c) => c.turns.length);
const userTurnTokens = chatConvs.flatMap((c) => c.turns.map((t) => tokens(t.content)));

const azure = readFileSync(join(data, "azure-llm-inference-trace-2023/data/AzureLLMInferenceTrace_conv.csv"), "utf8")
  .split("\n")
  .slice(1)
  .filter((l) => l.trim() !== "")
  .map((l) => l.split(","))
  .map(([, ctx, gen]) => ({ context: Number(ctx), generated: Number(gen) }));

interface MooncakeRow {
  timestamp: number;
  input_length: number;
  output_length: number;
  hash_ids: number[];
}
const mooncake = readJsonLines(
  readFileSync(join(data, "mooncake-traces/FAST25-release/traces/conversation_trace.jsonl"), "utf8"),
) as MooncakeRow[];
mooncake.sort((a, b) => a.timestamp - b.timestamp);

/**
 * Mooncake's hash ids name 512-token prefix blocks. A request continues a conversation when an earlier request's
 * full blocks (all but its last, possibly partial, block) are a prefix of its own: the gap between them is the
 * previous reply's generation plus the user's think time. Prefix hashes are chained so a lookup costs one pass.
 */
const lastByPrefix = new Map<string, number>();
const seenBlocks = new Set<string>();
const thinkSeconds: number[] = [];
let reusedBlocks = 0;
let totalBlocks = 0;
const perRequestReuse: number[] = [];
let firstTurns = 0;
let firstTurnsSharedFirstBlock = 0;
for (const r of mooncake) {
  let key = "";
  const keys: string[] = [];
  for (const id of r.hash_ids) {
    key = `${key}/${id}`;
    keys.push(key);
  }
  let prev: number | undefined;
  // a one-block match is a shared system prefix, not a conversation; a zero gap is a parallel request
  for (let k = keys.length - 1; k >= 1 && prev === undefined; k--) prev = lastByPrefix.get(keys[k]!);
  if (prev !== undefined && r.timestamp > prev) thinkSeconds.push((r.timestamp - prev) / 1000);
  else prev = undefined;
  if (prev === undefined) {
    firstTurns++;
    if (keys[0] && seenBlocks.has(keys[0])) firstTurnsSharedFirstBlock++;
  }
  let reused = 0;
  while (reused < keys.length && seenBlocks.has(keys[reused]!)) reused++;
  reusedBlocks += reused;
  totalBlocks += keys.length;
  if (keys.length > 0) perRequestReuse.push(reused / keys.length);
  for (const k of keys) seenBlocks.add(k);
  if (keys.length > 1) lastByPrefix.set(keys[keys.length - 2]!, r.timestamp);
  if (keys.length > 0) lastByPrefix.set(keys[keys.length - 1]!, r.timestamp);
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const card: WorkloadCard = {
  version: "1",
  protocolVersion: "1",
  derivedAt: new Date().toISOString().slice(0, 10),
  method: [
    "Distributions are quantile tables (p0…p100) of the listed samples; the builder draws from them by inverse CDF with a seeded generator.",
    "Token counts come from the target's tokenizer (lib/tokenizer) over the traces' text; OpenHands' per-call prompt and completion tokens are the trace's own usage.",
    "Agent tool delays are the recorded gaps (MLCommons delay_seconds, SWE-agent execution_time, OpenHands action-to-observation time). A session's recorded delay is used where present; otherwise one is drawn.",
    "Chat think time: Mooncake conversation requests linked when an earlier request's full 512-token blocks prefix a later one; the gap includes the previous reply's generation, so it bounds think time from above.",
    "Chat depth: MT-Bench and MT-Bench-101 dialogue lengths. Reply length and context: Azure LLM inference trace 2023 (conversation service).",
    "Prefix-reuse targets: the token-weighted share of Mooncake's prompt blocks already seen earlier in the hour, and the mean of that share per request: the cache hit an unbounded prefix cache would reach on that traffic.",
  ],
  mix: {
    agentShare: 0.5,
    why: "Section 4 runs both families; with no production mix in the public data, a lane's live sessions alternate between agent and chat, so each family holds half the slots.",
  },
  replyBudget: {
    factor: 2,
    roundTo: 64,
    min: 256,
    max: 4096,
    why: "A turn's max_tokens is twice a reply length drawn from its family's reply distribution, rounded up to 64, within [256, 4096]: clients set budgets above typical replies, so most replies end where the model ends them.",
  },
  agent: {
    turnsPerSession: distributionOf(turnsPerSession, "turns", "mlcommons-endpoints, openhands, swe-agent trajectories"),
    toolDelaySeconds: distributionOf(
      toolDelays,
      "s",
      "mlcommons delay_seconds, swe-agent execution_time, openhands action→observation",
    ),
    toolResultTokens: distributionOf(
      toolResultTokens,
      "tokens",
      "tool results of mlcommons, openhands, swe-agent (clipped at 6,000 chars)",
    ),
    replyTokens: distributionOf(
      agentReplyTokens,
      "tokens",
      "openhands completion tokens, lmcache miniswe outputs, mlcommons assistant turns",
    ),
    promptTokensPerCall: distributionOf(
      promptTokensPerCall,
      "tokens",
      "openhands prompt tokens, lmcache miniswe inputs",
    ),
    firstPromptTokens: distributionOf(firstPromptTokens, "tokens", "first user message of each agent trajectory"),
  },
  chat: {
    depth: distributionOf(depth, "turns", "mt-bench, mt-bench-101"),
    userTurnTokens: distributionOf(userTurnTokens, "tokens", "mt-bench, mt-bench-101 user turns"),
    replyTokens: distributionOf(
      azure.map((a) => a.generated),
      "tokens",
      "Azure LLM inference trace 2023, conv",
    ),
    contextTokens: distributionOf(
      azure.map((a) => a.context),
      "tokens",
      "Azure LLM inference trace 2023, conv",
    ),
    thinkSeconds: distributionOf(thinkSeconds, "s", "Mooncake FAST'25 conversation trace, linked requests"),
    sharedFirstBlockShare: round3(firstTurnsSharedFirstBlock / Math.max(1, firstTurns)),
  },
  targets: {
    chatPrefixReuseTokenWeighted: round3(reusedBlocks / Math.max(1, totalBlocks)),
    chatPrefixReusePerRequest: round3(perRequestReuse.reduce((a, b) => a + b, 0) / Math.max(1, perRequestReuse.length)),
    why: "Calibration (section 10) sets m and c so the stock engine's measured cache hit approaches these.",
  },
};

const out = join(dirname(fileURLToPath(import.meta.url)), "workload-card.v1.json");
writeFileSync(out, `${JSON.stringify(card, null, 2)}\n`);
console.log(`wrote ${out}`);
console.log(
  `agent sessions ${turnsPerSession.length}, delays ${toolDelays.length}, lmcache sessions ${lmSessions.size}; chat dialogues ${depth.length}; mooncake links ${thinkSeconds.length}`,
);
