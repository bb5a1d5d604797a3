import type { Dispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTask } from "@/lib/protocol";
import { FIXTURE_TOKENIZER_DIR } from "@/lib/tokenizer/fixtures/build-fixture";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { loadTargetTokenizer, type TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { createJudgeAgent } from "../client/http-agent";
import type { Pool } from "../pool/schema";
import { type PassPlan, saltedSystemPrompt } from "../sessions/plan";
import { fixturePool, testProfile } from "../testing/fixture-pool";
import { type ScriptedServer, startScriptedServer, wordChunks } from "../testing/scripted-server";
import { inlineTokenCounter, type TokenCounter } from "../tokens/token-counter";
import { promptEstimate, windowRule } from "../window";
import { runPass } from "./run-pass";

/**
 * The pool's token counts are the judge's only when they are the target's: a pool counted by another tokenizer
 * (or by none it names) is recounted with the target's before the pass starts, one counted by the same is trusted.
 */
let dispatcher: Dispatcher;
let server: ScriptedServer;
const qwen3 = () => qwen3Tokenizer();
const fixture = () => loadTargetTokenizer(FIXTURE_TOKENIZER_DIR);
const HAND = 7;
const HAND_TOOLS = 5;

beforeAll(async () => {
  dispatcher = createJudgeAgent();
  server = await startScriptedServer(() => ({ ttftMs: 1, chunks: wordChunks(4, 3, 1) }));
});
afterAll(async () => {
  await server?.close();
  await dispatcher?.close();
});

/** A pool whose turns and apps carry counts set by hand, vouched for by `countedBy`. */
function handCounted(countedBy: string | null): Pool {
  const base = fixturePool({ perFamily: 4, turns: 2, maxTokens: 32 });
  for (const s of base.sessions) for (const t of s.turns) t.tokens = HAND;
  const apps = new Map([...base.apps].map(([id, a]) => [id, { ...a, systemTokens: 3, toolsTokens: HAND_TOOLS }]));
  return { ...base, apps, ...(countedBy ? { countedBy: { fingerprint: countedBy } } : {}) };
}

/** One warm-up wave: the first turn of one agent session, which carries the tools. */
async function firstPrompt(pool: Pool, counter: TokenCounter) {
  const agent = pool.sessions.find((s) => s.family === "agent")!;
  const plan: PassPlan = { workload: "solo", pass: "warmup", lanes: 1, interleave: 1, salt: "s1", queues: [[agent]] };
  const r = await runPass(plan, {
    url: server.url,
    servedName: "target",
    task: "qwen3-8b",
    profile: testProfile(),
    pool,
    evaluationSeed: "counts",
    dispatcher,
    counter,
  });
  expect(r.records[0]!.error).toBeNull();
  return { agent, estimate: r.records[0]!.promptEstimate };
}

/** The estimate of an agent session's first prompt when every count is `tok`'s own. */
function expected(pool: Pool, tok: TargetTokenizer, turnTokens: number, toolsTokens: number): number {
  const app = pool.apps.get("agent-app")!;
  const system = tok.encode(saltedSystemPrompt(app.systemPrompt, "s1")).length;
  return promptEstimate(system + toolsTokens + turnTokens, windowRule(getTask("qwen3-8b").maxModelLen));
}

describe("the pool's token counts and the target's tokenizer", () => {
  it("are trusted when the pool was counted by the target's tokenizer", async () => {
    const tok = fixture();
    const pool = handCounted(tok.fingerprint);
    const { agent, estimate } = await firstPrompt(pool, inlineTokenCounter(tok));
    expect(agent.turns.map((t) => t.tokens)).toEqual([HAND, HAND]);
    expect(estimate).toBe(expected(pool, tok, HAND, HAND_TOOLS));
  });

  it("are recounted with the target's tokenizer when another one counted the pool, or none is named", async () => {
    for (const countedBy of [qwen3().fingerprint, null]) {
      const tok = fixture();
      const pool = handCounted(countedBy);
      const { agent, estimate } = await firstPrompt(pool, inlineTokenCounter(tok));
      // every turn of the played session, before the pass started: not only those sent
      expect(agent.turns.map((t) => t.tokens)).toEqual(agent.turns.map((t) => tok.encode(t.content).length));
      const tools = tok.encode(JSON.stringify(pool.apps.get("agent-app")!.tools)).length;
      expect(estimate).toBe(expected(pool, tok, tok.encode(agent.turns[0]!.content).length, tools));
      expect(tools).not.toBe(HAND_TOOLS);
    }
  });

  it("remember who recounted them: a turn recounted for one target is not taken for the pool's own count", async () => {
    const q = qwen3();
    const f = fixture();
    const pool = handCounted(q.fingerprint);
    const agent = pool.sessions.find((s) => s.family === "agent")!;
    await firstPrompt(pool, inlineTokenCounter(f));
    expect(agent.turns[0]!.tokens).toBe(f.encode(agent.turns[0]!.content).length);
    // the pool still says Qwen3 counted it, but this turn holds the fixture's count now: Qwen3's counter recounts it
    const { estimate } = await firstPrompt(pool, inlineTokenCounter(q));
    expect(agent.turns[0]!.tokens).toBe(q.encode(agent.turns[0]!.content).length);
    expect(f.encode(agent.turns[0]!.content).length).not.toBe(q.encode(agent.turns[0]!.content).length);
    expect(estimate).toBe(expected(pool, q, q.encode(agent.turns[0]!.content).length, HAND_TOOLS));
  });
});
