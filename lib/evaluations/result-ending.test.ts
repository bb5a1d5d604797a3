import { describe, expect, it } from "vitest";
import { GATE_REASONS, VOID_REASON } from "../gates/record/reasons";
import type { AgentEvent } from "../pods/agent/events";
import { resultEnding } from "./result-ending";

type PodResult = Extract<AgentEvent, { type: "result" }>;
const result = (over: Partial<PodResult>): PodResult => ({
  type: "result",
  outcome: "scored",
  reason: null,
  record: null,
  ...over,
});

describe("resultEnding: the board's rules on a pod's result", () => {
  it("scores a record that passed every gate at its SpecScore, with no reason", () => {
    expect(resultEnding(result({ record: { score: 1.42, reason: null } }))).toEqual({
      status: "scored",
      specscore: 1.42,
      reason: null,
      refund: false,
    });
  });

  it("scores a gate failure 0 with the gate's reason, whether the agent says scored or (built earlier) failed", () => {
    const record = { score: 0, reason: GATE_REASONS.fidelity };
    const ending = { status: "scored", specscore: 0, reason: GATE_REASONS.fidelity, refund: false };
    expect(resultEnding(result({ record, reason: GATE_REASONS.fidelity }))).toEqual(ending);
    expect(resultEnding(result({ outcome: "failed", record, reason: GATE_REASONS.fidelity }))).toEqual(ending);
  });

  it("scores a candidate that did not start or died 0 with its reason: scored without a record", () => {
    expect(resultEnding(result({ reason: "the candidate engine died during team" }))).toEqual({
      status: "scored",
      specscore: 0,
      reason: "the candidate engine died during team",
      refund: false,
    });
  });

  it("keeps what could not be measured because of the participant failed: charged, not scored", () => {
    expect(resultEnding(result({ outcome: "failed", reason: "the candidate's plugin/ did not install: x" }))).toEqual({
      status: "failed",
      specscore: null,
      reason: "the candidate's plugin/ did not install: x",
      refund: false,
    });
  });

  it("voids and refunds the arena's faults, and a result it cannot read", () => {
    expect(resultEnding(result({ outcome: "void", reason: "the stock engine did not start" }))).toMatchObject({
      status: "void",
      reason: "the stock engine did not start",
      refund: true,
    });
    expect(resultEnding(result({ outcome: "scored", record: { score: null, void: VOID_REASON } }))).toMatchObject({
      status: "void",
      reason: VOID_REASON,
      refund: true,
    });
    expect(resultEnding(result({ record: { reason: "x" } }))).toMatchObject({ status: "void", refund: true });
    expect(resultEnding(result({ outcome: "failed" }))).toMatchObject({ status: "void", refund: true });
  });

  it("never leaves a 0 without a reason", () => {
    expect(resultEnding(result({ record: { score: 0, reason: null } }))).toMatchObject({
      status: "scored",
      specscore: 0,
      reason: "a workload's speedup is 0",
    });
  });
});
