import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTask } from "@/lib/protocol";
import { type SimEngine, startSimEngine } from "@/lib/sim-engine";
import { ChatTemplate, type ToolSchema } from "@/lib/tokenizer/chat-template";
import { FIXTURE_TOKENIZER_DIR } from "@/lib/tokenizer/fixtures/build-fixture";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { loadTargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { fidelity } from "../stats/fidelity";
import { greedyAgreement } from "../stats/greedy-agreement";
import type { ConversationForCheck } from "./check-context";
import { type ProbePrompt, sendGreedyProbes } from "./greedy-probes";
import { scoreFixedTexts, scoreSampledReplies } from "./score-texts";

/**
 * The checks against simulated engines whose target has the fixture tokenizer (TOKENIZER = its directory), driven
 * with that tokenizer and its template: every request answered, the prompt_logprobs lined up with the fixture's ids.
 */
const tokenizer = loadTargetTokenizer(FIXTURE_TOKENIZER_DIR);
const template = new ChatTemplate(tokenizer);
const options = { tokenizer, template, timeoutMs: 30_000 };
const tools: ToolSchema[] = [{ type: "function", function: { name: "bash", description: "run a shell command" } }];

const probes: ProbePrompt[] = [
  { messages: [{ role: "user", content: "Write a short poem about the sea." }] },
  {
    messages: [
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "Explain recursion to a child." },
    ],
  },
  {
    messages: [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "Why does the build fail?" },
      { role: "assistant", content: "Let me look at the log." },
      {
        role: "tool",
        content: "error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
      },
    ],
    tools,
  },
];

describe("the check driver against the simulated engine on the fixture tokenizer", () => {
  let stock: SimEngine;
  let quantized: SimEngine;
  const endpoint = (e: SimEngine) => ({ baseUrl: e.url, model: e.servedName });

  beforeAll(async () => {
    [stock, quantized] = await Promise.all([
      startSimEngine({ mode: "stock", simSpeed: 100, tokenizerDir: FIXTURE_TOKENIZER_DIR }),
      startSimEngine({ mode: "quantized", simSpeed: 100, tokenizerDir: FIXTURE_TOKENIZER_DIR }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([stock?.close(), quantized?.close()]);
  });

  it("answers every greedy probe, fixed text and sampled reply, lined up with the fixture's ids", async () => {
    const first = await sendGreedyProbes(endpoint(stock), probes, { ...options, maxTokens: 48 });
    const second = await sendGreedyProbes(endpoint(stock), probes, { ...options, maxTokens: 48 });
    expect(first.errors).toEqual([]);
    expect(first.values.every((v) => v !== null && v.length > 0)).toBe(true);
    expect(greedyAgreement(first.values, second.values)).toEqual({ agreement: 1, prompts: 3, compared: 3 });

    const texts: ConversationForCheck[] = probes.map((p, i) => ({ ...p, reply: tokenizer.decode(first.values[i]!) }));
    const fixed = await scoreFixedTexts(endpoint(stock), texts, options);
    const again = await scoreFixedTexts(endpoint(stock), texts, options);
    expect(fixed.errors).toEqual([]);
    expect(fixed.values.every((v) => v !== null && v.length > 0)).toBe(true);
    expect(fidelity(fixed.values, again.values)).toMatchObject({ fidelity: 0, compared: 3 });

    const sampled = await scoreSampledReplies(endpoint(stock), texts, options);
    expect(sampled.errors).toEqual([]);
    for (const [i, s] of sampled.values.entries()) {
      expect(s!.tokens).toBe(first.values[i]!.length);
      expect(s!.logprobSum).toBeLessThan(0);
    }
    const q = await scoreFixedTexts(endpoint(quantized), texts, options);
    expect(q.errors).toEqual([]);
    expect(fidelity(q.values, fixed.values).fidelity!).toBeGreaterThan(getTask("qwen3-8b").gates.fidelityCeiling.value);
  });

  it("cannot score this target with Qwen3's tokenizer: its prompt_logprobs do not line up", async () => {
    const qwen3 = qwen3Tokenizer();
    const wrong = { tokenizer: qwen3, template: new ChatTemplate(qwen3), timeoutMs: 30_000 };
    const texts: ConversationForCheck[] = probes.map((p) => ({ ...p, reply: "A short reply to score here." }));
    const run = await scoreFixedTexts(endpoint(stock), texts, wrong);
    expect(run.values.every((v) => v === null)).toBe(true);
    expect(run.errors.length).toBe(texts.length);
  });
});
