import type { ChatMessage, ToolSchema } from "@/lib/tokenizer/chat-template";
import type { ConversationForCheck } from "./driver/check-context";
import type { ReplyLength } from "./stats/length-ratio";

/** The fields of a judge request record (`@/lib/judge` RequestRecord) the gates read. */
export interface TimedRecordFields {
  pass: number | "warmup";
  sessionId: string;
  turn: number;
  messages: readonly ChatMessage[];
  tools: readonly ToolSchema[];
  text: string;
  outputTokens: number;
  finishReason: string | null;
  counted: boolean;
}

const timed = <R extends TimedRecordFields>(records: readonly R[]) =>
  records.filter((r): r is R & { pass: number } => r.counted && r.pass !== "warmup");

/** The answered timed replies' lengths, keyed for pairing (warm-up replies are not paired). */
export function replyLengths(records: readonly TimedRecordFields[]): ReplyLength[] {
  return timed(records).map((r) => ({ pass: r.pass, session: r.sessionId, turn: r.turn, tokens: r.outputTokens }));
}

/** The answered timed replies after their conversations, ready to be drawn and scored. */
export function sampledConversations(records: readonly TimedRecordFields[]): ConversationForCheck[] {
  return timed(records).map((r) => ({
    messages: r.messages,
    tools: r.tools,
    reply: r.text,
    finishReason: r.finishReason,
  }));
}
