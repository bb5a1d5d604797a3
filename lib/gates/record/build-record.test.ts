import { describe, expect, it } from "vitest";
import { buildRecord, type MeasuredFigures } from "./build-record";
import seed from "./fixtures/seed-004-record.json";
import { resultRecordSchema } from "./schema";

const all = (requests: number) => ({
  candidate: { requests, unanswered: 0 },
  stock: { requests, unanswered: 0 },
});

/** The seed evaluation's figures (004_91af2615faed1fb9.txt, "Everything the judge recorded"). */
const seedFigures: MeasuredFigures = {
  task: "qwen3-8b",
  passes: { solo: seed.ratios.solo.passes, team: seed.ratios.team.passes, busy: seed.ratios.busy.passes },
  greedyAgreement: seed.greedy_agreement,
  likelihood: seed.likelihood,
  argmax: seed.argmax,
  fidelity: seed.fidelity,
  lengths: seed.lengths,
  memory: { peak_mib: seed.memory.peak_mib, allowed_mib: seed.memory.allowed_mib },
  offload: [],
  answers: { greedy: all(64), likelihood: all(512), fidelity: all(64) },
  acceptance: seed.acceptance,
  reproducibility: {
    profile: "full",
    seeds: { sessions: 1 },
    engine_archive_sha256: null,
    speculator_commit: null,
    speculator_sha256: null,
    image: "vllm/vllm-openai:0.25.1",
    device: "1 × B200",
  },
};

describe("buildRecord on the seed evaluation", () => {
  const record = buildRecord(seedFigures);

  it("reproduces every field of the recorded JSON, verdicts and score included", () => {
    const {
      gates: _g,
      speedup: _s,
      void: _v,
      offload: _o,
      answers: _a,
      latency: _l,
      cache_hits: _c,
      reproducibility: _r,
      ...seedShaped
    } = record;
    expect(seedShaped).toEqual(seed);
    expect(record.score).toBe(1.9517210776966265);
    expect(record.specscore).toBe(1.9517210776966265);
    expect(record.reason).toBeNull();
    expect(record.void).toBeNull();
  });

  it("writes the gate table as the evaluation page does", () => {
    const row = (key: string) => record.gates.find((g) => g.key === key)!;
    expect(row("memory")).toMatchObject({
      check: "device memory",
      measured: "162.5 GiB",
      limit: "≤ 165.2 GiB",
      pass: true,
    });
    expect(row("fidelity")).toMatchObject({
      check: "fixed texts' log-probabilities",
      measured: "0",
      limit: "≤ 0.001",
      pass: true,
    });
    expect(row("likelihood")).toMatchObject({ measured: "-0.0552 ± 0.0839", limit: "within ±0.02 at 95%", pass: true });
    expect(row("argmax")).toMatchObject({ measured: "+0.0081 ± 0.0149", limit: "within ±0.003 at 95%", pass: true });
    expect(row("greedy")).toMatchObject({ measured: "0.976", limit: "≥ 0.5", pass: true });
    expect(row("length")).toMatchObject({ measured: "1.000 [0.915, 1.084]", limit: "1 ± 0.05 at 95%", pass: true });
    expect(record.gates.every((g) => g.pass && g.reason === null)).toBe(true);
    expect(record.gates.map((g) => g.key)).toEqual([
      "memory",
      "offload",
      "fidelity",
      "likelihood",
      "argmax",
      "greedy",
      "length",
      "answers",
    ]);
  });

  it("is valid under the schema and round-trips through JSON", () => {
    expect(resultRecordSchema.parse(JSON.parse(JSON.stringify(record)))).toEqual(record);
  });
});

describe("buildRecord verdicts", () => {
  const failing: [string, Partial<MeasuredFigures>, string][] = [
    ["memory", { memory: { peak_mib: 0.97 * 183_359, allowed_mib: 169_119.1 } }, "more device memory"],
    [
      "offload",
      {
        offload: [
          { kind: "weights", what: "weights offloaded to host memory (cpu_offload_gb)", line: "cpu_offload_gb: 8" },
        ],
      },
      "host memory",
    ],
    ["fidelity", { fidelity: 0.087 }, "fixed texts"],
    ["likelihood", { likelihood: { gap: -0.47, se: 0.03, candidate: -1.1, stock: -0.63 } }, "more or less likely"],
    ["argmax", { argmax: { gap: -0.13, se: 0.004, candidate: 0.01, stock: 0.14 } }, "first choice"],
    ["greedy", { greedyAgreement: 0.18 }, "greedy replies"],
    [
      "length",
      { lengths: { ...seed.lengths, pooled: { ratio: 0.7, low: 0.65, high: 0.75, paired: true, replies: 3000 } } },
      "longer or shorter",
    ],
    [
      "answers",
      { answers: { ...seedFigures.answers, greedy: { ...all(64), candidate: { requests: 64, unanswered: 7 } } } },
      "unanswered",
    ],
  ];
  for (const [key, change, words] of failing) {
    it(`fails the ${key} gate with its reason and scores 0`, () => {
      const r = buildRecord({ ...seedFigures, ...change });
      expect(r.gates.filter((g) => !g.pass).map((g) => g.key)).toEqual([key]);
      expect(r.score).toBe(0);
      expect(r.specscore).toBe(0);
      expect(r.speedup).toBe(1.9517210776966265);
      expect(r.reason).toContain(words);
    });
  }

  it("keeps the seed board's wording for the likelihood", () => {
    const r = buildRecord({ ...seedFigures, likelihood: { gap: -0.096, se: 0.0148, candidate: -0.75, stock: -0.654 } });
    expect(r.reason).toBe("sampled replies are more or less likely under the target than the stock engine's");
  });

  it("names the first failing gate in order when several fail", () => {
    const r = buildRecord({
      ...seedFigures,
      greedyAgreement: 0.18,
      argmax: { gap: 0.019, se: 0.003, candidate: 0.16, stock: 0.141 },
      likelihood: { gap: -0.096, se: 0.0148, candidate: -0.75, stock: -0.654 },
    });
    expect(r.gates.filter((g) => !g.pass).map((g) => g.key)).toEqual(["likelihood", "argmax", "greedy"]);
    expect(r.reason).toMatch(/more or less likely/);
  });

  it("voids the evaluation when the stock engine leaves more than 10% unanswered", () => {
    const r = buildRecord({
      ...seedFigures,
      answers: { ...seedFigures.answers, fidelity: { ...all(64), stock: { requests: 64, unanswered: 10 } } },
    });
    expect(r.score).toBeNull();
    expect(r.specscore).toBeNull();
    expect(r.void).toMatch(/void/);
    expect(r.reason).toBe(r.void);
  });

  it("has no greedy floor on qwen35-27b", () => {
    const r = buildRecord({ ...seedFigures, task: "qwen35-27b", greedyAgreement: 0.18, fidelity: 0.0125 });
    const greedy = r.gates.find((g) => g.key === "greedy")!;
    expect(greedy).toMatchObject({ limit: "none", pass: true });
    expect(r.limits).toMatchObject({ greedy_agreement_floor: null, fidelity_ceiling: 0.017 });
    expect(r.score).toBe(1.9517210776966265);
  });

  it("fails what it could not measure", () => {
    const r = buildRecord({ ...seedFigures, likelihood: null, fidelity: null });
    expect(r.gates.filter((g) => !g.pass).map((g) => g.key)).toEqual(["fidelity", "likelihood"]);
    expect(r.gates.find((g) => g.key === "likelihood")!.measured).toBe("not measured");
  });
});
