import { describe, expect, it } from "vitest";
import { buildRecord, type MeasuredFigures } from "../../gates/record/build-record";
import seed from "../../gates/record/fixtures/seed-004-record.json";
import { formatGateLine, gateLines, limitUsed, scoreLines } from "./gate-lines";

const all = (requests: number, unanswered = 0) => ({
  candidate: { requests, unanswered },
  stock: { requests, unanswered: 0 },
});

/** The seed evaluation's figures (004_91af2615faed1fb9.txt), every gate passed with room to spare. */
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

const verdicts = (figures: Partial<MeasuredFigures>) =>
  Object.fromEntries(gateLines(buildRecord({ ...seedFigures, ...figures })).map((l) => [l.key, l.verdict]));

describe("the local kit's gate lines", () => {
  it("prints ok for every gate of the seed evaluation, with the evaluation page's figures and limits", () => {
    const record = buildRecord(seedFigures);
    const lines = gateLines(record);
    expect(lines.map((l) => l.verdict)).toEqual(Array(8).fill("ok"));
    expect(lines.map(formatGateLine)).toContain(
      `ok    device memory                   162.5 GiB                limit ≤ 165.2 GiB`,
    );
    expect(scoreLines(record)).toEqual([
      "ratios: solo 2.87× (passes 2.87, 2.65, 2.88) · team 1.61× (passes 1.80, 1.60, 1.61) · busy 1.61× (passes 1.65, 1.55, 1.61)",
      "SpecScore 1.952 (speedup 1.952 whatever the gates say)",
    ]);
  });

  it("warns where a gate passed with less than a quarter of its limit to spare", () => {
    const allowed = seed.memory.allowed_mib;
    expect(verdicts({ memory: { peak_mib: allowed - 500, allowed_mib: allowed } }).memory).toBe("warn");
    expect(verdicts({ memory: { peak_mib: allowed - 1500, allowed_mib: allowed } }).memory).toBe("ok");
    expect(verdicts({ fidelity: 0.0009 }).fidelity).toBe("warn");
    expect(verdicts({ fidelity: 0.0005 }).fidelity).toBe("ok");
    // an interval 0.0162 from 0 against a bound of 0.02: inside it, 81% of it used
    const near = { gap: 0.026, se: 0.005, candidate: -0.6, stock: -0.626 };
    expect(verdicts({ likelihood: near }).likelihood).toBe("warn");
    expect(verdicts({ argmax: { ...near, gap: 0.0035, se: 0.0005 } }).argmax).toBe("warn");
    expect(verdicts({ greedyAgreement: 0.55 }).greedy).toBe("warn");
    expect(verdicts({ greedyAgreement: 0.7 }).greedy).toBe("ok");
    const pooled = { ratio: 1.07, low: 1.04, high: 1.1, paired: true as const, replies: 3000 };
    expect(verdicts({ lengths: { ...seed.lengths, pooled } }).length).toBe("warn");
    expect(verdicts({ answers: { greedy: all(64, 6), likelihood: all(512), fidelity: all(64) } }).answers).toBe("warn");
    const line = gateLines(buildRecord({ ...seedFigures, fidelity: 0.0009 })).find((l) => l.key === "fidelity")!;
    expect(formatGateLine(line)).toMatch(
      /^warn {2}fixed texts' log-probabilities .* limit ≤ 0\.001 {2}\(within a quarter of its limit \(90% of it used\)\)$/,
    );
  });

  it("prints FAIL with the board's reason where a gate failed, and the score the failure gives", () => {
    const record = buildRecord({ ...seedFigures, fidelity: 0.0981 });
    const fail = gateLines(record).find((l) => l.key === "fidelity")!;
    expect(fail).toMatchObject({ verdict: "FAIL", measured: "0.0981", limit: "≤ 0.001" });
    expect(formatGateLine(fail)).toContain(
      "(the target's log-probabilities on fixed texts differ from the stock engine's)",
    );
    expect(scoreLines(record)[1]).toBe(
      "SpecScore 0.000: the target's log-probabilities on fixed texts differ from the stock engine's (speedup 1.952 whatever the gates say)",
    );
    expect(verdicts({ answers: { greedy: all(64, 7), likelihood: all(512), fidelity: all(64) } }).answers).toBe("FAIL");
    expect(verdicts({ greedyAgreement: 0.4 }).greedy).toBe("FAIL");
  });

  it("measures a task without a greedy floor by nothing, and says so with ok", () => {
    const record = buildRecord({ ...seedFigures, task: "qwen35-27b", greedyAgreement: 0.3 });
    expect(limitUsed(record, "greedy")).toBeNull();
    expect(gateLines(record).find((l) => l.key === "greedy")!.verdict).toBe("ok");
  });
});
