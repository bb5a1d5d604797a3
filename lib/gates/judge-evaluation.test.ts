import { describe, expect, it } from "vitest";
import type { WorkloadId } from "@/lib/protocol";
import { type EvaluationInputs, judgeEvaluation, type ReplyScore } from "./judge-evaluation";
import type { ReplyLength } from "./stats/length-ratio";
import { normal, seededRandom } from "./stats/seeded-random";

/** Sampled replies from a toy target: ~14% of tokens leave its first choice, as the protocol reports for Qwen3. */
function sampledReplies(seed: number, n: number, opts: { shift?: number; greedy?: boolean } = {}): ReplyScore[] {
  const rand = seededRandom(seed);
  return Array.from({ length: n }, () => {
    const tokens = 20 + Math.floor(rand() * 400);
    let logprobSum = 0;
    let notFirstChoice = 0;
    for (let t = 0; t < tokens; t++) {
      const first = opts.greedy || rand() > 0.14;
      logprobSum += first ? -0.3 * rand() : -1 - 2 * rand();
      if (!first) notFirstChoice++;
    }
    return { tokens, logprobSum: logprobSum + (opts.shift ?? 0) * tokens, notFirstChoice };
  });
}

function timedReplies(seed: number, scale = 1): Record<WorkloadId, { candidate: ReplyLength[]; stock: ReplyLength[] }> {
  const rand = seededRandom(seed);
  const make = (n: number) => {
    const stock: ReplyLength[] = [];
    const candidate: ReplyLength[] = [];
    for (let i = 0; i < n; i++) {
      const key = { pass: i % 3, session: `s${Math.floor(i / 4)}`, turn: i % 4 };
      const natural = () => Math.max(1, Math.round(150 * Math.exp(0.8 * normal(rand))));
      stock.push({ ...key, tokens: natural() });
      candidate.push({ ...key, tokens: Math.round(natural() * scale) });
    }
    return { candidate, stock };
  };
  return { solo: make(300), team: make(1100), busy: make(1900) };
}

const fixedTexts = (seed: number) => {
  const rand = seededRandom(seed);
  return Array.from({ length: 64 }, () => Array.from({ length: 200 }, () => -5 * rand()));
};

function aaInputs(seed: number): EvaluationInputs {
  const greedy = Array.from({ length: 64 }, (_, i) => Array.from({ length: 256 }, (_, j) => (i * 7919 + j) % 151_000));
  const texts = fixedTexts(seed);
  return {
    task: "qwen3-8b",
    passes: { solo: [1.01, 0.99, 1.0], team: [1.0, 1.02, 0.98], busy: [0.99, 1.0, 1.01] },
    checks: {
      greedy: { candidate: greedy, stock: greedy.map((g) => [...g]) },
      sampled: { candidate: sampledReplies(seed * 2 + 1, 512), stock: sampledReplies(seed * 2 + 2, 512) },
      fidelity: { candidate: texts, stock: texts.map((t) => [...t]) },
    },
    lengths: timedReplies(seed),
    memory: { samplesMib: [150_000, 165_500, 164_000], deviceTotalMib: 183_359 },
    startupLog: ["INFO non-default args: {'model': '/target', 'enable_prefix_caching': True}"],
    acceptance: { solo: null, team: null, busy: null },
    reproducibility: {
      profile: "ci",
      seeds: { sessions: seed },
      engine_archive_sha256: "ab".repeat(32),
      speculator_commit: null,
      speculator_sha256: null,
      image: "sim-engine",
      device: "simulated B200",
    },
  };
}

const failing = (inputs: EvaluationInputs) =>
  judgeEvaluation(inputs)
    .gates.filter((g) => !g.pass)
    .map((g) => g.key);

