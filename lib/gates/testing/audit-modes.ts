import { currentProtocol } from "@/lib/protocol";
import { type Mode, type SimEngine, startSimEngine } from "@/lib/sim-engine";
import { ChatTemplate } from "@/lib/tokenizer/chat-template";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import type { ConversationForCheck } from "../driver/check-context";
import { runCheck } from "../driver/check-run";
import { type EngineEndpoint, streamChatReply } from "../driver/openai-client";
import { scoreSampledReplies } from "../driver/score-texts";
import { type SamplingAuditResult, samplingAudit } from "../stats/sampling-audit";

/** Questions the timed-like requests ask (varied, so the toy target meets many contexts). */
export const AUDIT_QUESTIONS = [
  "Write a short poem about the sea.",
  "Explain recursion to a child.",
  "What are the main causes of inflation?",
  "Give me three tips for a job interview.",
  "How does a hash table work?",
  "Summarize the plot of a detective story in a few sentences.",
  "What is the difference between a virus and a bacterium?",
  "Suggest a plan for learning to cook in a month.",
  "Why is the sky blue?",
  "Describe how to make a cup of tea.",
  "What should I consider when buying a used car?",
  "Explain the rules of chess briefly.",
  "How can a team improve its code reviews?",
  "What are the benefits of regular exercise?",
  "Compare trains and planes for a 500 km trip.",
  "Write a polite email declining a meeting.",
] as const;

export const tokenizer = qwen3Tokenizer();
export const template = new ChatTemplate(tokenizer);

export const endpointOf = (e: SimEngine): EngineEndpoint => ({ baseUrl: e.url, model: e.servedName });

/** `replies` replies sampled from `engine` as timed requests ask for them (the protocol's sampling, a seed each). */
export async function sampleReplies(
  engine: SimEngine,
  replies: number,
  maxTokens: number,
  seed: number,
): Promise<ConversationForCheck[]> {
  const { sampling } = currentProtocol();
  const items = Array.from({ length: replies }, (_, i) => AUDIT_QUESTIONS[i % AUDIT_QUESTIONS.length]!);
  const run = await runCheck(items, 8, async (q, i) => {
    const messages = [{ role: "user" as const, content: q }];
    const { text: reply, finishReason } = await streamChatReply(endpointOf(engine), {
      messages,
      max_tokens: maxTokens,
      temperature: sampling.temperature,
      top_p: sampling.topP,
      top_k: sampling.topK,
      seed: seed * 100_000 + i,
      chat_template_kwargs: { enable_thinking: false },
    });
    return { messages, reply, finishReason };
  });
  if (run.unanswered > 0) throw new Error(`${run.unanswered} sampled replies failed: ${run.errors[0]?.message}`);
  return run.values.flatMap((v) => (v ? [v] : []));
}

/** A mode's replies, scored on the stock engine `scorer` with the audit's top-20 requests, and its audit. */
export async function auditMode(
  scorer: SimEngine,
  mode: Mode,
  options: { replies: number; maxTokens: number; seed: number; simSpeed?: number },
): Promise<SamplingAuditResult> {
  const engine =
    mode === "stock" ? scorer : await startSimEngine({ mode, simSpeed: options.simSpeed ?? 1000, maxNumSeqs: 8 });
  try {
    const replies = await sampleReplies(engine, options.replies, options.maxTokens, options.seed);
    const scored = await scoreSampledReplies(endpointOf(scorer), replies, { tokenizer, template, concurrency: 4 });
    if (scored.unanswered > 0) throw new Error(`${scored.unanswered} scorings failed: ${scored.errors[0]?.message}`);
    const audit = samplingAudit(
      scored.values.map((v) => v?.pit),
      options.seed,
    );
    if (!audit) throw new Error(`no reply of ${mode} could be audited`);
    return audit;
  } finally {
    if (engine !== scorer) await engine.close();
  }
}
