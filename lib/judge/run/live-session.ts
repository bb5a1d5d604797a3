import type { ChatMessage } from "@/lib/tokenizer/chat-template";
import type { Session } from "../pool/schema";
import type { PassApp } from "./context";

/**
 * A session in play: its history and each message's token count, kept side by side so the window rule never
 * re-tokenizes a history (a turn is counted once, in the pool or when its reply arrives).
 */
export class LiveSession {
  turn = 0;
  readyAtMs = 0;
  messages: ChatMessage[];
  tokens: number[];

  constructor(
    readonly session: Session,
    readonly app: PassApp,
    readyAtMs: number,
  ) {
    this.messages = [app.system];
    this.tokens = [app.systemTokens];
    this.readyAtMs = readyAtMs;
  }

  get done(): boolean {
    return this.turn >= this.session.turns.length;
  }

  rawTokens(): number {
    let sum = this.app.toolsTokens;
    for (const t of this.tokens) sum += t;
    return sum;
  }

  push(message: ChatMessage, tokens: number): void {
    this.messages.push(message);
    this.tokens.push(tokens);
  }

  /** Compaction: keep the first message and the messages from `start` on. New arrays: records keep the old ones. */
  cutFrom(start: number): void {
    this.messages = [this.messages[0]!, ...this.messages.slice(start)];
    this.tokens = [this.tokens[0]!, ...this.tokens.slice(start)];
  }
}
