import { describe, expect, it } from "vitest";
import { buildRecord } from "../gates/record/build-record";
import { resultView } from "./result-view";
import { verdictLine, verdictOf } from "./verdict";

describe("verdictOf", () => {
  it("says passed for a score every gate passed", () => {
    const v = verdictOf(
      resultView({ score: 1.3, reason: null, gates: [{ check: "x", measured: "1", limit: "2", pass: true }] }),
    );
    expect(v).toEqual({ kind: "passed" });
    expect(verdictLine(v)).toBe("Passed every gate.");
  });

  it("says failed with the gate's reason for a gate failure (the seed board's n-gram on qwen35-27b)", () => {
    const reason = "sampled replies are more or less likely under the target than the stock engine's";
    const v = verdictOf(
      resultView({
        score: 0,
        reason,
        ratios: {
          solo: { passes: [1.25], ratio: 1.25 },
          team: { passes: [0.61], ratio: 0.61 },
          busy: { passes: [0.66], ratio: 0.66 },
        },
        gates: [
          {
            check: "sampled replies' likelihood",
            measured: "-0.096 ± 0.057",
            limit: "within ±0.02 at 95%",
            pass: false,
          },
        ],
      }),
    );
    expect(v).toEqual({ kind: "failed", gate: true, reason });
    expect(verdictLine(v)).toBe(`Failed a gate: ${reason}.`);
  });

  it("says failed, not by a gate, for a 0 with every gate passed: the failed-requests rule", () => {
    const reason = "the candidate failed more requests than the stock engine on most passes of busy";
    const v = verdictOf(
      resultView({ score: 0, reason, gates: [{ check: "x", measured: "1", limit: "2", pass: true }] }),
    );
    expect(v).toEqual({ kind: "failed", gate: false, reason });
    expect(verdictLine(v)).toBe(`Scored 0: ${reason}.`);
  });

  it("says failed for a candidate that did not start: a score of 0 and a reason, no record", () => {
    const view = resultView({ score: 0, reason: "the candidate engine did not start: it exited (code 3)" });
    expect(verdictOf(view && { ...view, lossless: null })).toEqual({
      kind: "failed",
      gate: false,
      reason: "the candidate engine did not start: it exited (code 3)",
    });
  });

  it("reads the judge's own record of a failed gate as failed, with the gate's sentence", () => {
    const record = buildRecord({
      task: "qwen3-8b",
      passes: { solo: [1.2, 1.1, 1.3], team: [1, 1, 1], busy: [1, 1, 1] },
      greedyAgreement: 0.9,
      likelihood: { gap: 0, se: 0.001, candidate: -0.7, stock: -0.7 },
      argmax: { gap: 0, se: 0.0001, candidate: 0.1, stock: 0.1 },
      fidelity: 0.5,
      lengths: Object.fromEntries(
        ["solo", "team", "busy", "pooled"].map((w) => [
          w,
          { ratio: 1, low: 0.99, high: 1.01, paired: true, replies: 900 },
        ]),
      ) as never,
      memory: { peak_mib: 1000, allowed_mib: 2000 },
      offload: [],
      answers: {
        greedy: { candidate: { requests: 8, unanswered: 0 }, stock: { requests: 8, unanswered: 0 } },
        likelihood: { candidate: { requests: 8, unanswered: 0 }, stock: { requests: 8, unanswered: 0 } },
        fidelity: { candidate: { requests: 8, unanswered: 0 }, stock: { requests: 8, unanswered: 0 } },
      },
      acceptance: { solo: null, team: null, busy: null },
      reproducibility: {
        profile: "ci",
        seeds: {},
        engine_archive_sha256: null,
        speculator_commit: null,
        speculator_sha256: null,
        image: "sim",
        device: "sim",
      },
    });
    expect(verdictOf(resultView(record))).toEqual({
      kind: "failed",
      gate: true,
      reason: "the target's log-probabilities on fixed texts differ from the stock engine's",
    });
  });

  it("says nothing without a result or a score", () => {
    expect(verdictOf(null)).toBeNull();
    expect(verdictOf(resultView({ score: null, void: "the stock engine left more than 10%" }))).toBeNull();
    expect(verdictLine(null)).toBe("Not scored.");
  });
});
