import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatTemplate } from "@/lib/tokenizer/chat-template";
import { SequenceState } from "../model/sequence-state";
import { defaultToyModel } from "../model/toy-model";
import { type SimEngine, startSimEngine } from "../sim-engine";
import { metricValue, postChat, streamChat } from "../testing/client";

const SAMPLING = { temperature: 0.7, top_p: 0.8, top_k: 20 };
let engine: SimEngine;
beforeAll(async () => {
  engine = await startSimEngine({ mode: "eagle", simSpeed: 200, servedName: "qwen3-8b", maxModelLen: 4096 });
});
afterAll(async () => {
  await engine.close();
});

const user = (content: string) => [{ role: "user", content }];

describe("vLLM's HTTP API over a real socket", () => {
  it("answers /health and /v1/models", async () => {
    expect((await fetch(`${engine.url}/health`)).status).toBe(200);
    const models = (await (await fetch(`${engine.url}/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((d) => d.id)).toEqual(["qwen3-8b"]);
  });

  it("streams vLLM's chunks: role first, content, finish_reason, a usage chunk with no choices, then [DONE]", async () => {
    const s = await streamChat(engine.url, {
      model: "qwen3-8b",
      messages: user("Describe a forest at dawn."),
      ...SAMPLING,
      seed: 4,
      max_tokens: 60,
      stream_options: { include_usage: true },
    });
    expect(s.status).toBe(200);
    expect(s.events[s.events.length - 1]).toBe("[DONE]");
    const chunks = s.events.slice(0, -1) as {
      object: string;
      choices: { delta: Record<string, string>; finish_reason: string | null }[];
      usage?: Record<string, unknown>;
    }[];
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: "assistant", content: "" });
    for (const c of chunks) expect(c.object).toBe("chat.completion.chunk");
    const usageChunk = chunks[chunks.length - 1]!;
    expect(usageChunk.choices).toEqual([]);
    const usage = usageChunk.usage as {
      completion_tokens: number;
      prompt_tokens: number;
      total_tokens: number;
      prompt_tokens_details: { cached_tokens: number };
    };
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.completion_tokens).toBeLessThanOrEqual(60);
    const last = chunks[chunks.length - 2]!.choices[0]!;
    expect(["stop", "length"]).toContain(last.finish_reason);
    if (last.finish_reason === "length") expect(usage.completion_tokens).toBe(60);
    expect(s.text.length).toBeGreaterThan(0);
    expect(s.raw.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("reports cached tokens on a repeated prefix", async () => {
    const system = {
      role: "system",
      content: `You are a careful assistant. ${"Always explain your reasoning. ".repeat(30)}`,
    };
    const first = await postChat(engine.url, {
      messages: [system, ...user("First question?")],
      ...SAMPLING,
      seed: 1,
      max_tokens: 8,
    });
    const second = await postChat(engine.url, {
      messages: [system, ...user("Second question?")],
      ...SAMPLING,
      seed: 2,
      max_tokens: 8,
    });
    const u1 = first.body.usage as { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
    const u2 = second.body.usage as { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
    expect(u1.prompt_tokens_details.cached_tokens).toBe(0);
    expect(u2.prompt_tokens_details.cached_tokens).toBeGreaterThan(150);
    expect(u2.prompt_tokens_details.cached_tokens % 16).toBe(0);
    expect(u2.prompt_tokens_details.cached_tokens).toBeLessThan(u2.prompt_tokens);
  });

  it("gives the same reply for the same seed, and another for another seed", async () => {
    const req = { messages: user("Tell me a story about a lighthouse."), ...SAMPLING, max_tokens: 80 };
    const a = await postChat(engine.url, { ...req, seed: 42 });
    const b = await postChat(engine.url, { ...req, seed: 42 });
    const c = await postChat(engine.url, { ...req, seed: 43 });
    const text = (r: typeof a) => (r.body.choices as { message: { content: string } }[])[0]!.message.content;
    expect(text(a)).toBe(text(b));
    expect(text(a)).not.toBe(text(c));
  });

  it("follows the model's argmax chain at temperature 0", async () => {
    const toy = defaultToyModel();
    const messages = user("What is the capital of Italy?");
    const prompt = new ChatTemplate(toy.tokenizer).render(messages as never, {
      addGenerationPrompt: true,
    });
    const state = new SequenceState(toy.tokenizer.encode(prompt));
    const chain: number[] = [];
    for (let i = 0; i < 50; i++) {
      const x = toy.target.argmax(toy.target.dist(state));
      if (x === toy.tokenizer.eosId) break;
      chain.push(x);
      state.push(x);
    }
    const r = await postChat(engine.url, { messages, temperature: 0, max_tokens: 50 });
    const content = (r.body.choices as { message: { content: string } }[])[0]!.message.content;
    expect(content).toBe(toy.tokenizer.decode(chain));
  });

  it("returns prompt_logprobs in vLLM's shape with the model's log-probabilities and ranks", async () => {
    const toy = defaultToyModel();
    const messages = [
      { role: "user", content: "Name a fruit." },
      { role: "assistant", content: "An apple is a fruit that grows on trees." },
    ];
    const r = await postChat(engine.url, {
      messages,
      prompt_logprobs: 2,
      continue_final_message: true,
      add_generation_prompt: false,
      max_tokens: 1,
      temperature: 0,
    });
    expect(r.status).toBe(200);
    const pl = r.body.prompt_logprobs as (Record<
      string,
      { logprob: number; rank: number; decoded_token: string }
    > | null)[];
    const rendered = new ChatTemplate(toy.tokenizer).render(messages as never, {
      addGenerationPrompt: false,
    });
    const text = rendered.slice(0, rendered.lastIndexOf("trees.") + "trees.".length);
    const ids = toy.tokenizer.encode(text);
    expect(pl.length).toBe(ids.length);
    expect((r.body.usage as { prompt_tokens: number }).prompt_tokens).toBe(ids.length);
    expect(pl[0]).toBeNull();
    const state = new SequenceState([ids[0]!]);
    for (let i = 1; i < ids.length; i++) {
      const entry = pl[i]!;
      const d = toy.target.dist(state);
      const actual = entry[String(ids[i])]!;
      expect(actual.logprob).toBeCloseTo(Math.log(toy.target.prob(d, ids[i]!)), 10);
      expect(actual.rank).toBe(toy.target.rank(d, ids[i]!));
      expect(actual.decoded_token).toBe(toy.tokenizer.decodeToken(ids[i]!));
      const ranks = Object.values(entry).map((e) => e.rank);
      expect(ranks).toContain(1);
      expect(Object.keys(entry).length).toBeGreaterThanOrEqual(2);
      expect(Object.keys(entry).length).toBeLessThanOrEqual(3);
      state.push(ids[i]!);
    }
  });

  it("moves /metrics counters by what was served", async () => {
    const before = {
      gen: await metricValue(engine.url, "vllm:generation_tokens_total"),
      prompt: await metricValue(engine.url, "vllm:prompt_tokens_total"),
      drafts: await metricValue(engine.url, "vllm:spec_decode_num_drafts_total"),
      draftTokens: await metricValue(engine.url, "vllm:spec_decode_num_draft_tokens_total"),
      accepted: await metricValue(engine.url, "vllm:spec_decode_num_accepted_tokens_total"),
      queries: await metricValue(engine.url, "vllm:prefix_cache_queries_total"),
    };
    const r = await postChat(engine.url, {
      messages: user("Explain photosynthesis."),
      ...SAMPLING,
      seed: 9,
      max_tokens: 100,
    });
    const usage = r.body.usage as { prompt_tokens: number; completion_tokens: number };
    const after = {
      gen: await metricValue(engine.url, "vllm:generation_tokens_total"),
      prompt: await metricValue(engine.url, "vllm:prompt_tokens_total"),
      drafts: await metricValue(engine.url, "vllm:spec_decode_num_drafts_total"),
      draftTokens: await metricValue(engine.url, "vllm:spec_decode_num_draft_tokens_total"),
      accepted: await metricValue(engine.url, "vllm:spec_decode_num_accepted_tokens_total"),
      queries: await metricValue(engine.url, "vllm:prefix_cache_queries_total"),
    };
    expect(after.gen - before.gen).toBe(usage.completion_tokens);
    expect(after.prompt - before.prompt).toBe(usage.prompt_tokens);
    expect(after.queries - before.queries).toBe(usage.prompt_tokens);
    expect(after.drafts).toBeGreaterThan(before.drafts);
    const accepted = after.accepted - before.accepted;
    const drafts = after.drafts - before.drafts;
    // Each verify step yields its accepted drafts plus one token; the first token comes from the prefill and the
    // last may come from a plain step (a budget of one token leaves no room to draft).
    expect(accepted + drafts + 2).toBeGreaterThanOrEqual(usage.completion_tokens);
    expect(after.draftTokens - before.draftTokens).toBeLessThanOrEqual(3 * drafts);
    let perPos = 0;
    for (const pos of [0, 1, 2])
      perPos += await metricValue(
        engine.url,
        "vllm:spec_decode_num_accepted_tokens_per_pos_total",
        `position="${pos}"`,
      );
    expect(perPos).toBe(after.accepted);
    expect(await metricValue(engine.url, "vllm:num_requests_running")).toBe(0);
    expect(await metricValue(engine.url, "vllm:kv_cache_usage_perc")).toBe(0);
  });

  it("renders tools with tool_choice none into the prompt, and refuses auto tool choice as vLLM does", async () => {
    const tools = [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Weather for a city",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      },
    ];
    const plain = await postChat(engine.url, { messages: user("Weather in Rome?"), max_tokens: 1 });
    const withTools = await postChat(engine.url, {
      messages: user("Weather in Rome?"),
      tools,
      tool_choice: "none",
      max_tokens: 1,
    });
    expect(withTools.status).toBe(200);
    const p = (r: typeof plain) => (r.body.usage as { prompt_tokens: number }).prompt_tokens;
    expect(p(withTools)).toBeGreaterThan(p(plain) + 20);
    const auto = await postChat(engine.url, { messages: user("Weather in Rome?"), tools, max_tokens: 1 });
    expect(auto.status).toBe(400);
  });

  it("answers vLLM's 400s with its error body", async () => {
    const cases: Record<string, unknown>[] = [
      { messages: user("x"), continue_final_message: true, add_generation_prompt: true },
      { messages: user("x"), continue_final_message: true, add_generation_prompt: false },
      {
        messages: [...user("x"), { role: "assistant", content: "y" }],
        prompt_logprobs: 1,
        stream: true,
        continue_final_message: true,
        add_generation_prompt: false,
      },
      { messages: user("x"), temperature: -1 },
      { messages: user("x"), top_p: 0 },
      { messages: user("x"), top_p: 1.5 },
      { messages: user("x"), top_k: -5 },
      { messages: user("x"), max_tokens: 0 },
      { messages: user("x"), max_tokens: 5000 },
      { messages: user("word ".repeat(5000)) },
      { messages: [] },
      { messages: user("x"), temperature: "hot" },
      { messages: user("x"), stream_options: { include_usage: true } },
      { messages: user("x"), n: 2 },
    ];
    for (const body of cases) {
      const r = await postChat(engine.url, body);
      expect(r.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(r.body).toMatchObject({ object: "error", type: "BadRequestError", param: null, code: 400 });
      expect(typeof r.body.message).toBe("string");
    }
    const long = await postChat(engine.url, { messages: user("x"), max_tokens: 5000 });
    expect(long.body.message).toContain("maximum context length is 4096 tokens");
    const wrongModel = await postChat(engine.url, { model: "other", messages: user("x") });
    expect(wrongModel.status).toBe(404);
    expect(wrongModel.body.type).toBe("NotFoundError");
  });
});
