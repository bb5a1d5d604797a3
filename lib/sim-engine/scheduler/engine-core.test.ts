import { beforeAll, describe, expect, it } from "vitest";
import { defaultToyModel, EAGLE_PARAMS, type ToyModel } from "../model/toy-model";
import { type Drafter, ModelDrafter } from "../speculators/drafters";
import { QWEN3_8B_B200 } from "./cost-model";
import { EngineCore, type FinishReason } from "./engine-core";
import { KvCache } from "./kv-cache";

let m: ToyModel;
beforeAll(() => {
  m = defaultToyModel();
});

function makeCore(blocks: number, drafter: Drafter | null = null, maxNumSeqs = 8): EngineCore {
  return new EngineCore({
    target: m.target,
    floor: m.floor,
    eosId: m.tokenizer.eosId,
    drafter,
    k: 3,
    rule: { kind: "exact" },
    kv: new KvCache(blocks, 16, true),
    cost: QWEN3_8B_B200,
    maxNumSeqs,
    maxBatchedTokens: 256,
    simSpeed: 10_000,
  });
}

async function run(core: EngineCore, n: number): Promise<{ tokens: number[]; finish: FinishReason }[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) => {
      const prompt = m.tokenizer.encode(m.prompt(`Request ${i}: ${"tell me more. ".repeat(20)}`));
      return new Promise<{ tokens: number[]; finish: FinishReason }>((resolve) => {
        const tokens: number[] = [];
        core.submit({
          promptTokens: prompt,
          maxTokens: 120,
          sampling: { temperature: 0.7, topK: 20, topP: 0.8 },
          seed: i,
          onTokens(t, finish) {
            tokens.push(...t);
            if (finish) resolve({ tokens, finish });
          },
        });
      });
    }),
  );
}

describe("the step scheduler", () => {
  it("preempts when the KV cache is full and still gives every request the reply it gives without pressure", async () => {
    const roomy = makeCore(10_000);
    const tight = makeCore(60);
    const a = await run(roomy, 8);
    const b = await run(tight, 8);
    expect(roomy.counters.preemptions).toBe(0);
    expect(tight.counters.preemptions).toBeGreaterThan(0);
    expect(b).toEqual(a);
    for (const r of a) {
      expect(r.tokens.length).toBeLessThanOrEqual(120);
      if (r.finish === "length") expect(r.tokens.length).toBe(120);
      else expect(r.tokens[r.tokens.length - 1]).toBe(m.tokenizer.eosId);
    }
    await roomy.close();
    await tight.close();
  });

  it("caps running requests at MAX_NUM_SEQS and batches speculative steps", async () => {
    const core = makeCore(10_000, new ModelDrafter("eagle", m.make(EAGLE_PARAMS), m.floor), 3);
    let maxRunning = 0;
    const timer = setInterval(() => {
      maxRunning = Math.max(maxRunning, core.numRunning);
    }, 1);
    const out = await run(core, 6);
    clearInterval(timer);
    expect(maxRunning).toBeLessThanOrEqual(3);
    expect(core.counters.drafts).toBeGreaterThan(0);
    expect(core.counters.generationTokens).toBe(out.reduce((s, r) => s + r.tokens.length, 0));
    expect(core.counters.steps).toBeLessThan(core.counters.generationTokens);
    await core.close();
  });
});
