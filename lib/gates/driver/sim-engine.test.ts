import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTask } from "@/lib/protocol";
import { type SimEngine, startSimEngine } from "@/lib/sim-engine";
import { ChatTemplate, type ToolSchema } from "@/lib/tokenizer/chat-template";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { fidelity } from "../stats/fidelity";
import { greedyAgreement } from "../stats/greedy-agreement";
import { findOffload } from "../stats/offload-log";
import type { ConversationForCheck } from "./check-context";
import { type ProbePrompt, sendGreedyProbes } from "./greedy-probes";
import { scoreFixedTexts, scoreSampledReplies } from "./score-texts";

const tokenizer = qwen3Tokenizer();
const template = new ChatTemplate(tokenizer);
const tools: ToolSchema[] = [{ type: "function", function: { name: "bash", description: "run a shell command" } }];
const options = { tokenizer, template, timeoutMs: 30_000 };

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

describe("the check driver against the simulated engine", () => {
  let stock: SimEngine;
  let quantized: SimEngine;
  const startup: string[] = [];
  const endpoint = (e: SimEngine) => ({ baseUrl: e.url, model: e.servedName });

  beforeAll(async () => {
    [stock, quantized] = await Promise.all([
      startSimEngine({ mode: "stock", simSpeed: 100, log: (line) => startup.push(line) }),
      startSimEngine({ mode: "quantized", simSpeed: 100 }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([stock?.close(), quantized?.close()]);
  });

  it("gives the stock engine scored by itself a fidelity of exactly 0 and a greedy agreement of 1", async () => {
    const first = await sendGreedyProbes(endpoint(stock), probes, { ...options, maxTokens: 48 });
    const second = await sendGreedyProbes(endpoint(stock), probes, { ...options, maxTokens: 48 });
    expect(first.errors).toEqual([]);
    expect(first.values.every((v) => v !== null && v.length > 0)).toBe(true);
    expect(greedyAgreement(first.values, second.values)).toEqual({ agreement: 1, prompts: 3, compared: 3 });

    const texts: ConversationForCheck[] = probes.map((p, i) => ({ ...p, reply: tokenizer.decode(first.values[i]!) }));
    const [a, b] = [
      await scoreFixedTexts(endpoint(stock), texts, options),
      await scoreFixedTexts(endpoint(stock), texts, options),
    ];
    expect(a.errors).toEqual([]);
    expect(fidelity(a.values, b.values)).toMatchObject({ fidelity: 0, compared: 3 });

    const sampled = await scoreSampledReplies(endpoint(stock), texts, options);
    expect(sampled.errors).toEqual([]);
    for (const [i, s] of sampled.values.entries()) {
      expect(s!.tokens).toBeGreaterThan(0);
      expect(s!.logprobSum).toBeLessThan(0);
      // the reply's share of the scored prompt's tokens: its logprobs are the fixed text's last ones
      const tail = a.values[i]!.slice(-s!.tokens).reduce((x, y) => x + y, 0);
      expect(s!.logprobSum).toBeCloseTo(tail, 9);
    }
  });

  it("sends a probe's own body as it is, under the endpoint's model name", async () => {
    const built = await sendGreedyProbes(endpoint(stock), [probes[1]!], { ...options, maxTokens: 32 });
    const body = { model: "another-name", messages: probes[1]!.messages, max_tokens: 32, temperature: 0 };
    const exact = await sendGreedyProbes(endpoint(stock), [{ ...probes[1]!, body }], options);
    expect(exact.errors).toEqual([]);
    expect(exact.values[0]).toEqual(built.values[0]);
  });

  it("measures a quantized target beyond the fidelity ceiling", async () => {
    const greedy = await sendGreedyProbes(endpoint(stock), probes, { ...options, maxTokens: 48 });
    const texts: ConversationForCheck[] = probes.map((p, i) => ({ ...p, reply: tokenizer.decode(greedy.values[i]!) }));
    const [a, q] = [
      await scoreFixedTexts(endpoint(stock), texts, options),
      await scoreFixedTexts(endpoint(quantized), texts, options),
    ];
    expect(q.errors).toEqual([]);
    expect(fidelity(q.values, a.values).fidelity!).toBeGreaterThan(getTask("qwen3-8b").gates.fidelityCeiling.value);
  });

  it("finds no host offload in the simulated engine's start-up log", () => {
    expect(startup.length).toBeGreaterThan(3);
    expect(findOffload(startup)).toEqual([]);
  });
});
