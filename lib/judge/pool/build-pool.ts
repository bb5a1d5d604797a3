import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { sample } from "../card/distribution";
import type { WorkloadCard } from "../card/workload-card";
import { hash32, rng } from "../rng";
import { importAider } from "./importers/aider";
import { importMlcommons } from "./importers/mlcommons";
import { importMtBench } from "./importers/mt-bench";
import { importMtBench101 } from "./importers/mt-bench-101";
import { importOpenHands } from "./importers/openhands";
import type { ImportResult, RawConversation } from "./importers/raw";
import { importSpecBench } from "./importers/spec-bench";
import { importSweAgent } from "./importers/swe-agent";
import type { App, Pool, Session } from "./schema";

export const RECORDED_REPLY_CHARS = 2000;
export const SPLIT_KEY = "speculator-arena split v1";
/** The share of each source's items held out of the public `dev` pool for the embedded default's `test` pool. */
export const TEST_SHARE = 0.2;

/** Whether an item belongs to the held-out share: a keyed hash of its source and item, stable across builds. */
export function isHeldOut(source: string, item: string, key = SPLIT_KEY): boolean {
  return hash32(key, source, item) / 4294967296 < TEST_SHARE;
}

export function importAll(dataDir: string): ImportResult[] {
  return [
    importMtBench(dataDir),
    importMtBench101(dataDir),
    importSpecBench(dataDir),
    importMlcommons(dataDir),
    importSweAgent(dataDir),
    importOpenHands(dataDir),
    importAider(dataDir),
  ];
}

/** A turn's budget: the card's reply distribution, times its factor, rounded up, clamped. */
function budget(card: WorkloadCard, family: "agent" | "chat", u: number): number {
  const b = card.replyBudget;
  const reply = sample(family === "agent" ? card.agent.replyTokens : card.chat.replyTokens, u);
  const raw = Math.ceil((reply * b.factor) / b.roundTo) * b.roundTo;
  return Math.min(b.max, Math.max(b.min, raw));
}

function toSession(c: RawConversation, index: number, card: WorkloadCard, tok: TargetTokenizer): Session {
  const random = rng(hash32("session", c.source, c.item));
  return {
    type: "session",
    id: `${c.source}/${index}`,
    app: c.app,
    family: c.family,
    source: c.source,
    sourceItem: c.item,
    turns: c.turns.map((t, i) => {
      const u = random();
      const v = random();
      // a tool turn waits for its tool (recorded, else drawn); a user turn waits for its human
      const think =
        i === 0
          ? 0
          : t.role === "tool"
            ? (t.delaySeconds ?? sample(card.agent.toolDelaySeconds, v))
            : sample(card.chat.thinkSeconds, v);
      return {
        role: t.role,
        content: t.content,
        maxTokens: budget(card, c.family, u),
        thinkSeconds: Math.round(think * 1000) / 1000,
        // the lossless checks score at most 2,000 characters of a reply (section 6), so no more is kept
        ...(t.recordedReply ? { recordedReply: t.recordedReply.slice(0, RECORDED_REPLY_CHARS) } : {}),
        tokens: tok.encode(t.content).length,
      };
    }),
  };
}

/**
 * Builds one split of the pool from the public data: `dev` (the published share) or `test` (the held-out share).
 * Its token counts are `tok`'s, and the pool says so (`countedBy`, named `options.tokenizerName` for people).
 */
export function buildPool(
  dataDir: string,
  split: "dev" | "test",
  card: WorkloadCard,
  tok: TargetTokenizer,
  options: { key?: string; tokenizerName?: string } = {},
): Pool {
  const apps = new Map<string, App>();
  const sessions: Session[] = [];
  for (const result of importAll(dataDir)) {
    for (const a of result.apps) {
      if (apps.has(a.id)) continue;
      apps.set(a.id, {
        type: "app",
        ...a,
        systemTokens: tok.encode(a.systemPrompt).length,
        toolsTokens: a.tools.length > 0 ? tok.encode(JSON.stringify(a.tools)).length : 0,
      });
    }
    result.conversations.forEach((c, i) => {
      if (isHeldOut(c.source, c.item, options.key) !== (split === "test")) return;
      if (c.turns.length === 0) return;
      sessions.push(toSession(c, i, card, tok));
    });
  }
  const used = new Set(sessions.map((s) => s.app));
  for (const id of [...apps.keys()]) if (!used.has(id)) apps.delete(id);
  const countedBy = { fingerprint: tok.fingerprint, ...(options.tokenizerName ? { name: options.tokenizerName } : {}) };
  return { apps, sessions, countedBy };
}
