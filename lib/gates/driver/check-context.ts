import { currentProtocol } from "@/lib/protocol";
import type { ChatMessage, ToolSchema } from "@/lib/tokenizer/chat-template";
import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";

/** A reply after the conversation that produced it: a sampled reply to score, or a fixed text of the pool. */
export interface ConversationForCheck {
  /** The request's messages, system prompt first where there is one, without the reply. */
  messages: readonly ChatMessage[];
  tools?: readonly ToolSchema[];
  reply: string;
  /**
   * How the engine ended a sampled reply (the stream's `finish_reason`): "stop" when it drew its end token (the timed
   * requests name no stop strings), "length" at max_tokens. The sampling audit reads the end token of a reply that
   * stopped; absent for fixed texts.
   */
  finishReason?: string | null;
}

export interface ContextLimits {
  /** The conversation's last tokens kept after the system prompt (3,000). */
  contextTokens: number;
  /** The reply's first characters kept (2,000). */
  replyChars: number;
}

export function protocolContextLimits(): ContextLimits {
  const { contextTokens, replyChars } = currentProtocol().gates.likelihood;
  return { contextTokens, replyChars };
}

/** The Qwen template treats a user message wrapping a tool response as a tool turn, not as a query. */
const isQuery = (m: ChatMessage) =>
  m.role === "user" && !(m.content.startsWith("<tool_response>") && m.content.endsWith("</tool_response>"));

/** Decoding a cut token sequence can start mid-character: drop the replacement characters that leaves. */
const trimBroken = (s: string) => s.replace(/^\uFFFD+/, "");

/** The reply's first `chars` characters (code points, as Python counts them). */
export function cutReply(reply: string, chars: number): string {
  const points = Array.from(reply);
  return points.length <= chars ? reply : points.slice(0, chars).join("");
}

/**
 * The reply as `continue_final_message` keeps it (Hugging Face's rule: a reply led by whitespace loses that and its
 * trailing whitespace), written out so every renderer of the chat template cuts the prompt at the same place.
 */
export function keptReply(reply: string): string {
  return reply.trimStart() === reply ? reply : reply.trim();
}

/**
 * The final assistant message of a scoring request. An empty reasoning (`reasoning` for current vLLM, which copies
 * it to `reasoning_content`; `reasoning_content` for the template and older servers) makes the template render the
 * reply verbatim after the empty think block the reply was generated after, even when the reply itself contains
 * `</think>` (the template would otherwise split it there and the engine refuse to continue it).
 */
export type ScoringMessage = ChatMessage & { reasoning?: string; reasoning_content?: string };

/**
 * The messages a reply is scored on (protocol section 6): the system prompt, then the conversation's last
 * `contextTokens` tokens (the oldest kept message cut to its tail), led by the conversation's first user message
 * (its head, at most `contextTokens` tokens) when those hold no user query; then the reply cut to `replyChars`
 * characters (as `keptReply` keeps it) as the final assistant message. The same for both engines' replies.
 */
export function scoringMessages(
  conversation: ConversationForCheck,
  tokenizer: TargetTokenizer,
  limits: ContextLimits = protocolContextLimits(),
): ScoringMessage[] {
  const messages = conversation.messages;
  if (messages.length === 0) throw new Error("conversation has no messages");
  const system = messages[0]!.role === "system" ? messages[0]! : null;
  const rest = system ? messages.slice(1) : messages;
  const kept: ChatMessage[] = [];
  let budget = limits.contextTokens;
  for (let i = rest.length - 1; i >= 0 && budget > 0; i--) {
    const m = rest[i]!;
    const ids = tokenizer.encode(m.content);
    if (ids.length <= budget) {
      kept.unshift(m);
      budget -= ids.length;
    } else {
      kept.unshift({ ...m, content: trimBroken(tokenizer.decode(ids.slice(ids.length - budget))) });
      budget = 0;
    }
  }
  if (!kept.some(isQuery)) {
    const first = rest.find(isQuery);
    if (!first) throw new Error("conversation has no user message to lead its scored context");
    const ids = tokenizer.encode(first.content);
    const content =
      ids.length <= limits.contextTokens ? first.content : tokenizer.decode(ids.slice(0, limits.contextTokens));
    kept.unshift({ ...first, content });
  }
  return [
    ...(system ? [system] : []),
    ...kept,
    {
      role: "assistant",
      content: keptReply(cutReply(conversation.reply, limits.replyChars)),
      reasoning: "",
      reasoning_content: "",
    },
  ];
}
