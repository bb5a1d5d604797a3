import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Mode } from "@/lib/sim-engine";
import { type SimEngine, startSimEngine } from "@/lib/sim-engine";
import type { SamplingAuditResult } from "../stats/sampling-audit";
import { auditMode, endpointOf, sampleReplies, template, tokenizer } from "../testing/audit-modes";
import { scoreSampledReplies } from "./score-texts";

/**
 * The exact sampling audit over real sockets: each simulated engine's replies, sampled as timed requests ask, scored
 * by the stock engine with top-20 prompt_logprobs. Honest engines (lossless speculators) stay uniform; every
 * engine that samples another distribution is seen. Seeded end to end, so the verdicts repeat.
 */
const HONEST: Mode[] = ["stock", "ngram", "draft", "eagle"];
const ATTACKS: Mode[] = ["greedy", "other-sampling", "loose-accept", "quantized"];
const REPLIES = 128;
const MAX_TOKENS = 160;
/** One mode: 128 replies sampled and scored, about 5 s alone and over a minute on two crowded cores (CPU). */
const PER_MODE_MS = 240_000;

describe("the sampling audit against the simulated engines", () => {
  let scorer: SimEngine;
  const audits = new Map<Mode, SamplingAuditResult>();

  beforeAll(async () => {
    scorer = await startSimEngine({ mode: "stock", simSpeed: 1000, maxNumSeqs: 8 });
  });
  afterAll(async () => {
    await scorer?.close();
    const honest = HONEST.filter((m) => audits.has(m));
    const alarms = honest.filter((m) => !audits.get(m)!.consistent).length;
    for (const [mode, a] of audits)
      console.log(
        `sampling audit ${mode.padEnd(15)} tokens ${String(a.tokens).padStart(6)}  inf ${String(a.informative).padStart(6)}  A² ${a.ad.toFixed(2)}  p ${a.p_value.toExponential(2)}  D ${a.ks_d.toFixed(4)}  mean u ${a.mean_u.toFixed(3)}  outside ${a.outside_share.toFixed(4)}  ${a.consistent ? "consistent" : "FLAGGED"}`,
      );
    console.log(`sampling audit false alarms: ${alarms} of ${honest.length} honest runs`);
  });

  it("asks the scoring engine for the top 20 only on replies scored on their whole conversation", async () => {
    const [reply] = await sampleReplies(scorer, 1, 32, 7);
    const long = { ...reply!, messages: [{ role: "user" as const, content: "word ".repeat(4000) }] };
    const run = await scoreSampledReplies(endpointOf(scorer), [reply!, long], { tokenizer, template });
    expect(run.errors).toEqual([]);
    expect(run.values[0]!.pit!.length).toBe(run.values[0]!.tokens);
    // cut to its last 3,000 tokens for scoring: not the context it was sampled in, so not audited
    expect(run.values[1]!.pit).toBeUndefined();
    const off = await scoreSampledReplies(endpointOf(scorer), [reply!], { tokenizer, template, audit: false });
    expect(off.values[0]!.pit).toBeUndefined();
    expect(off.values[0]!.logprobSum).toBeCloseTo(run.values[0]!.logprobSum, 9);
  });

  it("reads the end token of a reply the engine stopped itself, through the template's close, and no other", async () => {
    const replies = await sampleReplies(scorer, 16, 512, 5);
    const stopped = replies.find((r) => r.finishReason === "stop" && r.reply.length < 1500)!;
    expect(stopped).toBeDefined();
    const bodies: Record<string, unknown>[] = [];
    const fetch = (input: string, init: RequestInit) => {
      bodies.push(JSON.parse(String(init.body)));
      return globalThis.fetch(input, init);
    };
    const asCut = { ...stopped, finishReason: "length" };
    const run = await scoreSampledReplies(endpointOf(scorer), [stopped, asCut], {
      tokenizer,
      template,
      fetch,
      concurrency: 1,
    });
    expect(run.errors).toEqual([]);
    const [closed, open] = run.values as NonNullable<(typeof run.values)[number]>[];
    // the likelihood reads the reply's tokens alike; the audit reads one token more where the reply stopped
    expect(closed!.tokens).toBe(open!.tokens);
    expect(closed!.logprobSum).toBeCloseTo(open!.logprobSum, 9);
    expect(open!.pit!.length).toBe(open!.tokens);
    expect(closed!.pit!.length).toBe(closed!.tokens + 1);
    expect(closed!.pit!.slice(0, -1)).toEqual(open!.pit);
    const end = closed!.pit!.at(-1)!;
    expect(end.mass).toBeGreaterThan(0);
    expect(end.below + end.mass).toBeLessThanOrEqual(1);
    expect(bodies.map((b) => b.continue_final_message)).toEqual([false, true]);
  });

  for (const mode of HONEST) {
    it(
      `finds ${mode}'s replies uniform`,
      async () => {
        const a = await auditMode(scorer, mode, { replies: REPLIES, maxTokens: MAX_TOKENS, seed: 11 });
        audits.set(mode, a);
        expect(a.tokens).toBeGreaterThan(3000);
        expect(a.outside_share).toBe(0);
        expect(a.consistent).toBe(true);
      },
      PER_MODE_MS,
    );
  }

  for (const mode of ATTACKS) {
    it(
      `detects ${mode}`,
      async () => {
        const a = await auditMode(scorer, mode, { replies: REPLIES, maxTokens: MAX_TOKENS, seed: 11 });
        audits.set(mode, a);
        expect(a.consistent).toBe(false);
      },
      PER_MODE_MS,
    );
  }
});
