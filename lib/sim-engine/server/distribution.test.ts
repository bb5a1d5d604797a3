import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Mode } from "../modes";
import { type SimEngine, startSimEngine } from "../sim-engine";
import { chiSquareTwoSample } from "../stats/chi-square";
import { replyCounts } from "../testing/client";

const SAMPLES = 1000;
const CONCURRENCY = 24;
const MESSAGES = [
  { role: "user", content: "Is the coin still heads up after it was flipped an odd number of times?" },
  { role: "assistant", content: "The coin started heads up, so" },
];

/** Replies of `max_tokens` 4 at a fixed context, one per seed: the first token comes from the prefill, the next three from verify steps. */
const sampleReplies = (engine: SimEngine) =>
  replyCounts(
    engine.url,
    {
      messages: MESSAGES,
      continue_final_message: true,
      add_generation_prompt: false,
      temperature: 1,
      top_p: 0.95,
      top_k: 20,
      max_tokens: 4,
    },
    SAMPLES,
    CONCURRENCY,
  );

const engines = new Map<Mode, SimEngine>();
beforeAll(async () => {
  for (const mode of ["stock", "eagle", "loose-accept"] as const) {
    engines.set(mode, await startSimEngine({ mode, simSpeed: 1000 }));
  }
});
afterAll(async () => {
  for (const e of engines.values()) await e.close();
});

// The draft model and prompt lookup are checked the same way, at more samples, in speculators/verify.test.ts.
describe("sampled outputs over HTTP, thousands of seeds at a fixed context", () => {
  it("match the stock engine's distribution under lossless speculation and move under loose acceptance", async () => {
    const stock = await sampleReplies(engines.get("stock")!);
    for (const mode of ["eagle"] as const) {
      const spec = await sampleReplies(engines.get(mode)!);
      const t = chiSquareTwoSample(stock, spec);
      expect(t.df).toBeGreaterThan(10);
      expect(t.pValue, `${mode}: chi2 ${t.statistic.toFixed(1)} on ${t.df} df`).toBeGreaterThan(1e-3);
      expect(engines.get(mode)!.core.counters.drafts).toBeGreaterThan(SAMPLES);
    }
    const loose = await sampleReplies(engines.get("loose-accept")!);
    const t = chiSquareTwoSample(stock, loose);
    expect(t.pValue, `loose-accept: chi2 ${t.statistic.toFixed(1)} on ${t.df} df`).toBeLessThan(1e-6);
  }, 120_000);
});
