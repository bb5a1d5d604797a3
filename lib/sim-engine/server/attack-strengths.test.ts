import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { behaviourOf } from "../modes";
import { type SimEngine, type SimEngineOptions, startSimEngine } from "../sim-engine";
import { chiSquareTwoSample } from "../stats/chi-square";
import { postChat, promptLogprobs, replyCounts } from "../testing/client";

const SAMPLES = 800;
const CONCURRENCY = 16;
// a context whose next token is spread over many candidates, so that another temperature or top_k shows
const MESSAGES = [
  { role: "user", content: "Is the coin still heads up after it was flipped an odd number of times?" },
  { role: "assistant", content: "The coin started heads up, so" },
];
/** The request's own sampling: wide, so that what the engine samples with is seen in its first token. */
const ASKED = { temperature: 1, top_p: 1, top_k: 20 };

/** The first token of `SAMPLES` replies at the fixed context, one per seed, asked with `sampling`. */
const firstTokens = (engine: SimEngine, sampling: Record<string, number>) =>
  replyCounts(
    engine.url,
    { messages: MESSAGES, continue_final_message: true, add_generation_prompt: false, ...sampling, max_tokens: 1 },
    SAMPLES,
    CONCURRENCY,
  );

const open: SimEngine[] = [];
async function start(options: SimEngineOptions): Promise<SimEngine> {
  const e = await startSimEngine({ simSpeed: 1000, ...options });
  open.push(e);
  return e;
}
let stock: SimEngine;
beforeAll(async () => {
  stock = await start({ mode: "stock" });
});
afterAll(async () => {
  for (const e of open) await e.close();
});

describe("parametric attack strengths reach the sampling and the target", () => {
  it("a temperature scale samples at the requested temperature × s", async () => {
    const scaled = await start({ mode: "stock", temperatureScale: 0.5 });
    expect(scaled.strengths).toEqual({ temperatureScale: 0.5 });
    const attacked = await firstTokens(scaled, ASKED);
    // the same seeds asked at half the temperature on the stock engine: the same distribution
    const same = chiSquareTwoSample(attacked, await firstTokens(stock, { ...ASKED, temperature: 0.5 }));
    expect(same.pValue, `chi2 ${same.statistic.toFixed(1)} on ${same.df} df`).toBeGreaterThan(1e-3);
    const asked = chiSquareTwoSample(attacked, await firstTokens(stock, ASKED));
    expect(asked.pValue, `chi2 ${asked.statistic.toFixed(1)} on ${asked.df} df`).toBeLessThan(1e-6);
  }, 120_000);

  it("a top_k override samples with top_k K whatever the request asks", async () => {
    const cut = await start({ mode: "stock", topK: 3 });
    const attacked = await firstTokens(cut, ASKED);
    expect(attacked.size).toBeLessThanOrEqual(3);
    const honest = await firstTokens(stock, ASKED);
    expect(honest.size).toBeGreaterThan(6);
    const same = chiSquareTwoSample(attacked, await firstTokens(stock, { ...ASKED, top_k: 3 }));
    expect(same.pValue, `chi2 ${same.statistic.toFixed(1)} on ${same.df} df`).toBeGreaterThan(1e-3);
    expect(chiSquareTwoSample(attacked, honest).pValue).toBeLessThan(1e-6);
    // a greedy request stays greedy under either override
    const greedy = { temperature: 0, max_tokens: 12, messages: MESSAGES, seed: 1 };
    const replyOf = async (e: SimEngine) =>
      (
        (await postChat(e.url, { ...greedy, continue_final_message: true, add_generation_prompt: false })).body
          .choices as { message: { content: string } }[]
      )[0]!.message.content;
    const chain = await replyOf(stock);
    expect(await replyOf(cut)).toBe(chain);
    expect(await replyOf(await start({ mode: "stock", temperatureScale: 2 }))).toBe(chain);
  }, 120_000);

  it("a quantization scale multiplies the quantized attack's perturbation: 0 is the target, 1 the quantized mode", async () => {
    const messages = [
      { role: "user", content: "Name three rivers in Europe." },
      { role: "assistant", content: "The Danube, the Rhine and the Seine are three well-known rivers in Europe." },
    ];
    const lp = (e: SimEngine) => promptLogprobs(e.url, messages);
    const mad = (x: number[], y: number[]) => x.reduce((s, v, i) => s + Math.abs(v - y[i]!), 0) / x.length;
    const target = await lp(stock);
    const atScale = async (quantizeScale: number) => lp(await start({ mode: "stock", quantizeScale }));
    expect(await atScale(0)).toEqual(target);
    expect(await atScale(1)).toEqual(await lp(await start({ mode: "quantized" })));
    const [quarter, half, one, two] = [
      mad(await atScale(0.25), target),
      mad(await atScale(0.5), target),
      mad(await atScale(1), target),
      mad(await atScale(2), target),
    ];
    expect(quarter).toBeGreaterThan(0);
    // the logits move in proportion; after the softmax the log-probabilities follow nearly so
    expect(half / one).toBeGreaterThan(0.35);
    expect(half / one).toBeLessThan(0.65);
    expect(quarter / half).toBeGreaterThan(0.35);
    expect(quarter / half).toBeLessThan(0.65);
    expect(two).toBeGreaterThan(one * 1.5);
    // the quantized mode takes a scale too: it replaces the mode's own 1
    expect(await lp(await start({ mode: "quantized", quantizeScale: 0.5 }))).toEqual(await atScale(0.5));
  }, 60_000);

  it("refuses strengths out of range and a sampling override on a mode that fixes the sampling", async () => {
    await expect(startSimEngine({ topK: 0 })).rejects.toThrow("--top-k must be an integer from 1 to 1000");
    await expect(startSimEngine({ temperatureScale: 0 })).rejects.toThrow("--temperature-scale must be a number");
    await expect(startSimEngine({ quantizeScale: -1 })).rejects.toThrow("--quantize-scale must be a number");
    await expect(startSimEngine({ mode: "greedy", topK: 5 })).rejects.toThrow("cannot be combined with --mode greedy");
    expect(behaviourOf("other-sampling", { quantizeScale: 0.5 }).quantizeScale).toBe(0.5);
    const composed = behaviourOf("eagle", { temperatureScale: 0.9, topK: 10 });
    expect(composed.speculator).toBe("eagle");
    expect(composed.overrideSampling!({ temperature: 0.7, topK: 20, topP: 0.8 })).toEqual({
      temperature: 0.7 * 0.9,
      topK: 10,
      topP: 0.8,
    });
  });
});
