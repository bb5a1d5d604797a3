import type { Dispatcher } from "undici";
import type { WorkloadId } from "@/lib/protocol";
import type { ChatMessage, ToolSchema } from "@/lib/tokenizer/chat-template";
import type { RequestRecord } from "../records";
import type { TokenCounter } from "../tokens/token-counter";
import type { WindowRule } from "../window";

/** An app as one pass sends it: its salted system message (one object for every session) and its tools. */
export interface PassApp {
  id: string;
  system: ChatMessage;
  systemTokens: number;
  tools: readonly ToolSchema[];
  toolsTokens: number;
}

/** Everything a lane needs; shared by the pass's lanes. */
export interface PassContext {
  chatUrl: string;
  model: string;
  dispatcher: Dispatcher;
  counter: TokenCounter;
  rule: WindowRule;
  evaluationSeed: string;
  workload: WorkloadId;
  pass: number | "warmup";
  apps: ReadonlyMap<string, PassApp>;
  /** The pass's origin on the judge's clock in milliseconds (`nowMs`); records are timed from it. */
  originMs: number;
  /** No request is sent at or after this (ms from the pass start). */
  sendUntilMs: number;
  /** Aborted at the end of the grace period: whatever still streams stops and does not count. */
  hardStop: AbortSignal;
  thinkScale: number;
  thinkCapSeconds: number;
  maxTokensCap: number | null;
  /** Warm-up: one turn per lane, then stop. */
  oneShot: boolean;
  onRecord(record: RequestRecord): void;
  inFlight: { count: number };
}
