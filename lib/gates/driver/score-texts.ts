import { currentProtocol } from "@/lib/protocol";
import type { ChatTemplate } from "@/lib/tokenizer/chat-template";
import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import type { ReplyScore } from "../judge-evaluation";
import {
  type AuditSampling,
  foldStops,
  type PitInterval,
  pitInterval,
  processedDistribution,
} from "../stats/sampling-audit";
import { auditedSpan } from "./audited-span";
import {
  type ContextLimits,
  type ConversationForCheck,
  cutReply,
  protocolContextLimits,
  scoringMessages,
} from "./check-context";
import { type CheckRun, runCheck } from "./check-run";
import { type EngineEndpoint, postChat, type RequestOptions } from "./openai-client";
import {
  type PromptLogprobsResponse,
  parsePromptLogprobsResponse,
  promptTokenScores,
  promptTopCandidates,
  type TokenScore,
} from "./prompt-logprobs";
import { renderForScoring, type ScoredPrompt } from "./reply-span";

export interface ScoringOptions extends RequestOptions {
  tokenizer: TargetTokenizer;
  template: ChatTemplate;
  limits?: ContextLimits;
  /** Scoring requests in flight at once (they are not timed). */
  concurrency?: number;
  /**
   * The sampling the timed replies were asked for, for the exact sampling audit (stats/sampling-audit.ts): the
   * protocol's when absent; false leaves the audit out (scoring requests then ask for the first choice only).
   */
  audit?: AuditSampling | false;
}

/** A conversation prepared for scoring: the messages sent and the prompt as the arena tokenizes it. */
export interface PreparedText {
  body: object;
  prompt: ScoredPrompt | null;
  /**
   * Whether the sampling audit can read this reply: scored on its whole conversation (nothing cut before it), its
   * text kept as sampled (no whitespace trimmed) and its first token not merged with the template's text before it.
   */
  auditable: boolean;
  /** The reply was cut to its first characters: its last scored token may be part of a sampled one. */
  replyCut: boolean;
  /**
   * What the audit reads of an auditable reply (audited-span.ts): its first `tokens` tokens, then, where `end`, the
   * end token it stopped on (the prompt is then closed: rendered through the template's close).
   */
  audited: { tokens: number; end: boolean } | null;
}

/** Builds the scoring request of a reply after its conversation; `prompt` is null when the cut reply is empty. */
export function prepareScoring(conversation: ConversationForCheck, options: ScoringOptions): PreparedText {
  const limits = options.limits ?? protocolContextLimits();
  const messages = scoringMessages(conversation, options.tokenizer, limits);
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
  const replyCut = cutReply(conversation.reply, limits.replyChars) !== conversation.reply;
  if (messages[messages.length - 1]!.content.trim() === "")
    return { body, prompt: null, auditable: false, replyCut, audited: null };
  // a reply the engine ended itself (not cut by max_tokens or the protocol's cut) is scored through its end token
  const close = auditSampling(options) !== null && conversation.finishReason === "stop" && !replyCut;
  const prompt = renderForScoring(messages, tools, options.template, options.tokenizer, { close });
  const context = messages.slice(0, -1);
  const wholeContext =
    context.length === conversation.messages.length &&
    context.every(
      (m, i) => m.role === conversation.messages[i]!.role && m.content === conversation.messages[i]!.content,
    );
  const auditable = wholeContext && conversation.reply.trimStart() === conversation.reply && prompt.cleanStart;
  const span = auditable
    ? auditedSpan(options.tokenizer, prompt.ids.slice(prompt.replyStart, prompt.replyEnd), limits.replyChars)
    : null;
  return {
    body: prompt.closed ? { ...body, continue_final_message: false } : body,
    prompt,
    auditable,
    replyCut,
    audited: span && { tokens: span.tokens, end: span.end && prompt.closed },
  };
}

/** The audit's sampling, or null when it is off or cannot see the whole support (top_k off or above vLLM's 20). */
function auditSampling(options: ScoringOptions): AuditSampling | null {
  if (options.audit === false) return null;
  const s = options.audit ?? currentProtocol().sampling;
  return s.topK > 0 && s.topK <= MAX_PROMPT_LOGPROBS && s.temperature > 0 ? s : null;
}

/** vLLM's default `max_logprobs`: the most `prompt_logprobs` a request may ask for. */
const MAX_PROMPT_LOGPROBS = 20;

async function score(
  endpoint: EngineEndpoint,
  prepared: PreparedText,
  from: (p: ScoredPrompt) => number,
  options: ScoringOptions,
) {
  const prompt = prepared.prompt!;
  const response = parsePromptLogprobsResponse(await postChat(endpoint, prepared.body, options));
  return promptTokenScores(response, prompt.ids, from(prompt), prompt.replyEnd);
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
  const sampling = auditSampling(options);
  return runCheck(
    prepared,
    options.concurrency ?? 4,
    async (p) => {
      if (p.prompt === null) return { tokens: 0, logprobSum: 0, notFirstChoice: 0 };
      const prompt = p.prompt;
      if (!sampling || !p.audited) return summarize(await score(endpoint, p, () => prompt.replyStart, options));
      // the same request, asking for the whole support the timed request sampled from at each token
      const body = { ...p.body, prompt_logprobs: sampling.topK };
      const response = parsePromptLogprobsResponse(await postChat(endpoint, body, options));
      const summary = summarize(promptTokenScores(response, prompt.ids, prompt.replyStart, prompt.replyEnd));
      // the audit is shown, never gated: a response it cannot read leaves the reply scored and unaudited
      const pit = pitIntervals(response, prompt, sampling, p.audited, options.tokenizer.stopIds);
      return pit ? { ...summary, pit } : summary;
    },
    options.onProgress,
  );
}

/** The PIT intervals of the audited tokens: the span's reply tokens, then the end token where it is read. */
function pitIntervals(
  response: PromptLogprobsResponse,
  prompt: ScoredPrompt,
  sampling: AuditSampling,
  span: { tokens: number; end: boolean },
  stopIds: readonly number[],
): PitInterval[] | null {
  try {
    const to = span.end ? prompt.replyEnd + 1 : prompt.replyStart + span.tokens;
    const top = promptTopCandidates(response, prompt.ids, prompt.replyStart, sampling.topK, to);
    return top.map((raw, i) => {
      const token = prompt.ids[prompt.replyStart + i]!;
      const dist = processedDistribution(raw, sampling);
      // the end token read (`replyEnd`) stands for whichever stop token the engine drew
      return pitInterval(span.end && i === top.length - 1 ? foldStops(dist, token, stopIds) : dist, token);
    });
  } catch {
    return null;
  }
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
  return runCheck(
    prepared,
    options.concurrency ?? 4,
    async (p) => (await score(endpoint, p, () => 1, options)).map((s) => s.logprob),
    options.onProgress,
  );
}
