import type { ChatTemplate } from "@/lib/tokenizer/chat-template";
import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import type { ReplyScore } from "../judge-evaluation";
import { type ContextLimits, type ConversationForCheck, protocolContextLimits, scoringMessages } from "./check-context";
import { type CheckRun, runCheck } from "./check-run";
import { type EngineEndpoint, postChat, type RequestOptions } from "./openai-client";
import { promptLogprobsResponseSchema, promptTokenScores, type TokenScore } from "./prompt-logprobs";
import { renderForScoring, type ScoredPrompt } from "./reply-span";

export interface ScoringOptions extends RequestOptions {
  tokenizer: TargetTokenizer;
  template: ChatTemplate;
  limits?: ContextLimits;
  /** Scoring requests in flight at once (they are not timed). */
  concurrency?: number;
}

/** A conversation prepared for scoring: the messages sent and the prompt as the arena tokenizes it. */
export interface PreparedText {
  body: object;
  prompt: ScoredPrompt | null;
}

/** Builds the scoring request of a reply after its conversation; `prompt` is null when the cut reply is empty. */
export function prepareScoring(conversation: ConversationForCheck, options: ScoringOptions): PreparedText {
  const messages = scoringMessages(conversation, options.tokenizer, options.limits ?? protocolContextLimits());
  const tools = conversation.tools && conversation.tools.length > 0 ? conversation.tools : undefined;
  const body = {
    messages,
    ...(tools ? { tools, tool_choice: "none" } : {}),
    max_tokens: 1,
    temperature: 0,
    prompt_logprobs: 1,
    add_generation_prompt: false,
    continue_final_message: true,
    chat_template_kwargs: { enable_thinking: false },
    stream: false,
  };
  if (messages[messages.length - 1]!.content.trim() === "") return { body, prompt: null };
  return { body, prompt: renderForScoring(messages, tools, options.template, options.tokenizer) };
}

async function score(
  endpoint: EngineEndpoint,
  prepared: PreparedText,
  from: (p: ScoredPrompt) => number,
  options: ScoringOptions,
) {
  const prompt = prepared.prompt!;
  const response = promptLogprobsResponseSchema.parse(await postChat(endpoint, prepared.body, options));
  return promptTokenScores(response, prompt.ids, from(prompt));
}

/**
 * Scores sampled replies under the target on the (stock) engine at `endpoint`: per reply, its tokens, their summed
 * log-probability, and how many were not the target's first choice. An empty reply scores as no tokens.
 */
export async function scoreSampledReplies(
  endpoint: EngineEndpoint,
  replies: readonly ConversationForCheck[],
  options: ScoringOptions,
): Promise<CheckRun<ReplyScore>> {
  const prepared = replies.map((r) => prepareScoring(r, options));
  return runCheck(prepared, options.concurrency ?? 4, async (p) => {
    if (p.prompt === null) return { tokens: 0, logprobSum: 0, notFirstChoice: 0 };
    const scores = await score(endpoint, p, (prompt) => prompt.replyStart, options);
    return summarize(scores);
  });
}

export function summarize(scores: readonly TokenScore[]): ReplyScore {
  let logprobSum = 0;
  let notFirstChoice = 0;
  for (const s of scores) {
    if (s.rank === null) throw new Error("the engine reported no rank for a reply token");
    logprobSum += s.logprob;
    if (s.rank !== 1) notFirstChoice++;
  }
  return { tokens: scores.length, logprobSum, notFirstChoice };
}

/**
 * Scores fixed texts (a recorded reply after its conversation) on one engine: the log-probability of every token
 * of the scored prompt after the first, for comparison with the other engine's on the same tokens.
 */
export async function scoreFixedTexts(
  endpoint: EngineEndpoint,
  texts: readonly ConversationForCheck[],
  options: ScoringOptions,
): Promise<CheckRun<number[]>> {
  const prepared = texts.map((t) => {
    const p = prepareScoring(t, options);
    if (p.prompt === null) throw new Error("a fixed text has an empty reply");
    return p;
  });
  return runCheck(prepared, options.concurrency ?? 4, async (p) =>
    (await score(endpoint, p, () => 1, options)).map((s) => s.logprob),
  );
}
