import type { ChatMessage, ToolSchema } from "@/lib/tokenizer/chat-template";
import { type TimedRequestBody, timedRequestBody } from "../client/request-body";
import { hash32, hexTag, rng, shuffled } from "../rng";
import { requestSeed, saltedSystemPrompt } from "../sessions/plan";
import type { Pool, Session } from "./schema";

export interface GreedyProbe {
  id: string;
  sessionId: string;
  app: string;
  messages: ChatMessage[];
  tools: readonly ToolSchema[];
  maxTokens: number;
  /** The request exactly as sent: a timed request's body with temperature 0. */
  body: TimedRequestBody;
}

export interface FixedText {
  id: string;
  sessionId: string;
  app: string;
  /** The conversation up to the turn, ending with the user or tool message the reply answers. */
  messages: ChatMessage[];
  tools: readonly ToolSchema[];
  /** The reply the source recorded after that conversation. */
  reply: string;
}

/** A session's history up to turn `k` (exclusive of its reply), with recorded replies as the assistant's turns. */
function historyTo(session: Session, k: number, system: string): ChatMessage[] {
  const out: ChatMessage[] = [{ role: "system", content: system }];
  for (let i = 0; i <= k; i++) {
    const t = session.turns[i]!;
    out.push(
      t.role === "tool"
        ? { role: "tool", content: t.content, tool_call_id: `call_${i}` }
        : { role: "user", content: t.content },
    );
    if (i < k) out.push({ role: "assistant", content: t.recordedReply ?? "" });
  }
  return out;
}

/** The turn to stop at: one whose earlier turns all have recorded replies, drawn from the seed. */
function pickTurn(session: Session, u: number, needReply: boolean): number | null {
  let last = -1;
  for (let i = 0; i < session.turns.length; i++) {
    if (needReply && !session.turns[i]!.recordedReply) break;
    last = i;
    if (!needReply && i + 1 < session.turns.length && !session.turns[i]!.recordedReply) break;
  }
  if (last < 0) return null;
  return Math.floor(u * (last + 1));
}

/**
 * The greedy-agreement probes (section 6, check 1): built like timed requests (a salted system prompt, a real
 * session's history with its recorded replies, the same body) so an engine cannot tell them apart; only
 * `temperature` is 0. Deterministic from the seed.
 */
export function greedyProbes(
  pool: Pool,
  options: { seed: string; count: number; maxTokens: number; model: string },
): GreedyProbe[] {
  const order = shuffled(pool.sessions, rng(hash32(options.seed, "probes")));
  const random = rng(hash32(options.seed, "probe-turns"));
  const salt = hexTag(options.seed, "probe-salt");
  const out: GreedyProbe[] = [];
  for (const s of order) {
    if (out.length >= options.count) break;
    const k = pickTurn(s, random(), false);
    if (k === null) continue;
    const app = pool.apps.get(s.app)!;
    const messages = historyTo(s, k, saltedSystemPrompt(app.systemPrompt, salt));
    const body = timedRequestBody(
      {
        model: options.model,
        messages,
        tools: app.tools,
        maxTokens: options.maxTokens,
        seed: requestSeed(options.seed, s.id, k),
      },
      { temperature: 0 },
    );
    out.push({
      id: `probe-${out.length}`,
      sessionId: s.id,
      app: s.app,
      messages,
      tools: app.tools,
      maxTokens: options.maxTokens,
      body,
    });
  }
  if (out.length < options.count)
    throw new Error(`the pool holds only ${out.length} probe-able sessions of ${options.count} asked`);
  return out;
}

/** The fixed texts (section 6, check 3): a recorded reply after its real conversation. Deterministic from the seed. */
export function fixedTexts(pool: Pool, options: { seed: string; count: number }): FixedText[] {
  const order = shuffled(pool.sessions, rng(hash32(options.seed, "fixed-texts")));
  const random = rng(hash32(options.seed, "fixed-turns"));
  const out: FixedText[] = [];
  for (const s of order) {
    if (out.length >= options.count) break;
    const k = pickTurn(s, random(), true);
    if (k === null) continue;
    const app = pool.apps.get(s.app)!;
    out.push({
      id: `fixed-${out.length}`,
      sessionId: s.id,
      app: s.app,
      messages: historyTo(s, k, app.systemPrompt),
      tools: app.tools,
      reply: s.turns[k]!.recordedReply!,
    });
  }
  if (out.length < options.count)
    throw new Error(`the pool holds only ${out.length} sessions with recorded replies of ${options.count} asked`);
  return out;
}
