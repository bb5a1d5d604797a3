import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatTemplate } from "@/lib/tokenizer/chat-template";
import { FIXTURE_TOKENIZER_DIR } from "@/lib/tokenizer/fixtures/build-fixture";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { loadTargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { SequenceState } from "../model/sequence-state";
import { buildToyModel, type ToyModel } from "../model/toy-model";
import { type SimEngine, startSimEngine } from "../sim-engine";
import { postChat, streamChat } from "../testing/client";

/**
 * The simulated engine serving a target whose tokenizer is not Qwen3's (TOKENIZER = the fixture): it renders with
 * the fixture's template, tokenizes with its vocabulary, trains its toy target on it and stops at its eos.
 */
let engine: SimEngine;
let toy: ToyModel;
beforeAll(async () => {
  engine = await startSimEngine({
    mode: "eagle",
    simSpeed: 200,
    servedName: "fixture",
    maxModelLen: 8192,
    tokenizerDir: FIXTURE_TOKENIZER_DIR,
  });
  toy = buildToyModel(loadTargetTokenizer(FIXTURE_TOKENIZER_DIR));
});
afterAll(async () => {
  await engine?.close();
});

const messages = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "Explain why the sky is blue, briefly." },
];

describe("the simulated engine on the fixture tokenizer", () => {
  it("answers a streamed chat request, its prompt rendered and counted in the fixture's tokens", async () => {
    const s = await streamChat(engine.url, {
      messages,
      temperature: 0.7,
      top_p: 0.8,
      top_k: 20,
      seed: 3,
      max_tokens: 200,
      stream_options: { include_usage: true },
      chat_template_kwargs: { enable_thinking: false },
    });
    expect(s.status).toBe(200);
    expect(s.events.at(-1)).toBe("[DONE]");
    expect(s.text.length).toBeGreaterThan(0);
    expect(s.text).not.toContain("<|im_end|>");
    const usage = (s.events.at(-2) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
    const prompt = new ChatTemplate(toy.tokenizer).render(messages as never, { addGenerationPrompt: true });
    expect(usage.prompt_tokens).toBe(toy.tokenizer.encode(prompt).length);
    expect(usage.prompt_tokens).not.toBe(qwen3Tokenizer().encode(prompt).length);
    expect(usage.completion_tokens).toBeLessThanOrEqual(200);
  });

  it("follows the fixture-trained target's argmax chain at temperature 0, and stops at the fixture's eos", async () => {
    const state = new SequenceState(toy.tokenizer.encode(toy.prompt("What is the capital of Italy?")));
    const chain: number[] = [];
    let stopped = false;
    for (let i = 0; i < 400; i++) {
      const x = toy.target.argmax(toy.target.dist(state));
      if (x === toy.tokenizer.eosId) {
        stopped = true;
        break;
      }
      chain.push(x);
      state.push(x);
    }
    const r = await postChat(engine.url, {
      messages: [{ role: "user", content: "What is the capital of Italy?" }],
      temperature: 0,
      max_tokens: 400,
    });
    const choice = (r.body.choices as { message: { content: string }; finish_reason: string }[])[0]!;
    expect(choice.message.content).toBe(toy.tokenizer.decode(chain));
    expect(stopped).toBe(true);
    expect(choice.finish_reason).toBe("stop");
    expect((r.body.usage as { completion_tokens: number }).completion_tokens).toBe(chain.length + 1);
  });

  it("scores a prompt with prompt_logprobs keyed by the fixture's token ids", async () => {
    const scored = [...messages, { role: "assistant", content: "Sunlight scatters off the air, blue the most." }];
    const r = await postChat(engine.url, {
      messages: scored,
      prompt_logprobs: 1,
      continue_final_message: true,
      add_generation_prompt: false,
      max_tokens: 1,
      temperature: 0,
      chat_template_kwargs: { enable_thinking: false },
    });
    expect(r.status).toBe(200);
    const rendered = new ChatTemplate(toy.tokenizer).render(scored as never, { addGenerationPrompt: false });
    const text = rendered.slice(0, rendered.lastIndexOf("the most.") + "the most.".length);
    const ids = toy.tokenizer.encode(text);
    const pl = r.body.prompt_logprobs as (Record<
      string,
      { logprob: number; rank: number; decoded_token: string }
    > | null)[];
    expect(pl.length).toBe(ids.length);
    expect(pl[0]).toBeNull();
    const state = new SequenceState([ids[0]!]);
    for (let i = 1; i < ids.length; i++) {
      const entry = pl[i]![String(ids[i])]!;
      expect(entry, `position ${i}`).toBeDefined();
      expect(entry.decoded_token).toBe(toy.tokenizer.decodeToken(ids[i]!));
      expect(entry.logprob).toBeCloseTo(Math.log(toy.target.prob(toy.target.dist(state), ids[i]!)), 10);
      for (const id of Object.keys(pl[i]!)) expect(Number(id)).toBeLessThan(toy.tokenizer.vocabSize);
      state.push(ids[i]!);
    }
    // the turn markers are the fixture's special tokens, at the fixture's ids
    const eosAt = ids.indexOf(toy.tokenizer.eosId);
    expect(pl[eosAt]![String(toy.tokenizer.eosId)]!.decoded_token).toBe("<|im_end|>");
    expect(toy.tokenizer.eosId).not.toBe(qwen3Tokenizer().eosId);
  });

  it("refuses to start on a tokenizer directory that lacks the files, naming it", async () => {
    await expect(startSimEngine({ tokenizerDir: "/nonexistent/target" })).rejects.toThrow(
      /the tokenizer directory \/nonexistent\/target has no tokenizer\.json/,
    );
  });
});
