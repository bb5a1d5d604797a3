/**
 * Preview of the sampled-likelihood and first-choice checks against the simulated engine's modes: samples replies
 * from each mode as timed requests do, scores them on the stock engine, and prints each gap, its interval and verdict.
 * Usage: npx tsx lib/gates/bench/sampled-gaps.ts [replies=128] [maxTokens=128] [seed=1] [modes=all, comma-separated]
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { currentProtocol, getTask } from "@/lib/protocol";
import { type Mode, type SimEngine, startSimEngine } from "@/lib/sim-engine";
import { ChatTemplate } from "@/lib/tokenizer/chat-template";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import type { ConversationForCheck } from "../driver/check-context";
import { runCheck } from "../driver/check-run";
import { streamChatReply } from "../driver/openai-client";
import { scoreSampledReplies } from "../driver/score-texts";
import type { ReplyScore } from "../judge-evaluation";
import { gapOf, gapPasses } from "../stats/equivalence";
import { ratioEstimate } from "../stats/ratio-estimate";

const args = z
  .tuple([
    z.coerce.number().int().positive().default(128),
    z.coerce.number().int().positive().default(128),
    z.coerce.number().int().default(1),
  ])
  .parse([process.argv[2], process.argv[3], process.argv[4]]);
const [replies, maxTokens, seed] = args;

const pool = readFileSync("/work/shared/data/spec-bench/data/spec_bench/question.jsonl", "utf8")
  .trim()
  .split("\n")
  .map((l) => (JSON.parse(l) as { turns: string[] }).turns[0]!);
const questions = Array.from({ length: replies }, (_, i) => pool[i % pool.length]!);

const tokenizer = qwen3Tokenizer();
const template = new ChatTemplate(tokenizer);
const { sampling } = currentProtocol();
const task = getTask("qwen3-8b");

async function sample(engine: SimEngine, offset: number): Promise<ConversationForCheck[]> {
  const endpoint = { baseUrl: engine.url, model: engine.servedName };
  const run = await runCheck(questions, 8, async (q, i) => {
    const messages = [{ role: "user" as const, content: q }];
    const { text: reply, finishReason } = await streamChatReply(endpoint, {
      messages,
      max_tokens: maxTokens,
      temperature: sampling.temperature,
      top_p: sampling.topP,
      top_k: sampling.topK,
      seed: seed * 100_000 + offset + i,
      chat_template_kwargs: { enable_thinking: false },
    });
    return { messages, reply, finishReason };
  });
  return run.values.flatMap((v): ConversationForCheck[] => (v ? [v] : []));
}

const estimate = (scores: (ReplyScore | null)[], pick: (s: ReplyScore) => number) =>
  ratioEstimate(scores.filter((s): s is ReplyScore => s !== null).map((s) => ({ sum: pick(s), tokens: s.tokens })));

const ALL_MODES: Mode[] = [
  "stock",
  "ngram",
  "draft",
  "eagle",
  "loose-accept",
  "greedy",
  "other-sampling",
  "quantized",
  "cut-replies",
];
const modes = process.argv[5] ? z.array(z.enum(ALL_MODES)).parse(process.argv[5].split(",")) : ALL_MODES;
const scorer = await startSimEngine({ mode: "stock", simSpeed: 1000 });
const scorerEndpoint = { baseUrl: scorer.url, model: scorer.servedName };
const baseline = await sample(scorer, 0);
const stockScores = (await scoreSampledReplies(scorerEndpoint, baseline, { tokenizer, template, concurrency: 4 }))
  .values;
console.log(`replies ${replies}, max_tokens ${maxTokens}, seed ${seed}`);
console.log(
  "mode            likelihood gap ± 1.96se        verdict | not-first gap ± 1.96se      verdict | not-first share",
);
for (const mode of modes) {
  const engine = await startSimEngine({ mode, simSpeed: 1000 });
  try {
    const convs = await sample(engine, 50_000);
    const scores = (await scoreSampledReplies(scorerEndpoint, convs, { tokenizer, template, concurrency: 4 })).values;
    const lik = gapOf(
      estimate(scores, (s) => s.logprobSum),
      estimate(stockScores, (s) => s.logprobSum),
    );
    const arg = gapOf(
      estimate(scores, (s) => s.notFirstChoice),
      estimate(stockScores, (s) => s.notFirstChoice),
    );
    const v = (g: typeof lik, b: number) => (gapPasses(g.gap, g.se, b, 1.96) ? "pass" : "FAIL");
    console.log(
      `${mode.padEnd(15)} ${lik.gap.toFixed(4).padStart(8)} ± ${(1.96 * lik.se).toFixed(4)}  ${v(lik, task.gates.likelihoodBound.value).padStart(12)} | ${arg.gap.toFixed(4).padStart(8)} ± ${(1.96 * arg.se).toFixed(4)}  ${v(arg, task.gates.argmaxBound.value).padStart(12)} | ${arg.candidate.toFixed(3)} (stock ${arg.stock.toFixed(3)})`,
    );
  } finally {
    await engine.close();
  }
}
await scorer.close();
