import type { WorkloadId } from "@/lib/protocol";
import type { ChatMessage, ToolSchema } from "@/lib/tokenizer/chat-template";

/**
 * One timed request. Times are float milliseconds from its pass's start on the judge's monotonic clock. `messages`
 * shares its message objects with the session's history and with other records (never deep-copied).
 */
export interface RequestRecord {
  workload: WorkloadId;
  pass: number | "warmup";
  lane: number;
  sessionId: string;
  app: string;
  turn: number;
  seed: number;
  maxTokens: number;
  messages: readonly ChatMessage[];
  tools: readonly ToolSchema[];
  /** The window rule's count for this prompt (tokens plus 5% and 128), and whether the history was cut for it. */
  promptEstimate: number;
  windowCut: boolean;
  scheduledMs: number;
  sentMs: number;
  firstTokenMs: number | null;
  lastTokenMs: number | null;
  doneMs: number;
  /** Arrival time of each content-bearing SSE event, and the tokens of the reply that arrived in it. */
  chunkMs: number[];
  chunkTokens: number[];
  status: number | null;
  sawDone: boolean;
  finishReason: string | null;
  error: string | null;
  /** Counted by the arena from the reply text with the target's tokenizer. */
  outputTokens: number;
  usage: { promptTokens: number | null; completionTokens: number | null; cachedTokens: number | null };
  /** True when the stream ended with [DONE], without error, within max_tokens. */
  counted: boolean;
  text: string;
}

export function isCounted(
  r: Pick<RequestRecord, "sawDone" | "error" | "status" | "outputTokens" | "maxTokens">,
): boolean {
  return r.sawDone && r.error === null && r.status === 200 && r.outputTokens <= r.maxTokens;
}
