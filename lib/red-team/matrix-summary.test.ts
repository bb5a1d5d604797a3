import { describe, expect, it } from "vitest";
import { GATE_CHECKS, type GateKey, type ResultRecord } from "../gates";
import { formatChance, formatMatrix } from "./format-matrix";
import { assembleMatrix, chanceFailures, verdictOf } from "./matrix";
import { MATRIX_MODES, matrixModes } from "./modes";
import type { PodRun } from "./pod-run";

const KEYS: GateKey[] = ["memory", "fidelity", "likelihood", "argmax", "length"];

function run(mode: string, seed: string, failing: GateKey[], outcome?: PodRun["outcome"]): PodRun {
  const gates = KEYS.map((key) => ({
    key,
    check: GATE_CHECKS[key],
    measured: failing.includes(key) ? "9.9" : "0.1",
    limit: "≤ 1",
    pass: !failing.includes(key),
    reason: failing.includes(key) ? `${key} failed` : null,
  }));
  const record = { gates, specscore: failing.length ? 0 : 1.1, speedup: 1.1 } as unknown as ResultRecord;
  return {
    mode,
    seed,
    // a failed gate is a measurement scored 0: the agent reports it `scored`, with its record
    outcome: outcome ?? "scored",
    reason: failing.length ? `${failing[0]} failed` : null,
    record: outcome === "void" ? null : record,
    wallSeconds: 1,
    logTail: null,
    agentLog: [],
  };
}

describe("matrix verdicts", () => {
  const row = (mode: string) => matrixModes([mode])[0]!;

  it("maps each attack to the gates protocol section 9 names", () => {
    const byMode = Object.fromEntries(MATRIX_MODES.map((m) => [m.mode, m.caughtBy]));
    expect(byMode["loose-accept"]).toEqual(["likelihood", "argmax"]);
    expect(byMode.greedy).toContain("argmax");
    expect(byMode["other-sampling"]).toEqual(expect.arrayContaining(["argmax", "likelihood"]));
    expect(byMode.quantized).toEqual(["fidelity"]);
    expect(byMode["cut-replies"]).toEqual(["length"]);
    expect(byMode["memory-hog"]).toEqual(["memory"]);
    expect(() => matrixModes(["nope"])).toThrow(/unknown matrix mode "nope"/);
  });

  it("counts an attack caught only by its own gate, and an honest row only when every gate passes", () => {
    expect(verdictOf(row("quantized"), run("quantized", "1", ["fidelity"])).asExpected).toBe(true);
    // an agent built before the rule reported the same catch as `failed`: its record decides
    expect(verdictOf(row("quantized"), run("quantized", "1", ["fidelity"], "failed")).asExpected).toBe(true);
    expect(verdictOf(row("quantized"), run("quantized", "1", ["length"])).asExpected).toBe(false);
    expect(verdictOf(row("quantized"), run("quantized", "1", [])).asExpected).toBe(false);
    expect(verdictOf(row("eagle"), run("eagle", "1", [])).asExpected).toBe(true);
    expect(verdictOf(row("eagle"), run("eagle", "1", ["argmax"])).asExpected).toBe(false);
    expect(verdictOf(row("stock"), run("stock", "1", [], "void")).asExpected).toBe(false);
  });

  it("reports chance failures over the A/A and honest runs with a record", () => {
    const rows = matrixModes(["stock", "eagle", "greedy"]);
    const runs = [
      run("stock", "1", []),
      run("eagle", "1", ["length"]),
      run("greedy", "1", ["argmax"]),
      run("stock", "2", []),
      run("eagle", "2", [], "void"),
      run("greedy", "2", ["argmax"]),
    ];
    const result = assembleMatrix("redteam", ["1", "2"], rows, runs);
    expect(result.chance).toEqual({ runs: 3, failed: 1, share: 1 / 3, byGate: { length: 1 }, withoutRecord: 1 });
    expect(chanceFailures([])).toEqual({ runs: 0, failed: 0, share: 0, byGate: {}, withoutRecord: 0 });
    expect(result.cells).toHaveLength(5 * 5);
    const text = formatMatrix(result);
    expect(text).toContain("caught by argmax");
    expect(text).toContain("FAILED length");
    expect(formatChance(result)).toContain("1 of 3 runs failed any gate (33.3%); by gate: length 1");
  });
});
