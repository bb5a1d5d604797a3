import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "@/lib/protocol";
import { type SimEngine, startSimEngine } from "@/lib/sim-engine";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { pairPasses } from "../pairing";
import { loadPool } from "../pool/load";
import { DEV_POOL_PATH } from "../pool/paths";
import { inlineTokenCounter } from "../tokens/token-counter";
import { runWorkload, type WorkloadResult } from "./run-workload";

let stock: SimEngine;
let ngram: SimEngine;
beforeAll(async () => {
  stock = await startSimEngine({ mode: "stock", port: 0, servedName: "qwen3-8b", maxNumSeqs: 20 });
  ngram = await startSimEngine({ mode: "ngram", port: 0, servedName: "qwen3-8b", maxNumSeqs: 20 });
});
afterAll(async () => {
  await stock?.close();
  await ngram?.close();
});

describe("a ci-profile workload against the simulated engine", () => {
  it("plays solo on the candidate and the stock engine, with the same sessions, and pairs them", async () => {
    const pool = loadPool(DEV_POOL_PATH);
    const counter = inlineTokenCounter(qwen3Tokenizer());
    const play = (engine: SimEngine): Promise<WorkloadResult> =>
      runWorkload({
        url: engine.url,
        servedName: engine.servedName,
        task: "qwen3-8b",
        workload: "solo",
        profile: getProfile("ci")!,
        pool,
        evaluationSeed: "sim-test",
        counter,
      });
    const candidate = await play(ngram);
    const base = await play(stock);
    expect(candidate.passes).toHaveLength(3);
    for (const [i, p] of candidate.passes.entries()) {
      expect(p.summary.counted).toBeGreaterThan(0);
      expect(p.summary.failed).toBe(0);
      expect(p.summary.speed!).toBeGreaterThan(0);
      // same sessions and order: the stock engine's pass starts with the candidate's first request
      const first = (r: WorkloadResult) => r.passes[i]!.records[0]!;
      expect([first(base).sessionId, first(base).turn, first(base).seed]).toEqual([
        first(candidate).sessionId,
        first(candidate).turn,
        first(candidate).seed,
      ]);
      for (const r of p.records) expect(r.maxTokens).toBeLessThanOrEqual(128);
    }
    expect(candidate.warmup.records).toHaveLength(1);
    const ratio = pairPasses(candidate.passes, base.passes);
    expect(ratio.ratio).not.toBeNull();
    expect(ratio.ratio!).toBeGreaterThan(0.3);
    // the n-gram engine reports its acceptance in vLLM's counters; the stock engine has none
    const acc = candidate.passes.map((p) => p.summary.acceptance);
    expect(acc.some((a) => a !== null && a.meanAcceptedLength >= 1)).toBe(true);
    expect(base.passes.every((p) => p.summary.acceptance === null)).toBe(true);
  });
});
