import { describe, expect, it } from "vitest";
import { gateAnchor } from "./gate-anchor";
import { pairPassSpeeds } from "./pass-speeds";
import { orderedRecord } from "./record-order";

const row = (engine: string, workload: string, pass: number, speed: number) => ({
  engine,
  workload,
  pass,
  speed,
  requests: 1,
  failed: 0,
  outputTokens: 1,
});

describe("pairPassSpeeds", () => {
  it("pairs candidate and stock per pass, in workload then pass order", () => {
    expect(
      pairPassSpeeds([
        row("stock", "busy", 1, 50),
        row("candidate", "solo", 2, 300),
        row("candidate", "busy", 1, 80),
        row("stock", "solo", 2, 100),
      ]),
    ).toEqual([
      { workload: "solo", pass: 2, candidate: 300, stock: 100 },
      { workload: "busy", pass: 1, candidate: 80, stock: 50 },
    ]);
  });
});

describe("gateAnchor", () => {
  it("finds a gate's explanation by key or by its check's name", () => {
    expect(gateAnchor("argmax", "whatever")).toBe("argmax");
    expect(gateAnchor(null, "reply lengths")).toBe("length");
    expect(gateAnchor(null, "unknown")).toBe("");
  });
});

describe("orderedRecord", () => {
  it("puts the record's fields in the judge's order, unknown ones last", () => {
    const ordered = orderedRecord({
      zz: 1,
      score: 2,
      gates: [],
      ratios: { busy: { ratio: 1, passes: [1] }, solo: { ratio: 2, passes: [2] } },
      specscore: 2,
    }) as Record<string, Record<string, Record<string, unknown>>>;
    expect(Object.keys(ordered)).toEqual(["ratios", "specscore", "score", "gates", "zz"]);
    expect(Object.keys(ordered.ratios!)).toEqual(["solo", "busy"]);
    expect(Object.keys(ordered.ratios!.solo!)).toEqual(["passes", "ratio"]);
    expect(orderedRecord(null)).toBeNull();
  });
});
