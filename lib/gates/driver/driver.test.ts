import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatTemplate, type ToolSchema } from "@/lib/tokenizer/chat-template";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { fidelity } from "../stats/fidelity";
import { greedyAgreement } from "../stats/greedy-agreement";
import { startToyServer, type ToyServer, toyModelOf } from "../testing/prompt-logprobs-server";
import type { ConversationForCheck } from "./check-context";
import { sendGreedyProbes } from "./greedy-probes";
import { scoreFixedTexts, scoreSampledReplies } from "./score-texts";

const tokenizer = qwen3Tokenizer();
const template = new ChatTemplate(tokenizer);
const tools: ToolSchema[] = [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }];
const filler = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}: the quick brown fox`).join("\n");

const conversations: ConversationForCheck[] = [
  { messages: [{ role: "user", content: "What is 2 + 2?" }], reply: "2 + 2 = 4." },
  {
    messages: [
      { role: "system", content: "You are a careful assistant." },
      { role: "user", content: "Name three colours." },
      { role: "assistant", content: "Red, green, blue." },
      { role: "user", content: "And three more?" },
    ],
    reply: "Yellow, purple and orange — 三种颜色.",
  },
  {
    messages: [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "Read the log." },
      { role: "assistant", content: "Reading it." },
      { role: "tool", content: filler(900) },
    ],
    tools,
    reply: `The log repeats one line.\n${"x".repeat(3000)}`,
  },
];

describe("the check driver over a real socket", () => {
  let stock: ToyServer;
  let twin: ToyServer;
  let quantized: ToyServer;
  let drifting: ToyServer;
  let flaky: ToyServer;
  const endpoint = (s: ToyServer) => ({ baseUrl: s.baseUrl, model: "target" });
  const options = { tokenizer, template, timeoutMs: 20_000 };

  beforeAll(async () => {
    [stock, twin, quantized, drifting, flaky] = await Promise.all([
      startToyServer({ tokenizer, template }),
      startToyServer({ tokenizer, template }),
      startToyServer({ tokenizer, template, perturbation: 0.1 }),
      startToyServer({ tokenizer, template, greedyDriftAfter: 3 }),
      startToyServer({ tokenizer, template, failEvery: 3 }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([stock, twin, quantized, drifting, flaky].map((s) => s.close()));
  });

  it("scores each reply's own tokens under the target", async () => {
    const run = await scoreSampledReplies(endpoint(stock), conversations.slice(0, 2), options);
    expect(run.unanswered).toBe(0);
    for (const [i, conv] of conversations.slice(0, 2).entries()) {
      // the reply's tokens, found independently: after the generation prompt the reply was sampled from
      const prompt = template.render(conv.messages, { addGenerationPrompt: true, enableThinking: false });
      const before = tokenizer.encode(prompt);
      const ids = tokenizer.encode(prompt + conv.reply);
      expect(ids.slice(0, before.length)).toEqual(before);
      let logprobSum = 0;
      let notFirstChoice = 0;
      for (let j = before.length; j < ids.length; j++) {
        const s = toyModelOf(tokenizer).score(ids[j - 1]!, ids[j]!);
        logprobSum += s.logprob;
        if (s.rank !== 1) notFirstChoice++;
      }
      expect(run.values[i]).toEqual({ tokens: ids.length - before.length, logprobSum, notFirstChoice });
    }
  });

  it("scores a long conversation on its last tokens and the reply's first 2,000 characters", async () => {
    const run = await scoreSampledReplies(endpoint(stock), [conversations[2]!], options);
    expect(run.errors).toEqual([]);
    const score = run.values[0]!;
    const replyTokens = tokenizer.encode(conversations[2]!.reply.slice(0, 2000)).length;
    expect(Math.abs(score.tokens - replyTokens)).toBeLessThanOrEqual(1);
  });

  it("gives the stock engine against itself a fidelity of exactly 0 and a greedy agreement of 1", async () => {
    const [a, b] = await Promise.all([
      scoreFixedTexts(endpoint(stock), conversations, options),
      scoreFixedTexts(endpoint(twin), conversations, options),
    ]);
    expect(fidelity(a.values, b.values)).toMatchObject({ fidelity: 0, compared: 3 });
    const probes = conversations.map((c) => ({ messages: c.messages, tools: c.tools }));
    const [g1, g2] = await Promise.all([
      sendGreedyProbes(endpoint(stock), probes, { ...options, maxTokens: 48 }),
      sendGreedyProbes(endpoint(twin), probes, { ...options, maxTokens: 48 }),
    ]);
    expect(g1.unanswered).toBe(0);
    expect(g1.values.some((v) => v!.length > 0)).toBe(true);
    expect(greedyAgreement(g1.values, g2.values).agreement).toBe(1);
  });

  it("measures a perturbed target's log-probabilities and a drifting greedy decode", async () => {
    const [a, q] = await Promise.all([
      scoreFixedTexts(endpoint(stock), conversations, options),
      scoreFixedTexts(endpoint(quantized), conversations, options),
    ]);
    const f = fidelity(q.values, a.values).fidelity!;
    // uniform noise of ±0.1 has a mean absolute size of 0.05 (clamping at 0 only shrinks it a little)
    expect(f).toBeGreaterThan(0.03);
    expect(f).toBeLessThan(0.06);
    const probes = conversations.map((c) => ({ messages: c.messages, tools: c.tools }));
    const [g1, g2] = await Promise.all([
      sendGreedyProbes(endpoint(stock), probes, { ...options, maxTokens: 48 }),
      sendGreedyProbes(endpoint(drifting), probes, { ...options, maxTokens: 48 }),
    ]);
    expect(greedyAgreement(g2.values, g1.values).agreement!).toBeLessThan(0.5);
  });

  it("counts the requests an engine left unanswered", async () => {
    const run = await scoreSampledReplies(endpoint(flaky), [...conversations, ...conversations], {
      ...options,
      concurrency: 1,
    });
    expect(run.unanswered).toBe(2);
    expect(run.values.filter((v) => v === null)).toHaveLength(2);
    expect(run.errors[0]!.message).toMatch(/500/);
    const dead = await sendGreedyProbes({ baseUrl: "http://127.0.0.1:1", model: "x" }, [conversations[0]!], options);
    expect(dead.unanswered).toBe(1);
  });
});
