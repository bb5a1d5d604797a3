import { describe, expect, it } from "vitest";
import {
  allowedMemoryMib,
  CURRENT_VERSION,
  currentProtocol,
  failedRequestsAllowance,
  getProfile,
  getProtocol,
  getTask,
  lanesFor,
  maxNumSeqs,
  PROTOCOL_V1,
} from "./index";

// Every value below is read off the seed protocol (shared/seeds/000_116579a692c0f7cf.txt), section by section.
describe("protocol version 1 pins the seed's values", () => {
  const p = PROTOCOL_V1;
  const a = getTask("qwen3-8b");
  const b = getTask("qwen35-27b");

  it("is the version in force and is served by version", () => {
    expect(CURRENT_VERSION).toBe("1");
    expect(currentProtocol()).toBe(p);
    expect(getProtocol("1")).toBe(p);
    expect(getProtocol("0")).toBeUndefined();
  });

  it("section 1: tasks, targets, GPU, windows, attention", () => {
    expect(a.target).toEqual({
      repository: "Qwen/Qwen3-8B",
      revision: "b968826d9c46dd6066d109eabc6255188de91218",
      dtype: "bfloat16",
      textOnly: false,
    });
    expect(b.target).toEqual({
      repository: "Qwen/Qwen3.5-27B",
      revision: "fc05daec18b0a78c049392ed2e771dde82bdf654",
      dtype: "bfloat16",
      textOnly: true,
    });
    expect([a.gpu, b.gpu]).toEqual(["1 × B200", "1 × B200"]);
    expect([a.maxModelLen, b.maxModelLen]).toEqual([40_960, 131_072]);
    expect(a.attention).toEqual({ full: 36, linear: 0, linearKind: null });
    expect(b.attention).toEqual({ full: 16, linear: 48, linearKind: "Gated DeltaNet" });
    expect([a.languageModelOnly, b.languageModelOnly]).toEqual([false, true]);
    expect(p.image.vllmRelease).toBe("0.25.1");
    expect(p.image.vllmCommit).toBe("7a33ba95f");
    expect(p.sampling.enableThinking).toBe(false);
  });

  it("section 2: submission limits", () => {
    expect(p.submission.engineInlineMaxChars).toBe(2_800_000);
    expect(p.submission.engineRepositoryMaxBytes).toBe(200 * 1024 * 1024);
    expect(p.submission.speculatorFiles).toEqual(["*.json", "*.safetensors"]);
    expect(p.submission.speculatorMaxShareOfTarget).toBe(0.5);
    expect(new RegExp(p.submission.revisionPattern).test("b968826d9c46dd6066d109eabc6255188de91218")).toBe(true);
    expect(new RegExp(p.submission.revisionPattern).test("main")).toBe(false);
  });

  it("section 3: the engine's environment", () => {
    expect(p.engine.gpuMemoryUtilization).toBe(0.9);
    expect(p.engine.prefixCaching).toBe(true);
    expect(p.engine.environment).toEqual(
      expect.arrayContaining([
        "TARGET",
        "ARTIFACT",
        "SPECULATOR",
        "TOKENIZER",
        "GENERATION_CONFIG",
        "PORT",
        "SERVED_NAME",
      ]),
    );
    expect(p.engine.environment).toEqual(
      expect.arrayContaining([
        "MAX_MODEL_LEN",
        "MAX_NUM_SEQS",
        "GPU_MEMORY_UTILIZATION",
        "PREFIX_CACHING",
        "LANGUAGE_MODEL_ONLY",
      ]),
    );
  });

  it("section 4: workloads, lanes, interleave, passes, think time, sampling, window", () => {
    expect(a.lanes).toEqual({ solo: 1, team: 8, busy: 20 });
    expect(b.lanes).toEqual({ solo: 1, team: 4, busy: 10 });
    expect([p.workloads.solo.interleave, p.workloads.team.interleave, p.workloads.busy.interleave]).toEqual([1, 2, 2]);
    expect([p.workloads.solo.passSeconds, p.workloads.team.passSeconds, p.workloads.busy.passSeconds]).toEqual([
      150, 180, 240,
    ]);
    expect(p.passes).toBe(3);
    expect(p.thinkTime.capSeconds).toBe(300);
    expect(a.busy).toEqual({ kvCacheTokens: 1_050_000, sessionFootprintTokens: 21_700, fillShare: 0.85 });
    expect(b.busy).toEqual({ kvCacheTokens: 1_700_000, sessionFootprintTokens: 73_000, fillShare: 0.85 });
    expect(p.sampling).toEqual({ temperature: 0.7, topP: 0.8, topK: 20, seedPerRequest: true, enableThinking: false });
    expect(p.window).toEqual({ overheadShare: 0.05, overheadTokens: 128, cutTo: 0.5, cutAfterFirstMessage: true });
  });

  it("section 6: the lossless gate's limits per task", () => {
    expect(a.gates.fidelityCeiling.value).toBe(1e-3);
    expect(b.gates.fidelityCeiling.value).toBe(0.017);
    expect([a.gates.likelihoodBound.value, b.gates.likelihoodBound.value]).toEqual([0.02, 0.02]);
    expect([a.gates.argmaxBound.value, b.gates.argmaxBound.value]).toEqual([0.003, 0.003]);
    expect([a.gates.greedyAgreementFloor.value, b.gates.greedyAgreementFloor.value]).toEqual([0.5, null]);
    expect([a.gates.memorySlackMib.value, b.gates.memorySlackMib.value]).toEqual([4096, 4096]);
    expect(p.gates.z).toBe(1.96);
    expect(p.gates.greedy).toEqual({ probes: 64, temperature: 0, maxTokens: 256, oneAtATime: true });
    expect(p.gates.likelihood).toEqual({ replies: 512, contextTokens: 3000, replyChars: 2000 });
    expect(p.gates.fidelity.texts).toBe(64);
    expect(p.gates.length).toEqual({ margin: 0.05, confidence: 0.95, pooled: true });
    expect(p.gates.unansweredShare).toBe(0.1);
    expect(p.engine.checksGpuMemoryUtilization).toBe(0.8);
  });

  it("section 7: engine rules", () => {
    expect(p.engine.healthTimeoutSeconds).toBe(30 * 60);
    expect(p.engine.stopGraceSeconds).toBe(120);
    expect(p.engine.deviceIdleMib).toBe(2048);
    expect(p.engine.deviceIdleTimeoutSeconds).toBe(120);
    expect(p.engine.memorySampleSeconds).toBe(0.5);
    // "more than 2 or 1% of the pass's requests": the larger of the two.
    expect(failedRequestsAllowance(100)).toBe(2);
    expect(failedRequestsAllowance(1000)).toBe(10);
    // The seed's evaluation: 0.9 of a 183,359 MiB device plus 4 GiB is 169,119.1 MiB allowed.
    expect(allowedMemoryMib(183_359, 0.9, 4096)).toBeCloseTo(169_119.1, 1);
  });

  it("section 8: budgets", () => {
    expect(p.budgets.participant).toEqual({ dev: 20, test: 3 });
    expect(p.budgets.study).toEqual({ dev: 6, test: 1 });
  });

  it("section 10: the A/A speed noise", () => {
    expect(a.speedNoise).toEqual({ meanAbsError: 0.0091, maxAbsError: 0.02, evaluations: 4 });
    expect(b.speedNoise).toEqual({ meanAbsError: 0.0123, maxAbsError: 0.022, evaluations: 4 });
  });

  it("section 11: reference speculators", () => {
    expect(a.references.map((r) => [r.kind, r.tokens, r.checkpoint])).toEqual([
      ["other", null, null],
      ["ngram", 4, null],
      ["draft", 4, "Qwen/Qwen3-0.6B"],
      ["eagle3", 3, "RedHatAI/Qwen3-8B-speculator.eagle3"],
    ]);
    expect(b.references.map((r) => [r.kind, r.tokens])).toEqual([
      ["other", null],
      ["ngram", 4],
      ["mtp", 1],
      ["mtp", 2],
      ["mtp", 3],
    ]);
  });

  it("profiles shorten runs and only cap lanes", () => {
    const full = getProfile("full")!;
    expect(full.passSeconds).toEqual({ solo: 150, team: 180, busy: 240 });
    expect(full.likelihoodReplies).toBe(512);
    const ci = getProfile("ci")!;
    expect(lanesFor(a, "busy", ci)).toBe(6);
    expect(lanesFor(a, "busy", full)).toBe(20);
    expect(maxNumSeqs(a, full)).toBe(20);
    expect(maxNumSeqs(b, full)).toBe(10);
    expect(getProfile("nope")).toBeUndefined();
  });
});