describe("judgeEvaluation", () => {
  it("passes the stock engine against itself on every gate, over several seeds", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const r = judgeEvaluation(aaInputs(seed));
      expect(r.gates.filter((g) => !g.pass)).toEqual([]);
      expect(r.fidelity).toBe(0);
      expect(r.greedy_agreement).toBe(1);
      expect(Math.abs(r.likelihood!.gap)).toBeLessThan(2 * 1.96 * r.likelihood!.se);
      expect(r.lengths.pooled.replies).toBe(3300);
      expect(r.score).toBeCloseTo(1, 2);
      expect(r.reason).toBeNull();
    }
  });

  it("fails loosely accepted drafts by the likelihood", () => {
    const i = aaInputs(1);
    i.checks.sampled.candidate = sampledReplies(3, 512, { shift: -0.3 });
    expect(failing(i)).toContain("likelihood");
    expect(judgeEvaluation(i).score).toBe(0);
  });

  it("fails greedy decoding by the first-choice share", () => {
    const i = aaInputs(1);
    i.checks.sampled.candidate = sampledReplies(3, 512, { greedy: true });
    expect(failing(i)).toContain("argmax");
  });

  it("fails a perturbed target by fidelity, and a drifting greedy decode by agreement", () => {
    const i = aaInputs(1);
    i.checks.fidelity.candidate = fixedTexts(1).map((t) => t.map((x) => x + 0.05));
    i.checks.greedy.candidate = i.checks.greedy.stock.map((g) => [...g!.slice(0, 40), 1, ...g!.slice(41)]);
    const r = judgeEvaluation(i);
    expect(r.fidelity).toBeCloseTo(0.05, 10);
    expect(r.greedy_agreement).toBeCloseTo(40 / 256, 10);
    expect(failing(i)).toEqual(["fidelity", "greedy"]);
    expect(r.reason).toMatch(/fixed texts/);
  });

  it("fails replies cut short by length", () => {
    const i = aaInputs(1);
    i.lengths = timedReplies(1, 0.5);
    const r = judgeEvaluation(i);
    expect(failing(i)).toEqual(["length"]);
    expect(r.lengths.pooled.high!).toBeLessThan(0.95);
  });

  it("fails memory beyond the budget and offload in the start-up log", () => {
    const i = aaInputs(1);
    i.memory.samplesMib = [170_000];
    i.startupLog = ["+ vllm serve /target --cpu-offload-gb 16"];
    const r = judgeEvaluation(i);
    expect(failing(i)).toEqual(["memory", "offload"]);
    expect(r.reason).toMatch(/host memory/);
    expect(r.offload.findings[0]!.kind).toBe("weights");
  });

  it("records each engine's peak over the timed passes and the candidate's start-up peak, gating only the first", () => {
    const i = aaInputs(1);
    i.memory.stockSamplesMib = [160_000, 168_200, 161_000];
    i.memory.startupSamplesMib = [40_000, 178_500, 120_000];
    const r = judgeEvaluation(i);
    expect(r.memory).toEqual({
      ok: true,
      peak_mib: 165_500,
      allowed_mib: 169_119.1,
      stock_peak_mib: 168_200,
      startup_peak_mib: 178_500,
      device_mib: 183_359,
      gpu_memory_utilization: 0.9,
    });
    expect(failing(i)).toEqual([]);
    // an engine never sampled shows no peak rather than a made-up one
    i.memory.stockSamplesMib = [];
    expect(judgeEvaluation(i).memory.stock_peak_mib).toBeNull();
  });

  it("fails an engine that leaves more than 10% of a check unanswered and voids one whose stock engine does", () => {
    const i = aaInputs(1);
    i.checks.fidelity.candidate = i.checks.fidelity.candidate.map((t, k) => (k < 7 ? null : t));
    expect(failing(i)).toEqual(["answers"]);
    expect(judgeEvaluation(i).answers.fidelity.candidate).toEqual({ requests: 64, unanswered: 7 });
    const v = aaInputs(1);
    v.checks.sampled.stock = v.checks.sampled.stock.map((s, k) => (k < 60 ? null : s));
    const r = judgeEvaluation(v);
    expect(r.void).not.toBeNull();
    expect(r.score).toBeNull();
  });

  it("applies the failed-requests rule to a pass given as speeds", () => {
    const i = aaInputs(1);
    i.passes.solo = [
      { candidateSpeed: 200, stockSpeed: 100, candidateFailed: 0, stockFailed: 0, requests: 50 },
      { candidateSpeed: 200, stockSpeed: 100, candidateFailed: 5, stockFailed: 0, requests: 50 },
      { candidateSpeed: 210, stockSpeed: 100, candidateFailed: 5, stockFailed: 0, requests: 50 },
    ];
    const r = judgeEvaluation(i);
    expect(r.ratios.solo).toEqual({ passes: [2, 0, 0], ratio: 0 });
    expect(r.score).toBe(0);
    // every gate passed: the 0 still says why, in the protocol's words
    expect(r.gates.every((g) => g.pass)).toBe(true);
    expect(r.reason).toBe("the candidate failed more requests than the stock engine on most passes of solo");
    expect(r.void).toBeNull();
  });

  it("keeps a score above 0 when only one pass of a workload breaks the failed-requests rule", () => {
    const i = aaInputs(1);
    i.passes.team = [
      { candidateSpeed: 200, stockSpeed: 100, candidateFailed: 0, stockFailed: 0, requests: 50 },
      { candidateSpeed: 200, stockSpeed: 100, candidateFailed: 9, stockFailed: 1, requests: 50 },
      { candidateSpeed: 220, stockSpeed: 100, candidateFailed: 3, stockFailed: 1, requests: 50 },
    ];
    const r = judgeEvaluation(i);
    expect(r.ratios.team).toEqual({ passes: [2, 0, 2.2], ratio: 2 });
    expect(r.score).toBeGreaterThan(0);
    expect(r.reason).toBeNull();
  });

  it("records the engine's acceptance with whether it is possible, shown and never scored", () => {
    const i = aaInputs(1);
    i.acceptance = {
      solo: { tokensPerStep: 2.6, credible: true, why: null },
      team: { tokensPerStep: 5.5, credible: false, why: "it reports more tokens accepted (900) than drafted (600)" },
      busy: 2.1,
    };
    const r = judgeEvaluation(i);
    expect(r.acceptance).toEqual({ solo: 2.6, team: 5.5, busy: 2.1 });
    expect(r.acceptance_report).toEqual({
      solo: { credible: true, why: null },
      team: { credible: false, why: "it reports more tokens accepted (900) than drafted (600)" },
      busy: { credible: true, why: null },
    });
    expect(r.score).toBe(judgeEvaluation(aaInputs(1)).score);
  });

  it("shows the sampling audit of both engines' audited replies beside the gates, never gating on it", () => {
    const exact = (n: number, seed: number) => {
      const rand = seededRandom(seed);
      // two-token supports (0.7, 0.3) sampled exactly: u uniform
      return Array.from({ length: n }, () =>
        rand() < 0.7 ? { below: 0, mass: 0.7 * (1 - 1e-4) } : { below: 0.7 * (1 - 1e-4), mass: 0.3 * (1 - 1e-4) },
      );
    };
    const greedy = (n: number) => Array.from({ length: n }, () => ({ below: 0, mass: 0.7 * (1 - 1e-4) }));
    const i = aaInputs(2);
    const withPit = (scores: readonly (ReplyScore | null)[], pit: (k: number) => ReplyScore["pit"]) =>
      scores.map((s, k) => (s ? { ...s, pit: pit(k) } : s));
    i.checks.sampled = {
      candidate: withPit(i.checks.sampled.candidate, () => greedy(20)),
      stock: withPit(i.checks.sampled.stock, (k) => exact(20, k + 1)),
    };
    const r = judgeEvaluation(i);
    expect(r.sampling_audit?.gated).toBe(false);
    expect(r.sampling_audit?.sampling).toEqual({ temperature: 0.7, top_k: 20, top_p: 0.8 });
    expect(r.sampling_audit?.candidate).toMatchObject({ replies: 512, tokens: 512 * 20, consistent: false });
    expect(r.sampling_audit?.stock).toMatchObject({ replies: 512, consistent: true });
    // the gates and the score are what they are without it
    expect(r.gates).toEqual(judgeEvaluation(aaInputs(2)).gates);
    expect(r.score).toBe(judgeEvaluation(aaInputs(2)).score);
    // no audited reply: nothing to show
    expect(judgeEvaluation(aaInputs(2)).sampling_audit).toBeNull();
  });
});
